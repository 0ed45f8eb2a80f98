package gpu

import (
	"bytes"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestReadBackChunks uploads data and reads it back through a staging
// buffer smaller than the data, so the offsets of every chunk are used.
func TestReadBackChunks(t *testing.T) {
	d := newDevice(t)
	const size, chunk = 1 << 16, 3 << 10
	data := make([]byte, size)
	fillUpload(data, 7)
	buf, err := d.storageBuffer("round-trip", size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	if err := d.upload(buf, 0, data); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 0, size)
	calls := 0
	err = d.readBackChunked(buf, size, chunk, func(off uint64, b []byte) error {
		if off != uint64(len(got)) {
			t.Errorf("chunk at %d, want %d", off, len(got))
		}
		calls++
		got = append(got, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("read back differs from upload")
	}
	if want := (size + chunk - 1) / chunk; calls != want {
		t.Errorf("%d chunks, want %d", calls, want)
	}
}

func TestBufferOverLimitFails(t *testing.T) {
	d := newDevice(t)
	if _, err := d.storageBuffer("huge", d.Limits().MaxBufferBytes+4); err == nil {
		t.Error("a buffer over the device limit was created")
	}
}

// TestSpinSeesWorkInFlight: Poll(false) does not call the queue empty while
// work runs, so a spinning wait ends only once the work is done (and the
// host clock around it covers the work).
func TestSpinSeesWorkInFlight(t *testing.T) {
	d := newDevice(t)
	const size = 16 << 20
	b, err := d.storageBuffer("spin", size)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	clear := func(reps int) func(*wgpu.CommandEncoder) error {
		return func(enc *wgpu.CommandEncoder) error { return clearRepeated(enc, b, size, reps) }
	}
	reps, err := d.repsFor(clear) // at least clockCheckS, 10x spinLimit
	if err != nil {
		t.Fatal(err)
	}
	enc, err := d.encoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if err := clear(reps)(enc); err != nil {
		t.Fatal(err)
	}
	cb, err := finish(enc)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	d.queue.Submit(cb)
	if spinUntil(func() bool { return d.dev.Poll(false, nil) }) {
		t.Errorf("the queue was reported empty within %v of submitting %d clears of %g ms or more", spinLimit, reps, clockCheckS*1e3)
	}
	if err := d.submitWaitBy(waitSpin); err != nil {
		t.Fatal(err)
	}
	if !d.dev.Poll(false, nil) {
		t.Error("the queue is not empty after a wait")
	}
}
