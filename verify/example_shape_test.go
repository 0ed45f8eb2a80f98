package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExampleShapes holds the GPU example cards of the current probe suite
// (docs/example-h*) to one shape, as scripts/card-shape prints it: two SKUs
// through the same code differ only in measured values. Each also carries
// the host link and launch of one backend, with no other path beside them.
func TestExampleShapes(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 not found: scripts/card-shape needs it")
		}
		t.Skip("python3 not found")
	}
	cards, err := filepath.Glob("../docs/example-h*/card-*.appraisal.json")
	if err != nil || len(cards) == 0 {
		t.Fatalf("no GPU example cards: %v", err)
	}
	shapes := make([][]string, len(cards))
	for i, c := range cards {
		out, err := exec.Command(py, "../scripts/card-shape", c).Output()
		if err != nil {
			t.Fatalf("card-shape %s: %v", c, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if !strings.HasPrefix(l, "#") { // the card's name
				shapes[i] = append(shapes[i], l)
			}
		}
		for _, want := range []string{`launch_overhead.probe = "vulkan-launch"`, `interconnect.host_to_device.probe = "vulkan-hostlink"`} {
			if !slices.Contains(shapes[i], want) {
				t.Errorf("%s: no %q", c, want)
			}
		}
		for _, l := range shapes[i] {
			if strings.Contains(l, "other_path") || strings.Contains(l, "kept-path") {
				t.Errorf("%s: %s: new cards name no other path", c, l)
			}
		}
	}
	for i := 1; i < len(cards); i++ {
		a, b := shapes[0], shapes[i]
		for _, l := range a {
			if !slices.Contains(b, l) {
				t.Errorf("%s has %q, %s not", cards[0], l, cards[i])
			}
		}
		for _, l := range b {
			if !slices.Contains(a, l) {
				t.Errorf("%s has %q, %s not", cards[i], l, cards[0])
			}
		}
	}
}
