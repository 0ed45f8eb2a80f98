// Package probe is the contract every backend implements: a Probe runs on
// one device and returns a Contribution whose figures carry their checks.
package probe

import (
	"context"

	"github.com/everycycle/appraise/schema"
)

// Probe measures part of a device; Version changes with what or how it
// measures. An error from Run (a failed check is one) signs nothing.
type Probe[D any] interface {
	Name() string
	Version() string
	Run(ctx context.Context, d D) (*Contribution, error)
}

// PartProbe can measure the named items (a kernel, a precision) again.
type PartProbe[D any] interface {
	Probe[D]
	RunParts(ctx context.Context, d D, items []string) (*Contribution, error)
}

// Contribution is what one probe run adds to a card (HostBaseline: to the
// box): the schema's sections of those names, nil when absent.
type Contribution struct {
	Precisions   []schema.PrecisionThroughput
	Bandwidth    []schema.Bandwidth
	Usable       *Usable
	Integrity    *schema.Integrity
	HostToDevice *schema.Transfer
	DeviceToHost *schema.Transfer
	Peers        []schema.PeerLink
	Launch       *schema.LaunchOverhead
	Thermal      *schema.ThermalEnvelope
	Roofline     []schema.RooflineRatio
	CrossChecks  []schema.CrossCheck
	HostBaseline *schema.HostBaseline
	Libraries    []schema.Library
	Probes       []schema.ProbeRecord
	Skipped      []schema.Skip
	NotMeasured  []schema.Omission
}

// Usable is the device memory a probe could allocate and what stopped it.
type Usable struct {
	Bytes     uint64
	LimitedBy string
}
