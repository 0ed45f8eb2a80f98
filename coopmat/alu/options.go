package alu

import "github.com/everycycle/appraise/coopmat/vk"

// Options steer the vector kernels: the shared raw-Vulkan options (timing,
// seed, invocations, steps, progress). The zero value measures the default
// sizes.
type Options struct {
	vk.Options

	// tamper, set by tests only, alters a kernel's raw output before its check.
	tamper func(probe string, out []byte)
}
