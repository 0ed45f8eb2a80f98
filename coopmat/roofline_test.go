package coopmat

import (
	"context"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// The roofline of a measured cooperative-matrix GEMM: K doubles from the
// tile's BK (at least 32) to N, every point's output is checked, and the
// intensity rises with K. A result that is no cooperative-matrix GEMM is
// refused. Without VK_KHR_cooperative_matrix there is nothing to sweep
// (the extension's absence is TestRunCoopMat's to assert).
func TestRooflineCoopMat(t *testing.T) {
	d := vktest.Device(t)
	if _, err := Roofline(context.Background(), d, Result{Result: vk.Result{Probe: vk.ProbeFMA64}}, Options{}); err == nil {
		t.Error("Roofline of a vector result was accepted")
	}
	if !d.Info.HasExtension(vk.ExtCoopMat) {
		return
	}
	shapes, err := d.Shapes()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Options: vk.Options{Size: 256, SearchSize: 128, Seed: 3, Timing: vk.Timing{SampleTime: 5 * time.Millisecond}}}
	for _, s := range shapes {
		r, err := RunShape(context.Background(), d, s, o)
		if vk.IsSkip(err) {
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		pts, err := Roofline(context.Background(), d, r, o)
		if err != nil {
			t.Fatalf("%v roofline: %v", s, err)
		}
		if len(pts) == 0 {
			t.Fatalf("%v tile %s: no points", s, r.Tile)
		}
		for i, p := range pts {
			if p.Check.Elements == 0 || p.OpsPerSecond.Median <= 0 || p.K > r.Problem.M || p.K%r.tile.BK != 0 {
				t.Errorf("%v K %d: %+v", s, p.K, p)
			}
			if i > 0 && (p.K != 2*pts[i-1].K || p.Intensity() <= pts[i-1].Intensity()) {
				t.Errorf("%v: K %d (intensity %.3g) after K %d (%.3g)", s, p.K, p.Intensity(), pts[i-1].K, pts[i-1].Intensity())
			}
		}
		t.Logf("%v tile %s: %d points, K %d to %d", s, r.Tile, len(pts), pts[0].K, pts[len(pts)-1].K)
		return // one shape shows the sweep; each costs a search
	}
	t.Fatal("the device lists cooperative-matrix shapes but none ran")
}
