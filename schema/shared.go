package schema

import (
	"fmt"
	"slices"

	"github.com/go-playground/validator/v10"
)

// Ways of looking for other users of a device (SharedUse.Methods), and the
// sources of what they found (SharedProcess.Source,
// UtilizationSample.Source).
const (
	// SharedNVML is NVML's lists of running compute and graphics
	// processes, and its GPU utilization.
	SharedNVML = "nvml"
	// SharedDRMFdinfo is the kernel's DRM client statistics in
	// /proc/<pid>/fdinfo: a client whose engine counters advance is using
	// the device.
	SharedDRMFdinfo = "drm_fdinfo"
	// SharedGPUBusyPercent is amdgpu's gpu_busy_percent file in sysfs.
	SharedGPUBusyPercent = "gpu_busy_percent"
)

// SharedUse says whether anything besides appraise used the device while
// it was appraised: how that was looked for, what was found, and whether
// the operator let the card be signed all the same. A card of a device
// another process used is signed only with Allowed (--allow-shared);
// without it the run fails.
type SharedUse struct {
	// Checked is true when other users were looked for, by Methods.
	Checked bool `json:"checked"`
	// Methods lists how they were looked for, when Checked: "nvml",
	// "drm_fdinfo" or "gpu_busy_percent" (see the Shared… constants).
	Methods []string `json:"methods,omitempty" validate:"max=3,unique,dive,oneof=nvml drm_fdinfo gpu_busy_percent"`
	// NotCheckedReason says why they were not looked for, when not
	// Checked (a software adapter shares the host's CPU by nature).
	NotCheckedReason string `json:"not_checked_reason,omitempty" validate:"max=400"`
	// Allowed is true when the operator let the run sign with other users
	// of the device present (--allow-shared).
	Allowed bool `json:"allowed"`
	// OthersFound is true when another user was found: a process in
	// Processes, or the device busy before probing with no process
	// appraise could see behind it. Figures of such a card were measured
	// on a device shared with that user.
	OthersFound bool `json:"others_found"`
	// Processes lists every other process found using the device, before
	// probing or at a stage boundary, once each.
	Processes []SharedProcess `json:"processes,omitempty" validate:"max=256,dive"`
	// Utilization holds the device's busy figure, sampled twice before
	// probing and then at stage boundaries; after probing began it
	// includes appraise's own work.
	Utilization []UtilizationSample `json:"utilization,omitempty" validate:"max=4096,dive"`
}

// SharedProcess is another process found using the device.
type SharedProcess struct {
	// PID is its process id as the source reported it (NVML's, which on
	// older drivers is the host's even inside a container).
	PID uint32 `json:"pid" validate:"gt=0"`
	// Name is its command name (/proc/<pid>/comm, at most 15 bytes);
	// absent when appraise could not see the process.
	Name string `json:"name,omitempty" validate:"max=64"`
	// UsedMemoryBytes is the device memory it held when last seen, in
	// bytes; absent when the source does not say.
	UsedMemoryBytes *uint64 `json:"used_memory_bytes,omitempty" validate:"omitempty,maxint53"`
	// Source is the method that found it: "nvml" or "drm_fdinfo".
	Source string `json:"source" validate:"oneof=nvml drm_fdinfo"`
	// FirstSeenS is when it was first found, in seconds since the run's
	// first look, made before anything was probed (0: already there).
	FirstSeenS float64 `json:"first_seen_s" validate:"gte=0"`
}

// UtilizationSample is one reading of how busy the device was.
type UtilizationSample struct {
	// AtS is when it was read, in seconds since the run's first look.
	AtS float64 `json:"at_s" validate:"gte=0"`
	// Stage is the stage that was starting, or "before probing".
	Stage string `json:"stage" validate:"required,max=200"`
	// GPUPercent is the share of the source's last sample period (for
	// NVML 1/6 s to 1 s) during which the device ran work, in per cent.
	GPUPercent float64 `json:"gpu_percent" validate:"gte=0,lte=100"`
	// Source is the method that read it: "nvml" or "gpu_busy_percent".
	Source string `json:"source" validate:"oneof=nvml gpu_busy_percent"`
}

// StageBeforeProbing is UtilizationSample.Stage for the samples taken
// before anything was probed.
const StageBeforeProbing = "before probing"

// sharedUseHolds refuses a record that contradicts itself: findings
// without a check, other users without the verdict, and other users on a
// card the operator did not let sign.
func sharedUseHolds(sl validator.StructLevel) {
	s := sl.Current().Interface().(SharedUse)
	bad := func(field, format string, args ...any) {
		sl.ReportError(nil, field, field, "complete", fmt.Sprintf(format, args...))
	}
	switch {
	case s.Checked && (len(s.Methods) == 0 || s.NotCheckedReason != ""):
		bad("methods", "checked needs its methods and no not_checked_reason")
	case !s.Checked && (s.NotCheckedReason == "" || len(s.Methods)+len(s.Processes)+len(s.Utilization) > 0 || s.OthersFound):
		bad("not_checked_reason", "a device not checked has a reason and no methods or findings")
	}
	if len(s.Processes) > 0 && !s.OthersFound {
		bad("others_found", "processes listed but others_found is false")
	}
	if s.OthersFound && !s.Allowed {
		bad("allowed", "another user was found but the run was not allowed to share the device")
	}
	for _, p := range s.Processes {
		if !slices.Contains(s.Methods, p.Source) {
			bad("processes", "process %d found by %q, not one of the methods", p.PID, p.Source)
		}
	}
	for _, u := range s.Utilization {
		if !slices.Contains(s.Methods, u.Source) {
			bad("utilization", "utilization read by %q, not one of the methods", u.Source)
		}
	}
}
