package coopmat

import (
	"bytes"
	"slices"
	"testing"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// h200Limits are the limits the H200's driver reports (48 KiB of shared
// memory per workgroup, 1024 invocations), enough to exercise every tile.
var h200Limits = vk.DeviceInfo{MaxInvocations: 1024, MaxSharedBytes: 48 << 10, SubgroupSize: 32}

func TestCoopCandidatesBuild(t *testing.T) {
	testCandidatesBuild(t, "default", func(s vk.Shape, sub uint32) []CoopTile {
		info := h200Limits
		info.SubgroupSize = sub
		return coopCandidates(s, info)
	}, 1)
}

// testCandidatesBuild holds the tiles that list gives for every test shape
// to the register budgets, and builds those that fit the H200's limits:
// at least min of them per shape must.
func testCandidatesBuild(t *testing.T, name string, list func(s vk.Shape, subgroup uint32) []CoopTile, min int) {
	t.Helper()
	for _, s := range testShapes {
		fits := 0
		for _, tile := range list(s, 32) {
			l := newLayout(tile, s, 32)
			if !withinRegisters(l) {
				t.Errorf("%v %v: %d accumulator registers × %d invocations", s, tile, l.accRegisters(), l.threads)
			}
			if l.check(1024, 1024, 1024, h200Limits) != nil {
				continue
			}
			fits++
			words, err := buildCoopGEMM(spirv.Version16, l, 1024, 1024, 1024)
			if err != nil {
				t.Fatalf("%v %v: %v", s, tile, err)
			}
			if words[0] != spirv.Magic || words[3] < 2 {
				t.Fatalf("%v %v: header %x", s, tile, words[:5])
			}
		}
		if fits < min {
			t.Errorf("%v: only %d %s candidates fit the H200's limits", s, fits, name)
		}
	}
}

func TestCoopDefaultBLayout(t *testing.T) {
	for _, s := range testShapes {
		for _, tile := range coopCandidates(s, h200Limits) {
			if want := s.B.Bytes() >= 2 && (s.N*uint32(s.B.Bytes()))%16 == 0; tile.BRowMajor != want {
				t.Errorf("%v %v: BRowMajor = %v, want %v", s, tile, tile.BRowMajor, want)
			}
		}
	}
}

func TestCoopTileString(t *testing.T) {
	for tile, want := range map[CoopTile]string{
		{WM: 2, WN: 2, TM: 4, TN: 4, BK: 64}:                                                                                          "wg2x2 t4x4 bk64",
		{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, Prefetch: 2, BRowMajor: true}:                                                            "wg2x4 t8x4 bk32 p2 brow",
		{WM: 2, WN: 4, TM: 8, TN: 4, BK: 16, Stages: 2, BRowMajor: true}:                                                              "wg2x4 t8x4 bk16 s2 brow",
		{WM: 2, WN: 4, TM: 8, TN: 4, BK: 16, Stages: 2, Prefetch: 1, BRowMajor: false}:                                                "wg2x4 t8x4 bk16 s2",
		{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true, EarlyLoad: true, ReadOnly: true}:                                        "wg2x4 t8x4 bk32 brow early ro",
		{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true, TopBarrier: true, NoUnroll: true}:                                       "wg2x4 t8x4 bk32 brow top nounroll",
		{WM: 2, WN: 2, TM: 4, TN: 4, BK: 32, Addressed: true, Guard: true, FullSubgroups: true, Vars: true, Version: spirv.Version13}: "wg2x2 t4x4 bk32 bda guard full vars spv1.3",
	} {
		if got := tile.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", tile, got, want)
		}
	}
	l := newLayout(CoopTile{WM: 2, WN: 2, TM: 2, TN: 2, BK: 16, Stages: 2, Prefetch: 2}, testShapes[0], 32)
	if l.check(256, 256, 256, h200Limits) == nil {
		t.Error("check accepted two stages with two-step prefetch")
	}
}

func TestCoopLayoutSharedBytes(t *testing.T) {
	s := testShapes[0] // 16x16x16 f16
	// 256×256 block, BK 16, two buffers, B column-major: exactly 48 KiB.
	l := newLayout(CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 16, Stages: 2}, s, 32)
	if got := l.sharedBytes(); got != 48<<10 {
		t.Errorf("sharedBytes = %d, want %d", got, 48<<10)
	}
	if err := l.check(8192, 8192, 8192, h200Limits); err != nil {
		t.Error(err)
	}
	// Row-major B stages 16 rows of 256 (+8 padding) instead of 256 rows of 16 (+8).
	l = newLayout(CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 16, Stages: 2, BRowMajor: true}, s, 32)
	if got, want := l.sharedBytes(), uint32(2*16*(256*3+16*33)); got != want {
		t.Errorf("row-major sharedBytes = %d, want %d", got, want)
	}
	// Two stages need an even number of K steps.
	if err := l.check(256, 256, 16*3, h200Limits); err == nil {
		t.Error("check accepted an odd number of K steps with two stages")
	}
}

