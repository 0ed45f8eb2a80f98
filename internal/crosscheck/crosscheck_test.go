package crosscheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// fakeTool writes a script that prints a real capture, standing in for
// the tool, and returns its path.
func fakeTool(t *testing.T, capture string) string {
	t.Helper()
	abs, err := filepath.Abs(capture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tool")
	script := "#!/bin/sh\ncat '" + abs + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func config(t *testing.T) Config {
	return Config{
		BabelStream: fakeTool(t, "../../babelstream/testdata/babelstream-5.0tag-cuda-h200-double-csv.txt"),
		Mixbench:    fakeTool(t, "../../mixbench/testdata/mixbench-cuda-h200.txt"),
	}
}

var h200 = Target{BusAddress: "0000:00:06.0", VendorID: "10de", Visible: []string{"0000:00:06.0"}}

// vector holds copy, triad and fp64 figures scaled from the captures'
// own values (BabelStream copy 3.43522e12, triad 3.89315e12 B/s; mixbench
// peak DP 31,269.57 GFLOP/s).
func vector(scale float64) schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	return schema.CapabilityVector{
		Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{
			{Kernel: "copy", BytesPerS: st(3.43522e12 * scale), ArrayBytes: 1 << 30},
			{Kernel: "triad", BytesPerS: st(3.89315e12 * scale), ArrayBytes: 1 << 30},
		}},
		Precisions: []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp64", AccumulatorType: "fp64", OpsPerS: st(31269.57e9 * scale)}},
	}
}

func TestAgreeingTools(t *testing.T) {
	checks, err := Run(context.Background(), config(t), h200, vector(1.02))
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 3 {
		t.Fatalf("want copy, triad and fp64 compared, got %+v", checks)
	}
	for _, c := range checks {
		if c.Tolerance != DefaultTolerance || c.RelativeDelta < 0.0199 || c.RelativeDelta > 0.0201 {
			t.Errorf("%+v", c)
		}
		if err := schema.Validate(c); err != nil {
			t.Errorf("%s: %v", c.Figure, err)
		}
	}
	if d := Disagreements(checks); len(d) != 0 {
		t.Fatalf("disagreements within tolerance: %+v", d)
	}
}

func TestDisagreeingTools(t *testing.T) {
	checks, err := Run(context.Background(), config(t), h200, vector(1.2))
	if err != nil {
		t.Fatal(err)
	}
	d := Disagreements(checks)
	if len(d) != 3 {
		t.Fatalf("want all three outside 5%%, got %+v", d)
	}
	if err := schema.Validate(d[0]); err == nil || !strings.Contains(err.Error(), "disagrees") {
		t.Fatalf("a disagreeing check validated: %v", err)
	}
	cfg := config(t)
	cfg.Tolerance = 0.25
	checks, err = Run(context.Background(), cfg, h200, vector(1.2))
	if err != nil || len(Disagreements(checks)) != 0 {
		t.Fatalf("with 25%% tolerance: %v %+v", err, checks)
	}
}

func TestCannotRun(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, config(t), Target{BusAddress: "0000:03:00.0", VendorID: "1002", Visible: nil}, vector(1)); err == nil {
		t.Error("a non-NVIDIA device was cross-checked with CUDA tools")
	}
	if _, err := Run(ctx, config(t), Target{VendorID: "10de"}, vector(1)); err == nil {
		t.Error("a device without a bus address was mapped to a tool index")
	}
	cfg := config(t)
	cfg.BabelStream = filepath.Join(t.TempDir(), "missing")
	if _, err := Run(ctx, cfg, h200, vector(1)); err == nil || !strings.Contains(err.Error(), "--babelstream") {
		t.Errorf("missing tool: %v", err)
	}
	cfg = config(t)
	cfg.Mixbench = fakeTool(t, "crosscheck.go")
	if _, err := Run(ctx, cfg, h200, vector(1)); err == nil {
		t.Error("garbage from mixbench was accepted")
	}
}
