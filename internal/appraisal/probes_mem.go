package appraisal

import (
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/probe/webgpu"
	"github.com/everycycle/appraise/schema"
)

// hostLinkProbe records host → device and device → host bandwidth.
type hostLinkProbe struct{}

func (hostLinkProbe) Name() string    { return "webgpu-hostlink" }
func (hostLinkProbe) Version() string { return "1" }

func (p hostLinkProbe) Run(ctx context.Context, d *webgpu.Device, v *schema.CapabilityVector) error {
	r, err := webgpu.MeasureHostLink(ctx, d)
	if err != nil {
		return err
	}
	if v.Interconnect == nil {
		v.Interconnect = &schema.Interconnect{}
	}
	v.Interconnect.HostToDevice, v.Interconnect.DeviceToHost = hostTransfer(r.HostToDevice, p.Name()), hostTransfer(r.DeviceToHost, p.Name())
	return nil
}

// hostTransfer is a checked host-link transfer as the card records it.
func hostTransfer(t webgpu.Transfer, probe string) *schema.Transfer {
	return &schema.Transfer{BytesPerS: t.BytesPerS, TransferBytes: t.TransferBytes, Path: t.Path, Probe: probe, Timing: t.Timing,
		Check: schema.Check{Reference: "cpu", Elements: t.Checked, ErrorKind: "exact", Passed: true}}
}

// capacityProbe records how much device memory could really be allocated.
type capacityProbe struct {
	// budget is the driver's memory budget for the device-local heap, 0
	// when unknown.
	budget uint64
}

func (capacityProbe) Name() string    { return "webgpu-capacity" }
func (capacityProbe) Version() string { return "1" }

func (p capacityProbe) Run(ctx context.Context, d *webgpu.Device, v *schema.CapabilityVector) error {
	r, err := webgpu.MeasureCapacity(ctx, d, webgpu.CapacityOptions{BudgetBytes: p.budget})
	if err != nil {
		return err
	}
	if v.Memory == nil {
		v.Memory = &schema.Memory{}
	}
	v.Memory.UsableBytes = &r.UsableBytes
	v.Memory.UsableLimitedBy = limitedBy[r.Limited]
	if v.Memory.UsableLimitedBy == "" {
		return fmt.Errorf("capacity stopped for a reason the card cannot name: %q", r.Limited)
	}
	return nil
}

// limitedBy names, in the card's terms, what stopped the capacity probe:
// the device (a refusal, memory that spilled to the host), the driver's
// budget, or one of our own caps (the memory limit, e.g. 1 GiB on a
// software adapter, or the chunk count), so that a capped figure is not
// read as the device's capacity.
var limitedBy = map[string]string{
	webgpu.LimitedDriverRefused: "driver-refused",
	webgpu.LimitedBudget:        "budget",
	webgpu.LimitedMemoryLimit:   "memory-limit",
	webgpu.LimitedSlowMemory:    "slow-memory",
	webgpu.LimitedChunkCount:    "chunk-count",
}

// integrityProbe runs the memtest patterns over ≥ 95 % of the usable
// memory the capacity probe found (less in quick mode, said in the card by
// usable_fraction).
type integrityProbe struct {
	quick, software bool
	step            func(stage string, done, total float64) // progress, never nil
}

func (integrityProbe) Name() string    { return "webgpu-memtest" }
func (integrityProbe) Version() string { return "1" }

// Coverage of the integrity probe: the share of usable memory in a full
// run, and the cap on the region in quick mode: 256 MiB, 64 MiB on a
// software adapter (host RAM, each word written and read by the host's
// cores; still past a last-level cache).
const (
	integrityShare            = 0.95
	quickIntegrityCap         = 256 << 20
	quickSoftwareIntegrityCap = 64 << 20
)

// quickCap is the cap on the tested region, 0 for none (a full run).
func (p integrityProbe) quickCap() uint64 {
	switch {
	case !p.quick:
		return 0
	case p.software:
		return quickSoftwareIntegrityCap
	}
	return quickIntegrityCap
}

func (p integrityProbe) Run(ctx context.Context, d *webgpu.Device, v *schema.CapabilityVector) error {
	if v.Memory == nil || v.Memory.UsableBytes == nil {
		return errors.New("memtest needs the usable memory measured first")
	}
	usable := *v.Memory.UsableBytes
	target := uint64(float64(usable) * integrityShare)
	if limit := p.quickCap(); limit > 0 && target > limit {
		target = limit
	}
	progress := func(done, total uint64) { p.step(p.Name(), float64(done), float64(total)) }
	r, err := webgpu.MeasureIntegrity(ctx, d, webgpu.IntegrityOptions{TargetBytes: target, Progress: progress})
	if err != nil {
		return err
	}
	v.Memory.Integrity = &schema.Integrity{Errors: r.Errors, BytesTested: r.BytesTested, Passes: r.Passes, Patterns: r.Patterns,
		UsableFraction: float64(r.BytesTested) / float64(usable), BytesPerS: r.BytesPerS, Probe: p.Name()}
	return nil
}
