package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// slowed is a fake measurement: the card's own figures, its compute
// scaled by compute and its bandwidth by bandwidth, as a device slowed on
// purpose would measure; with noLastBW, without the card's last
// bandwidth figure, as a check that did not re-measure it.
type slowed struct {
	compute, bandwidth float64
	noLastBW           bool
}

func (s slowed) measure(_ context.Context, card schema.CapabilityVector) (*schema.CapabilityVector, []string, error) {
	v := card
	v.Precisions = append([]schema.PrecisionThroughput(nil), card.Precisions...)
	for i := range v.Precisions {
		v.Precisions[i].OpsPerS.Median *= s.compute
	}
	m := *card.Memory
	m.Bandwidth = append([]schema.Bandwidth(nil), card.Memory.Bandwidth...)
	for i := range m.Bandwidth {
		m.Bandwidth[i].BytesPerS.Median *= s.bandwidth
	}
	if s.noLastBW {
		m.Bandwidth = m.Bandwidth[:len(m.Bandwidth)-1]
	}
	v.Memory = &m
	return &v, []string{"fake measurement"}, nil
}

// TestCheckDegraded: the check's exit codes and lines for a device that
// measures as its card says (0), one whose compute dropped against its
// bandwidth (1, degraded), and one uniformly slower (1, slower), on the
// fixture card of a GPU (fma.fp32 and two bandwidth figures).
func TestCheckDegraded(t *testing.T) {
	dir := t.TempDir()
	seed := sha256.Sum256([]byte("fixture"))
	s := fixtureSigner{ed25519.NewKeyFromSeed(seed[:])}
	if err := writePlotFixture(dir, s); err != nil {
		t.Fatal(err)
	}
	trust := base64.StdEncoding.EncodeToString(s.Public())
	for _, tc := range []struct {
		name string
		m    slowed
		code int
		line string
	}{
		{"healthy", slowed{1, 1, false}, checkOK, "^CHECK OK: 1 device"},
		{"noise", slowed{0.95, 1.02, false}, checkOK, ": OK: bandwidth at 102% and compute at 95%"},
		{"compute dropped", slowed{0.5, 1, false}, checkFailing, "0000:01:00.0: FAILING: precision.fma.fp32: compute at 50% of the card's while bandwidth is at 100% .*: degraded"},
		{"uniformly slower", slowed{0.7, 0.7, false}, checkFailing, "0000:01:00.0: FAILING: bandwidth at 70% and compute at 70% .*a slower device"},
		// A figure not re-measured is named in the one note line.
		{"one figure not re-measured", slowed{1, 1, true}, checkOK, "^0000:01:00.0: NOTE: not re-measured, not compared: memory.bandwidth.[a-z]+$"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			e := &env{ctx: context.Background(), stdout: &out, stderr: &out, getenv: func(string) string { return "" }}
			c := &checkCmd{Against: filepath.Join(dir, "fixtures", "plot"), Budget: time.Minute, pinnedCards: pinnedCards{Trust: trust}}
			err := c.check(context.Background(), e, &globals{}, tc.m)
			if got := codeOf(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d; output:\n%s", got, err, tc.code, out.String())
			}
			if !matchLine(out.String(), tc.line) {
				t.Errorf("no line matches %q in:\n%s", tc.line, out.String())
			}
			if strings.Contains(out.String(), "OK: memory.bandwidth") {
				t.Errorf("a figure not re-measured on a line of its own:\n%s", out.String())
			}
			if tc.code == checkOK && strings.Contains(out.String(), "DEGRADED") {
				t.Errorf("a healthy device reported degraded:\n%s", out.String())
			}
		})
	}
}

func codeOf(err error) int {
	if err == nil {
		return exitOK
	}
	return exitCode(err)
}

// matchLine says whether any line of s matches the regular expression re.
func matchLine(s, re string) bool {
	return regexp.MustCompile("(?m)" + re).MatchString(s)
}
