package crosscheck

import (
	"fmt"

	"github.com/everycycle/appraise/babelstream"
	"github.com/everycycle/appraise/mixbench"
	"github.com/everycycle/appraise/schema"
)

// Factors the tools' kernels leave short of the device: an at-least
// ceiling is (1 + tolerance) × its pair's factors, at most maxCeiling.
const (
	mixbenchDispatch  = 1.05 // each point is one short dispatch
	mixbenchIntLoop   = 1.5  // the int chain loop shares the integer pipe
	mixbenchMemoryCap = 1.25 // past it the best row was not compute-bound
	maxCeiling        = 2.0  // the schema's cap
)

// mixbenchMemory is 1 / (1 − P/(B·I)), up to mixbenchMemoryCap, for the
// rate P and intensity I of mixbench's best row at p and its bandwidth B.
func mixbenchMemory(r *mixbench.Result, p mixbench.Precision) float64 {
	peak, intensity := 0.0, 0.0
	for _, row := range r.Rows {
		if pt, ok := row.Point(p); ok && pt.OpsPerSec > peak {
			peak, intensity = pt.OpsPerSec, pt.OpsPerByte
		}
	}
	bw := r.PeakBandwidth()
	if peak <= 0 || intensity <= 0 || bw <= 0 {
		return 1
	}
	share := peak / (bw * intensity)
	if share >= 1-1/mixbenchMemoryCap {
		return mixbenchMemoryCap
	}
	return 1 / (1 - share)
}

// mixbenchFactor is mixbench's shortfall at p and why, without tolerance.
func mixbenchFactor(r *mixbench.Result, p mixbench.Precision) (float64, string) {
	mem := mixbenchMemory(r, p)
	f := mem * mixbenchDispatch
	why := fmt.Sprintf("mixbench's best row streams its arrays (x%.3f from its own bandwidth and intensity) and is one short dispatch (x%.2f)", mem, mixbenchDispatch)
	if p == mixbench.Int {
		f *= mixbenchIntLoop
		why += fmt.Sprintf("; its int chain loop is unrolled 4 times, so loop arithmetic shares the integer pipe (x%.2f)", mixbenchIntLoop)
	}
	return f, why
}

// fp16Ceiling is twice the fp32 ceiling over mixbench's half figure: a
// packed half2 FMA does two fp16 FMAs where fp32 does one.
func fp16Ceiling(r *mixbench.Result, tol float64) (float64, string) {
	half := r.PeakOps(mixbench.Half)
	single := r.PeakOps(mixbench.Single)
	if half <= 0 || single <= 0 {
		return 1 + tol, "no fp32 figure from mixbench to bound the packed rate"
	}
	f32, why32 := mixbenchFactor(r, mixbench.Single)
	ratio := 2 * single * f32 * (1 + tol) / half
	return ratio, fmt.Sprintf("twice mixbench's fp32 ceiling (packed half2 does two fp16 FMAs per fp32 lane; %s), over its half figure, whose one __hfma2 chain per thread is only a floor", why32)
}

// copyCeiling is BabelStream's best kernel over its Copy.
func copyCeiling(bs *babelstream.Result, tol float64) (float64, string) {
	cp, ok := bs.Kernel("Copy")
	if !ok || cp.BandwidthBytesPerSec <= 0 {
		return 1 + tol, "no BabelStream Copy"
	}
	best, name := cp.BandwidthBytesPerSec, "Copy"
	for _, k := range bs.Kernels {
		if k.BandwidthBytesPerSec > best {
			best, name = k.BandwidthBytesPerSec, k.Name
		}
	}
	return best / cp.BandwidthBytesPerSec * (1 + tol), fmt.Sprintf("no copy outruns the best streaming rate BabelStream reached on the same arrays (its %s)", name)
}

// withCeiling fills c's ceiling for an at-least pair.
func withCeiling(c schema.CrossCheck, ratio float64, why string) schema.CrossCheck {
	r := min(ratio, maxCeiling)
	c.MaxRatio, c.CeilingReason = &r, why
	return c
}
