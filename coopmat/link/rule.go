package link

import (
	"cmp"
	"context"
	"runtime"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
)

// The rule: each figure family (bulk host → device, bulk device → host, the
// pinned 1 MiB upload, the empty dispatch) has a short list of candidate
// paths, picked by what the device offers and never by its vendor or
// model. A timed trial of the candidates, round robin, decides within
// familyBudget; the faster is kept and sampled afresh, so the signed
// figure is not the trial's (the larger of several medians is biased
// upward); the card names the kept path. The search
// over every path is explore*.go here (explore build tag only), driven by
// bench/linkpaths.

// features are what the rule reads from a device.
type features struct {
	// hostImport: the device imports host memory
	// (VK_EXT_external_memory_host), so a kernel can pull from pages we
	// map ourselves.
	hostImport bool
	// deviceMapped: a memory type is device-local and host-visible (the
	// device's memory through a PCI BAR), so the host can store into it.
	deviceMapped bool
	// copyQueue: a transfer-only queue family, the device's copy engines.
	copyQueue bool
	// noKernel leaves out the kernel's bulk routes
	// (TransferOptions.NoKernelRoutes).
	noKernel bool
	// cores is GOMAXPROCS, the most host writers.
	cores int
}

// featuresOf reads d's features.
func featuresOf(d *vulkan.Device, o TransferOptions) features {
	_, imp := d.HostImportAlign()
	_, _, mapped := d.DeviceMappedType(^uint32(0))
	return features{hostImport: imp, deviceMapped: mapped, copyQueue: d.CopyQ != nil,
		noKernel: o.NoKernelRoutes, cores: runtime.GOMAXPROCS(0)}
}

// bulkSpec is one bulk candidate: a route (nil for the host's stores into
// device-mapped memory) and the host memory it uploads from. Downloads
// always land in host-cached memory, which the host reads back fast
// enough to check.
type bulkSpec struct {
	route *route
	from  vulkan.HostKind
}

// bulkCandidates are the bulk candidates for f on a device whose compute
// queue is compute and copy queue (nil without one) is copyQ: the kernel
// pulling from imported host memory where the device imports it (else
// host-cached) and pushing into host-cached memory; a copy command
// between host-cached and device memory, on the copy engines where the
// device has them; and, uploads only, the host's stores into device-mapped
// memory where it has that.
func bulkCandidates(f features, compute, copyQ *vulkan.Queue) []bulkSpec {
	var cs []bulkSpec
	if !f.noKernel {
		from := vulkan.HostCached
		if f.hostImport {
			from = vulkan.HostImported
		}
		cs = append(cs, bulkSpec{route: &route{q: compute, shader: true}, from: from})
	}
	q := compute
	if f.copyQueue && copyQ != nil {
		q = copyQ
	}
	cs = append(cs, bulkSpec{route: &route{q: q}, from: vulkan.HostCached})
	if f.deviceMapped {
		cs = append(cs, bulkSpec{})
	}
	return cs
}

// uploadSpec is one pinned 1 MiB upload candidate: the host's stores by
// writers goroutines into device-mapped memory, or (writers 0) a
// pre-recorded copy or kernel pull from host-cached staging on the compute
// queue, waited for by spinning on its fence (the wait a latency wants).
type uploadSpec struct {
	shader  bool
	writers int
}

// uploadWriters is the most host writers of a 1 MiB upload: enough to
// keep several stores in flight, few enough that waking them costs less
// than the stores.
const uploadWriters = 4

// uploadCandidates are the 1 MiB upload candidates for f: the host's
// stores into device-mapped memory where the device has it, the compute
// queue's copy, and its kernel's pull (unless f leaves kernels out).
func uploadCandidates(f features) []uploadSpec {
	var cs []uploadSpec
	if f.deviceMapped {
		cs = append(cs, uploadSpec{writers: max(1, min(uploadWriters, f.cores))})
	}
	cs = append(cs, uploadSpec{})
	if !f.noKernel {
		cs = append(cs, uploadSpec{shader: true})
	}
	return cs
}

// dispatchCandidates are the empty dispatch's candidates: both fence waits.
func dispatchCandidates() []vulkan.FenceWait {
	return []vulkan.FenceWait{vulkan.FenceSpin, vulkan.FenceBlock}
}

// familyBudget bounds one family's decision: its warm-up and trial rounds.
const familyBudget = 2 * time.Second

// trial is the timed contest of a family's candidates: rounds of every
// candidate, round robin so that drift in the machine hits them alike,
// the first discard rounds not kept, at most keep rounds kept, and no
// round started that the last round's time says would end past budget
// (counted from the family's start, its warm-up included) once one round
// is kept.
type trial struct {
	budget        time.Duration
	discard, keep int
	// now is the clock (time.Now; a test's recorded timings).
	now func() time.Time
}

// run runs the trial from start: round(kept) runs one round of every
// candidate, kept saying whether its times count. It returns the rounds
// kept.
func (t trial) run(ctx context.Context, start time.Time, round func(kept bool) error) (int, error) {
	kept := 0
	var last time.Duration
	for r := 0; r < t.discard+t.keep; r++ {
		if kept > 0 && t.now().Sub(start)+last > t.budget {
			break
		}
		if err := ctx.Err(); err != nil {
			return kept, err
		}
		before := t.now()
		if err := round(r >= t.discard); err != nil {
			return kept, err
		}
		last = t.now().Sub(before)
		if r >= t.discard {
			kept++
		}
	}
	return kept, nil
}

// Trials of the families: a few large bulk rounds; many short latency
// rounds, the first discarded.
func bulkTrial(o TransferOptions) trial {
	return trial{budget: familyBudget, keep: cmp.Or(o.TrialRounds, 5), now: time.Now}
}

func latencyTrial(o TransferOptions) trial {
	return trial{budget: familyBudget, discard: 5, keep: cmp.Or(o.LatencyTrialRounds, 21), now: time.Now}
}
