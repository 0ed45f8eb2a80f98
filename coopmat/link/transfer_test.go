package link

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/coopmat/spirv"
	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
	"github.com/everycycle/appraise/schema"
)

// Brief sample counts and trial rounds, as a quick appraisal measures.
const quickSamples, quickLatencySamples = 3, 21

// quick is o with the brief counts.
func quick(o TransferOptions) TransferOptions {
	o.Samples, o.LatencySamples, o.TrialRounds, o.LatencyTrialRounds = quickSamples, quickLatencySamples, 3, 7
	return o
}

var identRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]*$`)

func TestMeasureTransfer(t *testing.T) {
	d := vktest.Device(t)
	r, err := MeasureTransfer(t.Context(), d, quick(TransferOptions{Bytes: 8 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]Family{"h2d": r.HostToDevice, "d2h": r.DeviceToHost, "pinned upload": r.Upload1MiBPinned, "submit": r.EmptySubmit}
	for name, f := range fams {
		t.Logf("%s: kept %s %g (trial %g), others %+v", name, f.Path, f.Stat.Median, f.Trial.Median, f.Others)
		want := quickLatencySamples
		if name == "h2d" || name == "d2h" {
			want = quickSamples
		}
		if s := f.Stat; s.Samples != want || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: %+v, want %d positive samples", name, s, want)
		}
		if len(f.Others) == 0 {
			t.Errorf("%s: no other candidate named", name)
		}
		for _, c := range append(f.Others, f.Candidate) {
			if c.Trial.Samples < 1 || !(c.Trial.Median > 0) || !identRe.MatchString(c.Path) || c.Path == "" {
				t.Errorf("%s: candidate %+v", name, c)
			}
			if c.Path == f.Path && c.Trial != f.Trial {
				t.Errorf("%s: the kept path %s is also among the others", name, c.Path)
			}
		}
	}
	// The kept figure is the faster of the trial.
	if f := r.HostToDevice; fastest(append([]Candidate{f.Candidate}, f.Others...), true) != 0 {
		t.Errorf("h2d kept %+v, others %+v", f.Candidate, f.Others)
	}
	if f := r.EmptySubmit; fastest(append([]Candidate{f.Candidate}, f.Others...), false) != 0 {
		t.Errorf("submit kept %+v, others %+v", f.Candidate, f.Others)
	}
	// Every kept bulk sample round and upload sample was compared in full,
	// and the counter word.
	if min := uint64(quickSamples)*(8<<20)/4 + uint64(quickLatencySamples)*latencyUploadBytes/4 + 1; r.CheckedWords < min {
		t.Errorf("checked %d words, want at least %d", r.CheckedWords, min)
	}
	if r.TransferBytes != 8<<20 {
		t.Errorf("transfer bytes %d", r.TransferBytes)
	}
	for _, dir := range []Family{r.HostToDevice, r.DeviceToHost} {
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
	if isWrite(r.DeviceToHost.Path) || !strings.HasSuffix(r.DeviceToHost.Path, ".host-cached") {
		t.Errorf("device to host by %s: want a download into host-cached memory", r.DeviceToHost.Path)
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
		o := quick(TransferOptions{Bytes: 1 << 20})
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
		if _, err := MeasureTransfer(t.Context(), d, quick(TransferOptions{Bytes: bad})); err == nil {
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
	if _, err := MeasureTransfer(ctx, d, quick(TransferOptions{Bytes: 1 << 20})); !errors.Is(err, context.Canceled) {
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
	b, err := newBulk(d, r, n, vulkan.HostCached, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	upP, downP := b.paths()
	up, down, err := sampleBulk(t.Context(), b, n, quick(TransferOptions{Warmup: time.Millisecond}), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("up %s %.2f GB/s, down %s %.2f GB/s", upP.Path, up.Median/1e9, downP.Path, down.Median/1e9)
	if want := transferPathPrefix + "pull." + d.Queue.Name + ".host-cached"; upP.Path != want {
		t.Errorf("up path %q, want %q", upP.Path, want)
	}
	if want := transferPathPrefix + "push." + d.Queue.Name + ".host-cached"; downP.Path != want {
		t.Errorf("down path %q, want %q", downP.Path, want)
	}
	if want := uint64(quickSamples) * n / 4; b.words() != want || up.Samples != quickSamples || down.Samples != quickSamples {
		t.Errorf("checked %d words, want %d; samples %d, %d", b.words(), want, up.Samples, down.Samples)
	}
	b.tamper = func(what string, b []byte) { b[len(b)-1] ^= 0x80 }
	if _, _, err := b.once(); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered: err = %v, want ErrCheckFailed", err)
	}
}

// TestUploadCandidates runs each pinned 1 MiB upload candidate of the
// test device more times than there are slots, every slot checked, with
// ident paths; a word altered on its way back fails the check.
func TestUploadCandidates(t *testing.T) {
	d := vktest.Device(t)
	u := newTestUploader(t, d)
	ms, err := u.create(uploadCandidates(featuresOf(d, TransferOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	_, _, mapped := d.DeviceMappedType(^uint32(0))
	if want := 2; mapped && len(ms) != want+1 || !mapped && len(ms) != want {
		t.Errorf("%d candidates, device-mapped memory %v", len(ms), mapped)
	}
	for _, m := range ms {
		if !identRe.MatchString(m.path) || !strings.HasPrefix(m.path, pinnedPathPrefix) {
			t.Errorf("path %q", m.path)
		}
		for range uploadSlots + 1 {
			if _, err := m.once(); err != nil {
				t.Fatalf("%s: %v", m.path, err)
			}
		}
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
	if want := uint64(len(ms)*(uploadSlots+1)) * latencyUploadBytes / 4; u.checked != want {
		t.Errorf("checked %d words, want %d", u.checked, want)
	}
	u.tamper = func(what string, b []byte) { b[len(b)/2] ^= 1 }
	for _, m := range ms {
		if _, err := m.once(); err != nil {
			t.Fatal(err)
		}
		if err := u.check(); !errors.Is(err, vulkan.ErrCheckFailed) {
			t.Errorf("%s tampered: err = %v, want ErrCheckFailed", m.path, err)
		}
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

// TestWriteRoute stores bulk uploads from the host into device-mapped
// memory (lavapipe's only memory is device-local and host-visible), every
// one checked by the device; a word altered on its way back fails the
// check.
func TestWriteRoute(t *testing.T) {
	d := newMappedDevice(t)
	const n = 8 << 20
	w, err := newHostWrite(d, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.release()
	up, down := w.paths()
	if want := transferPathPrefix + "write.cpu.device-mapped"; up.Path != want || up.Timing != schema.TimingHostWallClock || down.Path != "" {
		t.Errorf("path %q timed by %s (down %q), want %q by the host clock, upload only", up.Path, up.Timing, down.Path, want)
	}
	st, _, err := sampleBulk(t.Context(), w, n, quick(TransferOptions{Warmup: time.Millisecond}), false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples != quickSamples || w.words() != quickSamples*n/4 {
		t.Errorf("%d samples, %d words checked", st.Samples, w.words())
	}
	w.tamper = func(what string, b []byte) { b[len(b)/2] ^= 1 }
	if _, _, err := w.once(); !errors.Is(err, vulkan.ErrCheckFailed) {
		t.Errorf("tampered: err = %v, want ErrCheckFailed", err)
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

// newMappedDevice opens the test device, skipping the test where it has no
// device-local memory the host maps.
func newMappedDevice(t *testing.T) *vulkan.Device {
	d := vktest.Device(t)
	if _, _, ok := d.DeviceMappedType(^uint32(0)); !ok {
		t.Skip("no device-local, host-visible memory on " + d.Info.Name)
	}
	return d
}

// newTestUploader is an uploader on d, released when the test ends;
// create adds its candidates.
func newTestUploader(t *testing.T, d *vulkan.Device) *uploader {
	t.Helper()
	u := &uploader{d: d, src: make([]uint32, latencyUploadBytes/4)}
	t.Cleanup(u.release)
	return u
}

// TestMeasureTransferNoKernelRoutes: without the kernel's routes no
// candidate runs the pull or push, and the copy commands and the host's
// stores are still measured and checked.
func TestMeasureTransferNoKernelRoutes(t *testing.T) {
	d := vktest.Device(t)
	o := quick(TransferOptions{Bytes: 8 << 20, NoKernelRoutes: true})
	r, err := MeasureTransfer(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	kernel := regexp.MustCompile(`\b(pull|push)\b`)
	var paths []string
	for _, f := range []Family{r.HostToDevice, r.DeviceToHost, r.Upload1MiBPinned} {
		paths = append(paths, f.Path)
		for _, c := range f.Others {
			paths = append(paths, c.Path)
		}
	}
	for _, p := range paths {
		if kernel.MatchString(p) {
			t.Errorf("%q runs the kernel's route", p)
		}
	}
	if !slices.ContainsFunc(paths, func(s string) bool { return strings.Contains(s, "copy.") }) {
		t.Errorf("paths %q: want the copy commands", paths)
	}
	if r.HostToDevice.Stat.Samples == 0 || r.DeviceToHost.Stat.Samples == 0 || r.CheckedWords == 0 {
		t.Errorf("%+v: want both directions measured and checked", r)
	}
}

// patternWord is word i of round r's pattern (patternAt with r's key):
// every word changes from round to round (with overwhelming likelihood),
// neighbours differ, and none equals poisonWord.
func patternWord(r uint32, i int) uint32 { return patternAt(patternKey(r), i) }
