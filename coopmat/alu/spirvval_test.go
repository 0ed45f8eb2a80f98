package alu

import (
	"testing"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

func TestSpirvValFMA(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version16} {
		words := fmaKernel{Chains: 4, Iters: 8, Unroll: 4, Local: 64}.build(v)
		if out, ok := vktest.Validate(t, "fma", words); !ok {
			t.Errorf("fma (SPIR-V %#x): spirv-val: %s", v, out)
		}
	}
}

func TestSpirvValFMA16(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version15, spirv.Version16} {
		for _, k := range fma16Explore() {
			k.Iters = 8
			if out, ok := vktest.Validate(t, "fma16", k.build(v)); !ok {
				t.Errorf("fma16 %s lanes=%d (SPIR-V %#x): spirv-val: %s", k.Form, k.Lanes, v, out)
			}
		}
	}
}

func TestSpirvValDot4(t *testing.T) {
	for _, v := range []uint32{spirv.Version13, spirv.Version15, spirv.Version16} {
		for _, signed := range []bool{true, false} {
			words := dot4Kernel{Signed: signed, Chains: 4, Iters: 8, Unroll: 2, Local: 64}.build(v)
			if out, ok := vktest.Validate(t, "dot4", words); !ok {
				t.Errorf("dot4 signed=%v (SPIR-V %#x): spirv-val: %s", signed, v, out)
			}
		}
	}
}
