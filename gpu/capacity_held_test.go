package gpu

import (
	"context"
	"errors"
	"testing"
)

// checkLayout checks a plan's chunks against the held buffers' sizes, the
// chunk cap and the memory limit: they cover the region in order, each
// part of a held buffer starts at a bindable offset inside it, only kept
// buffers are used, and everything held fits the limit.
func checkLayout(t *testing.T, name string, p integrityPlan, held []uint64, chunk, memLimit uint64) {
	t.Helper()
	var covered uint64
	for i, c := range p.pieces {
		covered += c.size
		bad := c.size == 0 || c.size > chunk || c.size%integrityElement != 0
		if c.held >= 0 {
			bad = bad || c.held >= p.keep || c.offset%integrityAlign != 0 || c.offset+c.size > held[c.held]
		}
		if bad {
			t.Errorf("%s: chunk %d is %+v (keep %d)", name, i, c, p.keep)
		}
	}
	if covered != p.total {
		t.Errorf("%s: chunks cover %d of %d bytes", name, covered, p.total)
	}
	if need := p.heldBytes(held) + p.freshBytes() + p.overhead(); need > memLimit {
		t.Errorf("%s: holds %d bytes, over the limit of %d", name, need, memLimit)
	}
}

func TestPlanIntegrityHeld(t *testing.T) {
	const gib = 1 << 30
	big := Limits{MaxBufferBytes: 4 << 30, MaxStorageBindingBytes: 4<<30 - 1}
	// A large GPU's capacity: 35 chunks of 4 GiB, then halved ones.
	h200 := []uint64{2 * gib, gib, 512 * mib}
	for range 35 {
		h200 = append([]uint64{4 * gib}, h200...)
	}
	usable := sumBytes(h200)
	full := uint64(float64(usable)*IntegrityShare) &^ 15
	share := func(n uint64) uint64 { return uint64(float64(n)*IntegrityShare) &^ 15 }
	soft := share(gib)
	for _, c := range []struct {
		name      string
		l         Limits
		mem       uint64
		held      []uint64
		target    uint64
		keep      int    // held buffers kept
		fresh     uint64 // bytes allocated
		chunks    int
		wantError bool
	}{
		{"full run in held memory", big, 150 * gib, h200, full, int((full + 4*gib - 1) / (4 * gib)), 0, int((full + gib - 1) / gib), false},
		{"quick: one held buffer", big, 150 * gib, h200, 256 * mib, 1, 0, 1, false},
		{"binding limit splits a held buffer", Limits{MaxBufferBytes: 4 << 30, MaxStorageBindingBytes: 128 * mib}, 8 * gib, []uint64{4 * gib, 4 * gib}, gib, 1, 0, 8, false},
		// A software adapter: one 1 GiB chunk up to the memory limit;
		// keeping it leaves no room for the bookkeeping.
		{"software full run", big, gib, []uint64{gib}, soft, 0, soft, 1, false},
		{"software quick", big, gib, []uint64{gib}, 64 * mib, 0, 64 * mib, 1, false},
		// The region reaches the last chunk, which the others' release
		// leaves no room beside: its part is allocated afresh.
		{"last held buffer released", big, gib, []uint64{256 * mib, 256 * mib, 256 * mib, 256 * mib}, 900 * mib, 3, 132 * mib, 4, false},
		{"whole held buffers", big, gib, []uint64{256 * mib, 256 * mib, 256 * mib, 256 * mib}, 512 * mib, 2, 0, 2, false},
		{"nothing held", big, 150 * gib, nil, 3 * gib, 0, 3 * gib, 3, false},
		{"over the memory limit", big, gib, []uint64{gib}, gib, 0, 0, 0, true},
	} {
		p, err := planIntegrity(c.l, c.mem, IntegrityOptions{TargetBytes: c.target}, c.held)
		if c.wantError {
			if err == nil {
				t.Errorf("%s: got %+v, want an error", c.name, p)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.total != c.target || p.keep != c.keep || p.freshBytes() != c.fresh || p.chunks() != c.chunks {
			t.Errorf("%s: %d bytes in %d chunks, %d held kept, %d allocated; want %d in %d, %d kept, %d allocated",
				c.name, p.total, p.chunks(), p.keep, p.freshBytes(), c.target, c.chunks, c.keep, c.fresh)
		}
		chunk := min(uint64(maxChunkBytes), c.l.MaxStorageBindingBytes) &^ (integrityAlign - 1)
		checkLayout(t, c.name, p, c.held, chunk, c.mem)
	}
}

// holdCapacity runs the capacity probe on d with chunks of first bytes,
// keeping them in a HeldMemory that the test releases.
func holdCapacity(t *testing.T, d *Device, first uint64) (*HeldMemory, CapacityResult) {
	t.Helper()
	h := &HeldMemory{}
	t.Cleanup(h.Release)
	var clears int
	r := realClears(d, CapacityOptions{Hold: h}, &clears)
	r.first = first
	res, err := measureCapacity(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if h.Bytes() != res.UsableBytes || len(h.bufs) != res.Chunks || len(r.held) != 0 {
		t.Fatalf("capacity %+v left %d bytes in %d chunks held, %d in the run", res, h.Bytes(), len(h.bufs), len(r.held))
	}
	return h, res
}

// TestIntegrityInHeldMemory: the memtest runs in the capacity probe's
// chunks, several chunks to a buffer, releases the rest first, and takes
// all it keeps; faults injected into parts of a buffer are found where
// they were put, and a clean run over parts of one buffer (whose address
// patterns differ by chunk) shows the parts do not overlap.
func TestIntegrityInHeldMemory(t *testing.T) {
	d := newDeviceOpts(t, Options{MemoryLimit: 128 * mib})
	h, res := holdCapacity(t, d, 24*mib)
	if res.Chunks != 6 || res.UsableBytes != 128*mib {
		t.Fatalf("capacity %+v, want 128 MiB in 6 chunks", res)
	}
	o := IntegrityOptions{TargetBytes: 40<<20 + 4096 + 48, chunkBytes: 8 * mib, Held: h}
	last := (o.TargetBytes - 5*o.chunkBytes) / 4
	faults := []integrityFault{{0, 0, 1 << 31}, {2, 12345, 0x00F0}, {5, last - 1, 1}}
	o.inject = func(string) []integrityFault { return faults }
	got, err := MeasureIntegrity(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	logIntegrity(t, got)
	if h.Bytes() != 0 {
		t.Errorf("%d bytes still held after the memtest", h.Bytes())
	}
	if want := uint64(len(faults) * len(IntegrityPatterns())); got.Errors != want || got.Chunks != 6 || got.BytesTested != o.TargetBytes {
		t.Errorf("%d errors in %d chunks over %d bytes; want %d in 6 over %d", got.Errors, got.Chunks, got.BytesTested, want, o.TargetBytes)
	}
	for i, e := range got.FirstErrors[:len(faults)] {
		if f := faults[i]; e.Chunk != f.Chunk || e.WordIndex != f.Word || e.Actual != e.Expected^f.Flip {
			t.Errorf("error %d is %+v, want chunk %d word %d flipped by %#x", i, e, f.Chunk, f.Word, f.Flip)
		}
	}
	// The full run's share reaches the last chunk, which is released and
	// its part allocated afresh.
	h, _ = holdCapacity(t, d, 24*mib)
	region := uint64(128 * mib)
	o = IntegrityOptions{TargetBytes: uint64(float64(region)*IntegrityShare) &^ 15, Held: h}
	if got, err := MeasureIntegrity(t.Context(), d, o); err != nil || got.Errors != 0 || got.BytesTested != o.TargetBytes || h.Bytes() != 0 {
		t.Errorf("full share: %d errors over %d bytes, %d still held, %v", got.Errors, got.BytesTested, h.Bytes(), err)
	}
}

// TestHeldMemoryFailures: a memtest that cannot plan leaves the memory
// held for its caller to release; a cancelled one still releases all it
// took; memory held on another device is refused; a HeldMemory takes
// one capacity run's chunks only.
func TestHeldMemoryFailures(t *testing.T) {
	d := newDeviceOpts(t, Options{MemoryLimit: 64 * mib})
	h, res := holdCapacity(t, d, 16*mib)
	if _, err := MeasureIntegrity(t.Context(), d, IntegrityOptions{TargetBytes: 64 * mib, Held: h}); err == nil || h.Bytes() != res.UsableBytes {
		t.Errorf("over the memory limit: %v, %d bytes still held", err, h.Bytes())
	}
	if _, err := MeasureCapacity(t.Context(), d, CapacityOptions{Hold: h}); err == nil || h.Bytes() != res.UsableBytes {
		t.Errorf("second capacity run into one HeldMemory: %v, %d bytes held", err, h.Bytes())
	}
	other := newDeviceOpts(t, Options{MemoryLimit: 64 * mib})
	if _, err := MeasureIntegrity(t.Context(), other, IntegrityOptions{TargetBytes: 8 * mib, Held: h}); err == nil || h.Bytes() != res.UsableBytes {
		t.Errorf("memory of another device: %v, %d bytes held", err, h.Bytes())
	}
	ctx, cancel := context.WithCancel(t.Context())
	o := IntegrityOptions{TargetBytes: 24 * mib, Held: h, Progress: func(uint64, uint64) { cancel() }}
	if _, err := MeasureIntegrity(ctx, d, o); !errors.Is(err, context.Canceled) || h.Bytes() != 0 {
		t.Errorf("cancelled memtest: %v, %d bytes still held", err, h.Bytes())
	}
	h.Release()
	h.Release()
	var none *HeldMemory
	none.Release()
	if res, err := MeasureCapacity(t.Context(), d, CapacityOptions{}); err != nil || res.UsableBytes != 64*mib {
		t.Errorf("capacity after the failures: %+v, %v", res, err)
	}
}

// TestMemoryProbesHandOver runs the two probes as the orchestrator does,
// on a software adapter in quick mode: the memtest's small region cannot
// stay in the one large chunk, which is released, and nothing is left
// held.
func TestMemoryProbesHandOver(t *testing.T) {
	d := newDeviceOpts(t, Options{MemoryLimit: 128 * mib})
	h := &HeldMemory{}
	defer h.Release()
	c, err := CapacityProbe{Hold: h}.Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if h.Bytes() != c.Usable.Bytes {
		t.Fatalf("capacity measured %d bytes, holds %d", c.Usable.Bytes, h.Bytes())
	}
	m := IntegrityProbe{UsableBytes: c.Usable.Bytes, CapBytes: 64 << 20, Held: h}
	got, err := m.Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if in := got.Integrity; in.Errors != 0 || in.BytesTested != m.target() || h.Bytes() != 0 {
		t.Errorf("memtest %+v of %d bytes; %d bytes still held", in, m.target(), h.Bytes())
	}
}

// Bytes is the memory held, in bytes.
func (h *HeldMemory) Bytes() uint64 {
	if h == nil {
		return 0
	}
	return sumBytes(h.sizes)
}
