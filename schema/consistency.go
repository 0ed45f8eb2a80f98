package schema

import (
	"fmt"
	"math"

	"github.com/go-playground/validator/v10"
)

// ConsistencyCheck holds two figures of one card that measure the same
// thing against each other: Ratio = Value ÷ OtherValue must lie in
// [MinRatio, MaxRatio], a band the rule derives from how the two kernels
// differ (internal/appraisal's consistency rules; docs/measuring.md,
// "Consistency rules"). A card of a GPU is signed only when every check agrees; a
// software adapter's card (whose "device" is the host's CPU, shared with
// everything else running) may carry a disagreement, recorded here.
type ConsistencyCheck struct {
	// Rule names the rule, e.g. "alu-vs-soak-cold".
	Rule string `json:"rule" validate:"required,ident"`
	// Figure and OtherFigure name the two figures, as in figures lists or
	// by their JSON path, e.g. "precision.fma.fp32" and
	// "thermal.cold_ops_per_s".
	Figure      string `json:"figure" validate:"required,max=96"`
	OtherFigure string `json:"other_figure" validate:"required,max=96"`
	// Value and OtherValue are the two figures, in Unit.
	Value      float64 `json:"value" validate:"gt=0"`
	OtherValue float64 `json:"other_value" validate:"gt=0"`
	// Unit is the unit of both values: "ops/s", "bytes/s" or "s" (a
	// latency).
	Unit string `json:"unit" validate:"oneof=ops/s bytes/s s"`
	// Ratio is Value ÷ OtherValue (unitless).
	Ratio float64 `json:"ratio" validate:"gt=0"`
	// MinRatio and MaxRatio bound the Ratio the rule accepts (unitless).
	MinRatio float64 `json:"min_ratio" validate:"gt=0"`
	MaxRatio float64 `json:"max_ratio" validate:"gtefield=MinRatio"`
	// Remeasured is true when a probe behind either figure ran again
	// because this check or another one sharing the probe disagreed at
	// first; the values are then from the second measurement. A
	// disagreement is recorded only after that.
	Remeasured bool `json:"remeasured"`
	// Agrees is true when MinRatio ≤ Ratio ≤ MaxRatio.
	Agrees bool `json:"agrees"`
}

// Within reports whether the ratio lies in the rule's band.
func (c ConsistencyCheck) Within() bool {
	return c.Ratio >= c.MinRatio && c.Ratio <= c.MaxRatio
}

// Disagreements returns the checks of v that do not agree, in the card's
// order: none on a valid GPU's card; a software adapter's card may carry
// some, signed, and whoever shows the card should say so.
func (v CapabilityVector) Disagreements() []ConsistencyCheck {
	var out []ConsistencyCheck
	for _, c := range v.Consistency {
		if !c.Agrees {
			out = append(out, c)
		}
	}
	return out
}

// consistencyHolds refuses a check whose ratio or verdict does not follow
// from its own values: a reader recomputes both.
func consistencyHolds(sl validator.StructLevel) {
	c := sl.Current().Interface().(ConsistencyCheck)
	if c.OtherValue > 0 && math.Abs(c.Ratio-c.Value/c.OtherValue) > 1e-9*c.Ratio {
		sl.ReportError(nil, "ratio", "Ratio", "complete", fmt.Sprintf("ratio %g is not %g ÷ %g", c.Ratio, c.Value, c.OtherValue))
	}
	if c.Agrees != c.Within() {
		sl.ReportError(nil, "agrees", "Agrees", "complete",
			fmt.Sprintf("%s vs %s: agrees is %t but ratio %.4g is %s [%.4g, %.4g]", c.Figure, c.OtherFigure, c.Agrees, c.Ratio, inOut(c.Within()), c.MinRatio, c.MaxRatio))
	}
}

func inOut(in bool) string {
	if in {
		return "inside"
	}
	return "outside"
}

// consistentUnlessSoftware refuses a disagreeing consistency check on a
// card that is not a software adapter's: such a card is never signed.
func consistentUnlessSoftware(sl validator.StructLevel, c *CapabilityVector) {
	if c.Identity.Software {
		return
	}
	for _, k := range c.Consistency {
		if !k.Agrees {
			report(sl, "%s disagrees with %s (ratio %.4g outside [%.4g, %.4g]) on a device that is not a software adapter",
				k.Figure, k.OtherFigure, k.Ratio, k.MinRatio, k.MaxRatio)
		}
	}
}
