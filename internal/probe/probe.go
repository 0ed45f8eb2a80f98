// Package probe is the contract every measuring backend implements: a
// probe runs its kernels on one device and returns what it measured as a
// Contribution to the capability vector. Each figure in a contribution
// carries the schema.Check that the probe's own kernel ran against a CPU
// reference or a closed form; the orchestrator copies figures into the
// vector by the rules in internal/appraisal and never writes a check of
// its own.
//
// A backend (WebGPU, raw Vulkan, the vendor BLAS, the CPU, peer links,
// the cross-check tools) chooses its device type D: the handle its
// probes run on, opened and released by the orchestrator around them.
package probe

import (
	"context"

	"github.com/everycycle/appraise/schema"
)

// Probe measures one part of a device's capability.
type Probe[D any] interface {
	// Name is the probe's name as the card records it (schema ident).
	Name() string
	// Version changes whenever what the probe measures, or how, changes.
	Version() string
	// Run measures on d. An error means nothing of the run may be signed:
	// a failed check is an error, never a figure.
	Run(ctx context.Context, d D) (*Contribution, error)
}

// PartProbe is a probe that can measure some of its items again (a
// bandwidth kernel, a precision), for the consistency re-measure.
type PartProbe[D any] interface {
	Probe[D]
	// RunParts measures only the named items; the names are those the
	// probe's figures carry (kernel, precision). None means all.
	RunParts(ctx context.Context, d D, items []string) (*Contribution, error)
}

// Contribution is what one run of a probe adds to a capability vector.
// Every figure names its probe and carries its check; absent sections
// are nil.
type Contribution struct {
	// Precisions are throughput entries, vector ALU or matrix engine.
	Precisions []schema.PrecisionThroughput
	// Bandwidth are device-memory bandwidth entries, one per kernel.
	Bandwidth []schema.Bandwidth
	// Usable is the allocatable device memory, with what stopped it.
	Usable *Usable
	// Integrity is the memory-integrity test's outcome.
	Integrity *schema.Integrity
	// HostToDevice and DeviceToHost are the host link, each direction.
	HostToDevice, DeviceToHost *schema.Transfer
	// Peers are directed device-to-device links.
	Peers []schema.PeerLink
	// Launch is the small-work latency section.
	Launch *schema.LaunchOverhead
	// Thermal is the envelope a soak measured.
	Thermal *schema.ThermalEnvelope
	// Roofline are on-roofline ratios, one per swept precision or GEMM.
	Roofline []schema.RooflineRatio
	// CrossChecks are standard tools' figures beside ours.
	CrossChecks []schema.CrossCheck
	// HostBaseline is the host CPU's baseline, for the box report.
	HostBaseline *schema.HostBaseline
	// Libraries are the vendor libraries the figures were measured
	// through (environment.libraries).
	Libraries []schema.Library
	// Probes names every probe, with its version, that produced a figure
	// here (a backend may run several kernels, each its own probe name).
	Probes []schema.ProbeRecord
	// Skipped is work the probe could not do on this device, with why.
	Skipped []schema.Skip
	// NotMeasured names parts the probe ran for but left absent, with why.
	NotMeasured []schema.Omission
}

// Usable is the device memory a probe could allocate.
type Usable struct {
	// Bytes is how much was allocated before something stopped it.
	Bytes uint64
	// LimitedBy says what stopped it (schema.Memory.UsableLimitedBy).
	LimitedBy string
}
