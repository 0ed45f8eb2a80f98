package peer

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
)

// memEndpoint is an Endpoint in host memory. dropAt, when positive, makes
// the dropAt-th Write (1-based, counted over the endpoint) lose its last
// word, as a transfer that arrived short would.
type memEndpoint struct {
	writes, dropAt int
}

type memArray struct {
	e *memEndpoint
	b []byte
}

func (e *memEndpoint) NewArray(n uint64) (Array, error) {
	return &memArray{e: e, b: make([]byte, n)}, nil
}

func (a *memArray) Write(off uint64, p []byte) error {
	a.e.writes++
	n := copy(a.b[off:], p)
	if a.e.writes == a.e.dropAt {
		binary.LittleEndian.PutUint32(a.b[off+uint64(n)-4:], 0)
	}
	return nil
}

func (a *memArray) Read(p []byte, off uint64) error { copy(p, a.b[off:]); return nil }

func (a *memArray) Fill(w uint32) error {
	for i := 0; i < len(a.b); i += 4 {
		binary.LittleEndian.PutUint32(a.b[i:], w)
	}
	return nil
}

func (a *memArray) Release() { a.b = nil }

func TestHostStagedInMemory(t *testing.T) {
	this, peer := &memEndpoint{}, &memEndpoint{}
	r, err := MeasureHostStaged(context.Background(), "0000:00:05.0", "0000:00:06.0", this, peer, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != PathHostStaged || r.OneWay.BytesPerS.Samples != 7 || r.LatencyS.Samples != 101 || r.LatencyBytes != 4096 {
		t.Errorf("result: path %s, %d bulk and %d small samples of %d bytes", r.Path, r.OneWay.BytesPerS.Samples, r.LatencyS.Samples, r.LatencyBytes)
	}
	if r.BothWays != nil {
		t.Error("both ways reported over the host-staged path")
	}
	if r.OneWay.CheckedWords < (1<<20)/4 {
		t.Errorf("checked %d words", r.OneWay.CheckedWords)
	}
	l, err := r.PeerLink()
	if err != nil {
		t.Fatal(err)
	}
	if l.OneWay.Probe != "webgpu-host-staged-peerlink" || l.OneWay.Timing != "host-wall-clock" {
		t.Errorf("link: %+v", l.OneWay)
	}
}

func TestHostStagedCatchesLoss(t *testing.T) {
	// The peer's writes: 1 puts the reverse source's pattern, 2–10 are the
	// nine bulk rounds (one chunk each), 11 on the 4 KiB rounds: 5 is a
	// timed bulk round, 12 a small one.
	for _, at := range []int{5, 12} {
		peer := &memEndpoint{dropAt: at}
		_, err := MeasureHostStaged(context.Background(), "0000:00:05.0", "0000:00:06.0", &memEndpoint{}, peer, 1<<20)
		if !errors.Is(err, ErrCheckFailed) {
			t.Errorf("write %d dropped: err = %v, want ErrCheckFailed", at, err)
		}
	}
}

func TestHostStagedRejects(t *testing.T) {
	ctx := context.Background()
	if _, err := MeasureHostStaged(ctx, "0000:00:05.0", "0000:00:05.0", &memEndpoint{}, &memEndpoint{}, 1<<20); err == nil {
		t.Error("device paired with itself accepted")
	}
	if _, err := MeasureHostStaged(ctx, "0000:00:05.0", "0000:00:06.0", &memEndpoint{}, &memEndpoint{}, 1<<20+4); err == nil {
		t.Error("unaligned size accepted")
	}
}
