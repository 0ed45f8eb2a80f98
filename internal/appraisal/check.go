package appraisal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// ErrIdentity is wrapped when no device here is the one a card describes.
var ErrIdentity = errors.New("no device here is the card's device")

// CheckOptions configure a re-measurement.
type CheckOptions struct {
	// BLAS says where the vendor library is looked for.
	BLAS cublaslt.LoadOptions
	// SysfsRoot is as for Discover.
	SysfsRoot string
	// Progress, when set, is told each stage as it starts.
	Progress func(device, stage string)
}

// checkIntegrityCap is the memtest slice a check tests, in bytes.
const checkIntegrityCap = 64 << 20

// FindCardDevice returns the candidate that is the device id describes;
// the error wraps ErrIdentity.
func FindCardDevice(cands []Candidate, id schema.DeviceIdentity, sysfsRoot string) (Candidate, error) {
	var seen []string
	for _, c := range cands {
		if c.Adapter.Index < 0 || c.Adapter.Software != id.Software {
			continue
		}
		now := baseVector(c, Options{}).Identity
		seen = append(seen, describe(now))
		if now.VendorID != id.VendorID || now.DeviceID != id.DeviceID {
			continue
		}
		if id.Software {
			if now.Name == id.Name {
				return c, nil
			}
			continue
		}
		if id.BusAddress == "" || now.BusAddress != id.BusAddress {
			continue
		}
		if err := sameBoard(c, id, sysfsRoot); err != nil {
			return Candidate{}, err
		}
		return c, nil
	}
	if len(seen) == 0 {
		seen = []string{"none"}
	}
	return Candidate{}, fmt.Errorf("%w: the card describes %s; devices here: %v", ErrIdentity, describe(id), seen)
}

// sameBoard compares the board's serial, UUID and VBIOS hash with the card's.
func sameBoard(c Candidate, id schema.DeviceIdentity, sysfsRoot string) error {
	if id.Serial == "" && id.UUID == "" && id.VBIOSHash == "" {
		return nil
	}
	lib, libErr := nvml.Open()
	if libErr == nil {
		defer lib.Close()
	}
	v := baseVector(c, Options{})
	vendorIdentity(lib, libErr, c, v, sysfsRoot)
	now := v.Identity
	for _, f := range []struct{ name, card, now string }{
		{"serial", id.Serial, now.Serial}, {"uuid", id.UUID, now.UUID}, {"vbios_hash", id.VBIOSHash, now.VBIOSHash},
	} {
		if f.card == "" {
			continue
		}
		if f.now == "" {
			return fmt.Errorf("%w: the card's %s %q cannot be read here to confirm the board at %s", ErrIdentity, f.name, f.card, id.BusAddress)
		}
		if f.now != f.card {
			return fmt.Errorf("%w: the board at %s has %s %q, the card %q: another board (or a reflashed one)", ErrIdentity, id.BusAddress, f.name, f.now, f.card)
		}
	}
	return nil
}

func describe(id schema.DeviceIdentity) string {
	s := fmt.Sprintf("%s:%s %q", id.VendorID, id.DeviceID, id.Name)
	if id.BusAddress != "" {
		s += " at " + id.BusAddress
	}
	return s
}

// Remeasure re-measures in quick mode the card's figures a drop shows in,
// returning the vector and notes on what was not; another user is ErrDeviceBusy.
func Remeasure(ctx context.Context, inst *gpu.Instance, c Candidate, card schema.CapabilityVector, o CheckOptions) (*schema.CapabilityVector, []string, error) {
	w, closeWatch := watchDevices([]Candidate{c}, Options{SysfsRoot: o.SysfsRoot})
	defer closeWatch()
	return remeasureWatched(ctx, w, o, func(ctx context.Context, progress func(device, stage string)) (*schema.CapabilityVector, []string, error) {
		return remeasure(ctx, inst, c, card, o, progress)
	})
}

// remeasureFunc is a re-measure telling progress each stage.
type remeasureFunc func(ctx context.Context, progress func(device, stage string)) (*schema.CapabilityVector, []string, error)

