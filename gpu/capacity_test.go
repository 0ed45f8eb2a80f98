package gpu

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

const mib = 1 << 20

func TestCapacityCap(t *testing.T) {
	for _, c := range []struct {
		limit    uint64
		software bool
		budget   uint64
		want     uint64
		why      string
	}{
		{0, false, 0, 0, ""}, // hardware, nothing known: the driver decides
		{0, true, 0, softwareMemoryLimit, LimitedMemoryLimit}, // software default
		{0, true, 512 * mib, 512 * mib, LimitedBudget},
		{0, false, 80 << 30, 80 << 30, LimitedBudget},
		{2 << 30, false, 80 << 30, 2 << 30, LimitedMemoryLimit},
		{2 << 30, true, 0, 2 << 30, LimitedMemoryLimit},
		{2 << 30, false, 2 << 30, 2 << 30, LimitedBudget},
	} {
		got, why := capacityCap(c.limit, c.software, c.budget)
		if got != c.want || why != c.why {
			t.Errorf("capacityCap(%d, %t, %d) = %d, %q; want %d, %q", c.limit, c.software, c.budget, got, why, c.want, c.why)
		}
	}
}

func TestCapacityChunks(t *testing.T) {
	for _, c := range []struct {
		maxBuf, maxBind, cap, first, least uint64
	}{
		{4 << 30, 2 << 30, 0, 1 << 30, 64 * mib},           // a big GPU: 1 GiB chunks, halved to 64 MiB
		{8 << 30, 2 << 30, 0, 1 << 30, 64 * mib},           // never above capacityChunkMax
		{512 * mib, 2 << 30, 0, 512 * mib, 32 * mib},       // the buffer limit caps it
		{2<<30 - 1, 128 * mib, 1 << 30, 1 << 30, 64 * mib}, // lavapipe: one chunk up to the 1 GiB cap
		{4 << 30, 2 << 30, 300*mib + 7, 300 * mib, 18*mib + 768*1024},
		{4 << 30, 2 << 30, 8 * mib, 8 * mib, mib},
		{4 << 30, 2 << 30, 1000, 768, 768},
	} {
		first, least := capacityChunks(Limits{MaxBufferBytes: c.maxBuf, MaxStorageBindingBytes: c.maxBind}, c.cap)
		if first != c.first || least != c.least {
			t.Errorf("capacityChunks(%d, %d, cap %d) = %d, %d; want %d, %d", c.maxBuf, c.maxBind, c.cap, first, least, c.first, c.least)
		}
	}
}

func TestIsSlow(t *testing.T) {
	const gbs = 1e9
	for _, c := range []struct {
		size    uint64
		t, fast float64
		want    bool
	}{
		{1 << 30, 1, 0, false}, // nothing to compare with yet
		{1 << 30, 1.07e9 / gbs, gbs, false},
		{1 << 30, 4.4, gbs, true},             // more than 4x + 1 ms
		{64 * mib, 0.5e-3, 4000 * gbs, false}, // fixed costs of a small clear: within the slack
		{64 * mib, 1.4e-3, 4000 * gbs, true},  // 64 MiB at 48 GB/s next to 4 TB/s
	} {
		if got := isSlow(c.size, c.t, c.fast); got != c.want {
			t.Errorf("isSlow(%d, %g, %g) = %t, want %t", c.size, c.t, c.fast, got, c.want)
		}
	}
}

// realClears is a capacity run on d within opts that allocates and clears
// its chunks on the device but reports every clear at 1 GB/s: whether a
// clear on a busy host counts as slow memory is timing, tested with fakes
// (TestCapacitySlowMemory). It counts the clears in *clears.
func realClears(d *Device, opts CapacityOptions, clears *int) *capacityRun {
	r := newCapacityRun(d, opts)
	r.touch = func(b *wgpu.Buffer, size uint64) (float64, error) {
		*clears++
		_, err := r.clearChunk(b, size)
		return float64(size) / 1e9, err
	}
	return r
}

func TestCapacityMemoryLimit(t *testing.T) {
	d := newDeviceOpts(t, Options{MemoryLimit: 256 * mib})
	var clears int
	res, err := measureCapacity(t.Context(), realClears(d, CapacityOptions{}, &clears))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	first, _ := capacityChunks(d.Limits(), 256*mib)
	if res.UsableBytes != 256*mib || res.Limited != LimitedMemoryLimit || res.ChunkBytes != first ||
		uint64(res.Chunks) != 256*mib/first || clears != res.Chunks {
		t.Errorf("got %+v after %d clears, want 256 MiB in %d-byte chunks, each cleared once, limited by the memory limit", res, clears, first)
	}
	// Everything was released: the device can hold the same again, timed
	// by the device this time (one chunk cannot be slow next to another).
	if _, err := MeasureCapacity(t.Context(), d, CapacityOptions{BudgetBytes: first}); err != nil {
		t.Fatal(err)
	}
	if again, err := measureCapacity(t.Context(), realClears(d, CapacityOptions{}, &clears)); err != nil || again.UsableBytes != 256*mib {
		t.Fatalf("second run: %+v, %v", again, err)
	}
}

