package alu

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
	"github.com/everycycle/appraise/schema"
)

// TestVectorProbes: each vector probe's contribution is either one checked
// precision entry named for it, with its probe record, or one skip saying
// why, never both; a corrupted output is an error, never a figure. Errors
// and skips begin with the probe's name.
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
			if s.Probe != p.Name() || s.Item != p.Item() || !strings.HasPrefix(s.Reason, p.Name()+": ") || len(c.Probes) != 0 {
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
		if len(c.Probes) != 1 || c.Probes[0] != (schema.ProbeRecord{Name: p.Name(), Version: vk.ProbeVersion}) {
			t.Errorf("%s: probe records %+v", p.Name(), c.Probes)
		}
		bad := p
		bad.Options.tamper = corruptEvery
		if _, err := bad.Run(context.Background(), d); !errors.Is(err, vk.ErrCheckFailed) || !strings.HasPrefix(err.Error(), p.Name()+": ") {
			t.Errorf("%s with a corrupted output: err = %v, want ErrCheckFailed naming the probe", p.Name(), err)
		}
	}
}

// TestPrecisionEntry: a matrix-engine result's entry carries its shape and
// problem, a vector result's its kernel; a check with no tolerance is
// exact, one with a tolerance absolute.
func TestPrecisionEntry(t *testing.T) {
	m := vk.Result{Probe: vk.ProbeCoopMatGEMM, MatrixEngine: true, Tile: "wg2x4 t8x4 bk32 brow",
		Shape:   vk.Shape{M: 16, N: 16, K: 16, A: vk.Float16, B: vk.Float16, C: vk.Float32, Result: vk.Float32, Scope: vk.ScopeSubgroup},
		Problem: vk.Problem{M: 256, N: 256, K: 256}, Check: vk.Check{Elements: 10, MaxError: 1e-3, Tolerance: 1e-2}}
	e := vk.Precision(m, "gemm", "gemm=2mnk")
	if e.Shape == nil || e.Shape.ProblemM != 256 || e.Shape.Tile != m.Tile || e.Kernel != "" || e.InputType != "fp16" || e.AccumulatorType != "fp32" ||
		e.Check.ErrorKind != "absolute" || e.Check.Tolerance != 1e-2 || !e.Check.Passed {
		t.Errorf("matrix entry %+v (shape %+v)", e, e.Shape)
	}
	v := vk.Result{Probe: vk.ProbeDot4I8, Tile: "local=256", Shape: vk.Shape{M: 1, N: 1, K: 1, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32}, Check: vk.Check{Elements: 4}}
	e = vk.Precision(v, "dot4", "dot4=8")
	if e.Shape != nil || e.Kernel != "local=256" || e.InputType != "int8" || e.AccumulatorType != "int32" || e.Check.ErrorKind != "exact" {
		t.Errorf("vector entry %+v", e)
	}
	for ct, want := range map[vk.ComponentType]string{vk.Float16: "fp16", vk.BFloat16: "bf16", vk.Uint8: "uint8", vk.Sint32: "int32", vk.Float64: "fp64", vk.E4M3: "fp8_e4m3"} {
		if got := vk.TypeName(ct); got != want {
			t.Errorf("typeName(%v) = %q, want %q", ct, got, want)
		}
	}
}
