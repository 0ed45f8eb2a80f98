package peer

import (
	"context"
	"errors"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// fakeEngine keeps buffers in host memory and times a copy of n bytes at
// n/rate seconds. skip drops the copy of that round (1-based), corrupt
// flips a byte of it.
type fakeEngine struct {
	mem           [][]byte
	rate          float64
	copiesRun     int
	skip, corrupt int
}

func (f *fakeEngine) alloc(side int, n uint64) (buffer, error) {
	f.mem = append(f.mem, make([]byte, n))
	return buffer{side: side, ptr: uint64(len(f.mem) - 1), n: n}, nil
}

func (f *fakeEngine) upload(b buffer, off uint64, p []byte) error {
	copy(f.mem[b.ptr][off:], p)
	return nil
}

func (f *fakeEngine) download(p []byte, b buffer, off uint64) error {
	copy(p, f.mem[b.ptr][off:])
	return nil
}

func (f *fakeEngine) fill(b buffer, w uint32) error {
	putPattern(f.mem[b.ptr], 0, 0) // anything but the source's pattern
	f.mem[b.ptr][0] = byte(w)
	return nil
}

func (f *fakeEngine) copies(jobs []job) ([]float64, error) {
	f.copiesRun++
	ts := make([]float64, len(jobs))
	for i, j := range jobs {
		if f.copiesRun != f.skip {
			copy(f.mem[j.dst.ptr], f.mem[j.src.ptr][:j.n])
		}
		if f.copiesRun == f.corrupt {
			f.mem[j.dst.ptr][j.n-1] ^= 1
		}
		ts[i] = float64(j.n) / f.rate * (1 + float64(f.copiesRun%3)/100)
	}
	return ts, nil
}

func (f *fakeEngine) timing() schema.TimingMethod { return schema.TimingGPUTimestamp }

func smallPlan() plan {
	p := defaultPlan(1 << 20)
	p.chunk, p.smallRuns = 256<<10, 11
	return p
}

func TestRunFake(t *testing.T) {
	f := &fakeEngine{rate: 4e11}
	r, err := run(context.Background(), f, smallPlan())
	if err != nil {
		t.Fatal(err)
	}
	if r.OneWay.BytesPerS.Samples != 7 || r.BothWays.BytesPerS.Samples != 7 || r.LatencyS.Samples != 11 {
		t.Errorf("samples: %+v %+v %+v", r.OneWay.BytesPerS, r.BothWays.BytesPerS, r.LatencyS)
	}
	if m := r.OneWay.BytesPerS.Median; m > 4e11 || m < 3.8e11 {
		t.Errorf("one way median %g", m)
	}
	// Full checks: one destination one way, two both ways, plus spots.
	if r.OneWay.CheckedWords <= (1<<20)/4 || r.BothWays.CheckedWords <= 2*(1<<20)/4 {
		t.Errorf("checked %d and %d words", r.OneWay.CheckedWords, r.BothWays.CheckedWords)
	}
	r.This, r.Peer, r.Path = "0000:00:05.0", "0000:00:06.0", PathCUDAPeer
	if _, err := r.PeerLink(); err != nil {
		t.Error(err)
	}
}

func TestRunFakeCheckFails(t *testing.T) {
	for name, f := range map[string]*fakeEngine{
		"skipped copy":    {rate: 4e11, skip: 4},
		"corrupted last":  {rate: 4e11, corrupt: 9},
		"corrupted small": {rate: 4e11, corrupt: 40},
	} {
		if _, err := run(context.Background(), f, smallPlan()); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s: err = %v, want ErrCheckFailed", name, err)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, &fakeEngine{rate: 1e9}, smallPlan()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestPattern(t *testing.T) {
	p := make([]byte, 64)
	putPattern(p, seedForward, 100)
	if mismatch(p, seedForward, 100) != -1 || mismatch(p, seedReverse, 100) != 0 || mismatch(p, seedForward, 101) != 0 {
		t.Error("pattern does not distinguish seeds or offsets")
	}
	if err := checkBytes(1<<20 + 4); err == nil {
		t.Error("unaligned size accepted")
	}
}
