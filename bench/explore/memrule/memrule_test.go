//go:build explore

// Package memrule records what the memory consistency rule holds against
// each other on a --quick device: the stream probe's copy and the
// roofline's memory roof, each probe as the appraisal runs it (go test
// -tags explore -run RecordMemoryRuleProbes -v ./bench/explore/memrule/).
package memrule

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/everycycle/appraise/bench/explore/exploretest"
	"github.com/everycycle/appraise/gpu"
)

// quickRooflineArray is the roofline probe's array size in quick mode.
const quickRooflineArray = 64 << 20

// TestRecordMemoryRuleProbes measures, in turn and EXPLORE_ROUNDS times
// (default 9), the stream probe's copy kernel (its trial of elements per
// invocation, its samples, their median) and the roofline probe's fp32 and
// int32 sweeps at the quick array size on the first adapter opened as
// --quick does, and logs each round's memory roof ÷ copy, the same from
// each one's fastest samples, and the medians over the rounds.
func TestRecordMemoryRuleProbes(t *testing.T) {
	rounds := exploretest.EnvInt(t, "EXPLORE_ROUNDS", 9)
	d := exploretest.QuickDevice(t)
	var fp32, int32, fp32Best, int32Best []float64
	for i := range rounds {
		bw, err := gpu.MeasureBandwidthKernels(t.Context(), d, []string{"copy"})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := gpu.MeasureRoofline(t.Context(), d, gpu.RooflineOptions{MaxArrayBytes: quickRooflineArray})
		if err != nil {
			t.Fatal(err)
		}
		copyBW, copyBest := bw[0].BytesPerS.Median, bw[0].BytesPerS.Max
		var line []string
		for j, r := range rs {
			a, err := r.Analyse()
			if err != nil {
				t.Fatal(err)
			}
			best := r // the same roof from each point's fastest sample
			best.Points = slices.Clone(r.Points)
			for k := range best.Points {
				best.Points[k].OpsPerS = best.Points[k].MaxOpsPerS
			}
			b, err := best.Analyse()
			if err != nil {
				t.Fatal(err)
			}
			line = append(line, fmt.Sprintf("%s %.2f GB/s (%.3f; fastest samples %.3f)", r.Precision, a.Bandwidth/1e9, a.Bandwidth/copyBW, b.Bandwidth/copyBest))
			if j == 0 {
				fp32, fp32Best = append(fp32, a.Bandwidth/copyBW), append(fp32Best, b.Bandwidth/copyBest)
			} else {
				int32, int32Best = append(int32, a.Bandwidth/copyBW), append(int32Best, b.Bandwidth/copyBest)
			}
		}
		t.Logf("round %d: copy %.2f GB/s (per=%d); %s", i, copyBW/1e9, bw[0].PerInvocation, strings.Join(line, ", "))
	}
	t.Logf("memory roof ÷ copy, median of %d rounds: fp32 %s, int32 %s", rounds, exploretest.Spread(fp32), exploretest.Spread(int32))
	t.Logf("the same from the fastest samples: fp32 %s, int32 %s", exploretest.Spread(fp32Best), exploretest.Spread(int32Best))
}
