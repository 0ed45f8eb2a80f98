package peer

import (
	"errors"
	"testing"

	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

func TestNormalizeBusID(t *testing.T) {
	for in, want := range map[string]string{
		"0000:00:06.0":     "0000:00:06.0",
		"0000:3B:00.0":     "0000:3b:00.0",
		"00000000:3B:00.0": "0000:3b:00.0",
		"3b:00.0":          "0000:3b:00.0",
		"10000:01:00.1":    "10000:01:00.1",
	} {
		if got, err := NormalizeBusID(in); err != nil || got != want {
			t.Errorf("NormalizeBusID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0000:00:20.0", "gpu0", "0000:00:06.8"} {
		if _, err := NormalizeBusID(bad); !errors.Is(err, pci.ErrBadBDF) {
			t.Errorf("NormalizeBusID(%q) err = %v, want ErrBadBDF", bad, err)
		}
	}
}

func fakeResult() PairResult {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 7, Median: m, Min: m * 0.98, Max: m * 1.01} }
	tr := func(m float64) Transfer {
		return Transfer{BytesPerS: st(m), TransferBytes: DefaultBytes, Timing: schema.TimingGPUTimestamp, CheckedWords: 1 << 28}
	}
	both, lat := tr(362e9), st(6e-6)
	return PairResult{This: "0000:00:05.0", Peer: "0000:00:06.0", Path: PathCUDAPeer,
		OneWay: tr(389e9), BothWays: &both, LatencyS: &lat, LatencyBytes: 4096}
}

func TestPeerLinkValidates(t *testing.T) {
	l, err := fakeResult().PeerLink()
	if err != nil {
		t.Fatal(err)
	}
	if l.Peer != "0000:00:06.0" || l.OneWay.Path != "cuda-peer" || l.OneWay.Probe != "cuda-peerlink" ||
		l.BothWays == nil || l.BothWays.Probe != "cuda-peerlink" || l.LatencyS == nil {
		t.Errorf("PeerLink = %+v", l)
	}
	ic := schema.Interconnect{Peers: []schema.PeerLink{l}}
	if err := schema.Validate(ic); err != nil {
		t.Errorf("interconnect: %v", err)
	}
	r := fakeResult()
	r.BothWays, r.LatencyS, r.Path = nil, nil, PathHostStaged
	r.OneWay.Timing = schema.TimingHostWallClock
	if l, err := r.PeerLink(); err != nil || l.OneWay.Probe != "webgpu-host-staged-peerlink" {
		t.Errorf("one way only: %+v, %v", l, err)
	}
}

func TestPeerLinkRejectsBadResult(t *testing.T) {
	r := fakeResult()
	r.OneWay.CheckedWords = 0
	if _, err := r.PeerLink(); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("unchecked transfer: err = %v, want ErrInvalid", err)
	}
	r = fakeResult()
	r.Peer = "software-0"
	if _, err := r.PeerLink(); err == nil {
		t.Error("software peer accepted")
	}
}

func TestLinksOneDevice(t *testing.T) {
	ls, err := Links("0000:00:05.0", nil)
	if err != nil || len(ls) != 0 {
		t.Errorf("Links = %v, %v; want none", ls, err)
	}
	if err := schema.Validate(PeersOmission()); err != nil {
		t.Errorf("PeersOmission: %v", err)
	}
	rev := fakeResult()
	rev.This, rev.Peer = rev.Peer, rev.This
	ls, err = Links("0000:00:05.0", []PairResult{fakeResult(), rev})
	if err != nil || len(ls) != 1 || ls[0].Peer != "0000:00:06.0" {
		t.Errorf("Links = %v, %v", ls, err)
	}
}
