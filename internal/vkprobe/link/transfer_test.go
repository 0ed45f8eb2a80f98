package link

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/coopmat/spirv"
	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/vkprobe/vktest"
	"github.com/everycycle/appraise/schema"
)

var identRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]*$`)

func TestMeasureTransfer(t *testing.T) {
	d := vktest.Device(t)
	r, err := MeasureTransfer(t.Context(), d, TransferOptions{Bytes: 8 << 20, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	h2d, d2h := r.HostToDevice.BytesPerS, r.DeviceToHost.BytesPerS
	t.Logf("h2d %.2f GB/s (min %.2f, max %.2f) %s %s, d2h %.2f GB/s (min %.2f, max %.2f) %s %s, %d bytes",
		h2d.Median/1e9, h2d.Min/1e9, h2d.Max/1e9, r.HostToDevice.Timing, r.HostToDevice.Path,
		d2h.Median/1e9, d2h.Min/1e9, d2h.Max/1e9, r.DeviceToHost.Timing, r.DeviceToHost.Path, r.TransferBytes)
	for _, f := range []struct {
		name, path string
		s          schema.Stat
	}{{"1 MiB upload", r.UploadPath, r.Upload1MiB}, {"1 MiB pinned upload", r.UploadPinnedPath, r.Upload1MiBPinned},
		{"empty submit", r.SubmitPath, r.EmptySubmit}} {
		t.Logf("%s %.1f µs (min %.1f, max %.1f) %s", f.name, f.s.Median*1e6, f.s.Min*1e6, f.s.Max*1e6, f.path)
	}
	t.Logf("%d words checked", r.CheckedWords)
	for name, s := range map[string]schema.Stat{"h2d": h2d, "d2h": d2h} {
		if s.Samples != transferQuickSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: %+v, want %d positive samples", name, s, transferQuickSamples)
		}
	}
	for name, s := range map[string]schema.Stat{"upload": r.Upload1MiB, "pinned upload": r.Upload1MiBPinned, "submit": r.EmptySubmit} {
		if s.Samples != latencyQuickSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: %+v, want %d positive samples", name, s, latencyQuickSamples)
		}
	}
	// Every bulk round on every route and every upload (trial and warm-up
	// included) was compared in full, and the counter word.
	routes := uint64(len(routes(d)))
	if min := routes*uint64(transferQuickSamples)*(8<<20)/4 + 2*uint64(latencyQuickSamples)*latencyUploadBytes/4 + 1; r.CheckedWords < min {
		t.Errorf("checked %d words, want at least %d", r.CheckedWords, min)
	}
	if r.TransferBytes != 8<<20 {
		t.Errorf("transfer bytes %d", r.TransferBytes)
	}
	for _, dir := range []Direction{r.HostToDevice, r.DeviceToHost} {
		if isWrite(dir.Path) {
			if dir.Timing != schema.TimingHostWallClock {
				t.Errorf("%s: timing %q, want %q", dir.Path, dir.Timing, schema.TimingHostWallClock)
			}
			continue
		}
		if q := queueNamed(d, t, dir.Path); dir.Timing != bulkTiming(d, q) {
			t.Errorf("%s: timing %q, want %q", dir.Path, dir.Timing, bulkTiming(d, q))
		}
	}
	for _, p := range []string{r.HostToDevice.Path, r.DeviceToHost.Path, r.UploadPath, r.UploadPinnedPath, r.SubmitPath} {
		if !identRe.MatchString(p) {
			t.Errorf("path %q is not an ident", p)
		}
	}
	for _, p := range []string{r.UploadPath, r.UploadPinnedPath} {
		if !isWrite(p) {
			queueNamed(d, t, p)
		}
	}
	if isWrite(r.DeviceToHost.Path) {
		t.Errorf("device to host by %s: the host-write route only uploads", r.DeviceToHost.Path)
	}
}

// TestMeasureTransferOnly re-measures the paths a first measurement
// chose, those alone: every figure comes back on its path, checked, with
// fewer words moved than the trial of every route; a path the device does
// not offer is an error, not a figure of another path.
func TestMeasureTransferOnly(t *testing.T) {
	d := vktest.Device(t)
	o := TransferOptions{Bytes: 8 << 20, Quick: true}
	first, err := MeasureTransfer(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	paths := first.Paths()
	o.Only = &paths
	var steps []string
	o.Progress = func(s string) { steps = append(steps, s) }
	again, err := MeasureTransfer(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first %+v (%d words), again %+v (%d words); steps %q", paths, first.CheckedWords, again.Paths(), again.CheckedWords, steps)
	if err := paths.found(again); err != nil {
		t.Error(err)
	}
	if again.CheckedWords == 0 || again.CheckedWords >= first.CheckedWords {
		t.Errorf("re-measuring the chosen paths checked %d words, the first measurement %d", again.CheckedWords, first.CheckedWords)
	}
	for _, s := range []schema.Stat{again.HostToDevice.BytesPerS, again.DeviceToHost.BytesPerS, again.Upload1MiB, again.Upload1MiBPinned, again.EmptySubmit} {
		if !(s.Median > 0) || s.Samples == 0 {
			t.Errorf("re-measured figure %+v", s)
		}
	}
	bad := paths
	bad.Upload = "vulkan-host-nowhere"
	o.Only = &bad
	if _, err := MeasureTransfer(t.Context(), d, o); err == nil {
		t.Error("a path the device does not offer was measured")
	}
}

// isWrite says whether a path is the host-write route's: no queue moved
// its data.
func isWrite(path string) bool { return strings.Contains(path, "-"+writeRoute) }

// queueNamed returns the queue that path names.
func queueNamed(d *vulkan.Device, t *testing.T, path string) *vulkan.Queue {
	t.Helper()
	for _, q := range d.Queues() {
		if strings.Contains(path, "."+q.Name+".") {
			return q
		}
	}
	t.Errorf("path %q names none of the device's queues", path)
	return d.Queue
}

// bulkTiming is the timing MeasureTransfer should report for copies on q.
func bulkTiming(d *vulkan.Device, q *vulkan.Queue) schema.TimingMethod {
	if q.TsBits == 0 || d.Info.TimestampPeriodNs <= 0 {
		return schema.TimingQueueWallClock
	}
	return schema.TimingGPUTimestamp
}

// TestTransferFamily: only a family that copies but neither computes nor
// draws is a copy queue, one with timestamps preferred.
func TestTransferFamily(t *testing.T) {
	fam := func(flags vk.QueueFlagBits, count, bits uint32) vk.QueueFamilyProperties {
		return vk.QueueFamilyProperties{QueueFlags: vk.QueueFlags(flags), QueueCount: count, TimestampValidBits: bits}
	}
	all := vk.QueueGraphicsBit | vk.QueueComputeBit | vk.QueueTransferBit
	for _, tc := range []struct {
		name      string
		fams      []vk.QueueFamilyProperties
		want      int
		wantBits  uint32
		compute   uint32
		computeTS uint32
	}{
		{"lavapipe: one family", []vk.QueueFamilyProperties{fam(all, 1, 64)}, -1, 0, 0, 64},
		{"NVIDIA-like", []vk.QueueFamilyProperties{fam(all, 16, 64), fam(vk.QueueTransferBit|vk.QueueSparseBindingBit, 2, 64),
			fam(vk.QueueComputeBit|vk.QueueTransferBit, 8, 64)}, 1, 64, 0, 64},
		{"compute and transfer only is no copy queue", []vk.QueueFamilyProperties{fam(vk.QueueComputeBit|vk.QueueTransferBit, 4, 0)}, -1, 0, 0, 0},
		{"timestamps preferred", []vk.QueueFamilyProperties{fam(all, 1, 0), fam(vk.QueueTransferBit, 1, 0), fam(vk.QueueTransferBit, 1, 36),
			fam(vk.QueueComputeBit, 1, 48)}, 2, 36, 3, 48},
		{"no queues in the family", []vk.QueueFamilyProperties{fam(all, 1, 64), fam(vk.QueueTransferBit, 0, 64)}, -1, 0, 0, 64},
	} {
		got, bits := vulkan.TransferFamily(tc.fams)
		c, cbits, err := vulkan.ComputeFamily(tc.fams)
		if got != tc.want || bits != tc.wantBits || err != nil || c != tc.compute || cbits != tc.computeTS {
			t.Errorf("%s: transfer family %d (%d bits), compute %d (%d bits, %v); want %d (%d), %d (%d)",
				tc.name, got, bits, c, cbits, err, tc.want, tc.wantBits, tc.compute, tc.computeTS)
		}
	}
	if _, _, err := vulkan.ComputeFamily([]vk.QueueFamilyProperties{fam(vk.QueueTransferBit, 1, 64)}); err == nil {
		t.Error("computeFamily found a compute family among copy-only ones")
	}
}

func TestMeasureTransferTampered(t *testing.T) {
	d := vktest.Device(t)
	for _, what := range []string{"transfer", "upload", "submit"} {
		o := TransferOptions{Bytes: 1 << 20, Quick: true}
		// Flip one bit of one word, in the middle of what came back.
		o.tamper = func(w string, data []byte) {
			if w == what {
				data[len(data)/2&^3] ^= 0x10
			}
		}
		if _, err := MeasureTransfer(t.Context(), d, o); !errors.Is(err, vulkan.ErrCheckFailed) {
			t.Errorf("%s corrupted: err = %v, want ErrCheckFailed", what, err)
		}
	}
}

func TestTransferBytes(t *testing.T) {
	big := vulkan.DeviceInfo{DeviceLocalBytes: 80 << 30}
	for _, bad := range []uint64{4096, 1<<20 - 4096, 1<<20 + 1, 1<<20 + 2048, 8<<20 + 4} {
		if _, err := transferBytes(bad, big); err == nil {
			t.Errorf("transferBytes(%d) accepted", bad)
		}
	}
	for _, c := range []struct {
		want uint64
		info vulkan.DeviceInfo
		n    uint64
	}{
		{0, big, 256 << 20},
		{0, vulkan.DeviceInfo{DeviceLocalBytes: 80 << 30, DeviceLocalBudgetBytes: 64 << 20}, 16 << 20},
		{0, vulkan.DeviceInfo{DeviceLocalBytes: 100 << 20}, 16 << 20},
		{0, vulkan.DeviceInfo{DeviceLocalBytes: 4 << 20}, 1 << 20},
		{1<<20 + 4096, big, 1<<20 + 4096},
	} {
		if n, err := transferBytes(c.want, c.info); err != nil || n != c.n {
			t.Errorf("transferBytes(%d, %d/%d bytes) = %d, %v; want %d", c.want, c.info.DeviceLocalBytes,
				c.info.DeviceLocalBudgetBytes, n, err, c.n)
		}
	}
	if _, err := transferBytes(0, vulkan.DeviceInfo{DeviceLocalBytes: 2 << 20}); err == nil {
		t.Error("transferBytes on a 2 MiB device accepted")
	}
}

func TestMeasureTransferBadBytes(t *testing.T) {
	d := vktest.Device(t)
	for _, bad := range []uint64{512 << 10, 1<<20 + 100} {
		if _, err := MeasureTransfer(t.Context(), d, TransferOptions{Bytes: bad, Quick: true}); err == nil {
			t.Errorf("MeasureTransfer with %d bytes: no error", bad)
		}
	}
}

func TestPattern(t *testing.T) {
	w := make([]uint32, 2*transferParallelMinW)
	fillPattern(w, 7)
	same := 0
	for i, v := range w {
		if v == poisonWord || v&1 == 0 || v != patternWord(7, i) {
			t.Fatalf("word %d = %#x", i, v)
		}
		if v == patternWord(6, i) {
			same++
		}
	}
	if same > 8 {
		t.Errorf("%d of %d words equal the previous round's", same, len(w))
	}
	// Neighbours, and words a page (1024 words) apart, differ: a page
	// copied to the wrong place fails the check.
	for i := 0; i+1024 < len(w); i += 977 {
		if w[i] == w[i+1] || w[i] == w[i+1024] {
			t.Fatalf("words %d, %d and %d: %#x %#x %#x", i, i+1, i+1024, w[i], w[i+1], w[i+1024])
		}
	}
	if err := checkPattern(w, 7); err != nil {
		t.Fatal(err)
	}
	w[len(w)-1] ^= 2
	if err := checkPattern(w, 7); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Fatalf("corrupt last word: err = %v", err)
	}
}

func TestSpirvValCounter(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version16} {
		if out, ok := vktest.Validate(t, "counter", counterKernel(v)); !ok {
			t.Errorf("counter (SPIR-V %#x): spirv-val: %s", v, out)
		}
	}
}

func TestMeasureTransferCancelled(t *testing.T) {
	d := vktest.Device(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := MeasureTransfer(ctx, d, TransferOptions{Bytes: 1 << 20, Quick: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestStreamShape(t *testing.T) {
	for _, tc := range []struct {
		n           uint64
		groups, per uint32
		bad         bool
	}{
		{n: 4096, groups: 1, per: 1},
		{n: 3 * 4096, groups: 3, per: 1},
		{n: 1 << 20, groups: 256, per: 1},
		{n: 16 << 20, groups: 4096, per: 1},
		{n: 256 << 20, groups: 4096, per: 16},
		{n: 4 << 30, groups: 4096, per: 256},
		{n: 65535 * 4096, groups: 65535, per: 1},
		{n: 3 * 4096 * 8192, groups: 3072, per: 8},
		{n: 0, bad: true},
		{n: 4096 + 16, bad: true},
		{n: 65537 * 4096, bad: true},
	} {
		g, p, err := streamShape(tc.n)
		if tc.bad {
			if err == nil {
				t.Errorf("streamShape(%d) = %d, %d; want an error", tc.n, g, p)
			}
			continue
		}
		if err != nil || g != tc.groups || p != tc.per {
			t.Errorf("streamShape(%d) = %d, %d, %v; want %d, %d", tc.n, g, p, err, tc.groups, tc.per)
		}
		// Every word is moved exactly once.
		if uint64(g)*uint64(p)*streamGroupSize*streamWordBytes != tc.n {
			t.Errorf("streamShape(%d): %d groups × %d words × %d invocations × %d bytes ≠ n", tc.n, g, p, streamGroupSize, streamWordBytes)
		}
	}
}

func TestSpirvValStream(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version16} {
		for _, per := range []uint32{1, 16} {
			if out, ok := vktest.Validate(t, "stream", streamKernel(v, 4096, per)); !ok {
				t.Errorf("stream (SPIR-V %#x, %d per invocation): spirv-val: %s", v, per, out)
			}
		}
	}
}

// TestShaderRoute moves host memory through the stream kernel both ways,
// every word checked, at a size that takes several words per invocation;
// a word altered on its way back fails the check.
func TestShaderRoute(t *testing.T) {
	d := vktest.Device(t)
	r := route{q: d.Queue, shader: true}
	const n = 32 << 20 // 2 words per invocation
	up, down, checked, err := bulkOn(t.Context(), d, r, n, vulkan.HostCached, TransferOptions{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("up %s %.2f GB/s, down %s %.2f GB/s", up.Path, up.BytesPerS.Median/1e9, down.Path, down.BytesPerS.Median/1e9)
	if want := transferPathPrefix + "pull." + d.Queue.Name + ".host-cached"; up.Path != want {
		t.Errorf("up path %q, want %q", up.Path, want)
	}
	if want := transferPathPrefix + "push." + d.Queue.Name + ".host-cached"; down.Path != want {
		t.Errorf("down path %q, want %q", down.Path, want)
	}
	if want := uint64(transferQuickSamples) * n / 4; checked != want {
		t.Errorf("checked %d words, want %d", checked, want)
	}
	tamper := func(what string, b []byte) { b[len(b)-1] ^= 0x80 }
	if _, _, _, err := bulkOn(t.Context(), d, r, n, vulkan.HostCached, TransferOptions{Quick: true, tamper: tamper}); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered: err = %v, want ErrCheckFailed", err)
	}
}

// TestShaderRouteUploads runs each 1 MiB upload through the kernel, from
// every staging memory, and checks every slot.
func TestShaderRouteUploads(t *testing.T) {
	d := vktest.Device(t)
	u := newTestUploader(t, d)
	ran := runUploads(t, u, func(path string) bool { return strings.Contains(path, "-pull."+d.Queue.Name+".") })
	if want := 2 * 2 * len(u.kinds); ran != want {
		t.Errorf("%d kernel upload methods, want %d (each staging memory, each wait, pinned or not)", ran, want)
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
	if u.checked < uint64(ran*uploadSlots)*latencyUploadBytes/4 {
		t.Errorf("checked %d words", u.checked)
	}
}

func TestWriteMapped(t *testing.T) {
	src := make([]uint32, 1<<16+3)
	fillPattern(src, 7)
	for _, parts := range []int{0, 1, 2, 3, 16, 1 << 20} {
		dst := make([]uint32, len(src))
		if err := writeMapped(dst, src, parts); err != nil {
			t.Fatalf("%d writers: %v", parts, err)
		}
		if err := checkPattern(dst, 7); err != nil {
			t.Errorf("%d writers: %v", parts, err)
		}
	}
}

// TestWriteRoute stores uploads from the host into device-mapped memory
// (lavapipe's only memory is device-local and host-visible), in bulk and
// as 1 MiB uploads by each count of writers, every one checked by the
// device; a word altered on its way back fails the check.
func TestWriteRoute(t *testing.T) {
	d := newMappedDevice(t)
	const n = 8 << 20
	up, checked := bulkOrFail(t, d, bulkWrite, n)
	if want := transferPathPrefix + "write.cpu.device-mapped"; up.Path != want || up.Timing != schema.TimingHostWallClock {
		t.Errorf("path %q timed by %s, want %q by the host clock", up.Path, up.Timing, want)
	}
	if up.BytesPerS.Samples != transferQuickSamples || checked != transferQuickSamples*n/4 {
		t.Errorf("%d samples, %d words checked", up.BytesPerS.Samples, checked)
	}
	tamper := func(what string, b []byte) { b[len(b)/2] ^= 1 }
	if _, _, err := bulkWrite(t.Context(), d, n, TransferOptions{Quick: true, tamper: tamper}); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered: err = %v, want ErrCheckFailed", err)
	}

	u := newTestUploader(t, d)
	ran := runUploads(t, u, isWrite)
	if want := 2 * len(writerCounts()); ran != want {
		t.Errorf("%d host-write upload methods, want %d", ran, want)
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
	u.tamper = tamper
	for _, m := range u.methods(true) {
		if isWrite(m.path) {
			if _, err := m.once(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := u.check(); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered upload: err = %v, want ErrCheckFailed", err)
	}
}

// TestWriters arms, uses and disarms a pool many times over, each job
// checked, also with a pool larger than the machine has processors.
func TestWriters(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		w := newWriters(n)
		src := make([]uint32, 1<<14+5)
		for r := range uint32(20) {
			fillPattern(src, r)
			dst := make([]uint32, len(src))
			w.arm()
			err := w.write(dst, src)
			w.disarm()
			if err != nil {
				t.Fatalf("%d writers, round %d: %v", n, r, err)
			}
			if err := checkPattern(dst, r); err != nil {
				t.Fatalf("%d writers, round %d: %v", n, r, err)
			}
		}
		w.close()
	}
	var w *writers
	w.close()
}

// TestSplitRoute uploads over the kernel's pull and the host's writes at
// once, each share of the trial checked in full; a word altered on its
// way back fails the check.
func TestSplitRoute(t *testing.T) {
	d := newMappedDevice(t)
	const n = 8 << 20
	up, checked := bulkOrFail(t, d, bulkSplit, n)
	prefix := transferPathPrefix + splitRoute + "." + d.Queue.Name + ".host-cached.device-mapped.pulled-"
	pct, err := strconv.Atoi(strings.TrimPrefix(up.Path, prefix))
	if !strings.HasPrefix(up.Path, prefix) || err != nil || pct < 50 || pct > 87 || !identRe.MatchString(up.Path) {
		t.Errorf("path %q, want %q and a share of 50–87 %%", up.Path, prefix)
	}
	if up.Timing != schema.TimingHostWallClock || up.BytesPerS.Samples != transferQuickSamples {
		t.Errorf("timing %s, %d samples", up.Timing, up.BytesPerS.Samples)
	}
	// Every warm-up, trial and sampled upload was checked in full.
	if min := uint64(len(splitShares)*splitQuickRounds+transferQuickSamples) * n / 4; checked < min {
		t.Errorf("checked %d words, want at least %d", checked, min)
	}
	tamper := func(what string, b []byte) { b[len(b)/3] ^= 4 }
	if _, _, err := bulkSplit(t.Context(), d, n, TransferOptions{Quick: true, tamper: tamper}); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered: err = %v, want ErrCheckFailed", err)
	}
	if _, _, err := bulkSplit(t.Context(), d, 4096, TransferOptions{Quick: true}); !errors.Is(err, vulkan.ErrNoHostMemory) {
		t.Errorf("4096 bytes: err = %v, want errNoHostMemory (no share splits one page)", err)
	}
}

// newMappedDevice opens the test device, skipping the test where it has no
// device-local memory the host maps.
func newMappedDevice(t *testing.T) *vulkan.Device {
	d := vktest.Device(t)
	if _, _, ok := d.DeviceMappedType(^uint32(0)); !ok {
		t.Skip("no device-local, host-visible memory on " + d.Info.Name)
	}
	return d
}

// bulkOrFail runs a quick bulk upload route over n bytes and logs its rate.
func bulkOrFail(t *testing.T, d *vulkan.Device, run func(context.Context, *vulkan.Device, uint64, TransferOptions) (Direction, uint64, error), n uint64) (Direction, uint64) {
	t.Helper()
	up, checked, err := run(t.Context(), d, n, TransferOptions{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %.2f GB/s (min %.2f, max %.2f)", up.Path, up.BytesPerS.Median/1e9, up.BytesPerS.Min/1e9, up.BytesPerS.Max/1e9)
	return up, checked
}

// newTestUploader creates an uploader over every route of d, released when
// the test ends.
func newTestUploader(t *testing.T, d *vulkan.Device) *uploader {
	t.Helper()
	u := &uploader{d: d, routes: routes(d), src: make([]uint32, latencyUploadBytes/4)}
	t.Cleanup(u.release)
	if err := u.create(); err != nil {
		t.Fatal(err)
	}
	return u
}

// runUploads runs every upload method of u whose path matches, pinned or
// not, once more than there are slots (so that each is checked), and
// returns how many methods ran.
func runUploads(t *testing.T, u *uploader, match func(path string) bool) int {
	t.Helper()
	ran := 0
	for _, pinned := range []bool{false, true} {
		for _, m := range u.methods(pinned) {
			if !match(m.path) {
				continue
			}
			if !identRe.MatchString(m.path) {
				t.Errorf("path %q is not an ident", m.path)
			}
			for range uploadSlots + 1 {
				if _, err := m.once(); err != nil {
					t.Fatalf("%s: %v", m.path, err)
				}
			}
			ran++
		}
	}
	return ran
}

// TestMeasureTransferNoKernelRoutes: without the kernel's routes no step
// runs the pull, push or split route and no figure names one, and the
// copy commands and the host's stores are still measured and checked.
func TestMeasureTransferNoKernelRoutes(t *testing.T) {
	d := vktest.Device(t)
	var steps []string
	o := TransferOptions{Bytes: 8 << 20, Quick: true, NoKernelRoutes: true, Progress: func(s string) { steps = append(steps, s) }}
	r, err := MeasureTransfer(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	kernel := regexp.MustCompile(`\b(pull|push|split)\b`)
	for _, s := range append(steps, r.HostToDevice.Path, r.DeviceToHost.Path) {
		if kernel.MatchString(s) {
			t.Errorf("%q runs the kernel's route", s)
		}
	}
	if !slices.ContainsFunc(steps, func(s string) bool { return strings.Contains(s, "copy.") }) || !slices.ContainsFunc(steps, func(s string) bool { return strings.Contains(s, writeRoute) }) {
		t.Errorf("steps %q: want the copy commands and the host's stores", steps)
	}
	if r.HostToDevice.BytesPerS.Samples == 0 || r.DeviceToHost.BytesPerS.Samples == 0 || r.CheckedWords == 0 {
		t.Errorf("%+v: want both directions measured and checked", r)
	}
}
