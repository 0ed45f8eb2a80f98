// ReportError is a failure to verify a report, with its reason class.
//
// The classes are those of appraise verify (cmd/appraise/verify.go and the
// schema package's sentinel errors), so that a script can hold the page's
// verdict against the CLI's:
//   malformed  - not strict JSON, or members or types the format does not have
//   invalid    - a rule of the format fails (the signature block's included)
//   signature  - the Ed25519 signature does not verify over the canonical payload
//   box        - a card's box report is missing, altered, or signed by another key
//   key        - the signing key is not the pinned key (or its tenant differs)
//   run        - a run's directory lacks a card of a device its box lists
export class ReportError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}