func TestCapacityBudget(t *testing.T) {
	d := newDeviceOpts(t, Options{MemoryLimit: 256 * mib})
	var clears int
	res, err := measureCapacity(t.Context(), realClears(d, CapacityOptions{BudgetBytes: 200*mib + 100}, &clears))
	if err != nil {
		t.Fatal(err)
	}
	if res.UsableBytes != 200*mib || res.Limited != LimitedBudget || clears != res.Chunks {
		t.Errorf("got %+v after %d clears, want 200 MiB limited by the budget", res, clears)
	}
}

// fakeRun is a capacity run on d whose driver has room bytes and whose
// memory clears at 1 GB/s, or at 1 MB/s from slowFrom bytes on. Its chunks
// are small real buffers.
func fakeRun(t *testing.T, d *Device, room, slowFrom uint64) *capacityRun {
	r := &capacityRun{d: d, first: 128 * mib, least: 8 * mib}
	r.alloc = func(size uint64) (*wgpu.Buffer, error) {
		if r.total+size > room {
			return nil, fmt.Errorf("fake: %w", ErrOutOfMemory)
		}
		return d.storageBuffer("fake-chunk", 16)
	}
	r.touch = func(_ *wgpu.Buffer, size uint64) (float64, error) {
		if r.total+size > slowFrom {
			return float64(size) / 1e6, nil
		}
		return float64(size) / 1e9, nil
	}
	t.Cleanup(func() { r.release() })
	return r
}

func TestCapacityDriverRefuses(t *testing.T) {
	d := newDevice(t)
	r := fakeRun(t, d, 300*mib, 1<<40)
	why, err := r.fill(t.Context())
	// 128, 128; 128 and 64 refused; 32; 32 and 16 refused; 8; 8 refused,
	// and 4 is below the least chunk.
	if err != nil || why != LimitedDriverRefused || r.total != 296*mib || len(r.held) != 4 {
		t.Errorf("got %q, %v, %d MiB in %d chunks; want driver refused, 296 MiB in 4", why, err, r.total/mib, len(r.held))
	}
}

func TestCapacitySlowMemory(t *testing.T) {
	d := newDevice(t)
	r := fakeRun(t, d, 1<<40, 200*mib)
	why, err := r.fill(t.Context())
	// 128; 128 slow; 64; 64, 32 and 16 slow; 8; 8 slow: 200 MiB.
	if err != nil || why != LimitedSlowMemory || r.total != 200*mib {
		t.Errorf("got %q, %v, %d MiB; want slow memory at 200 MiB", why, err, r.total/mib)
	}
	// A clear that is slow once (first-touch page faults) is forgiven.
	r2 := fakeRun(t, d, 512*mib, 1<<40)
	slowOnce := true
	touch := r2.touch
	r2.touch = func(b *wgpu.Buffer, size uint64) (float64, error) {
		if r2.total == 256*mib && slowOnce {
			slowOnce = false
			return 10, nil
		}
		return touch(b, size)
	}
	if why, err := r2.fill(t.Context()); err != nil || why != LimitedDriverRefused || r2.total != 512*mib {
		t.Errorf("got %q, %v, %d MiB; want driver refused at 512 MiB", why, err, r2.total/mib)
	}
}

// TestScopedErrors: an error inside the error scopes comes back from
// scoped, not through the uncaptured path, and the device stays usable.
func TestScopedErrors(t *testing.T) {
	d := newDevice(t)
	err := d.scoped(d.provokeUncapturedError)
	if err == nil || errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("scoped validation error: got %v", err)
	}
	t.Log(err)
	if err := d.scoped(func() {}); err != nil {
		t.Fatalf("empty scope: %v", err)
	}
	if err := d.submitWait(); err != nil {
		t.Fatalf("device spoiled after a scoped error: %v", err)
	}
	if _, err := MeasureCapacity(t.Context(), d, CapacityOptions{BudgetBytes: 64 * mib}); err != nil {
		t.Fatal(err)
	}
}

// wgpu's refusal of a buffer, as the Go binding words it (seen on an H200
// asked for 4 GiB), halves the chunk; any other error stays an error.
func TestTypedRefusal(t *testing.T) {
	refused := errors.New("wgpu.(*Device).CreateBuffer(): Validation Error\n\nCaused by:\n    In wgpuDeviceCreateBuffer\n      note: label = `capacity`\n    Not enough memory left.\n")
	if err := typedRefusal(refused); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("typedRefusal(%q) = %v, want ErrOutOfMemory", refused, err)
	}
	other := errors.New("wgpu.(*Device).CreateBuffer(): Validation Error: Buffer size 5 is not a multiple of 4")
	if err := typedRefusal(other); errors.Is(err, ErrOutOfMemory) || err != other {
		t.Errorf("typedRefusal(%q) = %v, want it unchanged", other, err)
	}
	if typedRefusal(nil) != nil {
		t.Error("typedRefusal(nil) is not nil")
	}
}
