package gpu

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/everycycle/appraise/wgsl"
)

// TestALUTable pins the op-counting rule (FMA and multiply-add 2 per lane)
// and the table in ALUKernels' doc.
func TestALUTable(t *testing.T) {
	want := map[string]struct {
		opsPerOp uint64
		counting string
		chains   int
		perTrip  int
	}{
		"fp32-fma":  {8, "fma=2", 8, 16},
		"int32-mad": {8, "mad=2", 4, 16},
	}
	ks := ALUKernels()
	if len(ks) != len(want) {
		t.Fatalf("%d kernels, want %d", len(ks), len(want))
	}
	perLane := map[string]int{"fma": 2, "mad": 2}
	for _, k := range ks {
		w, ok := want[k.Name]
		if !ok {
			t.Errorf("unexpected kernel %q", k.Name)
			continue
		}
		if k.OpsPerOperation() != w.opsPerOp || k.OpCounting() != w.counting || k.OpsPerLane != perLane[k.Operation] {
			t.Errorf("%s: %d ops per operation (%s), want %d (%s)", k.Name, k.OpsPerOperation(), k.OpCounting(), w.opsPerOp, w.counting)
		}
		if k.Chains != w.chains || k.PerTrip != w.perTrip {
			t.Errorf("%s: %d chains x %d per trip, want %d x %d", k.Name, k.Chains, k.PerTrip, w.chains, w.perTrip)
		}
		if k.InputType == "" || k.AccumulatorType == "" || k.Counted == "" {
			t.Errorf("%s: incomplete row %+v", k.Name, k)
		}
	}
	// One dispatch of 2 workgroups, 3 trips of fp32: 512 invocations x 8
	// chains x 48 FMAs x 8.
	a := aluDispatch{row: ks[0], groups: 2, iters: 3}
	if got := a.opsPerDispatch(); got != 512*8*48*8 {
		t.Errorf("fp32 ops per dispatch %d", got)
	}
}

// TestALUKernelFilesExist: every file and entry point the table names is
// embedded and declared as a compute function.
func TestALUKernelFilesExist(t *testing.T) {
	for _, k := range ALUKernels() {
		src, err := wgsl.Source(k.File)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		re := regexp.MustCompile(`@compute\s+@workgroup_size\(256\)\s*fn\s+` + regexp.QuoteMeta(k.Entry) + `\(`)
		if !re.MatchString(src) {
			t.Errorf("%s.wgsl has no compute entry point %q of 256 invocations", k.File, k.Entry)
		}
	}
}

