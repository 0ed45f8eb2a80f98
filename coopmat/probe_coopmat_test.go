package coopmat

import (
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// One sweep per combination of types: the fastest shape's; vector results
// are never swept; names say the types.
func TestFastestPerTypes(t *testing.T) {
	shape := func(a, b, c vk.ComponentType, m uint32) vk.Shape {
		return vk.Shape{M: m, N: m, K: 16, A: a, B: b, C: c, Result: c}
	}
	r := func(s vk.Shape, rate float64, matrix bool) Result {
		return Result{Result: vk.Result{Shape: s, MatrixEngine: matrix, OpsPerSecond: schema.Stat{Median: rate}}}
	}
	f16, f32, s8, u8, s32 := vk.Float16, vk.Float32, vk.Sint8, vk.Uint8, vk.Sint32
	res := []Result{
		r(shape(f16, f16, f32, 16), 300, true), r(shape(f16, f16, f32, 8), 400, true),
		r(shape(s8, u8, s32, 16), 500, true), r(shape(f16, f16, f16, 16), 350, true), r(shape(f32, f32, f32, 1), 60, false),
	}
	got := fastestPerTypes(res)
	if len(got) != 3 || got[0].Shape.M != 8 || got[1].Shape.A != s8 || got[2].Shape.Result != f16 {
		t.Fatalf("kept %+v", got)
	}
	for i, want := range []string{"fp16-fp32", "int8xuint8-int32", "fp16-fp16"} {
		if n := coopMatTypes(got[i].Shape); n != want {
			t.Errorf("sweep %d named %q, want %q", i, n, want)
		}
	}
}
