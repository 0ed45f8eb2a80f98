//go:build explore

// Package fma16 is the exploration harness of the fp16 FMA forms: every
// form at full size, logged on a GPU host (go test -c -tags explore -o
// bin/fma16.test ./bench/explore/fma16/, then -test.run
// TestFMA16FormsFullSize -fma16). Nothing here changes what the product
// measures: its rule (coopmat/alu, fma16Forms) keeps two forms.
package fma16

import (
	"context"
	"flag"
	"testing"

	"github.com/everycycle/appraise/coopmat/alu"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

var flagFMA16 = flag.Bool("fma16", false, "log every fp16 FMA form at full size")

// TestFMA16FormsFullSize logs every fp16 form at the default size with
// the fold guards' verdict (full work, half the work, a quarter of the
// unroll), then the product rule's choice. It runs only with -fma16 on a
// device with shaderFloat16.
func TestFMA16FormsFullSize(t *testing.T) {
	if !*flagFMA16 {
		t.Skip("pass -fma16")
	}
	d := vktest.Device(t)
	if !d.Enabled.Float16 {
		t.Skipf("%s has no shaderFloat16", d.Info.Name)
	}
	runs, kept, err := alu.ExploreFMA16(context.Background(), d, vk.Options{})
	for _, r := range runs {
		logResult(t, r.Result)
		if r.Folded != "" {
			t.Logf("  folded: %s", r.Folded)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Log("the product's rule:")
	logResult(t, kept)
}

func logResult(t *testing.T, r vk.Result) {
	t.Helper()
	t.Logf("%s %v %s: %.4g Gop/s median (min %.4g, max %.4g, %d samples, %s, %d reps), %d outputs checked",
		r.Probe, r.Problem, r.Tile, r.OpsPerSecond.Median/1e9, r.OpsPerSecond.Min/1e9, r.OpsPerSecond.Max/1e9,
		r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.Elements)
}
