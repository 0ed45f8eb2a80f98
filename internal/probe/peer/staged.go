package peer

import (
	"context"
	"fmt"
	"time"

	"github.com/everycycle/appraise/schema"
)

// Endpoint is one opened device of a host-staged pair, used from one
// goroutine at a time.
type Endpoint interface {
	NewArray(n uint64) (Array, error) // a device buffer of n bytes
}

// Array is an Endpoint's device buffer the host writes and reads; offsets and
// lengths are multiples of 4, and calls return once the device is done.
type Array interface {
	Write(off uint64, p []byte) error
	Read(p []byte, off uint64) error
	Fill(word uint32) error
	Release()
}

// StagedBytes is the size of one timed host-staged bulk transfer when none is
// given, small enough to fit beside a software device's memory cap.
const StagedBytes = 256 << 20

const stagedChunk = 64 << 20 // the host chunk a staged transfer moves through

// MeasureHostStaged measures this → peer through host memory, one way only.
// bytes is the bulk size (0: StagedBytes; a multiple of 4096, at least
// 1 MiB). A received word that differs wraps ErrCheckFailed.
func MeasureHostStaged(ctx context.Context, this, peer string, a, b Endpoint, bytes uint64) (PairResult, error) {
	ids, bytes, err := pairArgs(this, peer, bytes, StagedBytes)
	if err != nil {
		return PairResult{}, err
	}
	e := &stagedEngine{ends: [2]Endpoint{a, b}}
	defer e.release()
	p := defaultPlan(bytes)
	p.bothWays = false
	r, err := run(ctx, e, p)
	if err != nil {
		return PairResult{}, fmt.Errorf("peer: host-staged: %s → %s: %w", ids[0], ids[1], err)
	}
	r.This, r.Peer, r.Path = ids[0], ids[1], PathHostStaged
	return r, nil
}

// stagedEngine is the host-staged path's engine; a buffer's ptr indexes arrays.
type stagedEngine struct {
	ends   [2]Endpoint
	arrays []Array
	host   []byte // the staging chunk, made on first use
}

func (e *stagedEngine) alloc(side int, n uint64) (buffer, error) {
	a, err := e.ends[side].NewArray(n)
	if err != nil {
		return buffer{}, err
	}
	e.arrays = append(e.arrays, a)
	return buffer{side: side, ptr: uint64(len(e.arrays) - 1), n: n}, nil
}

func (e *stagedEngine) release() {
	for _, a := range e.arrays {
		a.Release()
	}
	e.arrays = nil
}

func (e *stagedEngine) upload(b buffer, off uint64, p []byte) error {
	return e.arrays[b.ptr].Write(off, p)
}

func (e *stagedEngine) download(p []byte, b buffer, off uint64) error {
	return e.arrays[b.ptr].Read(p, off)
}

func (e *stagedEngine) fill(b buffer, w uint32) error { return e.arrays[b.ptr].Fill(w) }

// copies runs each job in turn and returns each one's host-timed seconds.
func (e *stagedEngine) copies(jobs []job) ([]float64, error) {
	if e.host == nil {
		e.host = make([]byte, stagedChunk)
	}
	ts := make([]float64, len(jobs))
	for i, j := range jobs {
		if j.src.side == j.dst.side {
			return nil, fmt.Errorf("peer: host-staged copy within one device")
		}
		src, dst := e.arrays[j.src.ptr], e.arrays[j.dst.ptr]
		t0 := time.Now()
		for off := uint64(0); off < j.n; off += stagedChunk {
			c := e.host[:min(stagedChunk, j.n-off)]
			if err := src.Read(c, off); err != nil {
				return nil, err
			}
			if err := dst.Write(off, c); err != nil {
				return nil, err
			}
		}
		ts[i] = time.Since(t0).Seconds()
	}
	return ts, nil
}

func (e *stagedEngine) timing() schema.TimingMethod { return schema.TimingHostWallClock }
