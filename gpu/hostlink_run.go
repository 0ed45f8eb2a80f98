package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// link holds one run of the host-link probe. Between rounds the upload
// staging buffer is mapped and holds exactly want; the device buffer holds
// the previous round's want.
//
//	round: stamp want and staging → upload (timed) → download (timed)
//	       → compare the download with want → map the staging buffer again
type link struct {
	d      *Device
	tamper tamperFunc
	n      uint64 // bytes per transfer

	dev  *wgpu.Buffer // device-local: Storage|CopySrc|CopyDst
	up   *wgpu.Buffer // MapWrite|CopySrc, mapped between rounds
	down *wgpu.Buffer // MapRead|CopyDst

	want    []byte
	rounds  uint32
	checked uint64
}

// newLink creates the buffers and fills want and the staging buffer. On
// error nothing is left behind.
func newLink(d *Device, n uint64, tamper tamperFunc) (*link, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	l := &link{d: d, n: n, tamper: tamper}
	if err := l.setup(); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

// setup does newLink's work; the caller releases l on error.
func (l *link) setup() error {
	var err error
	if l.dev, err = l.d.storageBuffer("link-device", l.n); err != nil {
		return err
	}
	if l.up, err = l.d.newBuffer("link-upload", l.n, wgpu.BufferUsageMapWrite|wgpu.BufferUsageCopySrc); err != nil {
		return err
	}
	if l.down, err = l.d.newBuffer("link-download", l.n, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst); err != nil {
		return err
	}
	l.want = make([]byte, l.n)
	fillUpload(l.want, 0x4c494e4b)
	if err := l.d.mapWait(l.up, wgpu.MapModeWrite, l.n, waitBlock); err != nil {
		return err
	}
	copy(l.up.GetMappedRange(0, uint(l.n)), l.want)
	return nil
}

// release frees the buffers. Safe on a partial link.
func (l *link) release() {
	for _, b := range []*wgpu.Buffer{l.down, l.up, l.dev} {
		if b != nil {
			b.Release()
		}
	}
}

// uploadMethod is path ("mapped-staging" or "write-buffer") waited for
// the way w says.
func (l *link) uploadMethod(path string, w waitMode) method {
	once := func() (float64, error) { return l.stagedUpload(w) }
	if path == pathWrite {
		once = func() (float64, error) { return l.writeUpload(w) }
	}
	return method{path + "." + w.String(), once}
}

// downloadMethod is the mapped readback waited for the way w says.
func (l *link) downloadMethod(w waitMode) method {
	return method{"mapped-readback." + w.String(), func() (float64, error) { return l.download(w) }}
}

// round runs one checked round trip and returns the upload's and the
// download's time in seconds.
func (l *link) round(up, down method) (upS, downS float64, err error) {
	l.stamp()
	if upS, err = up.once(); err != nil {
		return 0, 0, err
	}
	if downS, err = down.once(); err != nil {
		return 0, 0, err
	}
	return upS, downS, l.check()
}

// stamp writes this round's word every linkStampStride bytes into want and
// into the mapped upload staging buffer.
func (l *link) stamp() {
	l.rounds++
	staging := l.up.GetMappedRange(0, uint(l.n))
	for off := uint64(0); off+4 <= l.n; off += linkStampStride {
		w := uint32(off)*0x9E3779B1 + l.rounds*0x85EBCA6B
		binary.LittleEndian.PutUint32(l.want[off:], w)
		binary.LittleEndian.PutUint32(staging[off:], w)
	}
}

// stagedUpload times unmapping the staging buffer (which holds want),
// copying it to the device buffer and waiting the way w says. Untimed, it
// then maps the staging buffer again.
func (l *link) stagedUpload(w waitMode) (float64, error) {
	start := time.Now()
	if err := unmap(l.up); err != nil {
		return 0, err
	}
	err := l.d.runBy(w, func(enc *wgpu.CommandEncoder) error { return copyBuffer(enc, l.up, 0, l.dev, l.n) })
	t := time.Since(start).Seconds()
	if err == nil {
		err = l.d.mapWait(l.up, wgpu.MapModeWrite, l.n, waitBlock)
	}
	return t, err
}

// writeUpload times Queue.WriteBuffer of want into the device buffer and
// the wait, the way w says, for the queue.
func (l *link) writeUpload(w waitMode) (float64, error) {
	start := time.Now()
	if err := l.d.upload(l.dev, 0, l.want); err != nil {
		return 0, err
	}
	err := l.d.submitWaitBy(w)
	return time.Since(start).Seconds(), err
}

// download times copying the device buffer into the download staging
// buffer, waiting the way w says, and mapping it for reading. It leaves
// the buffer mapped for check.
func (l *link) download(w waitMode) (float64, error) {
	start := time.Now()
	err := l.d.runBy(w, func(enc *wgpu.CommandEncoder) error { return copyBuffer(enc, l.dev, 0, l.down, l.n) })
	if err == nil {
		err = l.d.mapWait(l.down, wgpu.MapModeRead, l.n, w)
	}
	return time.Since(start).Seconds(), err
}

// check compares the mapped download with want and unmaps it.
func (l *link) check() error {
	got := l.down.GetMappedRange(0, uint(l.n))
	if l.tamper != nil {
		got = l.tamper("link", 0, append([]byte(nil), got...))
	}
	var err error
	if !bytes.Equal(got, l.want) {
		err = fmt.Errorf("%w: round %d: %d bytes came back different from what was sent, first at byte %d",
			ErrCheckFailed, l.rounds, l.n, firstDiff(got, l.want))
	}
	if uerr := unmap(l.down); err == nil {
		err = uerr
	}
	if err == nil {
		l.checked += l.n
	}
	return err
}

// firstDiff is the index of the first byte where a and b differ, or the
// shorter length.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
