//go:build explore

// The exploration harness of the cooperative-matrix GEMM: the search and
// its diagnostics, run on a GPU host (go test -c -tags explore -o
// bin/coopmat.test ./bench/coopmat/; bench/coopmat.sh, bench/vkpeer.sh).

package coopmat_test

import (
	"context"
	"flag"
	"regexp"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// Flags for runs on a GPU host (-coopmat.size=8192).
var (
	flagSize   = flag.Uint("coopmat.size", 256, "GEMM edge for TestRunCoopMat")
	flagSearch = flag.Uint("coopmat.search", 0, "GEMM edge of the tile search (0: min(size, 4096))")
	flagShapes = flag.String("coopmat.shapes", "", "regexp: measure only the shapes whose name matches")
	flagAll    = flag.Bool("coopmat.explore", false, "search every tile of the candidate space, not the default subset")
	flagDiag   = flag.String("coopmat.variants", "", "regexp: for matching shapes, time diagnostic variants (no global loads, no MulAdds) of a few tiles")
)

// TestRunCoopMat searches and measures, at the flags' sizes, every shape
// of the device that matches -coopmat.shapes (over the whole candidate
// space with -coopmat.explore), logging each as the RESULT line
// bench/coopmat.sh and bench/vkpeer.sh tabulate, then times the
// diagnostic variants of the shapes matching -coopmat.variants.
func TestRunCoopMat(t *testing.T) {
	d := vktest.Device(t)
	shapes, err := d.Shapes()
	if vk.IsSkip(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	o := coopmat.Options{Options: vk.Options{Size: uint32(*flagSize), SearchSize: uint32(*flagSearch), Seed: 7,
		Timing: vk.Timing{SampleTime: 20 * time.Millisecond}, Progress: func(l string) { t.Log(l) }}}
	run := coopmat.RunShape
	if *flagAll {
		run = coopmat.ExploreShape
	}
	match, diag := regexp.MustCompile(*flagShapes), regexp.MustCompile(*flagDiag)
	t.Logf("device %s driver %s %s, %d shapes", d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, len(shapes))
	for _, s := range shapes {
		if !match.MatchString(s.String()) {
			continue
		}
		start := time.Now()
		r, err := run(context.Background(), d, s, o)
		switch {
		case vk.IsSkip(err):
			t.Logf("SKIP %v: %v", s, err)
			continue
		case err != nil:
			t.Errorf("FAIL %v: %v", s, err)
			continue
		}
		logResult(t, r, time.Since(start))
		if *flagDiag != "" && diag.MatchString(s.String()) {
			if err := coopmat.ExploreVariants(context.Background(), d, s, o, t.Logf); err != nil {
				t.Error(err)
			}
		}
	}
}

// logResult logs r as a RESULT line, the line the scripts parse.
func logResult(t *testing.T, r coopmat.Result, took time.Duration) {
	t.Helper()
	if !r.MatrixEngine || r.Check.Elements == 0 {
		t.Errorf("%v: matrix_engine=%v, %d elements checked", r.Shape, r.MatrixEngine, r.Check.Elements)
	}
	t.Logf("RESULT %-34v %v tile %-20s %8.4g T/s (min %.4g max %.4g, n=%d, %s, reps %d) check max_err %.3g tol %.3g worst %.3g on %d [%v]",
		r.Shape, r.Problem, r.Tile, r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12,
		r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.MaxError, r.Check.Tolerance, r.Check.Worst, r.Check.Elements,
		took.Round(time.Millisecond))
}
