//go:build linux && cgo

package cublaslt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/probe/cublaslt/fakelt"
)

// Info says which library was loaded.
func (l *Library) Info() LibraryInfo { return l.info }

// fakeDir builds testdata/fakelt.c once per test binary into a
// directory holding it as libcublasLt.so.13 and libcuda.so.1 (fakelt.Build).
var fakeDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fakelt")
	if err != nil {
		return "", err
	}
	_, _, err = fakelt.Build(dir)
	return dir, err
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := fakeDir(); err == nil && dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// openFake opens the fake through the explicit path with the given mode
// and registers Close; leaks names a file the fake fills at context
// release with the number of objects still alive.
func openFake(t *testing.T, mode string) (lib *Library, leaks string) {
	t.Helper()
	dir, err := fakeDir()
	if err != nil {
		t.Fatalf("building the fake library: %v", err)
	}
	leaks = filepath.Join(t.TempDir(), "leaks")
	t.Setenv("FAKE_LT_MODE", mode)
	t.Setenv("FAKE_LT_LEAKS", leaks)
	lib, err = Open(LoadOptions{Path: filepath.Join(dir, "libcublasLt.so.13"), Driver: filepath.Join(dir, "libcuda.so.1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib, leaks
}

// fakeOptions is a small non-square problem: a layout mix-up of m, n or k
// shows in the check.
func fakeOptions() Options {
	return Options{M: 96, N: 64, K: 128, WarmUp: 2 * time.Millisecond, Hold: 2 * time.Millisecond, Samples: 3, MinSample: time.Millisecond, Seed: 7}
}

// assertNoLeaks reads the fake's count of objects alive at release.
func assertNoLeaks(t *testing.T, leaks string) {
	t.Helper()
	b, err := os.ReadFile(leaks)
	if err != nil {
		t.Fatalf("the fake wrote no leak count (was the context released?): %v", err)
	}
	if string(b) != "0" {
		t.Errorf("%s objects still alive at context release", b)
	}
}

func entries(r Report) map[string]Entry {
	m := map[string]Entry{}
	for _, e := range r.Entries {
		m[e.Precision.Name] = e
	}
	return m
}

// Every precision the fake offers runs and passes its check; the ones it
// does not are recorded with the library's answer.
func TestRunFake(t *testing.T) {
	lib, leaks := openFake(t, "")
	if lib.Info().Source != "option" || lib.Info().Version != 130100 || !strings.HasSuffix(lib.Info().Path, "libcublasLt.so.13") {
		t.Errorf("info %+v", lib.Info())
	}
	o := fakeOptions()
	r, err := lib.Run(context.Background(), "0000:00:06.0", o)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeaks(t, leaks)
	if r.BusID != "0000:00:06.0" || r.Device != "Fake GPU" || r.Probe != ProbeName {
		t.Errorf("report %+v", r)
	}
	if len(r.Entries) != len(Precisions()) {
		t.Fatalf("%d entries, want %d", len(r.Entries), len(Precisions()))
	}
	want := map[string]Status{"fp8_e5m2": StatusNotOffered, "mxfp6_e2m3": StatusNotRun, "mxfp6_e3m2": StatusNotRun}
	for _, e := range r.Entries {
		w, ok := want[e.Precision.Name]
		if !ok {
			w = StatusMeasured
		}
		if e.Status != w {
			t.Errorf("%s: status %s (%s), want %s", e.Precision.Name, e.Status, e.Reason, w)
			continue
		}
		if w != StatusMeasured {
			if e.Reason == "" {
				t.Errorf("%s: no reason", e.Precision.Name)
			}
			continue
		}
		if e.Check.Checked != uint64(o.M*o.N) || e.Check.Bad >= 0 || e.Check.Worst > 1 {
			t.Errorf("%s: check %+v", e.Precision.Name, e.Check)
		}
		if e.Precision.Out.Integer() != (e.Check.Tolerance == 0) {
			t.Errorf("%s: tolerance %g", e.Precision.Name, e.Check.Tolerance)
		}
		if e.OpsPerGEMM != 2*96*64*128 || e.OpsPerS.Samples != 3 || !(e.OpsPerS.Median > 0) || e.WarmUpS < 0.002 {
			t.Errorf("%s: figures %+v", e.Precision.Name, e)
		}
		if len(e.Trials) != 3 || e.WorkspaceBytes != e.Trials[e.Algorithm].WorkspaceBytes || !(e.ElapsedS > 0) {
			t.Errorf("%s: algorithm %d of trials %+v, workspace %d, elapsed %g", e.Precision.Name, e.Algorithm, e.Trials, e.WorkspaceBytes, e.ElapsedS)
		}
	}
	if got := len(r.Skips()); got != 3 {
		t.Errorf("%d skips, want 3", got)
	}
}

// A library that returns wrong results is refused by the check.
func TestRunWrongRefused(t *testing.T) {
	lib, leaks := openFake(t, "wrong")
	o := fakeOptions()
	o.Precisions = []string{"int8", "bf16"}
	_, err := lib.Run(context.Background(), "", o)
	if !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("err = %v, want ErrCheckFailed", err)
	}
	if !strings.Contains(err.Error(), "gemm int8") {
		t.Errorf("err %q does not name the precision", err)
	}
	assertNoLeaks(t, leaks)
}

// With no fp8 algorithm the fp8 precisions are skipped with the reason
// and the rest still run.
func TestRunNoFP8(t *testing.T) {
	lib, leaks := openFake(t, "nofp8")
	o := fakeOptions()
	o.Precisions = []string{"fp8_e4m3", "fp8_e5m2_e4m3", "mxfp8_e4m3", "fp16"}
	r, err := lib.Run(context.Background(), "", o)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeaks(t, leaks)
	m := entries(r)
	for _, name := range o.Precisions[:3] {
		if e := m[name]; e.Status != StatusNotOffered || !strings.Contains(e.Reason, "cublasLtMatmulAlgoGetHeuristic") {
			t.Errorf("%s: %s %q", name, e.Status, e.Reason)
		}
	}
	if m["fp16"].Status != StatusMeasured {
		t.Errorf("fp16: %s %q", m["fp16"].Status, m["fp16"].Reason)
	}
}

// A library without the block-scale attributes (or too old for them)
// refuses the block-scaled precisions cleanly.
func TestRunNoBlockScaling(t *testing.T) {
	for _, c := range []struct{ mode, version, reason string }{
		{"noblock", "", "A_SCALE_MODE"},
		{"", "120400", "predates block-scaled"},
	} {
		t.Run(c.mode+c.version, func(t *testing.T) {
			if c.version != "" {
				t.Setenv("FAKE_LT_VERSION", c.version)
			}
			lib, leaks := openFake(t, c.mode)
			o := fakeOptions()
			o.Precisions = []string{"mxfp8_e4m3", "nvfp4", "mxfp4", "mxfp6_e2m3", "fp8_e4m3"}
			r, err := lib.Run(context.Background(), "", o)
			if err != nil {
				t.Fatal(err)
			}
			assertNoLeaks(t, leaks)
			for _, e := range r.Entries[:4] {
				if e.Status != StatusNotOffered || !strings.Contains(e.Reason, c.reason) {
					t.Errorf("%s: %s %q, want not offered for %q", e.Precision.Name, e.Status, e.Reason, c.reason)
				}
			}
			if e := r.Entries[4]; e.Status != StatusMeasured {
				t.Errorf("fp8_e4m3: %s %q", e.Status, e.Reason)
			}
		})
	}
}

// The device is matched by bus address in any form; an unknown one is
// ErrNoDevice.
func TestRunBusID(t *testing.T) {
	lib, _ := openFake(t, "")
	o := fakeOptions()
	o.Precisions = []string{"fp16"}
	r, err := lib.Run(context.Background(), "00:06.0", o)
	if err != nil || r.BusID != "0000:00:06.0" {
		t.Fatalf("short form: %v, %q", err, r.BusID)
	}
	if _, err := lib.Run(context.Background(), "0000:00:07.0", o); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("err = %v, want ErrNoDevice", err)
	}
	if _, err := lib.Run(context.Background(), "", Options{M: 100}); err == nil {
		t.Fatal("M = 100 accepted")
	}
}

// Discovery: the explicit path wins over the environment, which wins
// over the search; nothing found is a NotFoundError naming each attempt.
func TestOpenOrder(t *testing.T) {
	dir, err := fakeDir()
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "libcublasLt.so.13")
	driver := filepath.Join(dir, "libcuda.so.1")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvLibrary {
				return v
			}
			return ""
		}
	}
	lib, err := Open(LoadOptions{Getenv: env(fake), Driver: driver})
	if err != nil {
		t.Fatal(err)
	}
	if lib.Info().Source != "env" {
		t.Errorf("source %q, want env", lib.Info().Source)
	}
	lib.Close()
	lib.Close() // twice is safe

	lib, err = Open(LoadOptions{Path: fake, Getenv: env("/nonexistent/libcublasLt.so.13"), Driver: driver})
	if err != nil {
		t.Fatalf("explicit path did not win over the environment: %v", err)
	}
	lib.Close()

	_, err = Open(LoadOptions{Getenv: env("/nonexistent/libcublasLt.so.13"), Driver: driver})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNoLibrary) || len(nf.Tried) != 1 || nf.Tried[0].Source != "env" {
		t.Fatalf("bad env path: %v", err)
	}

	_, err = Open(LoadOptions{Getenv: env(""), Root: t.TempDir(), Driver: driver})
	if err == nil {
		t.Skip("a cuBLASLt is on this host's loader path")
	}
	if !errors.As(err, &nf) || len(nf.Tried) != 2 || nf.Tried[0].Path != "libcublasLt.so.13" || nf.Tried[1].Source != "loader" {
		t.Fatalf("nothing found: %v", err)
	}
	t.Log(err)
}

