package alu

import (
	"context"
	"errors"
	"testing"

	"github.com/everycycle/appraise/internal/probe/vulkan"
	"github.com/everycycle/appraise/internal/probe/vulkan/internal/vktest"
	"github.com/everycycle/appraise/schema"
)

// TestVectorProbes: each vector probe's contribution is either one checked
// precision entry named for it, with its probe record, or one skip saying
// why, never both; a corrupted output is an error, never a figure.
func TestVectorProbes(t *testing.T) {
	d := vktest.Device(t)
	ps := VectorProbes(smallOptions())
	if len(ps) != 4 {
		t.Fatalf("%d vector probes, want 4", len(ps))
	}
	for _, p := range ps {
		c, err := p.Run(context.Background(), d)
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		switch {
		case len(c.Skipped) == 1 && len(c.Precisions) == 0:
			s := c.Skipped[0]
			t.Logf("SKIP %s %s: %s", s.Probe, s.Item, s.Reason)
			if s.Probe != p.Name() || s.Item != p.Item() || s.Reason == "" || len(c.Probes) != 0 {
				t.Errorf("%s: skip %+v, probes %+v", p.Name(), s, c.Probes)
			}
			continue
		case len(c.Precisions) == 1 && len(c.Skipped) == 0:
		default:
			t.Fatalf("%s: %d precisions and %d skips", p.Name(), len(c.Precisions), len(c.Skipped))
		}
		e := c.Precisions[0]
		if e.Probe != p.Name() || !e.Check.Passed || e.Check.Reference != "cpu" || e.Check.Elements == 0 || e.MatrixEngine || e.Kernel == "" {
			t.Errorf("%s: entry %+v", p.Name(), e)
		}
		if err := schema.Validate(e); err != nil {
			t.Errorf("%s: %v", p.Name(), err)
		}
		if len(c.Probes) != 1 || c.Probes[0] != (schema.ProbeRecord{Name: p.Name(), Version: vulkan.ProbeVersion}) {
			t.Errorf("%s: probe records %+v", p.Name(), c.Probes)
		}
		bad := p
		bad.Options.tamper = func(probe string, out []byte) { // a high exponent bit of the middle element
			top := 3
			if probe == vulkan.ProbeFMA64 {
				top = 7
			}
			out[len(out)/2+top] ^= 0x40
		}
		if _, err := bad.Run(context.Background(), d); !errors.Is(err, vulkan.ErrCheckFailed) {
			t.Errorf("%s with a corrupted output: err = %v, want ErrCheckFailed", p.Name(), err)
		}
	}
}

// TestPrecisionEntry: a matrix-engine result's entry carries its shape and
// problem, a vector result's its kernel; a check with no tolerance is
// exact, one with a tolerance absolute.
func TestPrecisionEntry(t *testing.T) {
	m := vulkan.Result{Probe: vulkan.ProbeCoopMatGEMM, MatrixEngine: true, Tile: "wg2x4 t8x4 bk32 brow",
		Shape:   vulkan.Shape{M: 16, N: 16, K: 16, A: vulkan.Float16, B: vulkan.Float16, C: vulkan.Float32, Result: vulkan.Float32, Scope: vulkan.ScopeSubgroup},
		Problem: vulkan.Problem{M: 256, N: 256, K: 256}, Check: vulkan.Check{Elements: 10, MaxError: 1e-3, Tolerance: 1e-2}}
	e := vulkan.Precision(m, "gemm", "gemm=2mnk")
	if e.Shape == nil || e.Shape.ProblemM != 256 || e.Shape.Tile != m.Tile || e.Kernel != "" || e.InputType != "fp16" || e.AccumulatorType != "fp32" ||
		e.Check.ErrorKind != "absolute" || e.Check.Tolerance != 1e-2 || !e.Check.Passed {
		t.Errorf("matrix entry %+v (shape %+v)", e, e.Shape)
	}
	v := vulkan.Result{Probe: vulkan.ProbeDot4I8, Tile: "local=256", Shape: vulkan.Shape{M: 1, N: 1, K: 1, A: vulkan.Sint8, B: vulkan.Sint8, C: vulkan.Sint32, Result: vulkan.Sint32}, Check: vulkan.Check{Elements: 4}}
	e = vulkan.Precision(v, "dot4", "dot4=8")
	if e.Shape != nil || e.Kernel != "local=256" || e.InputType != "int8" || e.AccumulatorType != "int32" || e.Check.ErrorKind != "exact" {
		t.Errorf("vector entry %+v", e)
	}
	for ct, want := range map[vulkan.ComponentType]string{vulkan.Float16: "fp16", vulkan.BFloat16: "bf16", vulkan.Uint8: "uint8", vulkan.Sint32: "int32", vulkan.Float64: "fp64", vulkan.E4M3: "fp8_e4m3"} {
		if got := vulkan.TypeName(ct); got != want {
			t.Errorf("typeName(%v) = %q, want %q", ct, got, want)
		}
	}
}
