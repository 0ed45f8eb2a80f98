package crosscheck

import (
	"fmt"

	"github.com/everycycle/appraise/babelstream"
	"github.com/everycycle/appraise/mixbench"
	"github.com/everycycle/appraise/schema"
)

// Ceilings of the "at-least" pairs. The tool's figure is a floor of what
// the device does; how far ours may sit above it is what the tool's
// kernel, read from its source, can explain — never a factor taken from
// a device. Each ceiling is (1 + tolerance) × the product of the factors
// below that apply to the pair, capped at 2 (the schema's limit):
//
//   - BabelStream Copy: the best rate any of BabelStream's own kernels
//     reached on the same arrays, over its Copy. Copy keeps one load and
//     one store of a double per thread in flight, which a wide memory
//     system does not fill; no copy outruns the streaming rate the tool
//     itself saw.
//   - mixbench, every precision: mixbenchMemory, computed from the tool's
//     own output, and mixbenchDispatch.
//   - mixbench int: mixbenchIntLoop.
//   - mixbench half: the fp16 ceiling is twice the fp32 one, over the
//     tool's fp16 figure (see fp16Ceiling).
const (
	// mixbenchDispatch: mixbench times each intensity as one dispatch
	// between two events (three of them, keeping the best), with no
	// warm-up at that intensity; at its top row on a large GPU that
	// dispatch lasts about a millisecond. The ramp of a dispatch (blocks
	// coming in) and its last, partly filled wave of blocks (the grid is
	// fixed by the buffer, not by the device) weigh on it as they do not
	// on our calibrated samples of many dispatches after a 250 ms warm-up.
	// We allow 5 % for that.
	mixbenchDispatch = 1.05
	// mixbenchIntLoop: the integer kernel unrolls its chain loop 4 times
	// (TemperateUnroll in mix_kernels_cuda.cu), the others 128. Every
	// four counted multiply-adds then carry the loop's counter add and
	// compare, integer instructions that on a device whose loop arithmetic
	// shares the integer pipe with the counted multiply-adds leave the
	// counted ones 4 of every 6 issue slots there: up to 6/4.
	mixbenchIntLoop = 1.5
	// mixbenchMemoryCap bounds mixbenchMemory: beyond it the tool's best
	// row was not compute-bound, and its figure is no compute peak.
	mixbenchMemoryCap = 1.25
	// maxCeiling is the schema's cap on any at-least ceiling.
	maxCeiling = 2.0
)

// mixbenchMemory is the factor by which the memory phase of mixbench's
// best row can hold its figure below the compute peak. Each thread loads
// its elements before the dependent chains that use them and the row is
// timed as a whole, so at intensity I (ops per byte) and the tool's own
// best bandwidth B, streaming the row's bytes takes up to P/(B·I) of the
// time of a row that computes at P. Assuming no overlap at all (the
// bound), the compute rate is P / (1 − P/(B·I)).
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

// mixbenchFactor is the known shortfall of mixbench's kernel at p
// against the device, and why, without the tolerance.
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

// fp16Ceiling is the ceiling of our fp16 figure over mixbench's half
// figure. mixbench's half kernel runs one dependent __hfma2 chain per
// thread at a time (its eight elements' chains are separate loops), and
// counts each as two FMAs correctly, but on a device that issues packed
// half2 at twice the fp32 rate that one chain may not keep the packed
// units full: its figure is only a floor. What bounds ours is packing
// itself: a packed half2 FMA does two fp16 FMAs where the fp32 path does
// one, so the fp16 vector rate is at most twice the fp32 rate, and the
// fp32 rate is bounded by mixbench's single figure with its own factor.
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

// copyCeiling is BabelStream's best kernel over its Copy: no copy
// outruns the streaming rate the tool itself reached.
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

// capped applies the schema's cap.
func capped(r float64) float64 { return min(r, maxCeiling) }

// withCeiling fills c's ceiling for an at-least pair.
func withCeiling(c schema.CrossCheck, ratio float64, why string) schema.CrossCheck {
	r := capped(ratio)
	c.MaxRatio, c.CeilingReason = &r, why
	return c
}
