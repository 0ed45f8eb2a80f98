package gpu

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestRooflineTable pins the counting rule (2 operations per FMA or
// multiply-add, 4 bytes read and 4 written per scalar) and the sweep's
// intensities: 11 points, doubling from 0.25 to 256 ops/byte.
func TestRooflineTable(t *testing.T) {
	ks := RooflineKernels()
	if len(ks) != 2 || ks[0].Precision != "fma.fp32" || ks[1].Precision != "mad.int32" {
		t.Fatalf("table %+v", ks)
	}
	its := RooflineIters()
	if len(its) != 11 {
		t.Fatalf("%d points, want 11", len(its))
	}
	for _, k := range ks {
		if k.OpsPerOperation != 2 || k.BytesPerElement != 8 {
			t.Errorf("%s: %d ops per operation, %d bytes per element", k.Precision, k.OpsPerOperation, k.BytesPerElement)
		}
		if lo, hi := k.Intensity(its[0]), k.Intensity(its[len(its)-1]); lo != 0.25 || hi != 256 {
			t.Errorf("%s: intensities %g to %g, want 0.25 to 256", k.Precision, lo, hi)
		}
	}
	a := roofDispatch{row: ks[0], m: 2 * roofBlock, iters: 3}
	if got := a.opsPerDispatch(); got != 2*roofBlock*4*3*2 {
		t.Errorf("ops per dispatch %v", got)
	}
}

// f32Step runs the fp32 kernel's counted FMAs on one value one fused
// multiply-add at a time, exactly as IEEE-754 binary32 rounds them.
func f32Step(x float32, iters uint32) float32 {
	g := float32(roofGrid)
	for k := uint32(1); k < iters; k += 2 {
		x = fmaF32(fmaF32(x, floatA, 6*g), floatC, -2*g)
	}
	if iters%2 == 1 {
		x = fmaF32(x, floatA, 6*g)
	}
	return x
}

// TestRooflineF32ClosedForm steps the fp32 recurrence one fused
// multiply-add at a time and by separate multiply and add (the two ways
// WGSL allows fma to run) and compares both with the closed form, for
// inputs at both ends of the range and odd and even counts.
func TestRooflineF32ClosedForm(t *testing.T) {
	idx := []uint32{0, 1, 2, 3, 4, 5, 1023, 4095, 123457}
	for i := uint32(0); i < 1<<22; i += 99991 {
		idx = append(idx, i)
	}
	for _, iters := range []uint32{1, 2, 3, 7, 64, 1024, 4097} {
		want := rooflineReference(roofF32, iters)
		for _, i := range idx {
			x0 := math.Float32frombits(f32(float64(roofK(i)) * roofGrid))
			fused := f32Step(x0, iters)
			if got := math.Float32bits(fused); got != want(uint64(i)) {
				t.Fatalf("iters %d index %d: fused steps give %g, closed form %g", iters, i, fused, math.Float32frombits(want(uint64(i))))
			}
			g := float32(roofGrid)
			x := x0
			for k := uint32(1); k < iters; k += 2 {
				x = float32(x*floatA) + 6*g // the conversion forbids fusing
				x = float32(x*floatC) - 2*g
			}
			if iters%2 == 1 {
				x = float32(x*floatA) + 6*g
			}
			if x != fused {
				t.Fatalf("iters %d index %d: unfused %g, fused %g", iters, i, x, fused)
			}
		}
	}
}

// TestRooflineF32Extremes: the largest and smallest inputs stay exact and
// the hidden quads (a pair and its inverse) leave any value unchanged.
func TestRooflineF32Extremes(t *testing.T) {
	g := float32(roofGrid)
	for _, k := range []int64{-roofSpan, roofSpan - 1, 0, -3} {
		x := float32(float64(k) * roofGrid)
		y := fmaF32(fmaF32(x, floatA, 6*g), floatC, -2*g)
		if y != x+g {
			t.Errorf("k %d: pair gives %g, want %g", k, y, x+g)
		}
		if z := fmaF32(fmaF32(y, floatA, -6*g), floatC, 2*g); z != x {
			t.Errorf("k %d: unpair gives %g, want %g", k, z, x)
		}
	}
}

// TestRooflineI32ClosedForm steps the int32 rounds one multiply-add at a
// time and compares every lane with the closed form.
func TestRooflineI32ClosedForm(t *testing.T) {
	for _, iters := range []uint32{1, 2, 5, 1024} {
		want := rooflineReference(roofI32, iters)
		for e := uint32(0); e < 64; e += 7 {
			var v [4]uint32
			for l := range v {
				v[l] = roofWord(4*e + uint32(l))
			}
			for range iters {
				for c := 0; c < 2; c++ {
					v[c] = v[c]*roofMult + v[c+2]
					v[c+2] = v[c+2]*roofMult + v[c]
				}
			}
			for l := range v {
				if got := want(uint64(4*e + uint32(l))); got != v[l] {
					t.Fatalf("iters %d element %d lane %d: closed form %#x, stepped %#x", iters, e, l, got, v[l])
				}
			}
		}
	}
}

// TestRooflineCheckFlagsOneWord: one wrong word in a chunk of correct
// output fails the check with ErrCheckFailed, naming the element.
func TestRooflineCheckFlagsOneWord(t *testing.T) {
	for _, k := range RooflineKernels() {
		want := rooflineReference(k.kind, 6)
		chunk := make([]byte, 4*4096)
		for i := range 4096 {
			binary.LittleEndian.PutUint32(chunk[4*i:], want(uint64(8192+i)))
		}
		if err := rooflineErr(k.kind, checkWords(chunk, 8192, want)); err != nil {
			t.Fatalf("%s: correct output fails: %v", k.Precision, err)
		}
		chunk[4*77] ^= 1
		r := checkWords(chunk, 8192, want)
		err := rooflineErr(k.kind, r)
		if !errors.Is(err, ErrCheckFailed) || r.Bad != 8192+77 || r.Checked != 4096 {
			t.Errorf("%s: one flipped bit: %v (bad %d, checked %d)", k.Precision, err, r.Bad, r.Checked)
		}
	}
}

// TestCheckRooflineMatchesReference: the inline check agrees with the
// per-word reference on chunks that start and end at any lane, for odd and
// even operation counts, and names the first wrong word wherever it is.
func TestCheckRooflineMatchesReference(t *testing.T) {
	for _, k := range RooflineKernels() {
		for _, iters := range []uint32{1, 2, 7, 64, 1024} {
			want := rooflineReference(k.kind, iters)
			for _, first := range []uint64{0, 1, 2, 3, 8190, 1<<30 + 5} {
				const n = 1031
				chunk := make([]byte, 4*n)
				for i := range uint64(n) {
					binary.LittleEndian.PutUint32(chunk[4*i:], want(first+i))
				}
				if r := checkRoofline(k.kind, iters, chunk, first); r.Bad >= 0 || r.Checked != n {
					t.Fatalf("%s iters %d from %d: correct output: bad %d, checked %d", k.Precision, iters, first, r.Bad, r.Checked)
				}
				for _, at := range []uint64{0, 1, 2, 3, 4, 517, n - 1} {
					chunk[4*at+3] ^= 0x40
					r := checkRoofline(k.kind, iters, chunk, first)
					chunk[4*at+3] ^= 0x40
					if r.Bad != int64(first+at) || uint32(r.Want) != want(first+at) || r.Checked != n {
						t.Errorf("%s iters %d from %d, word %d wrong: bad %d want %#x, checked %d", k.Precision, iters, first, at, r.Bad, uint32(r.Want), r.Checked)
					}
				}
			}
		}
	}
}

// TestRooflineElements sizes the arrays from the limits, the memory limit
// and the options, and refuses arrays below the minimum.
func TestRooflineElements(t *testing.T) {
	big := Limits{MaxBufferBytes: 1 << 40, MaxStorageBindingBytes: 4<<30 - 4}
	lim := newRooflineLimits(RooflineOptions{}, Effort{})
	cases := []struct {
		l        Limits
		memLimit uint64
		opts     RooflineOptions
		want     uint64 // bytes per array, 0 for an error
	}{
		{big, 80 << 30, RooflineOptions{}, 1 << 30},
		{big, 1 << 30, RooflineOptions{}, (1<<30 - stagingChunk) / 2},
		{big, 80 << 30, RooflineOptions{MaxArrayBytes: 256 << 20}, 256 << 20},
		{Limits{MaxBufferBytes: 1 << 40, MaxStorageBindingBytes: 128 << 20}, 80 << 30, RooflineOptions{}, 128 << 20},
		{big, 150 << 20, RooflineOptions{}, 0}, // 50 MiB arrays: too small
	}
	for i, c := range cases {
		l := lim
		if c.opts.MaxArrayBytes > 0 {
			l = newRooflineLimits(c.opts, Effort{})
		}
		n, err := rooflineElements(c.l, c.memLimit, l)
		switch {
		case c.want == 0 && err == nil:
			t.Errorf("case %d: %d elements, want an error", i, n)
		case c.want != 0 && (err != nil || n*ElementBytes != c.want/(ElementBytes*roofBlock)*ElementBytes*roofBlock):
			t.Errorf("case %d: %d bytes (%v), want %d", i, n*ElementBytes, err, c.want)
		}
	}
}

func TestSelectRooflineKernels(t *testing.T) {
	if ks, err := selectRooflineKernels(nil); err != nil || len(ks) != 2 {
		t.Errorf("all: %v %v", ks, err)
	}
	if ks, err := selectRooflineKernels([]string{"mad.int32"}); err != nil || len(ks) != 1 || ks[0].Precision != "mad.int32" {
		t.Errorf("int32 only: %v %v", ks, err)
	}
	if _, err := selectRooflineKernels([]string{"fma.fp64"}); err == nil {
		t.Error("unknown precision accepted")
	}
}

// TestRooflineSchemaRatio: a sweep becomes a valid schema section whose
// figures are internal/roofline's.
func TestRooflineSchemaRatio(t *testing.T) {
	res := RooflineResult{Precision: "fma.fp32", Timing: schema.TimingGPUTimestamp, Checked: 4096}
	for _, p := range [][2]float64{{0.25, 1e12}, {1, 3e12}, {4, 8e12}, {16, 10e12}} {
		res.Points = append(res.Points, RooflinePoint{Intensity: p[0], OpsPerS: p[1], MinOpsPerS: p[1], MaxOpsPerS: p[1], Samples: 3})
	}
	got, err := res.SchemaRatio()
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(got); err != nil {
		t.Fatalf("invalid section: %v", err)
	}
	// Peak 10e12, bandwidth 4e12 (at 0.25), ridge 2.5: nearest is 4 (log 1.6 < log 2.5).
	if got.PeakOpsPerS != 10e12 || got.BandwidthBytesPerS != 4e12 || got.Points[2].ModelOpsPerS != 10e12 ||
		got.Points[1].ModelOpsPerS != 4e12 || got.RidgeRatio != 0.8 || got.Check.Elements != 4096 {
		t.Errorf("section %+v", got)
	}
	if _, err := (RooflineResult{Precision: "fma.fp32"}).SchemaRatio(); err == nil {
		t.Error("an empty sweep made a section")
	}
}

// fmaF32 is the IEEE-754 binary32 fused multiply-add: x*y + z rounded once
// to nearest even. float64 holds x*y exactly, so math.FMA's one rounding
// followed by the conversion to float32 is correct unless math.FMA's result
// is a float32 midpoint (no midpoint can lie strictly between the exact sum
// and its nearest float64, which is that result) or lies where float32 is
// subnormal; those cases are redone with exact big.Float arithmetic.
func fmaF32(x, y, z float32) float32 {
	r := math.FMA(float64(x), float64(y), float64(z))
	if !f32Midpoint(r) && (r == 0 || math.Abs(r) >= 0x1p-126) {
		return float32(r)
	}
	exact := new(big.Float).SetPrec(1024)
	exact.Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
	exact.Add(exact, big.NewFloat(float64(z)))
	f, _ := exact.Float32() // one rounding, nearest even, subnormals included
	return f
}

// f32Midpoint reports whether r, a finite float64 in float32's normal range
// or above, lies exactly halfway between two adjacent float32 values: its
// 29 fraction bits below float32's precision are 1 followed by zeros.
func f32Midpoint(r float64) bool {
	return math.Float64bits(r)&(1<<29-1) == 1<<28
}
