package crosscheck

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// fakeToolNamed writes a script called name in dir that stands in for a
// tool: asked for --list it lists one device, as BabelStream does;
// otherwise it prints a real capture. It returns the script's path.
func fakeToolNamed(t *testing.T, dir, name, capture string) string {
	t.Helper()
	abs, err := filepath.Abs(capture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 'Devices:\\n0: NVIDIA H200\\n'; exit 0; fi\nexec /bin/cat '" + abs + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func fakeTool(t *testing.T, capture string) string {
	return fakeToolNamed(t, t.TempDir(), "cuda-tool", capture)
}

const (
	babelCapture = "../../babelstream/testdata/babelstream-5.0tag-cuda-h200-double-csv.txt"
	mixCapture   = "../../mixbench/testdata/mixbench-cuda-h200.txt"
)

func config(t *testing.T) Config {
	return Config{BabelStream: fakeTool(t, babelCapture), Mixbench: fakeTool(t, mixCapture)}
}

// tools runs Preflight on c, as the appraisal does before probing.
func tools(t *testing.T, c Config, vendor string) Tools {
	t.Helper()
	ts, err := Preflight(context.Background(), c, vendor)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// run is Preflight then Run, for an NVIDIA target.
func run(t *testing.T, c Config, target Target, v schema.CapabilityVector) ([]schema.CrossCheck, error) {
	return Run(context.Background(), c, tools(t, c, "10de"), target, v)
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
	checks, err := run(t, config(t), h200, vector(1.02))
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

// TestDisagreeingTools: 20 % above the tools, the "within" pairs (triad,
// read) disagree and so does fp64, above what mixbench's kernel explains;
// copy, under BabelStream's own best kernel, passes. 20 % below, every pair disagrees, and so it does at
// three times the tools' figures (past the at-least ceiling: on an H200 a
// folded fp16 kernel once "ran" at 77 times mixbench's peak).
func TestDisagreeingTools(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  string
	}{{1.2, "memory.bandwidth.triad memory.bandwidth.read precision.fma.fp64"}, {0.8, "memory.bandwidth.copy memory.bandwidth.triad memory.bandwidth.read precision.fma.fp64"},
		{3, "memory.bandwidth.copy memory.bandwidth.triad memory.bandwidth.read precision.fma.fp64"}} {
		checks, err := run(t, config(t), h200, vector(tc.scale))
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
	checks, err := run(t, cfg, h200, vector(1.2))
	if err != nil || len(Disagreements(checks)) != 0 {
		t.Fatalf("with 25%% tolerance: %v %+v", err, checks)
	}
}

func TestCannotRun(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	ts := tools(t, cfg, "10de")
	if _, err := Run(ctx, cfg, ts, Target{BusAddress: "0000:03:00.0", VendorID: "1002", Visible: []string{"0000:03:00.0"}}, vector(1)); err == nil {
		t.Error("a non-NVIDIA device was cross-checked with CUDA builds")
	}
	if _, err := Run(ctx, cfg, ts, Target{VendorID: "10de"}, vector(1)); err == nil {
		t.Error("a device without a bus address was mapped to a CUDA index")
	}
	cfg.Mixbench = fakeTool(t, "crosscheck.go")
	if _, err := Preflight(ctx, cfg, "10de"); !errors.Is(err, ErrToolBroken) {
		t.Errorf("garbage from mixbench passed the start check: %v", err)
	}
}

// TestPreflight: a missing or broken tool is found out by Preflight,
// which runs in seconds before any probe; default names follow the
// device's vendor.
func TestPreflight(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	cfg.BabelStream = filepath.Join(t.TempDir(), "missing")
	if _, err := Preflight(ctx, cfg, "10de"); !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "--babelstream") {
		t.Errorf("missing tool: %v", err)
	}
	cfg = config(t)
	broken := filepath.Join(t.TempDir(), "cuda-stream")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'error while loading shared libraries: libcudart.so.12' >&2\nexit 127\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.BabelStream = broken
	if _, err := Preflight(ctx, cfg, "10de"); !errors.Is(err, ErrToolBroken) || !strings.Contains(err.Error(), "libcudart") {
		t.Errorf("a tool that does not start: %v", err)
	}

	dir := t.TempDir()
	fakeToolNamed(t, dir, "hip-stream", babelCapture)
	fakeToolNamed(t, dir, "mixbench-hip", mixCapture)
	t.Setenv("PATH", dir)
	ts, err := Preflight(ctx, Config{}, "1002")
	if err != nil {
		t.Fatalf("HIP builds on PATH for an AMD device: %v", err)
	}
	if filepath.Base(ts.BabelStream) != "hip-stream" || filepath.Base(ts.Mixbench) != "mixbench-hip" || len(ts.Devices) != 1 {
		t.Errorf("found %+v", ts)
	}
	if _, err := Preflight(ctx, Config{}, "8086"); !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "ocl-stream") {
		t.Errorf("an Intel device looks for the OpenCL builds: %v", err)
	}
}

// TestOtherVendorBuilds: HIP builds cross-check the only AMD GPU of a
// box on their device 0; with two AMD GPUs, which one the tool means
// cannot be told, and the run says so instead of guessing.
func TestOtherVendorBuilds(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{BabelStream: fakeToolNamed(t, dir, "hip-stream", babelCapture), Mixbench: fakeToolNamed(t, dir, "mixbench-hip", mixCapture)}
	ts := tools(t, cfg, "1002")
	one := Target{BusAddress: "0000:03:00.0", VendorID: "1002", Visible: []string{"0000:03:00.0"}}
	checks, err := Run(context.Background(), cfg, ts, one, vector(1.02))
	if err != nil || len(checks) != 4 || len(Disagreements(checks)) != 0 {
		t.Fatalf("one AMD GPU: %v %+v", err, checks)
	}
	two := one
	two.Visible = append(two.Visible, "0000:04:00.0")
	if _, err := Run(context.Background(), cfg, ts, two, vector(1)); err == nil || !strings.Contains(err.Error(), "cannot be told") {
		t.Errorf("two AMD GPUs: %v", err)
	}
}

// h200Figures are our figures of the H200 that the mixbench capture ran
// on (docs/performance.md, "NVIDIA H200"; the same driver): fp16 sits 1.33x
// above mixbench's half peak, int32 1.20x, fp32 1.08x.
func h200Figures(scale map[string]float64) schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	p := func(op, ty string, v float64) schema.PrecisionThroughput {
		if s, ok := scale[op+"."+ty]; ok {
			v *= s
		}
		return schema.PrecisionThroughput{Operation: op, InputType: ty, AccumulatorType: ty, OpsPerS: st(v)}
	}
	v := vector(1)
	v.Precisions = []schema.PrecisionThroughput{p("fma", "fp32", 64.75e12), p("fma", "fp64", 32.25e12), p("fma", "fp16", 126.68e12), p("mad", "int32", 33.16e12)}
	return v
}

