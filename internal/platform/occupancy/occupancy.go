// Package occupancy finds other users of a GPU, so that an appraisal either
// has the device to itself or its card says who else ran. It reads the
// driver's own account (Vendor), the kernel's DRM client statistics and
// amdgpu's gpu_busy_percent. Start with New; a device in use fails Watch.Start
// or Watch.Stage with a *BusyError unless the watch allows sharing. The
// caller's own process and its children are never another user.
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
	Processes() ([]nvml.Process, error)   // those holding a context, the caller's once it has one
	UtilizationPercent() (float64, error) // per cent of the last sample period the device ran anyone's work
}

// BusyPercent reads amdgpu's gpu_busy_percent of the device at bdf below root
// ("" is the running system): per cent busy over the driver's last sample.
func BusyPercent(root, bdf string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(rootOr(root), "sys/bus/pci/devices", bdf, "gpu_busy_percent"))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}

// BusyError is a device found in use by another process.
type BusyError struct {
	Addr      string                 // the device, as the run names it
	Stage     string                 // the stage that was starting; "" before probing
	Processes []schema.SharedProcess // none when only utilization showed it busy
	// The lower busy reading before probing and its source, when busy.
	BusyPercent float64
	BusySource  string
}

// Error names the device, when it was found in use, and by whom.
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
