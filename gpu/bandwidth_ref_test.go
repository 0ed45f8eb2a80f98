package gpu

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

func TestFillPattern(t *testing.T) {
	seen := map[float32]bool{}
	for i := uint32(0); i < 1000; i++ {
		v := fillPattern(i, seedA)
		if !(v >= 1 && v < 2) {
			t.Fatalf("fillPattern(%d) = %v, outside [1, 2)", i, v)
		}
		seen[v] = true
	}
	if len(seen) != 1000 {
		t.Errorf("neighbouring values repeat: %d distinct of 1000", len(seen))
	}
	// (0*K + seed) mod 2^23 in the mantissa of 1.0.
	if got, want := math.Float32bits(fillPattern(0, 5)), uint32(0x3F800005); got != want {
		t.Errorf("fillPattern(0, 5) bits = %#x, want %#x", got, want)
	}
}

// floats encodes values as the GPU lays them out.
func floats(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func TestCheckArrayCatchesOneWrongValue(t *testing.T) {
	const first = 100
	vs := make([]float32, 4096)
	for i := range vs {
		vs[i] = fillPattern(uint32(first+i), seedWrite)
	}
	good := checkArray(floats(vs...), first, wantFill(seedWrite), 0)
	if good.Bad >= 0 || good.Checked != 4096 || good.MaxRel != 0 {
		t.Fatalf("exact data failed the check: %+v", good)
	}
	vs[2000] = math.Nextafter32(vs[2000], 2) // one ulp off
	bad := checkArray(floats(vs...), first, wantFill(seedWrite), 0)
	if bad.Bad != first+2000 {
		t.Errorf("one-ulp error not caught at %d: %+v", first+2000, bad)
	}
	if err := bad.Err(ErrCheckFailed, "write", 0); !errors.Is(err, ErrCheckFailed) {
		t.Errorf("error %v does not wrap ErrCheckFailed", err)
	}
	vs[2000] = float32(math.NaN())
	if r := checkArray(floats(vs...), first, wantFill(seedWrite), triadTolerance); r.Bad < 0 {
		t.Error("NaN passed a toleranced check")
	}
}

func TestTriadToleranceAllowsFusedAndUnfused(t *testing.T) {
	for i := uint32(0); i < 10000; i++ {
		b, c := fillPattern(i, seedB), fillPattern(i, seedA)
		unfused := b + triadScalar*c
		fused := float32(float64(b) + float64(triadScalar)*float64(c))
		for _, got := range []float32{unfused, fused} {
			if rel := math.Abs(float64(got)-wantTriad(i)) / wantTriad(i); rel > triadTolerance {
				t.Fatalf("element %d: %v is %.3g off, tolerance %.3g", i, got, rel, triadTolerance)
			}
		}
	}
}

// TestReadReferenceMatchesFloat32Sums: the reference, plus the tolerance,
// accepts sums formed the way bw_read forms them in float32, and rejects a
// sum that lost one element.
func TestReadReferenceMatchesFloat32Sums(t *testing.T) {
	const n, groups = 5000, 3 // 768 invocations: some handle 7 elements, some 6
	want := readReference(n, groups, seedA)
	stride := uint64(groups) * wgSize
	raw := make([]float32, 0, 4*groups)
	for g := uint64(0); g < groups; g++ {
		var lanes [wgSize][4]float32
		for l := uint64(0); l < wgSize; l++ {
			for i := g*wgSize + l; i < n; i += stride {
				for k := uint64(0); k < 4; k++ {
					lanes[l][k] += fillPattern(uint32(4*i+k), seedA)
				}
			}
		}
		for s := wgSize / 2; s > 0; s /= 2 {
			for l := 0; l < s; l++ {
				for k := 0; k < 4; k++ {
					lanes[l][k] += lanes[l+s][k]
				}
			}
		}
		raw = append(raw, lanes[0][:]...)
	}
	tol := readTolerance((n + stride - 1) / stride)
	if r := checkPartials(floats(raw...), want, tol); r.Bad >= 0 || r.Checked != 4*groups {
		t.Fatalf("float32 sums rejected: %+v (tolerance %.3g)", r, tol)
	}
	raw[5] -= fillPattern(4*(groups*wgSize+1)+1, seedA) // drop one element from group 1, lane 1
	if r := checkPartials(floats(raw...), want, tol); r.Bad != 5 {
		t.Errorf("a missing element was not caught: %+v", r)
	}
}
