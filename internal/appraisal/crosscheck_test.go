package appraisal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

// captureTool writes a script that prints a real capture, standing in for
// a standard tool.
func captureTool(t *testing.T, capture string) string {
	t.Helper()
	abs, err := filepath.Abs(capture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "cuda-tool")
	script := "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 'Devices:\\n0: NVIDIA H200\\n'; exit 0; fi\nexec /bin/cat '" + abs + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCrossCheckRefusesAndSays: an H200 vector whose fp16 figure is a
// third below mixbench's half-precision peak (as the real H200 run found)
// disagrees, the error names the figure, both values and the rule; the
// checks stay in the vector for a draft. Its other figures agree.
func TestCrossCheckRefusesAndSays(t *testing.T) {
	bdf, err := pci.ParseBDF("0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	c := Candidate{Addr: "0000:00:06.0", BusAddress: "0000:00:06.0", PCI: &pci.Device{BDF: bdf, VendorID: 0x10de, Class: 0x030200}}
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	v := &schema.CapabilityVector{
		Identity: schema.DeviceIdentity{VendorID: "10de"},
		Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{
			{Kernel: "copy", BytesPerS: st(3.6e12), ArrayBytes: 1 << 30},
			{Kernel: "triad", BytesPerS: st(3.9e12), ArrayBytes: 1 << 30},
			{Kernel: "read", BytesPerS: st(4.4e12), ArrayBytes: 1 << 30},
		}},
		Precisions: []schema.PrecisionThroughput{
			{Operation: "fma", InputType: "fp64", AccumulatorType: "fp64", OpsPerS: st(32.25e12)},
			{Operation: "fma", InputType: "fp16", AccumulatorType: "fp16", OpsPerS: st(64.67e12)},
		},
	}
	cfg := crosscheck.Config{
		BabelStream: captureTool(t, "../../babelstream/testdata/babelstream-5.0tag-cuda-h200-double-csv.txt"),
		Mixbench:    captureTool(t, "../../mixbench/testdata/mixbench-cuda-h200.txt"),
		Tolerance:   crosscheck.DefaultTolerance,
	}
	tools, err := crosscheck.Preflight(context.Background(), cfg, "10de")
	if err != nil {
		t.Fatal(err)
	}
	err = crossCheck(context.Background(), cfg, tools, c, []Candidate{c}, v)
	if !errors.Is(err, crosscheck.ErrDisagree) {
		t.Fatalf("err = %v, want a disagreement", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "precision.fma.fp16 6.467e+13 vs mixbench peak half") || !strings.Contains(msg, "rule at-least up to ") {
		t.Errorf("message %q", msg)
	}
	if strings.Count(msg, " vs ") != 1 {
		t.Errorf("more than fp16 disagrees: %q", msg)
	}
	if len(v.CrossChecks) != 5 {
		t.Errorf("%d checks recorded, want copy, triad, read, fp64, fp16", len(v.CrossChecks))
	}
}

// TestCrossCheckRefusedBeforeProbing: with the cross-check required, a
// mixbench whose output cannot be read fails the run in the tools'
// preflight, naming the tool, before the host baseline or any probe of
// the (fake) device starts: no stage is reported.
func TestCrossCheckRefusedBeforeProbing(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "mixbench-cuda")
	if err := os.WriteFile(garbage, []byte("#!/bin/sh\nprintf 'mixbench (v1)\\nnot a device table\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bdf, err := pci.ParseBDF("0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	c := h200()
	c.Addr, c.PCI = c.BusAddress, &pci.Device{BDF: bdf, VendorID: 0x10de, Class: 0x030200}
	var stages []string
	o := Options{Quick: true, Version: "test", CrossCheck: &crosscheck.Config{
		BabelStream: captureTool(t, "../../babelstream/testdata/babelstream-5.0tag-cuda-h200-double-csv.txt"),
		Mixbench:    garbage, Required: true,
	}}
	o.Progress = func(dev, stage string) { stages = append(stages, dev+": "+stage) }
	o.Steps = func(dev, stage string, _, _ float64) { stages = append(stages, dev+": "+stage) }
	run, err := Appraise(context.Background(), nil, []Candidate{c}, []Candidate{c}, o)
	if run != nil || !errors.Is(err, crosscheck.ErrToolBroken) || !strings.Contains(err.Error(), garbage+": what it printed cannot be read") {
		t.Errorf("run %v, err %v; want the unreadable mixbench named", run != nil, err)
	}
	if len(stages) != 0 {
		t.Errorf("stages before the refusal: %q", stages)
	}
}
