package vulkan

import (
	"cmp"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/probe/vulkan/internal/spirv"
)

// targetEnv maps a module's SPIR-V version to a spirv-val target environment.
func targetEnv(version uint32) string {
	switch version {
	case spirv.Version16:
		return "vulkan1.3"
	case spirv.Version15:
		return "vulkan1.2"
	}
	return "vulkan1.1"
}

// validate runs spirv-val on words, skipping when spirv-val is not installed
// (failing when CI=true). It returns spirv-val's output and whether it
// passed. $SPIRV_VAL names the validator when set (scripts/test sets it to
// a newer one than Debian 12's, see scripts/spirv-val).
func validate(t *testing.T, name string, words []uint32) (string, bool) {
	t.Helper()
	path, err := exec.LookPath(cmp.Or(os.Getenv("SPIRV_VAL"), "spirv-val"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("spirv-val not installed (apt-get install spirv-tools)")
		}
		t.Skip("spirv-val not installed")
	}
	file := filepath.Join(t.TempDir(), name+".spv")
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], w)
	}
	if err := os.WriteFile(file, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--target-env", targetEnv(words[1]), file).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

func TestSpirvValCoopMat(t *testing.T) {
	info := DeviceInfo{MaxInvocations: 1024, MaxSharedBytes: 48 << 10, Features: featureSet{BufferAddress: true}}
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
				out, ok := validate(t, "coopmat", words)
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
var testShapes = []Shape{
	{M: 16, N: 16, K: 16, A: Float16, B: Float16, C: Float16, Result: Float16, Scope: ScopeSubgroup},
	{M: 16, N: 8, K: 8, A: Float16, B: Float16, C: Float32, Result: Float32, Scope: ScopeSubgroup},
	{M: 16, N: 16, K: 16, A: BFloat16, B: BFloat16, C: Float32, Result: Float32, Scope: ScopeSubgroup},
	{M: 16, N: 8, K: 32, A: Uint8, B: Uint8, C: Uint32, Result: Uint32, Scope: ScopeSubgroup},
	{M: 16, N: 16, K: 32, A: Sint8, B: Sint8, C: Sint32, Result: Sint32, Scope: ScopeSubgroup},
	// and Mesa 26's lavapipe these:
	{M: 8, N: 8, K: 8, A: Float16, B: Float16, C: Float16, Result: Float16, Scope: ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: Float16, B: Float16, C: Float32, Result: Float32, Scope: ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: Uint8, B: Uint8, C: Uint32, Result: Uint32, Scope: ScopeSubgroup},
	{M: 8, N: 8, K: 8, A: Sint8, B: Sint8, C: Sint32, Result: Sint32, Scope: ScopeSubgroup},
}