// A missing driver library is ErrNoDriver.
func TestOpenNoDriver(t *testing.T) {
	dir, err := fakeDir()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(LoadOptions{Path: filepath.Join(dir, "libcublasLt.so.13"), Driver: "/nonexistent/libcuda.so.1"})
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
}

// Every algorithm the heuristic proposes is timed and the fastest kept,
// whatever the heuristic's order: with algorithm 0 (its first choice)
// and 2 made slow, 1 is kept. The events read the model clock, so the
// slow ones are slower by 20 ms a GEMM whatever else the host runs.
func TestRunKeepsFastestAlgorithm(t *testing.T) {
	t.Setenv("FAKE_LT_SLOW", "02")
	t.Setenv("FAKE_LT_PEAK", "1e9")
	lib, leaks := openFake(t, "")
	o := fakeOptions()
	o.Precisions = []string{"fp64", "int8"}
	r, err := lib.Run(context.Background(), "", o)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeaks(t, leaks)
	for _, e := range r.Entries {
		if e.Status != StatusMeasured || e.Algorithm != 1 || len(e.Trials) != 3 {
			t.Fatalf("%s: %s, algorithm %d of %+v, want 1 of 3", e.Precision.Name, e.Status, e.Algorithm, e.Trials)
		}
		if e.WorkspaceBytes != 2048 {
			t.Errorf("%s: workspace %d, want algorithm 1's 2048", e.Precision.Name, e.WorkspaceBytes)
		}
		for i, tr := range e.Trials {
			if tr.Check.Checked != uint64(o.M*o.N) || tr.Check.Bad >= 0 {
				t.Errorf("%s: algorithm %d not checked: %+v", e.Precision.Name, i, tr.Check)
			}
			if i != 1 && !(tr.Seconds > e.Trials[1].Seconds) {
				t.Errorf("%s: slow algorithm %d took %g s, kept one %g s", e.Precision.Name, i, tr.Seconds, e.Trials[1].Seconds)
			}
		}
		// The samples ran the kept algorithm, not the slow first one.
		if e.Seconds.Median >= e.Trials[0].Seconds {
			t.Errorf("%s: samples' median %g s per GEMM, as slow as algorithm 0 (%g s)", e.Precision.Name, e.Seconds.Median, e.Trials[0].Seconds)
		}
	}
	o.Algorithms = 1 // the heuristic's first choice alone
	r, err = lib.Run(context.Background(), "", o)
	if err != nil || r.Entries[0].Algorithm != 0 || len(r.Entries[0].Trials) != 1 {
		t.Fatalf("one algorithm: %v, %+v", err, r.Entries)
	}
}

// An algorithm that computes wrong results fails the probe even when it
// is slower than the one kept: every algorithm's output is checked.
func TestRunChecksEveryAlgorithm(t *testing.T) {
	t.Setenv("FAKE_LT_SLOW", "1")
	lib, leaks := openFake(t, "wrong1")
	o := fakeOptions()
	o.Precisions = []string{"bf16"}
	_, err := lib.Run(context.Background(), "", o)
	if !errors.Is(err, ErrCheckFailed) || !strings.Contains(err.Error(), "algorithm 1 of 3") {
		t.Fatalf("err = %v, want ErrCheckFailed naming algorithm 1", err)
	}
	assertNoLeaks(t, leaks)
}
