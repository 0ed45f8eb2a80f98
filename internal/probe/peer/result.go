package peer

import (
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

// DefaultBytes is the size of one timed bulk transfer when none is given.
const DefaultBytes = 1 << 30

// PairResult is one ordered pair this → peer, measured over one path.
type PairResult struct {
	This, Peer   string       // normalised PCI bus addresses
	Path         Path         // how the data moved
	OneWay       Transfer     // with the reverse idle
	BothWays     *Transfer    // while peer → this runs too, this direction's rate; nil if not measured
	LatencyS     *schema.Stat // one small transfer, seconds; nil when not measured
	LatencyBytes uint64       // bytes of one small transfer
}

// Transfer is one direction of bulk transfers, measured.
type Transfer struct {
	BytesPerS     schema.Stat         // TransferBytes over each sample's time, decimal bytes/s
	TransferBytes uint64              // bytes of one timed transfer
	Timing        schema.TimingMethod // how samples were timed
	CheckedWords  uint64              // 32-bit words received and compared, warm-up included
}

// PeersOmission is the card's omission of interconnect.peers in a one-device run.
func PeersOmission() schema.Omission {
	return schema.Omission{Field: "interconnect.peers", Reason: "one device: no peer to measure"}
}

// NormalizeBusID converts a bus address in any form pci.ParseBDF accepts to
// the sysfs form cards use, "0000:3b:00.0". The error wraps pci.ErrBadBDF.
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

// transfer turns t into a schema.Transfer named by r's path. Its check passed
// when words were compared, as any mismatch fails the measurement.
func (r PairResult) transfer(t Transfer) schema.Transfer {
	return schema.Transfer{BytesPerS: t.BytesPerS, TransferBytes: t.TransferBytes,
		Path: string(r.Path), Probe: r.Path.Probe(), Timing: t.Timing,
		Check: schema.Check{Reference: "cpu", Elements: t.CheckedWords, ErrorKind: "exact", Passed: t.CheckedWords > 0}}
}

// Links returns the card links of device this among rs, in order; nil if none.
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

var errNoSamples = errors.New("peer: no positive samples")

// newStat summarises samples; an empty or non-positive one is errNoSamples.
func newStat(samples []float64) (schema.Stat, error) {
	st, err := stats.Summarize(samples)
	if err != nil {
		return schema.Stat{}, fmt.Errorf("%w (timer resolution?): %w", errNoSamples, err)
	}
	return st, nil
}

// normalisePair normalises both addresses, rejecting a device paired with itself.
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

// pairArgs validates a measurement's addresses and transfer size (0: def).
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