// TestAtLeastCeilings: every at-least pair carries a ceiling derived from
// the tool's kernel, all of them under 2x; the H200's real figures pass,
// and any ALU figure 90 % above the tool's is refused.
func TestAtLeastCeilings(t *testing.T) {
	cfg := config(t)
	checks, err := run(t, cfg, h200, h200Figures(nil))
	if err != nil {
		t.Fatal(err)
	}
	ceil := map[string]float64{}
	for _, c := range checks {
		if c.Rule != schema.RuleAtLeast {
			continue
		}
		if c.MaxRatio == nil || c.CeilingReason == "" {
			t.Fatalf("%s: no ceiling", c.Figure)
		}
		ceil[c.Figure] = *c.MaxRatio
		if !c.Agrees() {
			t.Errorf("%s: the H200's figure %.4g vs %.4g refused (ceiling %.3f)", c.Figure, c.Ours, c.Theirs, *c.MaxRatio)
		}
	}
	// fp32: the memory phase of mixbench's best row (59.96 TFLOP/s at
	// 512.25 flop/byte against its best 3,763 GB/s: 1/(1-0.0311)), one
	// short dispatch (1.05) and the tolerance (1.05).
	want32 := 1 / (1 - 59964.62/(3763.40*512.25)) * 1.05 * 1.05
	if math.Abs(ceil["precision.fma.fp32"]-want32) > 1e-6 {
		t.Errorf("fp32 ceiling %.6f, want %.6f", ceil["precision.fma.fp32"], want32)
	}
	// fp16: twice the fp32 ceiling in ops/s, over mixbench's half figure.
	if want := 2 * 59964.62 * want32 / 95539.15; math.Abs(ceil["precision.fma.fp16"]-want) > 1e-6 {
		t.Errorf("fp16 ceiling %.6f, want %.6f", ceil["precision.fma.fp16"], want)
	}
	if c := ceil["precision.mad.int32"]; c < 1.5 || c > 1.75 {
		t.Errorf("int32 ceiling %.3f, want the 6/4 loop factor over the fp32 ones", c)
	}
	for _, c := range checks {
		if c.Tool != "mixbench" {
			continue
		}
		c.Ours, c.RelativeDelta = 1.9*c.Theirs, 0.9
		if c.Agrees() {
			t.Errorf("%s at 1.9x the tool's figure passes (ceiling %.3f)", c.Figure, *c.MaxRatio)
		}
	}
}

