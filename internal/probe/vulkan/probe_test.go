package vulkan

import (
	"context"
	"errors"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestVectorProbes: each vector probe's contribution is either one checked
// precision entry named for it, with its probe record, or one skip saying
// why, never both; a corrupted output is an error, never a figure.
func TestVectorProbes(t *testing.T) {
	d := newDevice(t)
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
		if len(c.Probes) != 1 || c.Probes[0] != (schema.ProbeRecord{Name: p.Name(), Version: ProbeVersion}) {
			t.Errorf("%s: probe records %+v", p.Name(), c.Probes)
		}
		bad := p
		bad.Options.tamper = func(probe string, out []byte) { // a high exponent bit of the middle element
			top := 3
			if probe == ProbeFMA64 {
				top = 7
			}
			out[len(out)/2+top] ^= 0x40
		}
		if _, err := bad.Run(context.Background(), d); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s with a corrupted output: err = %v, want ErrCheckFailed", p.Name(), err)
		}
	}
}

// TestHostLinkProbe: the host link and launch figures carry their exact
// checks and probe names; measured again on the paths chosen, they come
// back on those paths.
func TestHostLinkProbe(t *testing.T) {
	d := newDevice(t)
	p := HostLinkProbe{Options: TransferOptions{Bytes: 8 << 20, Quick: true}}
	c, paths, err := p.Measure(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Again(paths).Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		c    any
	}{{"host to device", c.HostToDevice}, {"device to host", c.DeviceToHost}, {"launch", c.Launch},
		{"host to device again", again.HostToDevice}, {"launch again", again.Launch}} {
		if err := schema.Validate(c.c); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, tr := range []*schema.Transfer{c.HostToDevice, c.DeviceToHost} {
		if tr.Probe != ProbeHostLink || !tr.Check.Passed || tr.Check.ErrorKind != "exact" || tr.Check.Elements == 0 || tr.TransferBytes != 8<<20 {
			t.Errorf("transfer %+v", tr)
		}
	}
	l := c.Launch
	if l.Probe != ProbeLaunch || l.UploadPath != paths.UploadPinned || l.DispatchPath != paths.Submit || l.Check.Reference != "closed-form" || !l.Check.Passed {
		t.Errorf("launch %+v, paths %+v", l, paths)
	}
	if len(c.Probes) != 2 || c.Probes[0].Name != ProbeHostLink || c.Probes[1].Name != ProbeLaunch {
		t.Errorf("probe records %+v", c.Probes)
	}
	if again.DeviceToHost.Path != paths.DeviceToHost || again.Launch.DispatchPath != paths.Submit || again.Launch.UploadPath != paths.UploadPinned {
		t.Errorf("again on other paths: %+v %+v, want %+v", again.DeviceToHost, again.Launch, paths)
	}
}

// TestPrecisionEntry: a matrix-engine result's entry carries its shape and
// problem, a vector result's its kernel; a check with no tolerance is
// exact, one with a tolerance absolute.
func TestPrecisionEntry(t *testing.T) {
	m := Result{Probe: ProbeCoopMatGEMM, MatrixEngine: true, Tile: "wg2x4 t8x4 bk32 brow",
		Shape:   Shape{M: 16, N: 16, K: 16, A: Float16, B: Float16, C: Float32, Result: Float32, Scope: ScopeSubgroup},
		Problem: Problem{M: 256, N: 256, K: 256}, Check: Check{Elements: 10, MaxError: 1e-3, Tolerance: 1e-2}}
	e := precision(m, "gemm", "gemm=2mnk")
	if e.Shape == nil || e.Shape.ProblemM != 256 || e.Shape.Tile != m.Tile || e.Kernel != "" || e.InputType != "fp16" || e.AccumulatorType != "fp32" ||
		e.Check.ErrorKind != "absolute" || e.Check.Tolerance != 1e-2 || !e.Check.Passed {
		t.Errorf("matrix entry %+v (shape %+v)", e, e.Shape)
	}
	v := Result{Probe: ProbeDot4I8, Tile: "local=256", Shape: Shape{M: 1, N: 1, K: 1, A: Sint8, B: Sint8, C: Sint32, Result: Sint32}, Check: Check{Elements: 4}}
	e = precision(v, "dot4", "dot4=8")
	if e.Shape != nil || e.Kernel != "local=256" || e.InputType != "int8" || e.AccumulatorType != "int32" || e.Check.ErrorKind != "exact" {
		t.Errorf("vector entry %+v", e)
	}
	for ct, want := range map[ComponentType]string{Float16: "fp16", BFloat16: "bf16", Uint8: "uint8", Sint32: "int32", Float64: "fp64", E4M3: "fp8_e4m3"} {
		if got := typeName(ct); got != want {
			t.Errorf("typeName(%v) = %q, want %q", ct, got, want)
		}
	}
}
