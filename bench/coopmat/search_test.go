//go:build explore

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
	flagSize   = flag.Uint("coopmat.size", 256, "GEMM edge of TestRunCoopMat and TestCoopLead")
	flagSearch = flag.Uint("coopmat.search", 0, "GEMM edge of the tile search (0: min(size, 4096))")
	flagShapes = flag.String("coopmat.shapes", "", "regexp: measure only the shapes whose name matches")
)

// options are the harness's options: -coopmat.size and -coopmat.search,
// seed 7, 20 ms samples, progress logged.
func options(t *testing.T) coopmat.Options {
	return coopmat.Options{Options: vk.Options{Size: uint32(*flagSize), SearchSize: uint32(*flagSearch), Seed: 7,
		Timing: vk.Timing{SampleTime: 20 * time.Millisecond}, Progress: func(l string) { t.Log(l) }}}
}

// TestRunCoopMat searches and measures, at the flags' sizes, every shape
// of the device that matches -coopmat.shapes, logging each as the RESULT
// line bench/coopmat.sh and bench/vkpeer.sh tabulate.
func TestRunCoopMat(t *testing.T) {
	d := vktest.Device(t)
	shapes, err := d.Shapes()
	if vk.IsSkip(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	o := options(t)
	match := regexp.MustCompile(*flagShapes)
	t.Logf("device %s driver %s %s, %d shapes", d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, len(shapes))
	for _, s := range shapes {
		if !match.MatchString(s.String()) {
			continue
		}
		start := time.Now()
		r, err := coopmat.RunShape(context.Background(), d, s, o)
		switch {
		case vk.IsSkip(err):
			t.Logf("SKIP %v: %v", s, err)
			continue
		case err != nil:
			t.Errorf("FAIL %v: %v", s, err)
			continue
		}
		logResult(t, r, time.Since(start))
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
