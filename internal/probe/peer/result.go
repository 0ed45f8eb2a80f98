package peer

import (
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

// DefaultBytes is the size of one timed bulk transfer when none is given:
// 1 GiB (1,073,741,824 bytes), large enough that fixed costs vanish.
const DefaultBytes = 1 << 30

// PairResult is one ordered pair this → peer, measured over one path.
type PairResult struct {
	// This and Peer are the two devices' PCI bus addresses, normalised
	// ("0000:00:06.0").
	This, Peer string
	// Path is how the data moved.
	Path Path
	// OneWay is this → peer with the reverse direction idle.
	OneWay Transfer
	// BothWays is this → peer while peer → this runs at the same time,
	// this direction's rate only; nil when not measured.
	BothWays *Transfer
	// LatencyS is the time of one small transfer this → peer, in seconds;
	// nil when not measured.
	LatencyS *schema.Stat
	// LatencyBytes is the size of one small transfer, in bytes.
	LatencyBytes uint64
}

// Transfer is one direction of bulk transfers, measured.
type Transfer struct {
	// BytesPerS is TransferBytes over each sample's time, in bytes/s
	// (decimal: 1e9 bytes/s is 1 GB/s).
	BytesPerS schema.Stat
	// TransferBytes is the size of one timed transfer, in bytes.
	TransferBytes uint64
	// Timing is how samples were timed.
	Timing schema.TimingMethod
	// CheckedWords is the number of 32-bit words that arrived and were
	// compared with what was sent, over every transfer (warm-up included).
	CheckedWords uint64
}

// PeersOmission is the omission a card records when its run has one
// device, so interconnect.peers has nothing to measure.
func PeersOmission() schema.Omission {
	return schema.Omission{Field: "interconnect.peers", Reason: "one device: no peer to measure"}
}

// NormalizeBusID converts a PCI bus address in any form pci.ParseBDF
// accepts (CUDA writes "0000:3B:00.0", NVML "00000000:3B:00.0") to the
// sysfs form used on cards, "0000:3b:00.0". The error wraps pci.ErrBadBDF.
func NormalizeBusID(id string) (string, error) {
	b, err := pci.ParseBDF(id)
	if err != nil {
		return "", fmt.Errorf("peer: bus id: %w", err)
	}
	return b.String(), nil
}

// PeerLink turns r into the card's directed link and validates it.
func (r PairResult) PeerLink() (schema.PeerLink, error) {
	peer, err := NormalizeBusID(r.Peer)
	if err != nil {
		return schema.PeerLink{}, err
	}
	l := schema.PeerLink{Peer: peer, OneWay: r.transfer(r.OneWay), LatencyS: r.LatencyS}
	if r.BothWays != nil {
		t := r.transfer(*r.BothWays)
		l.BothWays = &t
	}
	if err := schema.Validate(l); err != nil {
		return schema.PeerLink{}, fmt.Errorf("peer: %s → %s: %w", r.This, peer, err)
	}
	return l, nil
}

// transfer turns t into a schema.Transfer named by r's path and probe.
// Its check is the comparison of every word received with what was sent:
// a word that differs fails the measurement (ErrCheckFailed), so the
// check passed when words were compared.
func (r PairResult) transfer(t Transfer) schema.Transfer {
	return schema.Transfer{BytesPerS: t.BytesPerS, TransferBytes: t.TransferBytes,
		Path: string(r.Path), Probe: r.Path.Probe(), Timing: t.Timing,
		Check: schema.Check{Reference: "cpu", Elements: t.CheckedWords, ErrorKind: "exact", Passed: t.CheckedWords > 0}}
}

// Links returns the card links of device this among rs, in order: nil when
// it has none (one device).
func Links(this string, rs []PairResult) ([]schema.PeerLink, error) {
	self, err := NormalizeBusID(this)
	if err != nil {
		return nil, err
	}
	var ls []schema.PeerLink
	for _, r := range rs {
		if t, err := NormalizeBusID(r.This); err != nil || t != self {
			continue
		}
		l, err := r.PeerLink()
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// errNoSamples is returned by newStat for an empty or non-positive sample.
var errNoSamples = errors.New("peer: no positive samples")

// newStat summarises samples (stats.Summarize); an empty or
// non-positive sample is errNoSamples.
func newStat(samples []float64) (schema.Stat, error) {
	st, err := stats.Summarize(samples)
	if err != nil {
		return schema.Stat{}, fmt.Errorf("%w (timer resolution?): %w", errNoSamples, err)
	}
	return st, nil
}

// normalisePair normalises both bus addresses and rejects a device paired
// with itself.
func normalisePair(this, peer string) ([2]string, error) {
	var ids [2]string
	for i, s := range []string{this, peer} {
		id, err := NormalizeBusID(s)
		if err != nil {
			return ids, err
		}
		ids[i] = id
	}
	if ids[0] == ids[1] {
		return ids, fmt.Errorf("peer: %s paired with itself", ids[0])
	}
	return ids, nil
}

// pairArgs checks a measurement's arguments: both bus addresses normalised
// and distinct, and the transfer size (0: def) valid.
func pairArgs(this, peer string, bytes, def uint64) ([2]string, uint64, error) {
	if bytes == 0 {
		bytes = def
	}
	if err := checkBytes(bytes); err != nil {
		return [2]string{}, 0, err
	}
	ids, err := normalisePair(this, peer)
	return ids, bytes, err
}
