// Package peer measures directed links between devices of one host: each
// ordered pair's bandwidth and latency, every received word checked. Start
// with LinksFrom; Choose picks each pair's path.
package peer
