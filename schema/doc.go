// Package schema is the wire contract of appraise: the capability vector a
// probe run measures, the card and box payloads that carry it, and the
// signed envelope around each payload.
//
// Start with CardPayload and BoxPayload (report.go) and CapabilityVector
// (vector.go). Every value is checked by Validate on write (SignCard,
// SignBox) and on read (ReadCard, ReadBox). Signatures cover the RFC 8785
// (JCS) canonical bytes of the payload (Canonical); a card names its box by
// the lowercase hex SHA-256 of the box's canonical payload (Hash).
//
// Units are in field names: bytes, bytes_per_s, ops_per_s, seconds (_s),
// watts (_w), celsius (_c). A section that was not measured is absent and
// listed in not_measured with a reason; a zero never stands in for it.
//
// This package imports no other package of appraise: the format knows no
// device, no key store and no command line.
package schema
