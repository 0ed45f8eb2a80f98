//go:build explore

package coopmat_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

var (
	flagLead     = flag.String("coopmat.lead", "", "regexp: for matching shapes, time every default tile with read-only inputs, two-step prefetch and two buffers, checked, at -coopmat.size")
	flagLeadTile = flag.String("coopmat.leadtile", "", "regexp: with -coopmat.lead, only the default tiles whose name matches")
	flagLeadData = flag.String("coopmat.leaddata", "random", "operands of -coopmat.lead and -coopmat.peermodule: random, or peer (vk_cooperative_matrix_perf's -1/2, 0, 1/2, 1)")
	flagLeadAll  = flag.Bool("coopmat.leadexplore", false, "with -coopmat.lead, take the tiles from the whole explored space instead of the default candidates")
	flagInspect  = flag.String("coopmat.inspect", "", "directory: with -coopmat.lead or -coopmat.peermodule, write what the driver compiled each kernel into (statistics, listings) there")
	flagLeadVars = flag.String("coopmat.leadvariants", "ro,p2,ro+p2,s2,ro+s2", "comma-separated variants of each tile for -coopmat.lead, each a +-joined set of ro, p2, s2, early, bda, guard, full, top, vars, nounroll, unroll2, unroll4, pad, spv1.3, spv1.5")
)

// TestCoopLead times, for each default candidate (or, with
// -coopmat.leadexplore, each explored tile) of the shapes matching
// -coopmat.lead whose name matches -coopmat.leadtile, the tile as
// searched, each of -coopmat.leadvariants and the plain tile again, at
// -coopmat.size and each checked, as LEAD lines (coopmat.ExploreLead).
// With -coopmat.leaddata=peer the operands are the Vulkan peer's, to
// compare with it on the same data. Without -coopmat.lead it skips.
func TestCoopLead(t *testing.T) {
	if *flagLead == "" {
		t.Skip("no -coopmat.lead")
	}
	peer := peerData(t)
	d := vktest.Device(t)
	shape, tile := regexp.MustCompile(*flagLead), regexp.MustCompile(*flagLeadTile)
	o := coopmat.LeadOptions{
		Options:  coopmat.Options{Options: vk.Options{Size: uint32(*flagSize), Seed: 7, Timing: vk.Timing{SampleTime: 20 * time.Millisecond}}},
		Shape:    shape.MatchString,
		Tile:     tile.MatchString,
		Variants: *flagLeadVars,
		PeerData: peer,
		Explored: *flagLeadAll,
	}
	if *flagInspect != "" {
		o.Inspect = func(name string, x []vk.Executable, err error) { saveExecutables(t, name, x, err) }
	}
	if _, err := d.Shapes(); err != nil {
		t.Skip(err)
	}
	if err := coopmat.ExploreLead(context.Background(), d, o, t.Logf); err != nil {
		t.Error(err)
	}
}

// peerData reports whether -coopmat.leaddata asks for the peer's operands.
func peerData(t *testing.T) bool {
	t.Helper()
	switch *flagLeadData {
	case "random":
		return false
	case "peer":
		return true
	}
	t.Fatalf("-coopmat.leaddata=%q: want random or peer", *flagLeadData)
	return false
}

// saveExecutables logs each executable's statistics as INSPECT lines and
// writes its listings under -coopmat.inspect, one file per listing.
func saveExecutables(t *testing.T, name string, x []vk.Executable, err error) {
	if err != nil {
		t.Logf("INSPECT %s: %v", name, err)
		return
	}
	for i, e := range x {
		var stats []string
		for _, s := range e.Stats {
			stats = append(stats, s.Name+"="+s.Value)
		}
		t.Logf("INSPECT %s [%d %s] %s", name, i, e.Name, strings.Join(stats, " "))
		for lname, text := range e.Listings {
			file := filepath.Join(*flagInspect, strings.NewReplacer(" ", "_", "/", "_").Replace(fmt.Sprintf("%s.%d.%s.txt", name, i, lname)))
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}
