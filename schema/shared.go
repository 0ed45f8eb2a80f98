package schema

import (
	"fmt"
	"slices"

	"github.com/go-playground/validator/v10"
)

// Ways of looking for other users of a device, and sources of what they found.
const (
	SharedNVML           = "nvml"             // NVML's process lists and GPU utilization
	SharedDRMFdinfo      = "drm_fdinfo"       // DRM clients whose engine counters advance
	SharedGPUBusyPercent = "gpu_busy_percent" // amdgpu's sysfs file of that name
)

// SharedUse says whether anything besides appraise used the device while
// it was appraised; such a card is signed only with Allowed (--allow-shared).
type SharedUse struct {
	// Checked is true when other users were looked for, by Methods.
	Checked bool `json:"checked"`
	// Methods lists how they were looked for, when Checked.
	Methods []string `json:"methods,omitempty" validate:"max=3,unique,dive,oneof=nvml drm_fdinfo gpu_busy_percent"`
	// NotCheckedReason says why they were not looked for, when not Checked.
	NotCheckedReason string `json:"not_checked_reason,omitempty" validate:"max=400"`
	// Allowed is true when the operator let the run sign with other users present.
	Allowed bool `json:"allowed"`
	// OthersFound is true when a process or an unexplained busy device was found.
	OthersFound bool `json:"others_found"`
	// Processes lists every other process found using the device, once each.
	Processes []SharedProcess `json:"processes,omitempty" validate:"max=256,dive"`
	// Utilization samples the device's busy figure, including appraise's own
	// work once probing began.
	Utilization []UtilizationSample `json:"utilization,omitempty" validate:"max=4096,dive"`
}

// SharedProcess is another process found using the device.
type SharedProcess struct {
	// PID is its process id as the source reported it.
	PID uint32 `json:"pid" validate:"gt=0"`
	// Name is its command name; absent when appraise could not see the process.
	Name string `json:"name,omitempty" validate:"max=64"`
	// UsedMemoryBytes is the device memory it held when last seen, in bytes.
	UsedMemoryBytes *uint64 `json:"used_memory_bytes,omitempty" validate:"omitempty,maxint53"`
	// Source is the method that found it.
	Source string `json:"source" validate:"oneof=nvml drm_fdinfo"`
	// FirstSeenS is when it was first found, in seconds since the run's first look.
	FirstSeenS float64 `json:"first_seen_s" validate:"gte=0"`
}

// UtilizationSample is one reading of how busy the device was.
type UtilizationSample struct {
	// AtS is when it was read, in seconds since the run's first look.
	AtS float64 `json:"at_s" validate:"gte=0"`
	// Stage is the stage that was starting, or StageBeforeProbing.
	Stage string `json:"stage" validate:"required,max=200"`
	// GPUPercent is the per cent of the source's last sample period the device was busy.
	GPUPercent float64 `json:"gpu_percent" validate:"gte=0,lte=100"`
	// Source is the method that read it.
	Source string `json:"source" validate:"oneof=nvml gpu_busy_percent"`
}

// StageBeforeProbing is UtilizationSample.Stage before anything was probed.
const StageBeforeProbing = "before probing"

// sharedUseHolds refuses a record that contradicts itself.
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
