package cublaslt

import "fmt"

// String summarises the check, e.g. "ok 16384 values, worst 0.12 of tolerance".
func (c Check) String() string {
	if c.Checked == 0 {
		return "not checked"
	}
	if c.Bad >= 0 {
		return fmt.Sprintf("FAILED at %d: %g, want %g", c.Bad, c.Got, c.Want)
	}
	if c.Tolerance == 0 {
		return fmt.Sprintf("ok %d values, exact", c.Checked)
	}
	return fmt.Sprintf("ok %d values, worst %.2g of tolerance", c.Checked, c.Worst)
}
