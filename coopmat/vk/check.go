package vk

// Check is the outcome of comparing a kernel's output with its CPU
// reference. A kernel whose check fails is never reported with a figure.
type Check struct {
	// Elements is the number of output elements compared.
	Elements int `json:"elements"`
	// MaxError is the largest |gpu - reference| seen (absolute).
	MaxError float64 `json:"max_error"`
	// Tolerance is the largest per-element tolerance applied (absolute);
	// 0 means the comparison was exact.
	Tolerance float64 `json:"tolerance"`
	// Worst is the largest ratio error/tolerance (error > 0 with zero
	// tolerance counts as +Inf).
	Worst float64 `json:"worst_ratio"`
}
