package coopmat

import (
	"os"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

func TestSpirvValCoopMat(t *testing.T) {
	info := vk.DeviceInfo{MaxInvocations: 1024, MaxSharedBytes: 48 << 10, Features: vk.FeatureSet{BufferAddress: true}}
	// Every schedule the emitter has, on every shape, in every SPIR-V
	// version we emit.
	variants := []func(*CoopTile){
		func(*CoopTile) {},
		func(t *CoopTile) { t.Stages = 2 },
		func(t *CoopTile) { t.Prefetch = 2 },
		func(t *CoopTile) { t.EarlyLoad = true },
		func(t *CoopTile) { t.ReadOnly = true },
		func(t *CoopTile) { t.Addressed = true },
		func(t *CoopTile) { t.Guard = true },
		func(t *CoopTile) { t.Addressed, t.Guard, t.Prefetch = true, true, 2 },
		func(t *CoopTile) { t.TopBarrier = true },
		func(t *CoopTile) { t.TopBarrier, t.NoUnroll = true, true },
		func(t *CoopTile) { t.TopBarrier, t.Vars, t.NoUnroll = true, true, true },
		func(t *CoopTile) { t.TopBarrier, t.Pad, t.Unroll = true, true, 2 },
		func(t *CoopTile) { t.Stages, t.NoUnroll, t.Pad = 2, true, true },
	}
	for _, v := range []uint32{spirv.Version13, spirv.Version15, spirv.Version16} {
		for i, s := range testShapes {
			for _, vary := range variants {
				tile := CoopTile{WM: 2, WN: 2, TM: 2, TN: 2, BK: 64 / uint32(s.A.Bytes())}
				// Row-major B where rows of N are whole vectors, on every other shape.
				tile.BRowMajor = i%2 == 1 && (s.N*uint32(s.B.Bytes()))%16 == 0
				vary(&tile)
				l := newLayout(tile, s, 32)
				if err := l.check(256, 256, 256, info); err != nil {
					t.Fatalf("%v %v: %v", s, tile, err)
				}
				words, err := buildCoopGEMM(v, l, 256, 256, 256)
				if tile.Unroll > 1 && v < spirv.Version15 {
					if err == nil {
						t.Errorf("%v: a partial unroll count accepted in SPIR-V %#x", tile, v)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				out, ok := vktest.Validate(t, "coopmat", words)
				if !ok && tooOld(out) {
					// Debian 12's SPIRV-Tools v2023.1 predates
					// SPV_KHR_cooperative_matrix (6022) and SPV_KHR_bfloat16
					// (5116, 5118); scripts/test fetches a newer validator
					// (scripts/spirv-val) and names it in $SPIRV_VAL.
					if os.Getenv("CI") == "true" {
						t.Fatalf("spirv-val too old for cooperative-matrix modules (scripts/spirv-val fetches a newer one): %s", out)
					}
					t.Skipf("spirv-val too old for cooperative-matrix modules: %s", out)
				}
				if !ok {
					t.Errorf("%v %v (SPIR-V %#x): spirv-val: %s", s, tile, v, out)
				}
			}
		}
	}
}

// tooOld reports whether spirv-val rejected a capability it does not know.
func tooOld(out string) bool {
	for _, c := range []string{"operand: 6022", "operand: 5116", "operand: 5118"} {
		if strings.Contains(out, "Invalid capability "+c) {
			return true
		}
	}
	return false
}

// testShapes are shapes of the kind drivers report (the H200 reports these,
var testShapes = []vk.Shape{
	{M: 16, N: 16, K: 16, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16, Scope: vk.ScopeSubgroup},
	{M: 16, N: 8, K: 8, A: vk.Float16, B: vk.Float16, C: vk.Float32, Result: vk.Float32, Scope: vk.ScopeSubgroup},
	{M: 16, N: 16, K: 16, A: vk.BFloat16, B: vk.BFloat16, C: vk.Float32, Result: vk.Float32, Scope: vk.ScopeSubgroup},
	{M: 16, N: 8, K: 32, A: vk.Uint8, B: vk.Uint8, C: vk.Uint32, Result: vk.Uint32, Scope: vk.ScopeSubgroup},
	{M: 16, N: 16, K: 32, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32, Scope: vk.ScopeSubgroup},
	// and Mesa 26's lavapipe these:
	{M: 8, N: 8, K: 8, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16, Scope: vk.ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: vk.Float16, B: vk.Float16, C: vk.Float32, Result: vk.Float32, Scope: vk.ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: vk.Uint8, B: vk.Uint8, C: vk.Uint32, Result: vk.Uint32, Scope: vk.ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32, Scope: vk.ScopeSubgroup},
}
