package nvml

import (
	"errors"
	"slices"
	"strings"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// TestProcesses: the compute and graphics lists are joined by pid, once
// each, in pid order; a memory figure NVML cannot give is unknown, not
// 16 EiB.
func TestProcesses(t *testing.T) {
	dev := fakeH200()
	dev.GetComputeRunningProcessesFunc = func() ([]gonvml.ProcessInfo, gonvml.Return) {
		return []gonvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 40 << 30}, {Pid: 17, UsedGpuMemory: valueNotAvailable}}, gonvml.SUCCESS
	}
	dev.GetGraphicsRunningProcessesFunc = func() ([]gonvml.ProcessInfo, gonvml.Return) {
		return []gonvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 1 << 30}, {Pid: 900, UsedGpuMemory: 512 << 20}}, gonvml.SUCCESS
	}
	got, err := openFake(t, fakeAPI(dev)).Processes()
	if err != nil {
		t.Fatal(err)
	}
	want := []Process{
		{PID: 17, Compute: true},
		{PID: 900, UsedMemoryBytes: 512 << 20, MemoryKnown: true, Graphics: true},
		{PID: 4242, UsedMemoryBytes: 40 << 30, MemoryKnown: true, Compute: true, Graphics: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Processes() = %+v\nwant %+v", got, want)
	}
}

func TestProcessesFail(t *testing.T) {
	dev := fakeH200()
	dev.GetComputeRunningProcessesFunc = func() ([]gonvml.ProcessInfo, gonvml.Return) { return nil, gonvml.SUCCESS }
	dev.GetGraphicsRunningProcessesFunc = func() ([]gonvml.ProcessInfo, gonvml.Return) { return nil, gonvml.ERROR_NO_PERMISSION }
	_, err := openFake(t, fakeAPI(dev)).Processes()
	if err == nil || !strings.Contains(err.Error(), "nvmlDeviceGetGraphicsRunningProcesses") {
		t.Errorf("Processes() error = %v; want one naming nvmlDeviceGetGraphicsRunningProcesses", err)
	}
	dev.GetComputeRunningProcessesFunc = func() ([]gonvml.ProcessInfo, gonvml.Return) { return nil, gonvml.ERROR_GPU_IS_LOST }
	if _, err := openFake(t, fakeAPI(dev)).Processes(); !errors.Is(err, ErrGPULost) {
		t.Errorf("Processes() error = %v; want ErrGPULost", err)
	}
}

func TestUtilizationPercent(t *testing.T) {
	dev := fakeH200()
	dev.GetUtilizationRatesFunc = func() (gonvml.Utilization, gonvml.Return) {
		return gonvml.Utilization{Gpu: 97, Memory: 40}, gonvml.SUCCESS
	}
	d := openFake(t, fakeAPI(dev))
	if pct, err := d.UtilizationPercent(); err != nil || pct != 97 {
		t.Errorf("UtilizationPercent() = %v, %v; want 97", pct, err)
	}
	dev.GetUtilizationRatesFunc = func() (gonvml.Utilization, gonvml.Return) { return gonvml.Utilization{}, gonvml.ERROR_NOT_SUPPORTED }
	if _, err := d.UtilizationPercent(); !errors.Is(err, ErrNotSupported) {
		t.Errorf("unsupported: error = %v; want ErrNotSupported", err)
	}
}
