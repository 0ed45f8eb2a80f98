package link

import (
	"cmp"
	"context"
	"runtime"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
)

// The rule: each figure family has a few candidate paths, picked by what
// the device offers, never by its model; a round-robin trial within
// familyBudget keeps the faster, which is then sampled afresh.

// features are what the rule reads from a device (featuresOf).
type features struct {
	hostImport   bool // VK_EXT_external_memory_host imports our pages
	deviceMapped bool // a device-local memory type is host-visible
	copyQueue    bool // a transfer-only queue family
	noKernel     bool // TransferOptions.NoKernelRoutes
	cores        int  // GOMAXPROCS, the most host writers
}

func featuresOf(d *vulkan.Device, o TransferOptions) features {
	_, imp := d.HostImportAlign()
	_, _, mapped := d.DeviceMappedType(^uint32(0))
	return features{hostImport: imp, deviceMapped: mapped, copyQueue: d.CopyQ != nil,
		noKernel: o.NoKernelRoutes, cores: runtime.GOMAXPROCS(0)}
}

// bulkSpec is a bulk candidate: a route (nil: host stores) and host memory.
type bulkSpec struct {
	route *route
	from  vulkan.HostKind
}

// bulkCandidates are the kernel's pull and push (from imported memory where
// f allows), a copy (on copyQ where f has it), and the host's stores.
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

// uploadSpec is a 1 MiB upload candidate: host stores by writers goroutines,
// or (writers 0) a copy on copyQueue or the compute queue's kernel pull.
type uploadSpec struct {
	shader    bool
	copyQueue bool
	writers   int
}

// uploadWriters is the most host writers of a 1 MiB upload.
const uploadWriters = 4

// uploadCandidates are the host's stores, the copy and the kernel's pull.
func uploadCandidates(f features) []uploadSpec {
	var cs []uploadSpec
	if f.deviceMapped {
		cs = append(cs, uploadSpec{writers: max(1, min(uploadWriters, f.cores))})
	}
	cs = append(cs, uploadSpec{copyQueue: f.copyQueue})
	if !f.noKernel {
		cs = append(cs, uploadSpec{shader: true})
	}
	return cs
}

// dispatchCandidates are the empty dispatch's candidates: both fence waits.
func dispatchCandidates() []vulkan.FenceWait {
	return []vulkan.FenceWait{vulkan.FenceSpin, vulkan.FenceBlock}
}

// familyBudget bounds a family's warm-up and trial.
const familyBudget = 2 * time.Second

// trial is a family's contest: rounds of every candidate, the first
// discard not kept, at most keep kept, and once one is kept no round
// started that the last one's time says would end past budget.
type trial struct {
	budget        time.Duration
	discard, keep int
	now           func() time.Time
}

// run runs the trial from start and returns the rounds kept.
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

// Trials of the families.
func bulkTrial(o TransferOptions) trial {
	return trial{budget: familyBudget, keep: cmp.Or(o.TrialRounds, 5), now: time.Now}
}

func latencyTrial(o TransferOptions) trial {
	return trial{budget: familyBudget, discard: 5, keep: cmp.Or(o.LatencyTrialRounds, 21), now: time.Now}
}
