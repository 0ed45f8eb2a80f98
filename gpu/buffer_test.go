package gpu

import (
	"bytes"
	"testing"
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
