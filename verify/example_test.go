package verify_test

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
	"github.com/everycycle/appraise/verify"
)

// The design's two consumers of a card, a scheduler and a pricing
// function, each reading only cards that verify against the key it pins.
// The runs are the committed examples in docs/, each with the public key
// that signed it. Neither consumer reads a device's name or ids: those are
// identity, never an input to scoring or routing.

// verifiedCards verifies the run directory dir against the tenant key in
// keyFile (as 'appraise verify DIR --trust keyFile' does) and returns its
// cards. Nothing is returned unless every report verifies.
func verifiedCards(dir, keyFile string) ([]*schema.CardPayload, error) {
	b, err := verify.ReadFile(keyFile, keys.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	pinned, err := keys.ParsePublicKeyFile(b)
	if err != nil {
		return nil, err
	}
	verdicts, err := verify.Files([]string{dir}, verify.Options{Policy: verify.Policy{Trusted: pinned}})
	if err != nil {
		return nil, err
	}
	var cards []*schema.CardPayload
	for _, v := range verdicts {
		if !v.OK {
			return nil, fmt.Errorf("%s: %s: %s", filepath.Base(v.File), v.Class, v.Error)
		}
		if v.Kind != verify.KindCard {
			continue
		}
		// Read the card again and make sure it is the report that verified.
		data, err := verify.ReadFile(v.File, verify.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		card, got, err := schema.ReadCard(data)
		if err != nil || got.Hash != v.Hash {
			return nil, fmt.Errorf("%s changed after it verified", v.File)
		}
		cards = append(cards, card)
	}
	return cards, nil
}

// fastest is a card's fastest checked figure for work of the given input
// and accumulator types: a matrix-engine entry where the card has one,
// else the vector-ALU entry (which says so: MatrixEngine is false).
func fastest(c schema.CapabilityVector, in, acc string) (schema.PrecisionThroughput, bool) {
	var best schema.PrecisionThroughput
	found := false
	for _, p := range c.Precisions {
		if p.InputType != in || p.InputTypeB != "" || p.AccumulatorType != acc || !p.Check.Passed {
			continue
		}
		if !found || p.OpsPerS.Median > best.OpsPerS.Median {
			best, found = p, true
		}
	}
	return best, found
}

// Example_scheduler routes fp16 work (fp16 accumulate) to the device that
// was measured fastest at it, across three nodes, each with its own run
// directory and tenant key. A node whose run does not verify gets no work;
// a software adapter's card (the host's CPU) is not a GPU to schedule on.
func Example_scheduler() {
	type candidate struct {
		node, device string
		fig          schema.PrecisionThroughput
	}
	nodes := []struct{ name, run, key string }{
		{"node-a", "../docs/archive/2026-11/example-h200-crosscheck", "../docs/archive/2026-11/example-h200-crosscheck/pub.json"},
		{"node-b", "../docs/archive/2026-11/example-h200x2", "../docs/archive/2026-11/example-h200x2/pub.json"},
		{"node-c", "../docs/example", "../docs/archive/2026-11/example-h200x2/pub.json"}, // the wrong key
		{"node-d", "../docs/example", "../docs/example/public.json"},
	}
	var ranked []candidate
	for _, n := range nodes {
		cards, err := verifiedCards(n.run, n.key)
		if err != nil {
			fmt.Printf("%s: not scheduled: %v\n", n.name, err)
			continue
		}
		for _, c := range cards {
			id := c.Capability.Identity
			if id.Software {
				fmt.Printf("%s: not scheduled: a software adapter's card\n", n.name)
				continue
			}
			if fig, ok := fastest(c.Capability, "fp16", "fp16"); ok {
				ranked = append(ranked, candidate{n.name, id.BusAddress, fig})
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].fig.OpsPerS.Median > ranked[j].fig.OpsPerS.Median })
	for _, r := range ranked {
		path := "vector ALU"
		if r.fig.MatrixEngine {
			path = fmt.Sprintf("matrix engine %dx%dx%d", r.fig.Shape.M, r.fig.Shape.N, r.fig.Shape.K)
		}
		fmt.Printf("%s %s: %5.1f TFLOP/s fp16 (%s, probe %s)\n", r.node, r.device, r.fig.OpsPerS.Median/1e12, path, r.fig.Probe)
	}
	fmt.Printf("fp16 work goes to %s %s\n", ranked[0].node, ranked[0].device)
	// Output:
	// node-c: not scheduled: box-b2846fccb7a5.appraisal.json: untrusted: tenant_identity "example" is not the pinned key's tenant "bench"
	// node-d: not scheduled: a software adapter's card
	// node-a 0000:00:06.0: 402.0 TFLOP/s fp16 (matrix engine 16x16x16, probe coopmat-gemm)
	// node-b 0000:00:06.0:  64.7 TFLOP/s fp16 (vector ALU, probe fma-fp16)
	// node-b 0000:00:07.0:  64.7 TFLOP/s fp16 (vector ALU, probe fma-fp16)
	// fp16 work goes to node-a 0000:00:06.0
}

// Pricing thresholds: a precision whose sweep holds its roofline (median
// ratio) but falls short at the ridge, where memory and compute both bind,
// says the compute path is degraded.
const (
	minRatio      = 0.90
	minRidgeRatio = 0.70
)

// price is an example buyback price, in dollars, from measured figures
// alone: $20 per TFLOP/s of fp32 FMA, $100 per TB/s of read bandwidth and
// $5 per GiB of usable memory. A uniformly slower card is already priced
// lower by its figures; a degraded one (a precision off its own roofline)
// is priced at half, whatever its peak figures say.
func price(c schema.CapabilityVector) (dollars float64, verdict string) {
	fma, _ := fastest(c, "fp32", "fp32")
	dollars = 20 * fma.OpsPerS.Median / 1e12
	if m := c.Memory; m != nil {
		for _, b := range m.Bandwidth {
			if b.Kernel == "read" {
				dollars += 100 * b.BytesPerS.Median / 1e12
			}
		}
		if m.UsableBytes != nil {
			dollars += 5 * float64(*m.UsableBytes) / (1 << 30)
		}
	}
	verdict = "on its roofline"
	for _, r := range c.Roofline {
		if r.Ratio < minRatio || r.RidgeRatio < minRidgeRatio {
			return dollars / 2, fmt.Sprintf("degraded: %s ratio %.2f, %.2f at the ridge", r.Precision, r.Ratio, r.RidgeRatio)
		}
	}
	return dollars, verdict
}

// Example_pricing prices verified cards by their roofline ratios: a card
// whose bandwidth and compute are both lower is a slower card, priced by
// its figures; a card whose compute falls short of what its own bandwidth
// predicts is a degraded one. The two hypothetical cards are the first
// H200's, changed in memory to show each case: every figure at 60 % (the
// ratios, being ratios, do not move), and the compute at the ridge at half.
func Example_pricing() {
	cards, err := verifiedCards("../docs/archive/2026-11/example-h200x2", "../docs/archive/2026-11/example-h200x2/pub.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cards {
		dollars, verdict := price(c.Capability)
		fmt.Printf("%s: $%.0f, %s\n", c.Capability.Identity.BusAddress, dollars, verdict)
	}

	slower := scaled(cards[0].Capability, 0.6)
	dollars, verdict := price(slower)
	fmt.Printf("slower: $%.0f, %s\n", dollars, verdict)

	degraded := scaled(cards[0].Capability, 1)
	degraded.Roofline[0].RidgeRatio /= 2
	dollars, verdict = price(degraded)
	fmt.Printf("degraded: $%.0f, %s\n", dollars, verdict)
	// Output:
	// 0000:00:06.0: $2435, on its roofline
	// 0000:00:07.0: $2435, on its roofline
	// slower: $1740, on its roofline
	// degraded: $1217, degraded: fma.fp32 ratio 1.00, 0.42 at the ridge
}

// scaled is a copy of c whose throughput and bandwidth figures are f
// times c's (memory size unchanged): a device uniformly slower by f.
func scaled(c schema.CapabilityVector, f float64) schema.CapabilityVector {
	c.Precisions = append([]schema.PrecisionThroughput(nil), c.Precisions...)
	for i := range c.Precisions {
		c.Precisions[i].OpsPerS.Median *= f
	}
	m := *c.Memory
	m.Bandwidth = append([]schema.Bandwidth(nil), m.Bandwidth...)
	for i := range m.Bandwidth {
		m.Bandwidth[i].BytesPerS.Median *= f
	}
	c.Memory = &m
	c.Roofline = append([]schema.RooflineRatio(nil), c.Roofline...)
	for i := range c.Roofline {
		c.Roofline[i].PeakOpsPerS *= f
		c.Roofline[i].BandwidthBytesPerS *= f
	}
	return c
}
