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

// vector holds copy, triad, read and fp64 figures scaled from the
// captures' own values (BabelStream copy 3.43522e12, triad 3.89315e12,
// dot 4.41438e12 B/s; mixbench peak DP 31,269.57 GFLOP/s).
func vector(scale float64) schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	return schema.CapabilityVector{
		Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{
			{Kernel: "copy", BytesPerS: st(3.43522e12 * scale), ArrayBytes: 1 << 30},
			{Kernel: "triad", BytesPerS: st(3.89315e12 * scale), ArrayBytes: 1 << 30},
			{Kernel: "read", BytesPerS: st(4.41438e12 * scale), ArrayBytes: 1 << 30},
		}},
		Precisions: []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp64", AccumulatorType: "fp64", OpsPerS: st(31269.57e9 * scale)}},
	}
}

func TestAgreeingTools(t *testing.T) {
	checks, err := Run(context.Background(), config(t), h200, vector(1.02))
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 4 {
		t.Fatalf("want copy, triad, read and fp64 compared, got %+v", checks)
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

// TestDisagreeingTools: 20 % above the tools, only the "within" pairs
// (triad, read) disagree; the "at least" pairs (copy, fp64) record the
// delta and pass. 20 % below, every pair disagrees, and so it does at
// three times the tools' figures (past the at-least ceiling: on an H200 a
// folded fp16 kernel once "ran" at 77 times mixbench's peak).
func TestDisagreeingTools(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  string
	}{{1.2, "memory.bandwidth.triad memory.bandwidth.read"}, {0.8, "memory.bandwidth.copy memory.bandwidth.triad memory.bandwidth.read precision.fma.fp64"},
		{3, "memory.bandwidth.copy memory.bandwidth.triad memory.bandwidth.read precision.fma.fp64"}} {
		checks, err := Run(context.Background(), config(t), h200, vector(tc.scale))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range Disagreements(checks) {
			got = append(got, d.Figure)
			if err := schema.Validate(d); err == nil || !strings.Contains(err.Error(), "disagrees") {
				t.Errorf("scale %g: a disagreeing check validated: %v", tc.scale, err)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("scale %g: disagreements %v, want %s", tc.scale, got, tc.want)
		}
		rules := map[string]string{}
		for _, c := range checks {
			rules[c.Figure] = c.Rule
		}
		if rules["memory.bandwidth.copy"] != schema.RuleAtLeast || rules["memory.bandwidth.triad"] != schema.RuleWithin || rules["precision.fma.fp64"] != schema.RuleAtLeast {
			t.Errorf("rules %v", rules)
		}
	}
	cfg := config(t)
	cfg.Tolerance = 0.25
	checks, err := Run(context.Background(), cfg, h200, vector(1.2))
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
