package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// CapacityProbe records how much device memory could be allocated
// (MeasureCapacity), and what stopped it.
type CapacityProbe struct {
	BudgetBytes uint64      // as CapacityOptions.BudgetBytes
	Hold        *HeldMemory // as CapacityOptions.Hold
}

// Name is the probe's name on the card.
func (CapacityProbe) Name() string { return "webgpu-capacity" }

// Version changes when what the probe measures, or how, changes.
func (CapacityProbe) Version() string { return "2" }

// Run allocates until something stops it.
func (p CapacityProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	r, err := MeasureCapacity(ctx, d, CapacityOptions{BudgetBytes: p.BudgetBytes, Hold: p.Hold})
	if err != nil {
		return nil, err
	}
	why := usableLimitedBy(r.Limited)
	if why == "" {
		return nil, fmt.Errorf("capacity stopped for a reason the card cannot name: %q", r.Limited)
	}
	return &probe.Contribution{Usable: &probe.Usable{Bytes: r.UsableBytes, LimitedBy: why}}, nil
}

// usableLimitedBy is limited as schema.Memory's usable_limited_by, or "".
func usableLimitedBy(limited string) string {
	switch limited {
	case LimitedDriverRefused:
		return "driver-refused"
	case LimitedBudget:
		return "budget"
	case LimitedMemoryLimit:
		return "memory-limit"
	case LimitedSlowMemory:
		return "slow-memory"
	case LimitedChunkCount:
		return "chunk-count"
	}
	return ""
}

// IntegrityShare is the share of usable memory the integrity probe tests.
const IntegrityShare = 0.95

// IntegrityProbe runs the memtest (MeasureIntegrity) over IntegrityShare
// of the usable memory, or of a slice of it, at most CapBytes.
type IntegrityProbe struct {
	// UsableBytes is the usable memory the capacity probe measured; the
	// card's usable_fraction is the share of it tested.
	UsableBytes uint64
	SliceBytes  uint64 // when not zero, the part of UsableBytes to take the share of
	CapBytes    uint64 // when not zero, caps the tested region
	// Steps, when not nil, is told the probe's name, bytes moved and bytes
	// to move.
	Steps func(stage string, done, total float64)
	Held  *HeldMemory // as IntegrityOptions.Held
}

// Name is the probe's name on the card.
func (IntegrityProbe) Name() string { return "webgpu-memtest" }

// Version changes when what the probe measures, or how, changes.
func (IntegrityProbe) Version() string { return "2" }

func (p IntegrityProbe) target() uint64 {
	region := p.UsableBytes
	if p.SliceBytes > 0 && p.SliceBytes < region {
		region = p.SliceBytes
	}
	t := uint64(float64(region) * IntegrityShare)
	if p.CapBytes > 0 && t > p.CapBytes {
		t = p.CapBytes
	}
	return t
}

// Run writes and checks the patterns over the target region.
func (p IntegrityProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	if p.UsableBytes == 0 {
		return nil, errors.New("memtest needs the usable memory measured first")
	}
	var progress func(done, total uint64)
	if p.Steps != nil {
		progress = func(done, total uint64) { p.Steps(p.Name(), float64(done), float64(total)) }
	}
	r, err := MeasureIntegrity(ctx, d, IntegrityOptions{TargetBytes: p.target(), Progress: progress, Held: p.Held})
	if err != nil {
		return nil, err
	}
	return &probe.Contribution{Integrity: &schema.Integrity{Errors: r.Errors, BytesTested: r.BytesTested, Passes: r.Passes, Patterns: r.Patterns,
		UsableFraction: float64(r.BytesTested) / float64(p.UsableBytes), BytesPerS: r.BytesPerS, Probe: p.Name()}}, nil
}
