//go:build linux && cgo

package cublaslt

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// The probe on the fake: every measured precision is a card entry with
// a passed check, each unoffered one a skip, the library recorded once,
// the probe named, and each measured precision swept for the roofline.
func TestGEMMProbeFake(t *testing.T) {
	dir, err := fakeDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_LT_MODE", "")
	p := GEMMProbe{Load: LoadOptions{Path: filepath.Join(dir, "libcublasLt.so.13"), Driver: filepath.Join(dir, "libcuda.so.1")},
		Options: fakeOptions()}
	p.Options.Precisions = []string{"fp16", "bf16", "fp8_e5m2"}
	c, err := p.Run(context.Background(), "0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Precisions) != 2 || len(c.Libraries) != 1 || len(c.Probes) != 1 || c.Probes[0].Name != ProbeName {
		t.Fatalf("contribution %+v", c)
	}
	for _, e := range c.Precisions {
		if err := schema.Validate(&e); err != nil || !e.Check.Passed || e.Check.Elements != 96*64 || e.Probe != ProbeName {
			t.Errorf("%s: %v %+v", e.InputType, err, e)
		}
	}
	if len(c.Skipped) != 1 || c.Skipped[0].Item != "gemm fp8_e5m2" {
		t.Errorf("skips %+v", c.Skipped)
	}
	if len(c.Roofline) != 2 || c.Roofline[0].Precision != RooflinePrefix+"fp16" || !c.Roofline[1].Check.Passed {
		t.Errorf("roofline %+v", c.Roofline)
	}
	if l := c.Libraries[0]; l.Probe != ProbeName || l.Version != "13.1.0" || l.Source != "option" {
		t.Errorf("library %+v", l)
	}
}

// No library, or no device at the address, is a skip of the whole
// probe saying why, not an error.
func TestGEMMProbeSkips(t *testing.T) {
	c, err := GEMMProbe{Load: LoadOptions{Path: "/nonexistent/libcublasLt.so.13"}}.Run(context.Background(), "0000:00:06.0")
	if err != nil || len(c.Skipped) != 1 || c.Skipped[0].Item != Item || len(c.Precisions) != 0 {
		t.Fatalf("no library: %v, %+v", err, c)
	}
	dir, err := fakeDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_LT_MODE", "")
	p := GEMMProbe{Load: LoadOptions{Path: filepath.Join(dir, "libcublasLt.so.13"), Driver: filepath.Join(dir, "libcuda.so.1")}, Options: fakeOptions()}
	c, err = p.Run(context.Background(), "0000:00:07.0")
	if err != nil || len(c.Skipped) != 1 || !strings.Contains(c.Skipped[0].Reason, "no such device") {
		t.Fatalf("no device: %v, %+v", err, c)
	}
}