// TestALUKernelsValidateWithNaga validates every ALU kernel with the naga
// CLI when it is installed, a newer compiler than the one linked.
func TestALUKernelsValidateWithNaga(t *testing.T) {
	naga, err := exec.LookPath("naga")
	if err != nil {
		t.Skip("naga CLI not installed")
	}
	seen := map[string]bool{}
	for _, k := range ALUKernels() {
		name := k.File
		if seen[name] {
			continue
		}
		seen[name] = true
		src, _ := wgsl.Source(name)
		f := t.TempDir() + "/" + name + ".wgsl"
		if err := os.WriteFile(f, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(naga, f).CombinedOutput(); err != nil {
			t.Errorf("naga %s.wgsl: %v\n%s", name, err, out)
		}
	}
}

// smallALURun is an ALU run with a narrow grid, for checks of single
// dispatches.
func smallALURun(t *testing.T, d *Device) *aluRun {
	t.Helper()
	r, err := newALURun(t.Context(), d, newALULimits(quickEffort.ALU), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.release)
	r.maxPerDim = 4
	return r
}

// TestALUKernelsCheck runs each kernel once, on a 2-D grid with a surplus
// workgroup, and checks every output; then corrupts one output word and
// expects ErrCheckFailed.
func TestALUKernelsCheck(t *testing.T) {
	d := newDevice(t)
	r := smallALURun(t, d)
	for _, k := range ALUKernels() {
		a, err := r.bind(k)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		checkOneDispatch(t, r, a)
		a.release()
	}
}

// checkOneDispatch runs a 7-workgroup (4 x 2 grid), 3-trip dispatch and
// checks it, then checks a copy with one corrupted word.
func checkOneDispatch(t *testing.T, r *aluRun, a *aluDispatch) {
	t.Helper()
	if err := r.set(a, 7, 3); err != nil {
		t.Fatal(err)
	}
	if a.x != 4 || a.y != 2 {
		t.Fatalf("%s: grid %d x %d", a.row.Name, a.x, a.y)
	}
	if err := r.clearOut(a); err != nil {
		t.Fatal(err)
	}
	if err := r.d.run(work(a.dispatch, 1)); err != nil {
		t.Fatal(err)
	}
	var res ALUResult
	if err := r.check(a, &res); err != nil || res.Checked != 7*aluWG {
		t.Fatalf("%s: %v (%d checked)", a.row.Name, err, res.Checked)
	}
	r.tamper = func(kernel string, off uint64, chunk []byte) []byte {
		if kernel == a.row.Name && off == 0 {
			binary.LittleEndian.PutUint32(chunk[4*1000:], binary.LittleEndian.Uint32(chunk[4*1000:])^1<<17)
		}
		return chunk
	}
	defer func() { r.tamper = nil }()
	err := r.check(a, &res)
	if !errors.Is(err, ErrCheckFailed) || !strings.Contains(err.Error(), "invocation 1000 ") {
		t.Fatalf("%s: corrupted output gave %v, want a check failure at invocation 1000", a.row.Name, err)
	}
	t.Logf("%s: %v", a.row.Name, err)
}

// TestALUQuick runs the whole probe and checks what it reports.
func TestALUQuick(t *testing.T) {
	d := newDevice(t)
	res, err := MeasureALUKernels(t.Context(), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(ALUKernels()) {
		t.Fatalf("%d results for %d kernels", len(res), len(ALUKernels()))
	}
	lim := newALULimits(quickEffort.ALU)
	for _, r := range res {
		s := r.OpsPerS
		t.Logf("%-10s %7.2f Gops/s (min %.2f, max %.2f; %d samples of %d dispatches) %d invocations x %d chains x %d ops, %s; %d checked",
			r.Kernel, s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, r.DispatchesPerSample,
			r.Invocations, r.ChainsPerInvocation, r.Iterations, r.Timing, r.Checked)
		if s.Samples < lim.cal.MinSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: implausible stat %+v", r.Kernel, s)
		}
		// A plausibility bound, not an expectation: no device does 10 POPS on its vector ALUs.
		if s.Max > 1e16 {
			t.Errorf("%s: %.3g ops/s is not plausible", r.Kernel, s.Max)
		}
		if r.Checked != r.Invocations || r.ErrorKind != "exact" || r.MaxError != 0 || r.Timing != d.Timing() {
			t.Errorf("%s: check fields wrong: %+v", r.Kernel, r)
		}
		if r.Iterations < uint64(lim.MinIters) || r.Invocations < uint64(lim.MinGroups)*aluWG {
			t.Errorf("%s: below the calibration floor: %+v", r.Kernel, r)
		}
	}
}

// TestALUCatchesWrongResult corrupts one output word of the first kernel as
// read back; the whole probe must fail with ErrCheckFailed.
func TestALUCatchesWrongResult(t *testing.T) {
	d := newDevice(t)
	tamper := func(kernel string, off uint64, chunk []byte) []byte {
		if kernel == "fp32-fma" && off == 0 {
			chunk[4*77] ^= 0x01
		}
		return chunk
	}
	res, err := measureALURows(t.Context(), d, ALUKernels(), newALULimits(quickEffort.ALU), tamper)
	if !errors.Is(err, ErrCheckFailed) || !strings.Contains(err.Error(), "fp32-fma") || res != nil {
		t.Fatalf("got %v (%d results), want an fp32-fma check failure", err, len(res))
	}
	t.Log(err)
}
