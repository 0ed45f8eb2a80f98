// Package occupancy finds other users of a GPU, so that an appraisal
// either has the device to itself or its card says who else ran.
//
// Three sources, each read where it applies:
//   - the driver's own account, NVML for an NVIDIA card ([Vendor], which
//     *nvml.Device satisfies): the processes holding a compute or graphics
//     context, and how busy the GPU is;
//   - the kernel's DRM client statistics ([ScanClients], [Active]): a
//     client of the device whose engine counters grow between two
//     readings is using it;
//   - amdgpu's gpu_busy_percent in sysfs ([BusyPercent]).
//
// Start with [New] over the run's devices ([Target]); [Watch.Start] looks
// before anything is probed, [Watch.Stage] at each stage of the run
// ([Watch.Step] through a long one), [Watch.Final] as it ends, and
// [Watch.Record] gives each card its schema.SharedUse. A device in use
// fails Start or Stage with a [*BusyError] (wrapping [ErrBusy]) unless
// the watch allows sharing; then it is recorded. Everything is read below
// an injected root, with an injected clock, and the caller's own process
// and its children are never another user.
package occupancy

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/schema"
)

// Vendor is a driver's own account of a device's users; *nvml.Device
// implements it.
type Vendor interface {
	// Processes lists the processes that hold a context on the device,
	// the caller's own among them once it has one.
	Processes() ([]nvml.Process, error)
	// UtilizationPercent is the share of the last sample period during
	// which the device ran work, in per cent, everyone's work counted.
	UtilizationPercent() (float64, error)
}

// BusyPercent reads amdgpu's gpu_busy_percent of the device at bdf (sysfs
// form) below root ("" is the running system): how busy the GPU was over
// the driver's last sample, in per cent. Other drivers have no such file.
func BusyPercent(root, bdf string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(rootOr(root), "sys/bus/pci/devices", bdf, "gpu_busy_percent"))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}

// BusyError is a device found in use by another process.
type BusyError struct {
	// Addr is the device, as the run names it.
	Addr string
	// Stage is the stage that was starting; "" before probing.
	Stage string
	// Processes are the other processes found; none when only the
	// utilization showed the device busy.
	Processes []schema.SharedProcess
	// BusyPercent and BusySource are the lower of the two readings before
	// probing and who read it, when the device was busy by BusyThreshold.
	BusyPercent float64
	BusySource  string
}

// Error names the device, when it was found in use, and by whom: each
// process's pid, name, device memory where known, and source.
func (e *BusyError) Error() string {
	when := "before probing"
	if e.Stage != "" {
		when = fmt.Sprintf("during the run (at %q)", e.Stage)
	}
	if len(e.Processes) == 0 {
		return fmt.Sprintf("%s is in use %s: %s reads it %.0f%% busy, and no process appraise can see is behind it (another container's?)",
			e.Addr, when, e.BusySource, e.BusyPercent)
	}
	who := make([]string, len(e.Processes))
	for i, p := range e.Processes {
		who[i] = describe(p)
	}
	return fmt.Sprintf("%s is in use %s by another process: %s", e.Addr, when, strings.Join(who, "; "))
}

// Unwrap returns ErrBusy.
func (e *BusyError) Unwrap() error { return ErrBusy }

// describe writes "pid 4242 python3 (40.0 GiB, nvml)".
func describe(p schema.SharedProcess) string {
	name := p.Name
	if name == "" {
		name = "(not visible here)"
	}
	detail := p.Source
	if m := p.UsedMemoryBytes; m != nil {
		detail = fmt.Sprintf("%.1f GiB, %s", float64(*m)/(1<<30), p.Source)
		if *m < 1<<30 {
			detail = fmt.Sprintf("%.0f MiB, %s", float64(*m)/(1<<20), p.Source)
		}
	}
	return fmt.Sprintf("pid %d %s (%s)", p.PID, name, detail)
}
