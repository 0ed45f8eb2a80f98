package vk

// Check is how a kernel's output compared with its CPU reference, in
// absolute terms; Tolerance 0 means exact, and an error against zero
// tolerance makes Worst +Inf. A failed check never yields a figure.
type Check struct {
	Elements  int     `json:"elements"`    // compared
	MaxError  float64 `json:"max_error"`   // largest |gpu − reference|
	Tolerance float64 `json:"tolerance"`   // largest per-element tolerance
	Worst     float64 `json:"worst_ratio"` // largest error/tolerance
}
