// Package export writes verified cards as Node Feature Discovery labels, a
// node_exporter textfile or an in-toto attestation in a Sigstore bundle.
// Start with Devices, then NFD, Prometheus or InToto, then WriteFile. The
// caller verifies the cards; no output names a product.
package export
