//go:build linux && cgo

package cublaslt

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// A soak holds the first offered precision in pieces timed by the
// device's events until its duration has passed, checks the last output
// and releases everything; on the model clock every piece runs at the
// model's rate exactly.
func TestSoakFake(t *testing.T) {
	lib, leaks := openFake(t, "")
	t.Setenv("FAKE_LT_PEAK", "2e9")
	t.Setenv("FAKE_LT_BW", "1e12")
	var seen int
	o := SoakOptions{Precisions: []string{"fp8_e5m2", "bf16"}, M: 64, N: 32, K: 96, Duration: 50 * time.Millisecond,
		Piece: 5 * time.Millisecond, Seed: 3, OnPoint: func(time.Duration, float64) { seen++ }}
	res, err := lib.Soak(context.Background(), "", o)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeaks(t, leaks)
	if res.Precision.Name != "bf16" || len(res.Refused) != 1 || !strings.HasPrefix(res.Refused[0], "fp8_e5m2: ") {
		t.Errorf("held %s, refused %q; want bf16 after fp8_e5m2's refusal", res.Precision.Name, res.Refused)
	}
	if len(res.Points) == 0 || seen != len(res.Points) || res.Duration < o.Duration {
		t.Fatalf("%d points (%d seen) over %v", len(res.Points), seen, res.Duration)
	}
	for i, p := range res.Points {
		if math.Abs(p.OpsPerS-2e9)/2e9 > 1e-3 {
			t.Errorf("piece %d: %.4g ops/s; the model runs at 2e9", i, p.OpsPerS)
		}
		if i > 0 && p.At <= res.Points[i-1].At {
			t.Errorf("piece %d ends at %v, not after %v", i, p.At, res.Points[i-1].At)
		}
	}
	// 5 ms at 2e9 ops/s of 2·64·32·96 ops: 25 GEMMs a piece.
	if res.Repeats != 25 || res.Check.Checked != 64*32 || res.Workload() != "gemm bf16 64x32x96" {
		t.Errorf("repeats %d, checked %d, workload %q", res.Repeats, res.Check.Checked, res.Workload())
	}
}

// A wrong result at the end of a soak fails it; nothing offered fails it
// with ErrNoSoakLoad; a non-positive duration is refused up front.
func TestSoakFakeRefusals(t *testing.T) {
	lib, leaks := openFake(t, "wrong")
	o := SoakOptions{Precisions: []string{"fp16"}, M: 32, N: 32, K: 32, Duration: time.Millisecond, Piece: time.Millisecond}
	if _, err := lib.Soak(context.Background(), "", o); !errors.Is(err, ErrCheckFailed) {
		t.Errorf("wrong output: err = %v; want ErrCheckFailed", err)
	}
	assertNoLeaks(t, leaks)
	lib, _ = openFake(t, "nofp8")
	o.Precisions = []string{"fp8_e4m3", "fp8_e5m2"}
	if _, err := lib.Soak(context.Background(), "", o); !errors.Is(err, ErrNoSoakLoad) {
		t.Errorf("nothing offered: err = %v; want ErrNoSoakLoad", err)
	}
	o.Duration = 0
	if _, err := lib.Soak(context.Background(), "", o); err == nil || !strings.Contains(err.Error(), "duration") {
		t.Errorf("zero duration: err = %v", err)
	}
}

// The sweep's points on the model clock sit exactly on the model's
// roofline: min(peak, bandwidth × intensity) with the least traffic the
// probe counts; each point's output is checked. Progress is told each
// sweep as it starts.
func TestRooflineFake(t *testing.T) {
	lib, leaks := openFake(t, "")
	t.Setenv("FAKE_LT_PEAK", "4e9")
	t.Setenv("FAKE_LT_BW", "1e8")
	var steps []string
	o := RooflineOptions{Precisions: []string{"bf16", "fp8_e5m2"}, M: 128, N: 64, K: 256, Samples: 2, MinSample: time.Millisecond, Hold: time.Millisecond,
		Progress: func(s string) { steps = append(steps, s) }}
	sw, err := lib.Roofline(context.Background(), "", o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"roofline bf16", "roofline fp8_e5m2"}; !slices.Equal(steps, want) {
		t.Errorf("progress %q, want %q", steps, want)
	}
	assertNoLeaks(t, leaks)
	if len(sw) != 2 || sw[1].Status != StatusNotOffered || sw[1].Points != nil {
		t.Fatalf("sweeps %+v; want bf16 measured, fp8_e5m2 not offered", sw)
	}
	s := sw[0]
	if s.Status != StatusMeasured || len(s.Points) != 4 {
		t.Fatalf("bf16: %s, %d points; want 4 (K 32 to 256)", s.Status, len(s.Points))
	}
	for i, p := range s.Points {
		if want := 32 << i; p.K != want {
			t.Errorf("point %d: K %d, want %d", i, p.K, want)
		}
		bytes := 2.0 * (128*float64(p.K) + 64*float64(p.K) + 128*64)
		model := math.Min(4e9, 1e8*p.Ops/bytes)
		if p.Bytes != bytes || math.Abs(p.OpsPerS.Median-model)/model > 1e-3 {
			t.Errorf("K %d: %.4g ops/s over %g bytes; the model gives %.4g over %g", p.K, p.OpsPerS.Median, p.Bytes, model, bytes)
		}
		if p.Check.Checked == 0 || p.Check.Bad != -1 {
			t.Errorf("K %d: check %+v", p.K, p.Check)
		}
	}
	if _, err := lib.Roofline(context.Background(), "", RooflineOptions{M: 64, N: 64, K: 64, Ks: []int{48}}); err == nil {
		t.Error("K 48, not a multiple of 32, was accepted")
	}
	empty := RooflineOptions{Precisions: []string{"bf16"}, M: 64, N: 64, K: 64, Ks: []int{}, Samples: 2, MinSample: time.Millisecond, Hold: time.Millisecond}
	if sw, err := lib.Roofline(context.Background(), "", empty); err != nil || len(sw) != 1 || len(sw[0].Points) != 2 {
		t.Errorf("no K given: %+v, %v; want the default K 32 and 64", sw, err)
	}
}

// A library whose GEMMs compute wrong results fails the sweep at its
// first point's check, with every device resource released: a point's
// figure never stands without its check.
func TestRooflineFakeWrong(t *testing.T) {
	lib, leaks := openFake(t, "wrong")
	o := RooflineOptions{Precisions: []string{"bf16"}, M: 64, N: 64, K: 128, Samples: 2, MinSample: time.Millisecond, Hold: time.Millisecond}
	sw, err := lib.Roofline(context.Background(), "", o)
	if !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("err = %v, sweeps %+v; want ErrCheckFailed", err, sw)
	}
	assertNoLeaks(t, leaks)
}
