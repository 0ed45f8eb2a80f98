package link

import (
	"context"
	"slices"
	"testing"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// TestBulkCandidates: the bulk candidates follow what the device offers,
// two or three of them, never more.
func TestBulkCandidates(t *testing.T) {
	compute, copyQ := &vulkan.Queue{Name: "compute-queue"}, &vulkan.Queue{Name: "transfer-queue"}
	for _, tc := range []struct {
		name string
		f    features
		want []string
	}{
		{"a discrete GPU with import, a BAR and copy engines", features{hostImport: true, deviceMapped: true, copyQueue: true},
			[]string{"pull.compute-queue.host-imported", "copy.transfer-queue.host-cached", "write"}},
		{"no import, no BAR, no copy engines", features{}, []string{"pull.compute-queue.host-cached", "copy.compute-queue.host-cached"}},
		{"no kernel routes", features{hostImport: true, deviceMapped: true, noKernel: true}, []string{"copy.compute-queue.host-cached", "write"}},
	} {
		var got []string
		for _, c := range bulkCandidates(tc.f, compute, copyQ) {
			if c.route == nil {
				got = append(got, "write")
				continue
			}
			k := map[vulkan.HostKind]string{vulkan.HostCached: "host-cached", vulkan.HostImported: "host-imported"}[c.from]
			got = append(got, c.route.name(true)+"."+k)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestUploadCandidates: the host's stores where device-mapped memory is,
// by at most uploadWriters writers and no more than the cores; the copy
// always, on the transfer-only queue where there is one; the kernel's pull unless kernels are left out.
func TestUploadRule(t *testing.T) {
	for _, tc := range []struct {
		f    features
		want []uploadSpec
	}{
		{features{deviceMapped: true, cores: 64}, []uploadSpec{{writers: uploadWriters}, {}, {shader: true}}},
		{features{deviceMapped: true, cores: 2}, []uploadSpec{{writers: 2}, {}, {shader: true}}},
		{features{cores: 64}, []uploadSpec{{}, {shader: true}}},
		{features{deviceMapped: true, noKernel: true, cores: 1}, []uploadSpec{{writers: 1}, {}}},
		{features{copyQueue: true, cores: 8}, []uploadSpec{{copyQueue: true}, {shader: true}}},
	} {
		if got := uploadCandidates(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %+v, want %+v", tc.f, got, tc.want)
		}
	}
	if len(dispatchCandidates()) != 2 {
		t.Error("dispatch candidates")
	}
}

// fakeClock is a clock advanced only by recorded timings.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestTrialBudget: a trial keeps its rounds while they fit the family's
// budget (warm-up included), stops before a round its last one says would
// end past it, and keeps at least one round; fast rounds stop at the
// count.
func TestTrialBudget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		warm      time.Duration
		round     time.Duration // one round of every candidate, as recorded
		discard   int
		keep      int
		wantKept  int
		wantSpent time.Duration
	}{
		{"fast rounds stop at the count", 250 * time.Millisecond, 10 * time.Millisecond, 5, 21, 21, 250*time.Millisecond + 26*10*time.Millisecond},
		{"slow rounds stop at the budget", 250 * time.Millisecond, 400 * time.Millisecond, 0, 5, 4, 250*time.Millisecond + 4*400*time.Millisecond},
		{"a round longer than the budget is kept once", 0, 3 * time.Second, 0, 5, 1, 3 * time.Second},
		{"discarded rounds count against the budget", 0, 300 * time.Millisecond, 5, 21, 1, 6 * 300 * time.Millisecond},
	} {
		c := &fakeClock{t: time.Unix(1e9, 0)}
		start := c.now()
		c.t = c.t.Add(tc.warm)
		tr := trial{budget: familyBudget, discard: tc.discard, keep: tc.keep, now: c.now}
		rounds := 0
		kept, err := tr.run(context.Background(), start, func(bool) error { rounds++; c.t = c.t.Add(tc.round); return nil })
		spent := c.t.Sub(start)
		if err != nil || kept != tc.wantKept || spent != tc.wantSpent {
			t.Errorf("%s: kept %d of %d rounds in %v (%v), want %d in %v", tc.name, kept, rounds, spent, err, tc.wantKept, tc.wantSpent)
		}
		if tc.round+tc.warm <= familyBudget && tc.discard == 0 && spent > familyBudget {
			t.Errorf("%s: the decision took %v, over %v", tc.name, spent, familyBudget)
		}
	}
	for _, o := range []TransferOptions{{}, {TrialRounds: 3, LatencyTrialRounds: 7}} {
		for _, tr := range []trial{bulkTrial(o), latencyTrial(o)} {
			if tr.budget != familyBudget || tr.keep < 1 || tr.now == nil {
				t.Errorf("trial %+v", tr)
			}
		}
	}
	if bulkTrial(TransferOptions{TrialRounds: 3}).keep != 3 || latencyTrial(TransferOptions{}).keep != 21 {
		t.Error("trial rounds not taken from the options")
	}
}

// TestFamilyKeepsFaster: the kept candidate is the one with the best trial
// median (higher rate, lower time), the first of equals, and every other
// candidate is named beside it; the signed figure is the fresh one.
func TestFamilyKeepsFaster(t *testing.T) {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 3, Median: m, Min: m, Max: m} }
	cs := []Candidate{{Path: "a", Trial: st(50e9)}, {Path: "b", Trial: st(52e9)}, {Path: "c", Trial: st(52e9)}}
	if got := fastest(cs, true); got != 1 {
		t.Errorf("rates: kept %d, want 1", got)
	}
	if got := fastest(cs, false); got != 0 {
		t.Errorf("times: kept %d, want 0", got)
	}
	f := family(cs, 1, st(51.3e9))
	if f.Path != "b" || f.Stat.Median != 51.3e9 || f.Trial.Median != 52e9 || len(f.Others) != 2 || f.Others[0].Path != "a" || f.Others[1].Path != "c" {
		t.Errorf("family %+v", f)
	}
}

