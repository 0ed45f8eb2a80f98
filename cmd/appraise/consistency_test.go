package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/schema"
)

// TestRenderWarnsOfDisagreements: the appraisal's table ends the figures
// of a card signed with a disagreeing consistency check (a software
// adapter's: fixtureDisagreeCard) with a warning line in the browser
// page's words, one per such check; --json carries the checks themselves;
// a card whose checks all agree gets no warning.
func TestRenderWarnsOfDisagreements(t *testing.T) {
	box := fixtureSoftwareBox()
	box.HostBaseline = &schema.HostBaseline{Threads: 2, ISA: "avx2+fma"}
	files := []appraisal.File{{Name: "box-0123456789ab.appraisal.json"}, {Name: "card-software-0.appraisal.json"}}
	render := func(card schema.CardPayload, asJSON bool) string {
		t.Helper()
		var out bytes.Buffer
		c := &appraiseCmd{Out: "run", JSON: asJSON}
		if err := c.render(&env{stdout: &out, stderr: io.Discard}, &appraisal.Run{Box: box, Cards: []schema.CardPayload{card}}, files); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	card := fixtureDisagreeCard(strings.Repeat("0", 64))
	want := "  warning: consistency rule roofline-memory-fp32 DISAGREES (re-measured): roofline.fma.fp32.bandwidth_bytes_per_s 5.2 GB/s ÷ memory.bandwidth.copy 9.1 GB/s, ratio 0.571, accepted band 0.870 – 1.150\n" +
		"card: run/card-software-0.appraisal.json\n"
	if got := render(card, false); !strings.Contains(got, want) || strings.Count(got, "warning:") != 1 {
		t.Errorf("table:\n%s\nwant one warning, the lines\n%s", got, want)
	}

	var ws []written
	if err := json.Unmarshal([]byte(render(card, true)), &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || len(ws[1].Disagreements) != 1 || ws[1].Disagreements[0].Rule != "roofline-memory-fp32" || len(ws[0].Disagreements) != 0 {
		t.Errorf("--json: %+v, want the card's one disagreeing check", ws)
	}

	k := &card.Capability.Consistency[0]
	k.Value = 0.95 * k.OtherValue
	k.Ratio, k.Agrees = k.Value/k.OtherValue, true
	if got := render(card, false); strings.Contains(got, "warning") || strings.Contains(got, "DISAGREES") {
		t.Errorf("a card whose checks agree:\n%s", got)
	}
}
