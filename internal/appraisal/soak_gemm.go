package appraisal

import (
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// The soak's load (--soak-load). A vector FMA loop keeps the ALUs busy but
// leaves a GPU's matrix engines and most of its memory traffic idle, so
// the board stays well under its power limit and the thermal envelope
// describes a lighter load than real work. A matrix GEMM is the heaviest
// verified load a card offers; the soak holds one when it can.
const (
	// SoakLoadAuto holds the vendor library's GEMM where the library is
	// found for the device, else the vector FMA.
	SoakLoadAuto = "auto"
	// SoakLoadGEMM holds the vendor library's GEMM, or fails before
	// probing when the device has none.
	SoakLoadGEMM = "gemm"
	// SoakLoadFMA holds the WebGPU vector FMA (the load of earlier cards).
	SoakLoadFMA = "fma"
)

// ErrSoakLoad is wrapped when --soak-load gemm names a load the device
// cannot run: a mistake on the command line, found before any probe ran.
var ErrSoakLoad = errors.New("the soak load asked for cannot run on this device")

// gemmSoakPlanned says whether c's soak holds the vendor library's GEMM
// (after the BLAS probe) instead of the WebGPU FMA (with the WebGPU
// probes). With SoakLoadGEMM, a device that cannot is an error wrapping
// ErrSoakLoad; with SoakLoadAuto it soaks the FMA.
func gemmSoakPlanned(c Candidate, o Options) (bool, error) {
	load := o.SoakLoad
	if load == "" {
		load = SoakLoadAuto
	}
	switch load {
	case SoakLoadFMA:
		return false, nil
	case SoakLoadAuto, SoakLoadGEMM:
	default:
		return false, fmt.Errorf("%w: --soak-load %q: want auto, gemm or fma", ErrSoakLoad, load)
	}
	if soakLength(c, o) == 0 {
		return false, nil
	}
	why := gemmSoakBlocked(c, o)
	if why != "" && load == SoakLoadGEMM {
		return false, fmt.Errorf("%w: --soak-load gemm on %s: %s", ErrSoakLoad, c.Addr, why)
	}
	return why == "", nil
}

// gemmSoakBlocked says why c cannot hold the vendor library's GEMM, or
// "" when it can: the library must load for an NVIDIA device with a
// known PCI address (the BLAS probe's own conditions).
func gemmSoakBlocked(c Candidate, o Options) string {
	switch {
	case c.Adapter.Software:
		return "a software adapter has no vendor BLAS library"
	case vendorID(c) != nvidiaVendor:
		return fmt.Sprintf("no vendor BLAS library for PCI vendor %04x yet", vendorID(c))
	case c.BusAddress == "":
		return "the device's PCI address is unknown"
	}
	lib, err := cublaslt.Open(o.BLAS.Load)
	if err != nil {
		return err.Error()
	}
	lib.Close()
	return ""
}

// runGEMMSoak holds p's GEMM on c and adds what it measured to v; ran is false
// when the soak did not run (Run's skips are then in v).
func runGEMMSoak(ctx context.Context, p cublaslt.SoakProbe, c Candidate, v *schema.CapabilityVector) (ran bool, err error) {
	contrib, err := p.Run(ctx, c.BusAddress)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	return len(contrib.Probes) > 0, add(v, contrib)
}

// soakAfterBLAS runs c's soak once the BLAS probe is done, when
// gemmSoakPlanned said so (with the other devices' soaks, in a concurrent
// run): the GEMM, else (the library offering none of
// the soak's precisions) the WebGPU FMA on a device opened again for it.
// The thermal rules that judge the FMA soak against itself judge the
// GEMM soak too.
func soakAfterBLAS(ctx context.Context, inst *gpu.Instance, c Candidate, p DevicePlan, w *worker, lib *nvml.Lib, v *schema.CapabilityVector) error {
	if err := w.soakTogether(ctx); err != nil {
		return err
	}
	d := p.soak
	tel := driverTelemetry(lib, c, p.sysfsRoot)
	step := w.stepsOf()
	w.stage(cublaslt.SoakProbe{}.Name())
	g := cublaslt.SoakProbe{Duration: d, Load: p.blas.Load, Size: p.blas.Probe.M, Telemetry: tel, Steps: step}
	ran, err := runGEMMSoak(ctx, g, c, v)
	if err != nil {
		return err
	}
	if !ran && p.soakAsked == SoakLoadGEMM {
		return fmt.Errorf("%w: --soak-load gemm on %s: %s", ErrSoakLoad, c.Addr, v.Skipped[len(v.Skipped)-1].Reason)
	}
	if !ran {
		return fmaSoakAgain(ctx, inst, c, p.gpu, w, gpu.SoakProbe{Duration: d, Telemetry: tel, Steps: step}, v)
	}
	return settleSoak(v, c.Adapter.Software, func() error {
		w.stage("consistency: " + g.Name() + " again")
		return w.soakAgain(ctx, func() error { return measureAgain(ctx, c.BusAddress, g, nil, v) })
	})
}

// fmaSoakAgain opens c's WebGPU device again and runs the FMA soak on it.
func fmaSoakAgain(ctx context.Context, inst *gpu.Instance, c Candidate, opts gpu.Options, w *worker, p gpu.SoakProbe, v *schema.CapabilityVector) error {
	d, err := gpu.Open(inst, c.Adapter, opts)
	if err != nil {
		return err
	}
	defer d.Release()
	if _, err := runProbe(ctx, w, d, p, v); err != nil {
		return err
	}
	return settleSoak(v, c.Adapter.Software, func() error {
		return w.soakAgain(ctx, func() error { return measureAgain(ctx, d, p, nil, v) })
	})
}

// settleSoak holds a soak run after the WebGPU probes to the rules that
// read only the soak's own figures, runs it once more when one disagrees
// (again), and adds the checks to v.Consistency; what still disagrees
// fails a GPU's card like any rule. It is settleConsistency's policy on a
// vector holding the soak's figures alone: a rule that also reads another
// probe's figure (the ALU rate, settled before the soak ran) finds none
// there and is not applied.
func settleSoak(v *schema.CapabilityVector, software bool, again func() error) error {
	soak := &schema.CapabilityVector{Thermal: v.Thermal}
	err := settleConsistency(soak, software, func([]figureSource, []schema.ConsistencyCheck) error {
		if err := again(); err != nil {
			return err
		}
		soak.Thermal = v.Thermal
		return nil
	})
	v.Consistency = append(v.Consistency, soak.Consistency...)
	return err
}
