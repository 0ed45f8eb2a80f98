//go:build explore

package alu

import (
	"context"

	"github.com/everycycle/appraise/coopmat/vk"
)

// FormRun is one fp16 form as the exploration harness measured it: the
// checked result and why the fold guards dropped it ("" when it held).
type FormRun struct {
	Result vk.Result
	Folded string
}

// ExploreFMA16 measures every fp16 form, in vec2 and vec4 lanes, each
// checked and put to the fold guards, then the product's rule (RunFMA16),
// for a look at how a driver runs them (bench/explore/fma16). It exists
// only with the explore build tag: the product measures fma16Forms.
func ExploreFMA16(ctx context.Context, d *vk.Device, o vk.Options) ([]FormRun, vk.Result, error) {
	var out []FormRun
	for _, f := range []fp16Form{fp16FMA, fp16FMALoaded, fp16MulAdd, fp16MulAddSplit} {
		for _, k := range []fma16Kernel{{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: f}, {Chains: 8, Lanes: 4, Unroll: 8, Local: 256, Form: f}} {
			r, why, err := measureForm(ctx, d, Options{Options: o}, k)
			if err != nil {
				return out, vk.Result{}, err
			}
			out = append(out, FormRun{r, why})
		}
	}
	kept, err := RunFMA16(ctx, d, Options{Options: o})
	return out, kept, err
}

// measureForm measures k, then guards it once (guardRuns): the result and
// why k looks folded ("" when it does not).
func measureForm(ctx context.Context, d *vk.Device, o Options, k fma16Kernel) (vk.Result, string, error) {
	r, err := runFMA16(ctx, d, o, k)
	if err != nil {
		return vk.Result{}, "", err
	}
	g, err := guardRuns(ctx, d, o, k, r)
	if err != nil {
		return vk.Result{}, "", err
	}
	return r, g.folded(), nil
}
