package peer

import (
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/schema"
)

// ErrCheckFailed is wrapped when data that arrived differs from what was sent.
var ErrCheckFailed = errors.New("peer: received data differs from what was sent")

const (
	sideThis = 0
	sidePeer = 1
)

// buffer is a device allocation on one side of the pair.
type buffer struct {
	side int
	ptr  uint64
	n    uint64
}

// job is one copy src → dst of n bytes.
type job struct {
	src, dst buffer
	n        uint64
}

// engine is what a measurement needs from a driver API; every method blocks
// until done, and copies runs its jobs at once, returning each one's seconds.
type engine interface {
	alloc(side int, n uint64) (buffer, error)
	upload(b buffer, off uint64, p []byte) error
	download(p []byte, b buffer, off uint64) error
	fill(b buffer, word uint32) error
	copies(jobs []job) ([]float64, error)
	timing() schema.TimingMethod
}

// plan sizes and counts a measurement.
type plan struct {
	bytes, small         uint64 // bulk and small transfer sizes
	warm, samples        int    // bulk warm-up rounds and kept samples
	smallWarm, smallRuns int    // small-transfer warm-up and kept samples
	chunk                uint64 // host chunk for uploads and full checks
	spots                int    // 4 KiB blocks checked per round
	bothWays             bool   // also time both directions at once
}

// defaultPlan is MeasurePair's plan for transfers of bytes.
func defaultPlan(bytes uint64) plan {
	return plan{bytes: bytes, small: 4096, warm: 2, samples: 7,
		smallWarm: 20, smallRuns: 101, chunk: 64 << 20, spots: 16, bothWays: true}
}

func checkBytes(n uint64) error {
	if n < 1<<20 || n%4096 != 0 {
		return fmt.Errorf("peer: transfer of %d bytes: want a multiple of 4096 of at least 1 MiB", n)
	}
	return nil
}

// Seeds of the sources' patterns, distinct so that data from the wrong buffer
// fails the check.
const (
	seedForward = 0x50454552 // this → peer
	seedReverse = 0x52455650 // peer → this
	seedSmall   = 0x534d4c4c
)

type bufs struct {
	fwdSrc, fwdDst, revSrc, revDst, smallSrc, smallDst buffer
}

// run measures the pair through e: one way, both ways when the plan says so,
// then latency. The caller releases e's allocations.
func run(ctx context.Context, e engine, p plan) (PairResult, error) {
	b, err := allocAll(e, p)
	if err != nil {
		return PairResult{}, err
	}
	m := &meter{e: e, p: p}
	for _, s := range []struct {
		b    buffer
		seed uint32
	}{{b.fwdSrc, seedForward}, {b.revSrc, seedReverse}, {b.smallSrc, seedSmall}} {
		if err := m.fillPattern(s.b, s.seed); err != nil {
			return PairResult{}, err
		}
	}
	var r PairResult
	if r.OneWay, err = m.oneWay(ctx, b); err != nil {
		return PairResult{}, fmt.Errorf("one way: %w", err)
	}
	if p.bothWays {
		both, err := m.bothWays(ctx, b)
		if err != nil {
			return PairResult{}, fmt.Errorf("both ways: %w", err)
		}
		r.BothWays = &both
	}
	lat, err := m.latency(ctx, b)
	if err != nil {
		return PairResult{}, fmt.Errorf("latency: %w", err)
	}
	r.LatencyS, r.LatencyBytes = &lat, p.small
	return r, nil
}

func allocAll(e engine, p plan) (bufs, error) {
	var b bufs
	for _, a := range []struct {
		dst  *buffer
		side int
		n    uint64
	}{
		{&b.fwdSrc, sideThis, p.bytes}, {&b.fwdDst, sidePeer, p.bytes},
		{&b.revSrc, sidePeer, p.bytes}, {&b.revDst, sideThis, p.bytes},
		{&b.smallSrc, sideThis, p.small}, {&b.smallDst, sidePeer, p.small},
	} {
		var err error
		if *a.dst, err = e.alloc(a.side, a.n); err != nil {
			return bufs{}, err
		}
	}
	return b, nil
}
