package gpu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

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

// TestPollSeesWorkInFlight: Poll(false) does not call the queue empty while
// work runs, and submitWait ends only once the work is done. Each is
// an ordering within one run, whatever the host's load: the GPU's own
// timestamps of the work fit inside the host's time from the submission
// to the queue reported empty (or to the end of the wait). Without trusted
// GPU timestamps there is no clock but the host's to compare with, and
// only the queue being empty after the wait is checked.
func TestPollSeesWorkInFlight(t *testing.T) {
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
	reps, err := d.repsFor(clear) // about clockCheckS of work
	if err != nil {
		t.Fatal(err)
	}
	polled := func(cb *wgpu.CommandBuffer) error {
		d.queue.Submit(cb)
		for start := time.Now(); !d.dev.Poll(false, nil); {
			if time.Since(start) > time.Minute {
				return errors.New("the queue was not reported empty within a minute")
			}
		}
		return nil
	}
	waited := func(cb *wgpu.CommandBuffer) error { return d.submitWait(cb) }
	for _, c := range []struct {
		name   string
		submit func(*wgpu.CommandBuffer) error
	}{{"Poll(false) until empty", polled}, {"submitWait", waited}} {
		hostS, gpuS, err := submitTimed(d, clear(reps), c.submit)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: %d clears, %.3g ms on the GPU, done after %.3g ms on the host", c.name, reps, gpuS*1e3, hostS*1e3)
		if gpuS > hostS*maxClockRatio+clockSlackS {
			t.Errorf("%s: the queue was done %.3g ms after the submission, but the work took %.3g ms on the GPU", c.name, hostS*1e3, gpuS*1e3)
		}
		if !d.dev.Poll(false, nil) {
			t.Errorf("%s: the queue is not empty after it", c.name)
		}
	}
}

// submitTimed records work between the device's GPU timestamps (none
// without trusted ones), hands the command buffer to submit, which
// returns once the work is done, and returns the host's seconds around
// submit and the GPU's seconds (0 without timestamps).
func submitTimed(d *Device, work func(*wgpu.CommandEncoder) error, submit func(*wgpu.CommandBuffer) error) (hostS, gpuS float64, err error) {
	enc, err := d.encoder()
	if err != nil {
		return 0, 0, err
	}
	defer enc.Release()
	if err := d.recordTimed(enc, work, d.clock); err != nil {
		return 0, 0, err
	}
	cb, err := finish(enc)
	if err != nil {
		return 0, 0, err
	}
	defer cb.Release()
	start := time.Now()
	if err := submit(cb); err != nil {
		return 0, 0, err
	}
	hostS = time.Since(start).Seconds()
	if d.clock != nil {
		gpuS, err = d.readClock(d.clock)
	}
	return hostS, gpuS, err
}

// fillUpload writes distinct words for upload number k into data.
func fillUpload(data []byte, k uint32) {
	for i := 0; i+4 <= len(data); i += 4 {
		binary.LittleEndian.PutUint32(data[i:], uint32(i)*0x9E3779B1+k*0x85EBCA6B+1)
	}
}

// readBackChunked is readBack through a staging buffer of at most maxChunk
// bytes (a multiple of 4).
func (d *Device) readBackChunked(src *wgpu.Buffer, size, maxChunk uint64, visit func(offset uint64, chunk []byte) error) error {
	return d.readRange(src, 0, size, maxChunk, visit)
}
