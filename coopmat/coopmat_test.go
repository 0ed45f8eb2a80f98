package coopmat

import (
	"context"
	"errors"
	"flag"
	"regexp"
	"testing"
	"time"
)

// Flags for runs on a GPU host (go test -c, then -coopmat.size=8192).
var (
	flagSize   = flag.Uint("coopmat.size", 256, "GEMM edge for TestRunCoopMat")
	flagSearch = flag.Uint("coopmat.search", 0, "GEMM edge of the tile search (0: min(size, 4096))")
	flagPlain  = flag.Uint("coopmat.plain", 0, "also run the plain kernels at this GEMM edge (0: skip)")
	flagShapes = flag.String("coopmat.shapes", "", "regexp: measure only the shapes whose name matches")
	flagAll    = flag.Bool("coopmat.explore", false, "search every tile of the candidate space, not the default subset")
	flagFMA16  = flag.Bool("coopmat.fma16", false, "log every fp16 FMA form at full size")
	flagLink   = flag.Bool("coopmat.transfer", false, "log every host-link path (each queue, 256 MiB) and every 1 MiB upload method")
	flagDiag   = flag.String("coopmat.variants", "", "regexp: for matching shapes, time diagnostic variants (no global loads, no MulAdds) of a few tiles")
)

func TestRunCoopMat(t *testing.T) {
	d := newDevice(t)
	o := Options{Size: uint32(*flagSize), SearchSize: uint32(*flagSearch), Seed: 7, Progress: func(l string) { t.Log(l) }}
	o.Timing = Timing{SampleTime: 20 * time.Millisecond}
	if *flagAll {
		o.coopTiles = func(s Shape) []CoopTile { return exploreCandidates(s, d.Info.SubgroupSize) }
	}
	match, diag := regexp.MustCompile(*flagShapes), regexp.MustCompile(*flagDiag)
	shapes, err := d.Shapes()
	if !d.Info.HasExtension(extCoopMat) {
		if !errors.Is(err, ErrExtensionMissing) {
			t.Fatalf("Shapes without %s: err = %v, want ErrExtensionMissing", extCoopMat, err)
		}
		if _, _, err := Run(context.Background(), d, o); !errors.Is(err, ErrExtensionMissing) {
			t.Fatalf("Run without %s: err = %v, want ErrExtensionMissing", extCoopMat, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device %s driver %s %s, %d shapes", d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, len(shapes))
	failed := 0
	for _, s := range shapes {
		if !match.MatchString(s.String()) {
			continue
		}
		start := time.Now()
		r, err := d.RunShape(context.Background(), s, o)
		switch {
		case isSkip(err):
			t.Logf("SKIP %v: %v", s, err)
			continue
		case err != nil:
			t.Errorf("FAIL %v: %v", s, err)
			failed++
			continue
		}
		if !r.MatrixEngine || r.Check.Elements == 0 {
			t.Errorf("%v: matrix_engine=%v, %d elements checked", r.Shape, r.MatrixEngine, r.Check.Elements)
		}
		t.Logf("RESULT %-34v %v tile %-20s %8.1f T/s (min %.1f max %.1f, n=%d, %s, reps %d) check max_err %.3g tol %.3g worst %.3g on %d [%v]",
			r.Shape, r.Problem, r.Tile, r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12,
			r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.MaxError, r.Check.Tolerance, r.Check.Worst, r.Check.Elements,
			time.Since(start).Round(time.Millisecond))
		if *flagDiag != "" && diag.MatchString(s.String()) {
			timeVariants(t, d, s, o)
		}
	}
}

// timeVariants times, for a few tiles of s, the full kernel and the
// variants that leave out the global loads or the MulAdds, to place the
// time inside the GEMM. The variants' output is wrong and not checked.
func timeVariants(t *testing.T, d *Device, s Shape, o Options) {
	n := uint32(*flagSize)
	cache := &operandCache{}
	for _, tile := range diagTiles(s) {
		for _, v := range []cmVariant{variantFull, variantNoGlobal, variantNoMMA} {
			l := newLayout(tile, s, d.Info.SubgroupSize)
			l.variant = v
			if err := l.check(n, n, n, d.Info); err != nil {
				t.Logf("VARIANT %v %v: %v", s, tile, err)
				break
			}
			r, err := d.runCoop(context.Background(), l, n, o, cache)
			if err != nil && !errors.Is(err, errUnchecked) {
				t.Errorf("VARIANT %v %v %d: %v", s, tile, v, err)
				continue
			}
			t.Logf("VARIANT %-34v %-24v %-9s %8.1f T/s (min %.1f max %.1f)", s, tile, []string{"full", "noglobal", "nomma"}[v],
				r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12)
		}
	}
}

// diagTiles are the tiles timeVariants looks into: 256×256 blocks of eight
// subgroups with one- and two-step prefetch, and of sixteen subgroups.
func diagTiles(s Shape) []CoopTile {
	bk := 64 / uint32(s.A.Bytes())
	return []CoopTile{
		{WM: 2, WN: 4, TM: 128 / s.M, TN: 64 / s.N, BK: bk, BRowMajor: true},
		{WM: 2, WN: 4, TM: 128 / s.M, TN: 64 / s.N, BK: bk, Prefetch: 2, BRowMajor: true},
		{WM: 4, WN: 4, TM: 64 / s.M, TN: 64 / s.N, BK: bk, BRowMajor: true},
	}
}
