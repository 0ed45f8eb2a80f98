package coopmat

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/everycycle/appraise/coopmat/internal/spirv"
	"github.com/everycycle/appraise/schema"
)

var identRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]*$`)

func TestMeasureTransfer(t *testing.T) {
	d := newDevice(t)
	r, err := MeasureTransfer(t.Context(), d, TransferOptions{Bytes: 8 << 20, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("h2d %.2f GB/s (min %.2f, max %.2f), d2h %.2f GB/s (min %.2f, max %.2f), %d bytes, %s, %s",
		r.HostToDevice.Median/1e9, r.HostToDevice.Min/1e9, r.HostToDevice.Max/1e9,
		r.DeviceToHost.Median/1e9, r.DeviceToHost.Min/1e9, r.DeviceToHost.Max/1e9, r.TransferBytes, r.Timing, r.Path)
	for _, f := range []struct {
		name, path string
		s          schema.Stat
	}{{"1 MiB upload", r.UploadPath, r.Upload1MiB}, {"1 MiB pinned upload", r.UploadPinnedPath, r.Upload1MiBPinned},
		{"empty submit", r.SubmitPath, r.EmptySubmit}} {
		t.Logf("%s %.1f µs (min %.1f, max %.1f) %s", f.name, f.s.Median*1e6, f.s.Min*1e6, f.s.Max*1e6, f.path)
	}
	t.Logf("%d words checked", r.CheckedWords)
	for name, s := range map[string]schema.Stat{"h2d": r.HostToDevice, "d2h": r.DeviceToHost} {
		if s.Samples != transferQuickSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: %+v, want %d positive samples", name, s, transferQuickSamples)
		}
	}
	for name, s := range map[string]schema.Stat{"upload": r.Upload1MiB, "pinned upload": r.Upload1MiBPinned, "submit": r.EmptySubmit} {
		if s.Samples != latencyQuickSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: %+v, want %d positive samples", name, s, latencyQuickSamples)
		}
	}
	// Every bulk round and every upload (trial and warm-up included) was
	// compared in full, and the counter word.
	if min := uint64(transferQuickSamples)*(8<<20)/4 + 2*uint64(latencyQuickSamples)*latencyUploadBytes/4 + 1; r.CheckedWords < min {
		t.Errorf("checked %d words, want at least %d", r.CheckedWords, min)
	}
	if r.TransferBytes != 8<<20 || r.Timing != d.bulkTiming() {
		t.Errorf("transfer bytes %d, timing %q", r.TransferBytes, r.Timing)
	}
	for _, p := range []string{r.Path, r.UploadPath, r.UploadPinnedPath, r.SubmitPath} {
		if !identRe.MatchString(p) {
			t.Errorf("path %q is not an ident", p)
		}
	}
}

// bulkTiming is the timing MeasureTransfer should report on d.
func (d *Device) bulkTiming() schema.TimingMethod {
	if d.Info.TimestampValidBits == 0 || d.Info.TimestampPeriodNs <= 0 {
		return schema.TimingQueueWallClock
	}
	return schema.TimingGPUTimestamp
}

func TestMeasureTransferTampered(t *testing.T) {
	d := newDevice(t)
	for _, what := range []string{"transfer", "upload", "submit"} {
		o := TransferOptions{Bytes: 1 << 20, Quick: true}
		// Flip one bit of one word, in the middle of what came back.
		o.tamper = func(w string, data []byte) {
			if w == what {
				data[len(data)/2&^3] ^= 0x10
			}
		}
		if _, err := MeasureTransfer(t.Context(), d, o); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s corrupted: err = %v, want ErrCheckFailed", what, err)
		}
	}
}

func TestTransferBytes(t *testing.T) {
	big := DeviceInfo{DeviceLocalBytes: 80 << 30}
	for _, bad := range []uint64{4096, 1<<20 - 4096, 1<<20 + 1, 1<<20 + 2048, 8<<20 + 4} {
		if _, err := transferBytes(bad, big); err == nil {
			t.Errorf("transferBytes(%d) accepted", bad)
		}
	}
	for _, c := range []struct {
		want uint64
		info DeviceInfo
		n    uint64
	}{
		{0, big, 256 << 20},
		{0, DeviceInfo{DeviceLocalBytes: 80 << 30, DeviceLocalBudgetBytes: 64 << 20}, 16 << 20},
		{0, DeviceInfo{DeviceLocalBytes: 100 << 20}, 16 << 20},
		{0, DeviceInfo{DeviceLocalBytes: 4 << 20}, 1 << 20},
		{1<<20 + 4096, big, 1<<20 + 4096},
	} {
		if n, err := transferBytes(c.want, c.info); err != nil || n != c.n {
			t.Errorf("transferBytes(%d, %d/%d bytes) = %d, %v; want %d", c.want, c.info.DeviceLocalBytes,
				c.info.DeviceLocalBudgetBytes, n, err, c.n)
		}
	}
	if _, err := transferBytes(0, DeviceInfo{DeviceLocalBytes: 2 << 20}); err == nil {
		t.Error("transferBytes on a 2 MiB device accepted")
	}
}

func TestMeasureTransferBadBytes(t *testing.T) {
	d := newDevice(t)
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
	if err := checkPattern(w, 7); err != nil {
		t.Fatal(err)
	}
	w[len(w)-1] ^= 2
	if err := checkPattern(w, 7); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("corrupt last word: err = %v", err)
	}
}

func TestSpirvValCounter(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version16} {
		if out, ok := validate(t, "counter", counterKernel(v)); !ok {
			t.Errorf("counter (SPIR-V %#x): spirv-val: %s", v, out)
		}
	}
}

func TestMeasureTransferCancelled(t *testing.T) {
	d := newDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := MeasureTransfer(ctx, d, TransferOptions{Bytes: 1 << 20, Quick: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
}
