package alu

import (
	"context"
	"errors"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
	"github.com/everycycle/appraise/schema"
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

// TestWithoutTimestamps: on a queue without timestamps a kernel is timed
// by the host clock, one submission a sample, alone or in turn with
// others, and still checked.
func TestWithoutTimestamps(t *testing.T) {
	d := vktest.Device(t)
	bits := d.Queue.TsBits
	d.Queue.TsBits = 0
	defer func() { d.Queue.TsBits = bits }()
	r, err := RunDot4(context.Background(), d, smallOptions(), true)
	if vk.IsSkip(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.Timing != schema.TimingQueueWallClock || r.OpsPerSecond.Samples < vk.MinSamples || r.Repeats < 1 {
		t.Errorf("without timestamps: %s, %d samples, %d repeats", r.Timing, r.OpsPerSecond.Samples, r.Repeats)
	}
	if !d.Enabled.Float16 {
		return
	}
	g, err := guardRatios(context.Background(), d, smallOptions(), fma16Forms()[0])
	if err != nil || !(g.grow > 0) || !(g.apart > 0) {
		t.Errorf("the fold guard without timestamps: %+v, %v", g, err)
	}
}
