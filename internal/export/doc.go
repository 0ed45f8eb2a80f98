// Package export writes verified card reports in the formats that fleet
// tools read: a Node Feature Discovery feature file (NFD), so Kubernetes
// schedules on measured capability; a node_exporter textfile
// (Prometheus), so operators watch it; and an in-toto attestation in a
// Sigstore bundle, so cosign checks it.
//
// Every function takes cards that already verified against a pinned key
// (Card); verifying and pinning is the caller's job, and nothing here
// reads a card file, a key store or a device. Start with Devices, which
// picks the newest card of each device, then NFD, Prometheus or InToto,
// which return a file's bytes, and WriteFile, which puts them in place
// atomically.
//
// Nothing here names a product: the labels and metrics carry measured
// figures and identity metadata (bus address, PCI vendor and device id),
// never a model name, and nothing maps an id to expected figures.
package export