// TestLinkContributionKeptPaths: the card holds each family's kept path
// and its fresh figure, no other path, and no launch figures when bulkOnly.
func TestLinkContributionKeptPaths(t *testing.T) {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 3, Median: m, Min: m, Max: m} }
	bulk := family([]Candidate{{Path: "vulkan-mapped-pull.compute-queue.host-imported", Trial: st(51e9), Timing: schema.TimingGPUTimestamp},
		{Path: "vulkan-mapped-write.cpu.device-mapped", Trial: st(20e9), Timing: schema.TimingHostWallClock}}, 0, st(51.3e9))
	lat := family([]Candidate{{Path: "vulkan-dispatch.fence-spin", Trial: st(17e-6)}, {Path: "vulkan-dispatch.fence-wait", Trial: st(40e-6)}}, 0, st(17.1e-6))
	r := TransferResult{HostToDevice: bulk, DeviceToHost: bulk, Upload1MiBPinned: lat, EmptySubmit: lat, TransferBytes: 256 << 20, CheckedWords: 1}
	c := linkContribution(r, false)
	h := c.HostToDevice
	if h.BytesPerS.Median != 51.3e9 || h.Path != bulk.Path || h.OtherPath != nil || len(c.Launch.OtherPaths) != 0 || c.Launch.DispatchPath != "vulkan-dispatch.fence-spin" {
		t.Errorf("host to device %+v, launch %+v", h, c.Launch)
	}
	for _, v := range []any{*h, *c.Launch} {
		if err := schema.Validate(v); err != nil {
			t.Error(err)
		}
	}
	if b := linkContribution(r, true); b.Launch != nil || len(b.Probes) != 1 || b.DeviceToHost == nil {
		t.Errorf("bulk only: %+v", b)
	}
}
