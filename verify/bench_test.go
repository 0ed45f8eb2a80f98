package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// benchRuns writes n runs of the README's software-device example (one
// box and one 31 KB card each, every box distinct) into one directory.
func benchRuns(b *testing.B, n int) (dir string, cards []string, p Policy) {
	tm := loadTemplates(b)
	k := newKey("bench")
	dir = b.TempDir()
	for i := range n {
		r := sign(b, k, tm.swBox, []schema.CardPayload{tm.swCard}, fmt.Sprintf("host-%05d", i))
		card := filepath.Join(dir, fmt.Sprintf("card-%05d.appraisal.json", i))
		if err := os.WriteFile(filepath.Join(dir, "box-"+r.hash[:12]+".appraisal.json"), r.box, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(card, r.cards[0], 0o644); err != nil {
			b.Fatal(err)
		}
		cards = append(cards, card)
	}
	return dir, cards, Policy{Trusted: k.info(b)}
}

// benchN is how many runs BenchmarkFiles10k verifies.
const benchN = 10000

// BenchmarkFiles10k verifies 10,000 cards and 10,000 boxes: as one run
// directory, and as cards named one by one whose boxes are found beside
// them (each card's box looked up among the files beside it, which must
// stay linear in the number of files, not quadratic). It reports CPU
// seconds beside wall time, since wall time on a shared machine is noisy;
// the figures measured are in docs/performance.md ("Tooling"). Run it with
//
//	go test ./verify -run '^$' -bench Files10k -benchtime 1x
func BenchmarkFiles10k(b *testing.B) {
	dir, cards, p := benchRuns(b, benchN)
	for _, bc := range []struct {
		name  string
		paths []string
	}{{"directory", []string{dir}}, {"cards-alone", cards}} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				vs, err := Files(bc.paths, Options{Policy: p})
				if err != nil {
					b.Fatal(err)
				}
				for _, v := range vs {
					if !v.OK {
						b.Fatalf("%s: %s", v.File, v.Error)
					}
				}
			}
			// CPU time, unlike wall time, does not grow with what else
			// the machine runs.
			b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuSeconds is the user and system CPU time this process has used.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
