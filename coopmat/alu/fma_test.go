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
	if want := min(int(smallOptions().FMAInvocations), 4096); r.Check.Elements != want {
		t.Errorf("checked %d invocations, want %d", r.Check.Elements, want)
	}
}

func TestTamperedResultsFail(t *testing.T) {
	d := vktest.Device(t)
	o := smallOptions()
	o.tamper = corruptEvery
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