// TestCoopSharedUnit: the shared arrays hold the largest unit at which
// every fragment starts: whole vectors for the H200's shapes, 8-byte
// halves for lavapipe's 8×8×8 shapes of 8-bit types (fragments 8 bytes
// along K) and for row-major 8-bit B with 8 columns; a layout whose
// fragments start less than 4 bytes apart is refused, and a row-major
// block of B must still stage whole vectors.
func TestCoopSharedUnit(t *testing.T) {
	s8 := func(m, n, k uint32) vk.Shape {
		return vk.Shape{M: m, N: n, K: k, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32, Scope: vk.ScopeSubgroup}
	}
	f16 := vk.Shape{M: 8, N: 8, K: 8, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16, Scope: vk.ScopeSubgroup}
	for _, c := range []struct {
		s    vk.Shape
		brow bool
		unit uint32
	}{
		{testShapes[0], true, 16}, {s8(16, 16, 32), false, 16}, {f16, true, 16},
		{s8(8, 8, 8), false, 8}, {s8(16, 8, 32), true, 8}, {s8(16, 4, 32), true, 4}, {s8(16, 2, 32), true, 2},
	} {
		if got := sharedUnit(c.s, c.brow); got != c.unit {
			t.Errorf("sharedUnit(%v, brow %v) = %d, want %d", c.s, c.brow, got, c.unit)
		}
	}
	tile := CoopTile{WM: 2, WN: 2, TM: 4, TN: 8, BK: 32, BRowMajor: true}
	if err := newLayout(tile, s8(16, 8, 32), 32).check(1024, 1024, 1024, h200Limits); err != nil {
		t.Errorf("row-major 8-bit B with 8-byte rows of N: %v", err)
	}
	tile.TN = 16
	if err := newLayout(tile, s8(16, 2, 32), 32).check(1024, 1024, 1024, h200Limits); err == nil {
		t.Error("fragments 2 bytes apart accepted")
	}
	tile.WN, tile.TN = 1, 1
	if err := newLayout(tile, s8(16, 8, 32), 32).check(1024, 1024, 1024, h200Limits); err == nil {
		t.Error("a row-major block of B of 8 bytes accepted")
	}
}

// TestCoopCandidatesFitNarrowSubgroups: with subgroups of 8 (lavapipe on
// 256-bit vectors) every arrangement still yields a candidate, its subgroup
// tile shrunk to the register budgets, smallest code first, each building.
func TestCoopCandidatesFitNarrowSubgroups(t *testing.T) {
	lvp := vk.DeviceInfo{MaxInvocations: 1024, MaxSharedBytes: 32 << 10, SubgroupSize: 8}
	for _, s := range testShapes {
		cands := coopCandidates(s, lvp)
		if len(cands) < 2 {
			t.Errorf("%v: %d candidates with subgroups of 8: %v", s, len(cands), cands)
		}
		prev, fits := uint32(0), 0
		for _, tile := range cands {
			l := newLayout(tile, s, 8)
			if !withinRegisters(l) {
				t.Errorf("%v %v: %d accumulator registers", s, tile, l.accRegisters())
			}
			if l.mulAdds() < prev {
				t.Errorf("%v: %v (%d MulAdds) after one of %d", s, tile, l.mulAdds(), prev)
			}
			prev = l.mulAdds()
			if l.check(256, 256, 256, lvp) != nil {
				continue
			}
			fits++
			if _, err := buildCoopGEMM(spirv.Version16, l, 256, 256, 256); err != nil {
				t.Errorf("%v %v: %v", s, tile, err)
			}
		}
		if fits == 0 {
			t.Errorf("%v: no candidate fits lavapipe's limits", s)
		}
	}
}

