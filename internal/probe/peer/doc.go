// Package peer measures directed links between two appraised devices of
// one host: for each ordered pair this → peer, bandwidth one way, both ways
// at once, and small-transfer latency, every transfer's received data
// checked on the host.
//
// The orchestrator runs [LinksFrom], the probe of one device's links to
// every other device of a [Devices] set. For each ordered pair it fills
// an [Availability] ([DetectCUDA] fills its CUDA part) and lets [Choose]
// pick the path, in the order "vulkan-device-group", "cuda-peer",
// "host-staged". [MeasurePair] is the "cuda-peer" path: the CUDA driver
// library is loaded at run time, so binaries start on hosts without it
// and get [ErrNoCUDA]. [MeasureHostStaged] is the "host-staged" path,
// over two [Endpoint]s the caller opens (the WebGPU devices).
// [PairResult.PeerLink] turns a result into the card's schema.PeerLink.
// A run of one device has no pair: its card records interconnect.peers
// as not measured ([PeersOmission]).
//
// Nothing here names or classifies a link: the card records what was
// measured and the path and probe that measured it, never a link kind.
package peer
