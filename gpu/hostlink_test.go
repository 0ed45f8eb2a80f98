package gpu

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

func TestLinkTransferBytes(t *testing.T) {
	for _, c := range []struct {
		mem, maxBuf uint64
		software    bool
		want        uint64
	}{
		{4 << 30, 4 << 30, false, 256 << 20},   // room: the full size
		{1 << 30, 2<<30 - 1, false, 256 << 20}, // 4 x 256 MiB fit 1 GiB
		{1 << 30, 2<<30 - 1, true, 64 << 20},   // software default: its own size
		{1<<30 - 1, 4 << 30, false, 128 << 20}, // just too little for four
		{4 << 30, 100 << 20, false, 64 << 20},  // the device's max buffer decides
		{128 << 20, 4 << 30, false, 32 << 20},
		{128 << 20, 4 << 30, true, 32 << 20}, // software, memory decides
		{4 << 20, 4 << 30, false, 1 << 20},   // the smallest accepted
		{4<<20 - 1, 4 << 30, false, 0},       // too small: error
		{4 << 30, 1<<20 - 1, false, 0},
	} {
		got, err := linkTransferBytes(c.mem, c.maxBuf, c.software)
		if got != c.want || (err != nil) != (c.want == 0) {
			t.Errorf("linkTransferBytes(%d, %d, %t) = %d, %v; want %d", c.mem, c.maxBuf, c.software, got, err, c.want)
		}
	}
}

// newLinkDevice opens a device whose memory limit makes 32 MiB transfers.
func newLinkDevice(t *testing.T) *Device {
	t.Helper()
	return newDeviceOpts(t, Options{Quick: true, MemoryLimit: 128 << 20})
}

func TestHostLinkQuick(t *testing.T) {
	d := newLinkDevice(t)
	start := time.Now()
	res, err := MeasureHostLink(t.Context(), d)
	took := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	l, err := newLink(d, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	lim := linkLimits(true)
	for _, c := range []struct {
		name  string
		tr    Transfer
		paths []string
	}{
		{"host to device", res.HostToDevice, methodPaths(l.uploadMethods())},
		{"device to host", res.DeviceToHost, methodPaths(l.downloadMethods())},
	} {
		s := c.tr.BytesPerS
		t.Logf("%s (%s): median %.2f GB/s (min %.2f, max %.2f, %d samples of %d MiB; %d bytes checked)",
			c.name, c.tr.Path, s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, c.tr.TransferBytes>>20, c.tr.Checked)
		if c.tr.TransferBytes != 32<<20 {
			t.Errorf("%s: %d-byte transfers, want 32 MiB", c.name, c.tr.TransferBytes)
		}
		// Plausibility only: less than 10 TB/s, and the slowest transfer
		// timed inside the call (bytes/s, not another unit).
		if !(s.Min > 0) || float64(c.tr.TransferBytes)/s.Min > took || s.Min > s.Median || s.Median > s.Max || s.Max > 1e13 {
			t.Errorf("%s: implausible rates %+v", c.name, s)
		}
		if s.Samples < lim.MinSamples || s.Samples > lim.MaxSamples {
			t.Errorf("%s: %d samples", c.name, s.Samples)
		}
		if c.tr.Checked < uint64(s.Samples)*c.tr.TransferBytes {
			t.Errorf("%s: %d bytes checked for %d samples", c.name, c.tr.Checked, s.Samples)
		}
		if !slices.Contains(c.paths, c.tr.Path) {
			t.Errorf("%s: path %q not among %q", c.name, c.tr.Path, c.paths)
		}
		// The trial that chose the path: a rate whose transfer was timed
		// inside the call, as the samples were.
		if tr := c.tr.TrialBytesPerS; !(tr > 0) || float64(c.tr.TransferBytes)/tr > took {
			t.Errorf("%s: implausible trial rate %g", c.name, tr)
		}
	}
}

func TestHostLinkCatchesCorruptTransfer(t *testing.T) {
	d := newLinkDevice(t)
	tamper := func(what string, off uint64, chunk []byte) []byte {
		if what == "link" {
			chunk[len(chunk)-3] ^= 0x10
		}
		return chunk
	}
	if _, err := measureHostLink(t.Context(), d, tamper); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

// Every path, in every pairing, passes its check; an upload or a download
// that did not happen leaves an earlier round's stamps behind and fails.
func TestHostLinkPathsAndStaleData(t *testing.T) {
	d := newLinkDevice(t)
	l, err := newLink(d, 4<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	downs := l.downloadMethods()
	for i, up := range l.uploadMethods() {
		for _, down := range downs {
			if _, _, err := l.round(up, down); err != nil {
				t.Fatalf("round %d, %s then %s: %v", i, up.path, down.path, err)
			}
		}
	}
	skipped := method{"skipped", func() (float64, error) { return 1e-3, nil }}
	if _, _, err := l.round(skipped, downs[0]); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("a skipped upload: got %v, want ErrCheckFailed", err)
	}
	mapOnly := method{"map-only", func() (float64, error) {
		return 1e-3, l.d.mapWait(l.down, wgpu.MapModeRead, l.n, waitBlock)
	}}
	if _, _, err := l.round(l.uploadMethods()[0], downs[0]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.round(l.uploadMethods()[0], mapOnly); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("a download that copied nothing: got %v, want ErrCheckFailed", err)
	}
}

// uploadMethods and downloadMethods list every method of each direction.
func (l *link) uploadMethods() []method {
	var ms []method
	for _, p := range []string{pathStaged, pathWrite} {
		for _, w := range waitModes() {
			ms = append(ms, l.uploadMethod(p, w))
		}
	}
	return ms
}

func (l *link) downloadMethods() []method {
	var ms []method
	for _, w := range waitModes() {
		ms = append(ms, l.downloadMethod(w))
	}
	return ms
}
