// Package peer measures directed links between two appraised devices of one
// host: for each ordered pair, bandwidth one way and both ways at once and
// small-transfer latency, every received word checked on the host. Start with
// LinksFrom; Choose picks each pair's path. Nothing here classifies a link: the
// card records what was measured and the path and probe that measured it.
package peer
