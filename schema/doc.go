// Package schema is the wire contract of appraise: the capability vector a
// probe run measures, the card and box payloads that carry it, and the
// signed envelope around each. Validate runs on write (SignCard, SignBox)
// and on read (ReadCard, ReadBox); signatures cover the RFC 8785 form of
// the payload. Units are in field names, and an unmeasured part is absent
// and listed in not_measured, never zero.
package schema