// remeasureWatched runs re under w, as watched runs an appraisal.
func remeasureWatched(ctx context.Context, w watcher, o CheckOptions, re remeasureFunc) (*schema.CapabilityVector, []string, error) {
	var v *schema.CapabilityVector
	var notes []string
	_, err := watched(ctx, w, Options{Progress: o.Progress}, func(ctx context.Context, wo Options) (*Run, error) {
		var err error
		if v, notes, err = re(ctx, wo.Progress); err != nil {
			return nil, err
		}
		return &Run{}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return v, notes, nil
}

// remeasure is Remeasure's work, telling progress each stage.
func remeasure(ctx context.Context, inst *gpu.Instance, c Candidate, card schema.CapabilityVector, o CheckOptions, progress func(device, stage string)) (*schema.CapabilityVector, []string, error) {
	ro := Options{Quick: true, Progress: progress}
	v := baseVector(c, ro)
	w := newWorker(c.Addr, ro)
	d, err := gpu.Open(inst, c.Adapter, deviceOptions(c, ro))
	if err != nil {
		return nil, nil, err
	}
	defer d.Release()
	var notes []string
	ps := []probe.Probe[*gpu.Device]{gpu.StreamProbe{}, gpu.ALUProbe{}}
	if m := card.Memory; m != nil && m.UsableBytes != nil {
		usable := *m.UsableBytes
		if v.Memory == nil {
			v.Memory = &schema.Memory{}
		}
		v.Memory.UsableBytes = &usable
		ps = append(ps, checkMemtest(usable))
	} else {
		notes = append(notes, "memtest not run: the card has no usable memory figure to take a slice of")
	}
	if err := runProbes(ctx, w, d, ps, v); err != nil {
		return nil, nil, err
	}
	note, err := remeasureLink(ctx, c, ro, w, v)
	if err != nil {
		return nil, nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	note, err = remeasureBLAS(ctx, c, card, o, v)
	if err != nil {
		return nil, nil, err
	}
	return v, append(notes, note), nil
}

// remeasureLink re-measures c's host link through raw Vulkan, or says why not.
func remeasureLink(ctx context.Context, c Candidate, o Options, w *worker, v *schema.CapabilityVector) (string, error) {
	if c.Vulkan == nil {
		return "host link not re-measured: " + c.vulkanWhy, nil
	}
	d, err := vk.Open(c.Vulkan.Index)
	if err != nil {
		return "", err
	}
	defer d.Release()
	p := link.HostLinkProbe{Options: transferOptions(c, o)}
	p.Options.BulkOnly = true
	w.stage(p.Name())
	return "", runVulkan(ctx, p, d, v)
}

// checkMemtest is the memtest over about checkIntegrityCap of usable.
func checkMemtest(usable uint64) gpu.IntegrityProbe {
	share := gpu.IntegrityShare
	slice := min(usable, uint64(checkIntegrityCap/share))
	return gpu.IntegrityProbe{UsableBytes: usable, SliceBytes: slice}
}

// remeasureBLAS re-runs the card's fastest vendor-library GEMM, or says why not.
func remeasureBLAS(ctx context.Context, c Candidate, card schema.CapabilityVector, o CheckOptions, v *schema.CapabilityVector) (string, error) {
	var best *schema.PrecisionThroughput
	for i, e := range card.Precisions {
		if e.Probe == cublaslt.ProbeName && e.Shape != nil && (best == nil || e.OpsPerS.Median > best.OpsPerS.Median) {
			best = &card.Precisions[i]
		}
	}
	if best == nil {
		return "matrix not re-measured: the card has no vendor-library (" + cublaslt.ProbeName + ") GEMM entry", nil
	}
	var prec string
	for _, p := range cublaslt.Precisions() {
		e := cublaslt.Entry{Precision: p}.Figure()
		if e.InputType == best.InputType && e.InputTypeB == best.InputTypeB && e.AccumulatorType == best.AccumulatorType &&
			e.OutputType == best.OutputType && e.Scaling == best.Scaling {
			prec = p.Name
			break
		}
	}
	if prec == "" {
		return "matrix not re-measured: this probe suite has no cuBLASLt precision for the card's " + best.InputType + " entry", nil
	}
	if c.BusAddress == "" {
		return "matrix not re-measured: the device's PCI address is unknown, so the CUDA device cannot be matched", nil
	}
	lib, err := cublaslt.Open(o.BLAS)
	if errors.Is(err, cublaslt.ErrNoLibrary) || errors.Is(err, cublaslt.ErrNoDriver) {
		return "matrix not re-measured: " + err.Error(), nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrProbe, cublaslt.ProbeName, err)
	}
	defer lib.Close()
	s := best.Shape
	// A short warm-up and hold: the check has a budget.
	rep, err := lib.Run(ctx, c.BusAddress, cublaslt.Options{M: s.ProblemM, N: s.ProblemN, K: s.ProblemK, Precisions: []string{prec},
		WarmUp: time.Second, Hold: 500 * time.Millisecond})
	if errors.Is(err, cublaslt.ErrNoDevice) {
		return "matrix not re-measured: " + err.Error(), nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrProbe, cublaslt.ProbeName, err)
	}
	return fmt.Sprintf("matrix re-measured: %s at %dx%dx%d", prec, s.ProblemM, s.ProblemN, s.ProblemK), add(v, rep.Contribution())
}
