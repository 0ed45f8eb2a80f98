package coopmat

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// runCoopMat runs the search and the measurement of every shape of d at
// o's sizes, logs each result as a RESULT line (the line the
// bench/coopmat harness writes too) and measures its tile again alone
// (RunTile). Without VK_KHR_cooperative_matrix it
// expects Run and Shapes to say so. In CI a shape the device reports must
// run: lavapipe reports only shapes our kernels run.
func runCoopMat(t *testing.T, d *vk.Device, o Options) {
	shapes, err := d.Shapes()
	expectCoopMat(t, d)
	if !d.Info.HasExtension(vk.ExtCoopMat) {
		if !errors.Is(err, vk.ErrExtensionMissing) {
			t.Fatalf("Shapes without %s: err = %v, want ErrExtensionMissing", vk.ExtCoopMat, err)
		}
		if _, _, err := Run(context.Background(), d, o); !errors.Is(err, vk.ErrExtensionMissing) {
			t.Fatalf("Run without %s: err = %v, want ErrExtensionMissing", vk.ExtCoopMat, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device %s driver %s %s, %d shapes", d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, len(shapes))
	for _, s := range shapes {
		start := time.Now()
		r, err := RunShape(context.Background(), d, s, o)
		switch {
		case vk.IsSkip(err) && os.Getenv("CI") == "true":
			t.Errorf("FAIL %v: skipped in CI: %v", s, err)
			continue
		case vk.IsSkip(err):
			t.Logf("SKIP %v: %v", s, err)
			continue
		case err != nil:
			t.Errorf("FAIL %v: %v", s, err)
			continue
		}
		if !r.MatrixEngine || r.Check.Elements == 0 {
			t.Errorf("%v: matrix_engine=%v, %d elements checked", r.Shape, r.MatrixEngine, r.Check.Elements)
		}
		t.Logf("RESULT %-34v %v tile %-20s %8.4g T/s (min %.4g max %.4g, n=%d, %s, reps %d) check max_err %.3g tol %.3g worst %.3g on %d [%v]",
			r.Shape, r.Problem, r.Tile, r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12,
			r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.MaxError, r.Check.Tolerance, r.Check.Worst, r.Check.Elements,
			time.Since(start).Round(time.Millisecond))
		again, err := RunTile(context.Background(), d, s, r.tile, o)
		if err != nil || again.Tile != r.Tile || again.Check.Elements == 0 {
			t.Errorf("RunTile %v %v: %v (tile %q, %d elements checked)", s, r.Tile, err, again.Tile, again.Check.Elements)
		}
	}
}
