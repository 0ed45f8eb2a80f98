package nvml

import (
	"slices"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// valueNotAvailable is NVML_VALUE_NOT_AVAILABLE as an unsigned 64-bit
// field holds it: what nvmlProcessInfo_t's usedGpuMemory carries when the
// driver cannot say (under Windows WDDM, or without the privilege).
const valueNotAvailable = ^uint64(0)

// Process is a process that holds a context on a device, as NVML lists
// it.
type Process struct {
	// PID is the process id NVML reports. Recent drivers translate it into
	// the caller's PID namespace and leave out processes outside it; older
	// ones report the host's pid.
	PID uint32
	// UsedMemoryBytes is the device memory the process holds, in bytes;
	// meaningful only when MemoryKnown.
	UsedMemoryBytes uint64
	// MemoryKnown is false when NVML could not say how much it holds.
	MemoryKnown bool
	// Compute and Graphics say which of NVML's lists named it (a process
	// with both kinds of context is in both).
	Compute, Graphics bool
}

// Processes lists every process with a compute or graphics context on the
// device (nvmlDeviceGetComputeRunningProcesses and
// nvmlDeviceGetGraphicsRunningProcesses), once each, in pid order. The
// calling process is among them once it has a context of its own.
func (d *Device) Processes() ([]Process, error) {
	var out []Process
	err := d.lib.use(func() error {
		compute, r := d.dev.GetComputeRunningProcesses()
		if r != gonvml.SUCCESS {
			return newError("nvmlDeviceGetComputeRunningProcesses", r)
		}
		graphics, r := d.dev.GetGraphicsRunningProcesses()
		if r != gonvml.SUCCESS {
			return newError("nvmlDeviceGetGraphicsRunningProcesses", r)
		}
		out = mergeProcesses(compute, graphics)
		return nil
	})
	return out, err
}

// mergeProcesses joins the two lists by pid, keeping the larger known
// memory figure of a process in both.
func mergeProcesses(compute, graphics []gonvml.ProcessInfo) []Process {
	byPID := map[uint32]*Process{}
	add := func(infos []gonvml.ProcessInfo, graphics bool) {
		for _, in := range infos {
			p := byPID[in.Pid]
			if p == nil {
				p = &Process{PID: in.Pid}
				byPID[in.Pid] = p
			}
			p.Compute = p.Compute || !graphics
			p.Graphics = p.Graphics || graphics
			if in.UsedGpuMemory != valueNotAvailable && (!p.MemoryKnown || in.UsedGpuMemory > p.UsedMemoryBytes) {
				p.UsedMemoryBytes, p.MemoryKnown = in.UsedGpuMemory, true
			}
		}
	}
	add(compute, false)
	add(graphics, true)
	out := make([]Process, 0, len(byPID))
	for _, p := range byPID {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Process) int { return int(a.PID) - int(b.PID) })
	return out
}

// UtilizationPercent is the percentage of the driver's last sample period
// (between 1/6 s and 1 s, by product) during which one or more kernels ran
// on the device (nvmlDeviceGetUtilizationRates' gpu figure). It counts
// every process's kernels, the caller's included.
func (d *Device) UtilizationPercent() (float64, error) {
	var pct float64
	err := d.lib.use(func() error {
		u, r := d.dev.GetUtilizationRates()
		if r != gonvml.SUCCESS {
			return newError("nvmlDeviceGetUtilizationRates", r)
		}
		pct = float64(u.Gpu)
		return nil
	})
	return pct, err
}
