//go:build explore

package coopmat

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/spirv"
)

// TestCoopDiagTilesBuild builds every diagnostic kernel ExploreVariants
// times, so that the flag-gated path cannot rot unseen.
func TestCoopDiagTilesBuild(t *testing.T) {
	for _, s := range testShapes {
		for _, dt := range diagTiles(s) {
			for _, k := range dt.kinds {
				l := newLayout(dt.tile, s, 32)
				l.variant = k.v
				if err := l.check(1024, 1024, 1024, h200Limits); err != nil {
					t.Errorf("%v %v: %v", s, dt.tile, err)
					continue
				}
				if _, err := buildCoopGEMM(spirv.Version16, l, 1024, 1024, 1024); err != nil {
					t.Errorf("%v %v %s: %v", s, dt.tile, k.name, err)
				}
			}
		}
	}
}

// TestCoopExploreCandidatesBuild: every explored tile fits the register
// budgets, and enough of them fit the H200's limits and build.
func TestCoopExploreCandidatesBuild(t *testing.T) {
	testCandidatesBuild(t, "explored", exploreCandidates, 8)
}

// TestLeadTiles: the lead's variant names are the names String writes.
func TestLeadTiles(t *testing.T) {
	base := CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true}
	got, err := leadTiles(base, "top+nounroll+pad,p2,unroll2+spv1.5,bda+guard+full+vars+ro+early")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tile := range got {
		names = append(names, tile.String())
	}
	want := []string{"wg2x4 t8x4 bk32 brow", "wg2x4 t8x4 bk32 brow top nounroll pad", "wg2x4 t8x4 bk32 p2 brow",
		"wg2x4 t8x4 bk32 brow unroll2 spv1.5", "wg2x4 t8x4 bk32 brow early ro bda guard full vars", "wg2x4 t8x4 bk32 brow"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("leadTiles = %q, want %q", names, want)
	}
	if _, err := leadTiles(base, "top+fast"); err == nil {
		t.Error("an unknown change was accepted")
	}
}

// TestUniformToStorage: a Uniform pointer type and variable move to the
// StorageBuffer class, other words stay, and what is not SPIR-V is refused.
func TestUniformToStorage(t *testing.T) {
	const uniform = 2
	words := []uint32{spirv.Magic, spirv.Version16, 0, 4, 0,
		4<<16 | uint32(spirv.OpTypePointer), 1, uniform, 3,
		4<<16 | uint32(spirv.OpVariable), 1, 2, uniform}
	var raw []byte
	for _, w := range words {
		raw = binary.LittleEndian.AppendUint32(raw, w)
	}
	got, err := uniformToStorage(raw)
	if err != nil {
		t.Fatal(err)
	}
	storage := uint32(spirv.StorageStorageBuffer)
	if got[7] != storage || got[12] != storage || got[8] != 3 || got[11] != 2 {
		t.Errorf("uniformToStorage = %v, want classes %d at words 7 and 12", got, storage)
	}
	if _, err := uniformToStorage(raw[:len(raw)-4]); err == nil {
		t.Error("a truncated instruction was accepted")
	}
	if _, err := uniformToStorage([]byte("not spirv at all....")); err == nil {
		t.Error("a module without the magic word was accepted")
	}
}
