package alu

import (
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// smallOptions are vktest's small options as this package's Options, with
// vector kernels as large as a software plan's: at smaller sizes a
// dispatch's fixed costs read to the fp16 fold guard as a rate rising
// with the work.
func smallOptions() Options {
	o := Options{Options: vktest.SmallOptions()}
	o.FMAInvocations, o.FMASteps = 1<<14, 128
	return o
}

// corruptEvery flips a high exponent bit of every element of a probe's
// output (a check may sample the elements).
func corruptEvery(probe string, out []byte) {
	size, top := 4, 3
	if probe == vk.ProbeFMA64 {
		size, top = 8, 7
	}
	for i := top; i < len(out); i += size {
		out[i] ^= 0x40
	}
}