// scaledCapture writes a copy of the mixbench capture whose throughput
// columns (GFLOPS, GIOPS) are scaled by f: the same tool on a run that
// caught the device at a lower clock.
func scaledCapture(t *testing.T, f float64) string {
	t.Helper()
	raw, err := os.ReadFile(mixCapture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	data := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "Compute iters") {
			data = true
			continue
		}
		cols := strings.Split(l, ",")
		if !data || len(cols) != 17 {
			continue
		}
		// Per precision: time, throughput and bandwidth (the intensity
		// stays, as the parser checks).
		for _, first := range []int{2, 6, 10, 14} {
			for c, by := range map[int]float64{first: 1 / f, first + 1: f, first + 2: f} {
				v, err := strconv.ParseFloat(strings.TrimSpace(cols[c]), 64)
				if err != nil {
					t.Fatalf("line %d column %d: %v", i, c, err)
				}
				cols[c] = strconv.FormatFloat(v*by, 'f', 4, 64)
			}
		}
		lines[i] = strings.Join(cols, ",")
	}
	p := filepath.Join(t.TempDir(), "slow.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// flakyTool writes a CUDA tool that prints first on its first run on a
// device and then on every later one, counting those runs in a file
// beside it.
func flakyTool(t *testing.T, first, then string) (bin, runs string) {
	t.Helper()
	dir := t.TempDir()
	bin, runs = filepath.Join(dir, "cuda-tool"), filepath.Join(dir, "runs")
	script := "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 'Devices:\\n0: NVIDIA H200\\n'; exit 0; fi\n" +
		// Preflight's run, on every device: not counted.
		"if [ -z \"$CUDA_VISIBLE_DEVICES\" ]; then exec /bin/cat '" + then + "'; fi\n" +
		"echo run >>'" + runs + "'\n" +
		"if [ \"$(wc -l <'" + runs + "')\" -eq 1 ]; then exec /bin/cat '" + first + "'; fi\nexec /bin/cat '" + then + "'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, runs
}

// TestDisagreementRunsToolAgain: a mixbench run that caught the device 25 %
// slow puts our fp64 figure past its ceiling; the tool runs once more and
// its better run is compared, which agrees. A run that stays slow still
// disagrees after the second run. A tool whose pairs agree runs once.
func TestDisagreementRunsToolAgain(t *testing.T) {
	slow := scaledCapture(t, 0.75)
	for _, tc := range []struct {
		name, then string
		agree      bool
	}{{"slow once", mixCapture, true}, {"slow twice", slow, false}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(t)
			var runs string
			cfg.Mixbench, runs = flakyTool(t, slow, tc.then)
			checks, err := run(t, cfg, h200, vector(1.02))
			if err != nil {
				t.Fatal(err)
			}
			d := Disagreements(checks)
			if (len(d) == 0) != tc.agree {
				t.Errorf("disagreements %+v, want agreement %t", d, tc.agree)
			}
			if got := countLines(t, runs); got != 2 {
				t.Errorf("mixbench ran %d times, want 2", got)
			}
			for _, c := range checks {
				if c.Figure == "precision.fma.fp64" && tc.agree && math.Abs(c.Theirs-31269.57e9) > 1e6 {
					t.Errorf("fp64 compared with %g, want the better run's 31269.57e9", c.Theirs)
				}
			}
		})
	}
	cfg := config(t)
	var runs string
	cfg.Mixbench, runs = flakyTool(t, mixCapture, mixCapture)
	if _, err := run(t, cfg, h200, vector(1.02)); err != nil {
		t.Fatal(err)
	}
	if got := countLines(t, runs); got != 1 {
		t.Errorf("agreeing mixbench ran %d times, want 1", got)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(raw), "\n")
}

// loggingTool writes a script called name that stands in for a tool as
// fakeToolNamed does, printing garbage instead of the capture when it is
// "", and appends each call's arguments to calls. It returns the script's
// path.
func loggingTool(t *testing.T, dir, name, capture, calls string) string {
	t.Helper()
	out := "printf 'mixbench (v1)\\nSomething else entirely\\n'"
	if capture != "" {
		abs, err := filepath.Abs(capture)
		if err != nil {
			t.Fatal(err)
		}
		out = "exec /bin/cat '" + abs + "'"
	}
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\necho \"" + name + " $*\" >>'" + calls + "'\n" +
		"if [ \"$1\" = --list ]; then printf 'Devices:\\n0: NVIDIA H200\\n'; exit 0; fi\n" + out + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPreflightReadsSmallestRuns: Preflight runs each tool at its
// smallest and reads what it printed with Run's parsers, so a tool whose
// output cannot be read is refused there, named, before any probe; a
// good pair is run exactly so: BabelStream's list and small run, then
// mixbench whole.
func TestPreflightReadsSmallestRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	goodBS := loggingTool(t, dir, "cuda-stream", babelCapture, calls)
	goodMB := loggingTool(t, dir, "mixbench-cuda", mixCapture, calls)
	if _, err := Preflight(ctx, Config{BabelStream: goodBS, Mixbench: goodMB}, "10de"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cuda-stream --list\ncuda-stream --csv -s 1048576 -n 2\nmixbench-cuda \n"; string(b) != want {
		t.Errorf("calls:\n%s\nwant:\n%s", b, want)
	}
	badMB := loggingTool(t, dir, "mixbench-garbage", "", calls)
	badBS := loggingTool(t, dir, "stream-garbage", "", calls)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{BabelStream: goodBS, Mixbench: badMB}, badMB + ": what it printed cannot be read: mixbench: parse line 2"},
		{Config{BabelStream: badBS, Mixbench: goodMB}, badBS + " --csv -s 1048576 -n 2: what it printed cannot be read: babelstream: parse line 2"},
	} {
		if _, err := Preflight(ctx, c.cfg, "10de"); !errors.Is(err, ErrToolBroken) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v\nwant it to name %q", c.cfg, err, c.want)
		}
	}
}
