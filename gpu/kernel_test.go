package gpu

import (
	"regexp"
	"strings"
	"testing"

	"github.com/everycycle/appraise/wgsl"
)

// TestEveryProbeKernelExists: each WGSL file a probe names is embedded,
// non-empty, and declares each entry point it uses as a compute function.
func TestEveryProbeKernelExists(t *testing.T) {
	for file, entries := range probeKernels() {
		src, err := wgsl.Source(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if strings.TrimSpace(src) == "" {
			t.Fatalf("%s.wgsl is empty", file)
		}
		for _, e := range entries {
			re := regexp.MustCompile(`@compute\s+@workgroup_size\([^)]*\)\s*fn\s+` + regexp.QuoteMeta(e) + `\(`)
			if !re.MatchString(src) {
				t.Errorf("%s.wgsl has no compute entry point %q", file, e)
			}
		}
	}
}

// TestProbeKernelsCompile compiles every probe kernel on the device.
func TestProbeKernelsCompile(t *testing.T) {
	d := newDevice(t)
	for file, entries := range probeKernels() {
		ks, err := d.compile(file, entries...)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(ks.kernels) != len(entries) {
			t.Errorf("%s: %d pipelines for %d entries", file, len(ks.kernels), len(entries))
		}
		ks.release()
		ks.release()
	}
	if _, err := d.compile("no-such-file", "main"); err == nil {
		t.Error("compiling a missing file did not fail")
	}
	if _, err := d.compile("launch", "no_such_entry"); err == nil {
		t.Error("compiling a missing entry point did not fail")
	}
}

func TestGrid(t *testing.T) {
	cases := []struct{ groups, maxPerDim, x, y uint32 }{
		{1, 65535, 1, 1},
		{32768, 65535, 32768, 1},
		{65535, 65535, 65535, 1},
		{65536, 65535, 32768, 2},
		{262144, 65535, 52429, 5},
		{101, 11, 11, 10},
	}
	for _, c := range cases {
		x, y, err := grid(c.groups, c.maxPerDim)
		if err != nil || x != c.x || y != c.y {
			t.Errorf("grid(%d, %d) = %d x %d, %v; want %d x %d", c.groups, c.maxPerDim, x, y, err, c.x, c.y)
		}
		if uint64(x)*uint64(y) < uint64(c.groups) || x*y-c.groups >= y {
			t.Errorf("grid(%d, %d) = %d x %d does not cover the groups tightly", c.groups, c.maxPerDim, x, y)
		}
	}
	for _, bad := range [][2]uint32{{0, 10}, {10, 0}, {101, 10}} {
		if _, _, err := grid(bad[0], bad[1]); err == nil {
			t.Errorf("grid(%d, %d) did not fail", bad[0], bad[1])
		}
	}
}
