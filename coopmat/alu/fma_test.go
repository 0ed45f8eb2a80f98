package alu

import (
	"context"
	"errors"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

func TestFMA64(t *testing.T) {
	d := vktest.Device(t)
	if !d.Enabled.Float64 {
		t.Skipf("%s has no shaderFloat64", d.Info.Name)
	}
	r, err := RunFMA64(context.Background(), d, smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %v: %.3g GFLOP/s median, %s, check %+v", r.Probe, r.Problem, r.OpsPerSecond.Median/1e9, r.Timing, r.Check)
	if r.Check.Elements != 1024 {
		t.Errorf("checked %d invocations, want 1024", r.Check.Elements)
	}
}

func TestTamperedResultsFail(t *testing.T) {
	d := vktest.Device(t)
	o := smallOptions()
	// Flip a high exponent bit of the element in the middle of the output.
	o.tamper = func(probe string, out []byte) {
		top := 3
		if probe == vk.ProbeFMA64 {
			top = 7
		}
		out[len(out)/2+top] ^= 0x40
	}
	if d.Enabled.Float64 {
		if _, err := RunFMA64(context.Background(), d, o); !errors.Is(err, vk.ErrCheckFailed) {
			t.Errorf("fma with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
	if d.Enabled.Float16 {
		if _, err := RunFMA16(context.Background(), d, o); !errors.Is(err, vk.ErrCheckFailed) {
			t.Errorf("fp16 fma with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
	if d.Enabled.IntDot {
		if _, err := RunDot4(context.Background(), d, o, true); !errors.Is(err, vk.ErrCheckFailed) {
			t.Errorf("dot4 with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
}
