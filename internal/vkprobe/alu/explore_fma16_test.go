//go:build explore

// The exploration harness of the fp16 FMA forms: every form at full size,
// logged on a GPU host (go test -c -tags explore -o bin/vkalu.test
// ./internal/vkprobe/alu/, then -test.run TestFMA16FormsFullSize
// -coopmat.fma16). Nothing here changes what the product measures.

package alu

import (
	"context"
	"flag"
	"testing"

	"github.com/everycycle/appraise/internal/vkprobe/vktest"
)

var flagFMA16 = flag.Bool("coopmat.fma16", false, "log every fp16 FMA form at full size")

// TestFMA16FormsFullSize logs every fp16 form at the default size with
// the fold guards' verdict (full work, half the work, a quarter of the
// unroll), for a look at how a driver runs them. It runs only with
// -coopmat.fma16 on a device with shaderFloat16.
func TestFMA16FormsFullSize(t *testing.T) {
	if !*flagFMA16 {
		t.Skip("pass -coopmat.fma16")
	}
	d := vktest.Device(t)
	if !d.Enabled.Float16 {
		t.Skipf("%s has no shaderFloat16", d.Info.Name)
	}
	for _, k := range fma16Explore() {
		r, why, err := measureForm(context.Background(), d, Options{}, k)
		if err != nil {
			t.Errorf("%s lanes=%d: %v", k.Form, k.Lanes, err)
			continue
		}
		logVector(t, r)
		if why != "" {
			t.Logf("  folded: %s", why)
		}
	}
	r, err := RunFMA16(context.Background(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	logVector(t, r)
}
