package vk

import (
	"errors"

	"github.com/everycycle/appraise/schema"
)

// ProbeVersion is the version of every raw-Vulkan probe.
const ProbeVersion = "2"

// Precision turns a checked result into a throughput entry of operation op
// counted as counting (e.g. "fma", "fma=2").
func Precision(r Result, op, counting string) schema.PrecisionThroughput {
	p := schema.PrecisionThroughput{
		Operation:       op,
		InputType:       TypeName(r.Shape.A),
		AccumulatorType: TypeName(r.Shape.Result),
		MatrixEngine:    r.MatrixEngine,
		OpsPerS:         r.OpsPerSecond,
		OpCounting:      counting,
		Probe:           r.Probe,
		Timing:          r.Timing,
		Check:           r.Check.Record(),
	}
	if !r.MatrixEngine {
		p.Kernel = r.Tile
	} else {
		p.Shape = &schema.MatrixShape{M: int(r.Shape.M), N: int(r.Shape.N), K: int(r.Shape.K), Scope: r.Shape.Scope.String(),
			ProblemM: int(r.Problem.M), ProblemN: int(r.Problem.N), ProblemK: int(r.Problem.K),
			BColumnMajor: r.BColumnMajor, Tile: r.Tile}
	}
	return p
}

// Record is the card's record of a passed check: exact when it allowed no
// error, absolute otherwise.
func (c Check) Record() schema.Check {
	kind := "absolute"
	if c.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: uint64(c.Elements), ErrorKind: kind, MaxError: c.MaxError, Tolerance: c.Tolerance, Passed: true}
}

// TypeName is the card's name of t (fp16, int8, fp8_e4m3, …).
func TypeName(t ComponentType) string {
	switch n := t.String(); n {
	case "f16", "f32", "f64":
		return "fp" + n[1:]
	case "s8", "s16", "s32", "s64":
		return "int" + n[1:]
	case "u8", "u16", "u32", "u64":
		return "uint" + n[1:]
	case "e4m3", "e5m2":
		return "fp8_" + n
	default:
		return n
	}
}

// RoundDown rounds v down to a multiple of to.
func RoundDown(v, to uint32) uint32 { return v / to * to }

// IsSkip reports whether err means "cannot run here" rather than "wrong".
func IsSkip(err error) bool {
	return errors.Is(err, ErrFeatureMissing) || errors.Is(err, ErrExtensionMissing)
}
