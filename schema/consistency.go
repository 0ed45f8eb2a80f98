package schema

import (
	"fmt"
	"math"

	"github.com/go-playground/validator/v10"
)

// ConsistencyCheck holds two figures of one card that measure the same
// thing against each other: Ratio must lie in [MinRatio, MaxRatio]. A GPU's
// card is signed only when every check agrees.
type ConsistencyCheck struct {
	// Rule names the rule, e.g. "alu-vs-soak-cold".
	Rule string `json:"rule" validate:"required,ident"`
	// Figure names the first figure, e.g. "precision.fma.fp32".
	Figure string `json:"figure" validate:"required,max=96"`
	// OtherFigure names the second figure, e.g. "thermal.cold_ops_per_s".
	OtherFigure string `json:"other_figure" validate:"required,max=96"`
	// Value is the first figure, in Unit.
	Value float64 `json:"value" validate:"gt=0"`
	// OtherValue is the second figure, in Unit.
	OtherValue float64 `json:"other_value" validate:"gt=0"`
	// Unit is the unit of both values: "ops/s", "bytes/s" or "s".
	Unit string `json:"unit" validate:"oneof=ops/s bytes/s s"`
	// Ratio is Value ÷ OtherValue (unitless).
	Ratio float64 `json:"ratio" validate:"gt=0"`
	// MinRatio is the least Ratio the rule accepts (unitless).
	MinRatio float64 `json:"min_ratio" validate:"gt=0"`
	// MaxRatio is the largest Ratio the rule accepts (unitless).
	MaxRatio float64 `json:"max_ratio" validate:"gtefield=MinRatio"`
	// Remeasured is true when the values come from a second measurement
	// after a first disagreement.
	Remeasured bool `json:"remeasured"`
	// Agrees is true when MinRatio ≤ Ratio ≤ MaxRatio.
	Agrees bool `json:"agrees"`
}

// Within reports whether the ratio lies in the rule's band.
func (c ConsistencyCheck) Within() bool {
	return c.Ratio >= c.MinRatio && c.Ratio <= c.MaxRatio
}

// Disagreements returns the checks of v that do not agree, which only a
// software adapter's card may carry; whoever shows the card should say so.
func (v CapabilityVector) Disagreements() []ConsistencyCheck {
	var out []ConsistencyCheck
	for _, c := range v.Consistency {
		if !c.Agrees {
			out = append(out, c)
		}
	}
	return out
}

// consistencyHolds refuses a check whose ratio or verdict contradicts its values.
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

// consistentUnlessSoftware refuses a disagreeing check on a GPU's card.
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
