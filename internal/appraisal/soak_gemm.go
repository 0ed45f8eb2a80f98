package appraisal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// The soak's load (--soak-load; docs/measuring.md, "The soak's load").
const (
	// SoakLoadAuto holds the GEMM where the library is found, else the FMA.
	SoakLoadAuto = "auto"
	// SoakLoadGEMM holds the GEMM, or fails before probing without one.
	SoakLoadGEMM = "gemm"
	// SoakLoadFMA holds the WebGPU vector FMA (the load of earlier cards).
	SoakLoadFMA = "fma"
)

// ErrSoakLoad is wrapped when --soak-load names a load the device cannot run.
var ErrSoakLoad = errors.New("the soak load asked for cannot run on this device")

// gemmSoakPlanned says whether c's soak holds the GEMM; errors wrap ErrSoakLoad.
func gemmSoakPlanned(c Candidate, o Options, soak time.Duration) (bool, error) {
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
	if soak == 0 {
		return false, nil
	}
	why := gemmSoakBlocked(c, o)
	if why != "" && load == SoakLoadGEMM {
		return false, fmt.Errorf("%w: --soak-load gemm on %s: %s", ErrSoakLoad, c.Addr, why)
	}
	return why == "", nil
}

// gemmSoakBlocked says why c cannot hold the vendor library's GEMM, or "".
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

// runGEMMSoak holds p's GEMM on c into v; ran is false when skipped.
func runGEMMSoak(ctx context.Context, p cublaslt.SoakProbe, c Candidate, v *schema.CapabilityVector) (ran bool, err error) {
	contrib, err := p.Run(ctx, c.BusAddress)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	return len(contrib.Probes) > 0, add(v, contrib)
}

// blasProbe runs the vendor-BLAS GEMMs the plan names.
func (r *deviceRun) blasProbe(ctx context.Context) error {
	r.w.stage("vendor BLAS GEMMs")
	return r.w.onOwn(func() error { return blasProbe(ctx, r.c, r.p.blas, r.v, r.w.lines("vendor BLAS: ")) })
}

// soakAfterBLAS runs the planned GEMM soak, or the FMA soak without one.
func (r *deviceRun) soakAfterBLAS(ctx context.Context) error {
	c, p, w, v := r.c, r.p, r.w, r.v
	if !p.gemmSoak {
		return nil
	}
	if err := w.soakTogether(ctx); err != nil {
		return err
	}
	tel := driverTelemetry(r.lib, c, p.sysfsRoot)
	w.stage(cublaslt.SoakProbe{}.Name())
	g := cublaslt.SoakProbe{Duration: p.soak, Load: p.blas.Load, Size: p.blas.Probe.M, Telemetry: tel, Steps: w.stepsOf()}
	ran, err := runGEMMSoak(ctx, g, c, v)
	switch {
	case err != nil:
		return err
	case ran:
		r.gemm = &g
		return nil
	case p.soakAsked == SoakLoadGEMM:
		return fmt.Errorf("%w: --soak-load gemm on %s: %s", ErrSoakLoad, c.Addr, v.Skipped[len(v.Skipped)-1].Reason)
	}
	fma := gpu.SoakProbe{Duration: p.soak, Telemetry: tel, Steps: w.stepsOf()}
	r.fma = &fma
	d, err := r.webgpuDevice()
	if err != nil {
		return err
	}
	_, err = runProbe(ctx, w, d, fma, v)
	return err
}
