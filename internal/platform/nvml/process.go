package nvml

import (
	"slices"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

const valueNotAvailable = ^uint64(0) // NVML_VALUE_NOT_AVAILABLE: usedGpuMemory unknown

// Process is a process with a context on a device, as NVML lists it.
type Process struct {
	PID               uint32 // recent drivers translate it into the caller's PID namespace
	UsedMemoryBytes   uint64 // meaningful only when MemoryKnown
	MemoryKnown       bool
	Compute, Graphics bool // which of NVML's lists named it
}

// Processes lists every process with a compute or graphics context on the
// device, once each, in pid order; the caller's once it has a context.
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

// mergeProcesses joins the lists by pid, keeping the larger known memory.
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

// UtilizationPercent is the percentage of the driver's last sample period in
// which any process's kernels, the caller's included, ran on the device.
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