// TestCoopLeadRule: the product's candidates for a shape come from its
// types and the limits the driver reports, never a search: the software
// arrangement first, then the leads of the shape's class (the tiles the
// whole-space searches chose on the GPU host among them), a few at most;
// a device whose shared memory (24 KiB) holds no lead gets the small arrangement
// instead.
func TestCoopLeadRule(t *testing.T) {
	f16, f32, s8 := vk.Float16, vk.Float32, vk.Sint8
	shape := func(m, n, k uint32, a, c vk.ComponentType) vk.Shape {
		return vk.Shape{M: m, N: n, K: k, A: a, B: a, C: c, Result: c, Scope: vk.ScopeSubgroup}
	}
	for _, tc := range []struct {
		s    vk.Shape
		want []string // among the candidates (the schedule variants come after)
	}{
		{shape(16, 16, 16, f16, f16), []string{"wg2x2 t1x1 bk16 brow", "wg2x4 t8x4 bk32 brow", "wg4x2 t4x8 bk32 brow"}},
		{shape(16, 8, 8, f16, f16), []string{"wg4x2 t4x16 bk32 brow", "wg2x4 t8x8 bk32 brow"}},
		{shape(16, 16, 16, f16, f32), []string{"wg2x4 t4x4 bk32 brow"}},
		{shape(16, 16, 32, s8, vk.Sint32), []string{"wg2x2 t4x4 bk128"}},
		{shape(16, 8, 32, s8, vk.Sint32), []string{"wg2x2 t4x8 bk128"}},
	} {
		cands := coopCandidates(tc.s, h200Limits)
		names := make([]string, len(cands))
		for i, c := range cands {
			names[i] = c.String()
		}
		if len(cands) > 3 {
			t.Errorf("%v: %d candidates %v, want at most 3", tc.s, len(cands), names)
		}
		for _, w := range tc.want {
			if !slices.Contains(names, w) {
				t.Errorf("%v: candidates %v lack %s", tc.s, names, w)
			}
		}
	}
	small := h200Limits
	small.MaxSharedBytes = 24 << 10
	s := shape(16, 16, 16, f16, f16)
	cands := coopCandidates(s, small)
	if len(cands) != 2 || cands[1].String() != "wg2x2 t4x4 bk32 brow" || !fitsLimits(cands[1], s, small) {
		t.Errorf("24 KiB of shared memory: %v, want the software and the small arrangement", cands)
	}
}

func TestTransposeRaw(t *testing.T) {
	// 2×3 matrix of 2-byte elements.
	in := []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}
	want := []byte{1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6, 0}
	if got := transposeRaw(in, 2, 3, 2); !bytes.Equal(got, want) {
		t.Errorf("transposeRaw = %v, want %v", got, want)
	}
	big := make([]byte, 100*70)
	for i := range big {
		big[i] = byte(i * 7)
	}
	if back := transposeRaw(transposeRaw(big, 100, 70, 1), 70, 100, 1); !bytes.Equal(back, big) {
		t.Error("transposing twice does not round-trip")
	}
}

// TestScheduleVariants: the search tries the moved barrier, alone, with the
// loop kept rolled and also padded, on a one-buffer winner, and nothing on
// two buffers;
// the rolled loop carries the DontUnroll hint and the moved barrier keeps
// two barriers per step.
func TestScheduleVariants(t *testing.T) {
	base := CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true}
	v := scheduleVariants(base)
	if len(v) != 3 || !v[0].TopBarrier || v[0].NoUnroll || !v[1].TopBarrier || !v[1].NoUnroll || v[1].Pad ||
		!v[2].TopBarrier || !v[2].NoUnroll || !v[2].Pad {
		t.Fatalf("scheduleVariants(%v) = %v", base, v)
	}
	if v := scheduleVariants(CoopTile{WM: 2, WN: 2, TM: 4, TN: 4, BK: 16, Stages: 2}); len(v) != 0 {
		t.Errorf("two buffers: %v, want none", v)
	}
	s := testShapes[0]
	for _, tile := range append([]CoopTile{base}, v...) {
		l := newLayout(tile, s, 32)
		words, err := buildCoopGEMM(spirv.Version16, l, 1024, 1024, 1024)
		if err != nil {
			t.Fatal(err)
		}
		var merges []uint32
		barriers := 0
		for i := 5; i < len(words); i += int(words[i] >> 16) {
			switch spirv.Op(words[i] & 0xffff) {
			case spirv.OpLoopMerge:
				merges = append(merges, words[i+3])
			case spirv.OpControlBarrier:
				barriers++
			}
		}
		want := uint32(spirv.LoopControlNone)
		if tile.NoUnroll {
			want = uint32(spirv.LoopControlDontUnroll)
		}
		if len(merges) != 1 || merges[0] != want {
			t.Errorf("%v: loop controls %v, want [%d]", tile, merges, want)
		}
		if barriers != 2 {
			t.Errorf("%v: %d barriers in the module, want 2 (one pair per step)", tile, barriers)
		}
	}
}

// TestPadBytes: a padded layout reads one step (two with two-step
// prefetch) past the end of A and B: BK elements of a row, or BK rows of
// N for row-major B; an unpadded one nothing.
func TestPadBytes(t *testing.T) {
	s := testShapes[0] // fp16
	for _, c := range []struct {
		tile CoopTile
		n    uint32
		a, b uint64
	}{
		{CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true}, 8192, 0, 0},
		{CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true, Pad: true}, 8192, 64, 64 * 8192},
		{CoopTile{WM: 2, WN: 2, TM: 4, TN: 4, BK: 32, Pad: true}, 1024, 64, 64},
		{CoopTile{WM: 2, WN: 2, TM: 4, TN: 4, BK: 32, Prefetch: 2, BRowMajor: true, Pad: true}, 1024, 128, 128 * 1024},
	} {
		a, b := newLayout(c.tile, s, 32).padBytes(c.n)
		if a != c.a || b != c.b {
			t.Errorf("%v at %d: pad %d, %d bytes, want %d, %d", c.tile, c.n, a, b, c.a, c.b)
		}
	}
}
