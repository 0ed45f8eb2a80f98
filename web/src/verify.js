// Verification of appraise reports, in the order appraise verify checks
// them (schema.ReadCard/ReadBox, then cmd/appraise's trust and box-link
// policy), so that the page and the CLI reach the same verdict for the
// same reason class:
//
//  1. strict JSON (UTF-8, no duplicate members, no lone surrogates, no
//     trailing data, finite numbers)                          malformed
//  2. the envelope: only "payload" and "signature", the signature block
//     of strings only                                         malformed
//  3. the signature block's rules (alg, key and signature sizes) invalid
//  4. the payload's members and types (JSON Schema, with absent members
//     and nulls allowed, as a reader decodes them)            malformed
//  5. Ed25519 over the RFC 8785 canonical payload              signature
//  6. the payload has every member and no null (the whole JSON Schema:
//     appraise re-encodes what it read and requires the same bytes)
//                                                             malformed
//  7. the format's rules (rules.js)                            invalid
//  8. the key: the pinned one, and the pinned key's tenant     key
//  9. a card's box: given, same hash, same key                 box
// 10. a run's directory holds a card of every device its box lists  run
import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import canonicalize from "canonicalize";
import { validators } from "./schemas.js";
import { ReportError } from "./errors.js";
import { decodeUTF8, parseStrict } from "./strictjson.js";
import { decodeBase64, fingerprint } from "./keys.js";
import { boxRules, cardRules } from "./rules.js";

ed.hashes.sha512 = sha512;

const encoder = new TextEncoder();

// sniffKind tells a box from a card by its payload's members, as appraise
// does before reading either strictly (cmd/appraise's isBox).
export function sniffKind(bytes) {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes));
    const p = v && typeof v === "object" ? v.payload : undefined;
    if (p && typeof p === "object" && !Array.isArray(p) && "host" in p && !("capability" in p)) return "box";
  } catch {
    // Not JSON: the strict reader says why.
  }
  return "card";
}

// readReport reads one report strictly and checks its signature against
// the key it names. It returns { kind, payload, signature, publicKey,
// fingerprint, hash } or throws a ReportError.
export function readReport(bytes, kind = sniffKind(bytes)) {
  try {
    return read(bytes, kind);
  } catch (e) {
    if (e instanceof ReportError) throw new ReportError(e.reason, `${kind}: ${e.message}`);
    throw e;
  }
}

function read(bytes, kind) {
  const doc = parseStrict(decodeUTF8(bytes));
  const { payload, signature } = envelope(doc);
  const pub = signatureBlock(signature);
  const v = validators[kind];
  const shape = v.shape(payload);
  if (shape) throw new ReportError("malformed", "payload: malformed report: " + shape);
  const canonical = encoder.encode(canonicalize(payload));
  const sig = decodeBase64(signature.sig);
  if (!ed.verify(sig, canonical, pub, { zip215: false })) throw new ReportError("signature", "signature does not verify");
  const full = v.full(payload);
  if (full) throw new ReportError("malformed", "malformed report: payload holds members or nulls this format does not write: " + full);
  const broken = kind === "box" ? boxRules(payload) : cardRules(payload);
  if (broken.length > 0) throw new ReportError("invalid", "invalid report: " + broken.join("; "));
  return { kind, payload, signature, publicKey: pub, fingerprint: fingerprint(pub), hash: bytesToHex(sha256(canonical)) };
}

const signatureMembers = ["alg", "tenant_identity", "tenant_pubkey", "sig"];

// envelope checks the report's top level, as appraise's strict decoding
// into its envelope type does.
function envelope(doc) {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new ReportError("malformed", "malformed report: a report is a JSON object");
  for (const k of Object.keys(doc)) {
    if (k !== "payload" && k !== "signature") throw new ReportError("malformed", `malformed report: unknown object member name ${JSON.stringify(k)}`);
  }
  if (!("payload" in doc)) throw new ReportError("malformed", "malformed report: no payload");
  let s = doc.signature ?? {};
  if (typeof s !== "object" || Array.isArray(s)) throw new ReportError("malformed", "malformed report: signature is not an object");
  s = { ...s };
  for (const [k, v] of Object.entries(s)) {
    if (!signatureMembers.includes(k)) throw new ReportError("malformed", `malformed report: unknown object member name ${JSON.stringify(k)} within "/signature"`);
    if (v === null) s[k] = "";
    else if (typeof v !== "string") throw new ReportError("malformed", `malformed report: signature member ${k} is not a string`);
  }
  return { payload: doc.payload, signature: s };
}

