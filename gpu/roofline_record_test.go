package gpu

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
)

var recordRoofline = flag.Bool("gpu.record-roofline", false, "record hiddenWorkFile on the first adapter (TestRecordRooflineHiddenWork)")

// TestRecordRooflineHiddenWork sweeps the probe's fp32 kernel, hiddenBand
// and hiddenEverywhere interleaved at every intensity, recordRepeats
// times with more samples per point, keeps each point's fastest, holds the
// result to the ratio's claims (checkHiddenWork) and writes it to
// hiddenWorkFile, which TestRooflineHiddenWorkRecorded reads.
// It runs only with -gpu.record-roofline.
func TestRecordRooflineHiddenWork(t *testing.T) {
	if !*recordRoofline {
		t.Skip("pass -gpu.record-roofline to record " + hiddenWorkFile)
	}
	d := newDevice(t)
	lim := testRooflineLimits()
	// Medians of more samples, less moved by load from outside.
	lim.cal.BudgetS, lim.cal.MaxSamples = 0.5, 15
	lim.Iters = RooflineIters()
	var res []RooflineResult
	for range recordRepeats {
		r := sweepInterleaved(t, d, lim, []func(uint32) uint32{nil, hiddenBand, hiddenEverywhere})
		checkInterleaved(t, lim, r)
		res = fastestPoints(res, r)
	}
	checkHiddenWork(t, "this run", res[0], res[1], res[2])
	b, err := json.MarshalIndent(hiddenWorkRecord{d.Info().DisplayName(),
		fmt.Sprintf("TestRecordRooflineHiddenWork -gpu.record-roofline: fastest of %d interleaved sweeps", recordRepeats), res[0], res[1], res[2]}, "", "\t")
	if err == nil {
		err = os.WriteFile(hiddenWorkFile, append(b, '\n'), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// recordRepeats is how many sweeps -gpu.record-roofline takes; each point
// keeps its fastest, the nearest to what the device does alone.
const recordRepeats = 3

// fastestPoints keeps, for each variant and point, the point of a or b
// with the higher median; a nil a is b.
func fastestPoints(a, b []RooflineResult) []RooflineResult {
	if a == nil {
		return b
	}
	for v := range a {
		for i, p := range b[v].Points {
			if p.OpsPerS > a[v].Points[i].OpsPerS {
				a[v].Points[i] = p
			}
		}
		a[v].Checked += b[v].Checked
	}
	return a
}
