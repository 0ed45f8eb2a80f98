package alu

import (
	"errors"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// TestExecutables: a pipeline created to capture what the driver compiled
// it into reports one executable or more, with statistics, on a device
// that has VK_KHR_pipeline_executable_properties (the H200's driver has;
// Debian 12's lavapipe has not, so there it skips).
func TestExecutables(t *testing.T) {
	d := vktest.Device(t)
	k := fmaKernel{Chains: 4, Iters: 8, Unroll: 4, Local: 64}
	words := k.build(vk.SpirvVersion(d.Info.API))
	bufs := make([]*vk.Buffer, 1)
	for i := range bufs {
		b, err := d.NewBuffer(uint64(k.Local)*8, false)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		bufs[i] = b
	}
	kern, err := d.NewKernelOpts(words, nil, vk.PipelineOpts{Capture: true}, [][]*vk.Buffer{bufs})
	if errors.Is(err, vk.ErrFeatureMissing) {
		if d.Info.HasExtension(vk.ExtExecutableInfo) {
			t.Fatalf("%s listed but not enabled: %v", vk.ExtExecutableInfo, err)
		}
		t.Skipf("%s: %v", d.Info.Name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer kern.Release()
	x, err := d.Ext.Executables(d.Dev, kern.Pipe)
	if err != nil {
		t.Fatal(err)
	}
	if len(x) == 0 {
		t.Fatal("no executables")
	}
	for _, e := range x {
		if e.Name == "" || len(e.Stats) == 0 {
			t.Errorf("executable %+v: no name or no statistics", e)
		}
		for _, s := range e.Stats {
			if s.Name == "" || s.Value == "" {
				t.Errorf("executable %q: statistic %+v has no name or value", e.Name, s)
			}
		}
		t.Logf("%s (%s): %d statistics, %d listings", e.Name, e.Description, len(e.Stats), len(e.Listings))
	}
	// With the feature off, NewKernelOpts refuses to capture.
	d.Enabled.ExecutableInfo = false
	if _, err := d.NewKernelOpts(words, nil, vk.PipelineOpts{Capture: true}, [][]*vk.Buffer{bufs}); !errors.Is(err, vk.ErrFeatureMissing) {
		t.Errorf("capture without the feature: %v, want ErrFeatureMissing", err)
	}
}