// signatureBlock applies the signature block's rules and returns the key.
function signatureBlock(s) {
  const broken = [];
  const rule = (name, ok, want) => ok || broken.push(`${name}: value ${s[name] ?? ""} fails rule "${want}"`);
  rule("alg", s.alg === "ed25519", "eq=ed25519");
  const tenant = [...(s.tenant_identity ?? "")].length;
  rule("tenant_identity", tenant > 0, "required");
  rule("tenant_identity", tenant <= 64, "max=64");
  const pub = decodeBase64(s.tenant_pubkey ?? "");
  rule("tenant_pubkey", pub !== null && pub.length === 32, "b64len=32");
  const sig = decodeBase64(s.sig ?? "");
  rule("sig", sig !== null && sig.length === 64, "b64len=64");
  if (broken.length > 0) throw new ReportError("invalid", "signature block: invalid report: " + broken.join("; "));
  return pub;
}

// verifyReports verifies a set of report files as appraise verify does
// for the same files, with pin as --trust (null: no key pinned). Each
// input is { name, bytes, dir, listed, beside }: dir is the directory
// the file sits in (null when unknown, as for a dropped file); listed is
// true for a file listed from a directory given whole, whose box must
// then find a card of every device beside it; beside is true for a box
// that only sits beside a card given by name, and serves only to be
// found by its hash.
// It returns one outcome per input, in order: { name, kind, ok, reason,
// error, tenant, fingerprint, trust, box, report }.
export function verifyReports(inputs, pin) {
  const outs = inputs.filter((f) => !f.beside).map((f) => {
    const o = { name: f.name, dir: f.dir ?? null, listed: Boolean(f.listed), kind: sniffKind(f.bytes), ok: false };
    try {
      o.report = readReport(f.bytes, o.kind);
    } catch (e) {
      if (!(e instanceof ReportError)) throw e;
      o.reason = e.reason;
      o.error = e.message;
    }
    return o;
  });
  const boxes = new Map();
  for (const o of outs) if (o.report?.kind === "box") boxes.set(o.report.hash, o);
  // Boxes that sit beside a card given by name only serve to find its
  // box by hash; one that fails to read is passed over.
  for (const f of inputs.filter((i) => i.beside)) {
    try {
      const r = readReport(f.bytes, "box");
      if (!boxes.has(r.hash)) boxes.set(r.hash, { name: f.name, report: r });
    } catch (e) {
      if (!(e instanceof ReportError)) throw e;
    }
  }
  for (const o of outs) if (o.report) judge(o, pin, boxes);
  wholeRuns(outs);
  return outs;
}

// judge completes the outcome of a report whose signature verified.
function judge(o, pin, boxes) {
  const r = o.report;
  o.tenant = r.signature.tenant_identity;
  o.fingerprint = r.fingerprint;
  try {
    o.trust = trust(r, pin);
    if (r.kind === "card") o.box = linkBox(r, boxes);
    o.ok = true;
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    o.reason = e.reason;
    o.error = e.message;
  }
}

// trust says how the report's key relates to the pinned key. Rotation
// statements are not followed here: a report signed by an older key
// needs appraise verify --rotations.
function trust(r, pin) {
  if (!pin) return "unpinned";
  if (pin.tenant && pin.tenant !== r.signature.tenant_identity) {
    throw new ReportError("key", `tenant_identity ${JSON.stringify(r.signature.tenant_identity)} is not the pinned key's tenant ${JSON.stringify(pin.tenant)}`);
  }
  if (!sameBytes(pin.publicKey, r.publicKey)) {
    throw new ReportError("key", `signed by key ${r.fingerprint}, not the pinned key ${pin.fingerprint} (this page does not follow key rotations: appraise verify --rotations does)`);
  }
  return "pinned";
}

function linkBox(card, boxes) {
  const want = card.payload.box_report;
  const box = boxes.get(want);
  if (!box) throw new ReportError("box", `box report ${want.slice(0, 12)}… not found (it was altered, or was not given: add the run's box-*.appraisal.json)`);
  if (!sameBytes(box.report.publicKey, card.publicKey)) throw new ReportError("box", `box ${box.name} was signed by another key`);
  return box.name;
}

// wholeRuns fails a box listed from a directory unless a card of each
// device it lists sits in the same directory and links it.
function wholeRuns(outs) {
  for (const b of outs) {
    if (!b.ok || b.report.kind !== "box" || !b.listed) continue;
    const devices = b.report.payload.driver_versions;
    const want = new Set(devices.map((d) => d.bus_address));
    let cards = 0;
    for (const c of outs) {
      if (!c.ok || c.report.kind !== "card" || c.dir !== b.dir || c.report.payload.box_report !== b.report.hash) continue;
      cards++;
      want.delete(c.report.payload.capability.identity.bus_address ?? "");
    }
    if (cards !== devices.length) {
      b.ok = false;
      b.reason = "run";
      b.error = `box lists ${devices.length} appraised devices, but ${cards} cards in its directory link it (unmatched: ${[...want].sort().join(", ")})`;
    }
  }
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
