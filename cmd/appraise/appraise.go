package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// appraiseCmd is the full appraisal: probe, validate, sign, write.
type appraiseCmd struct {
	Out       string         `short:"o" placeholder:"DIR" help:"Directory for the run's report files, written all at once: a new or empty directory, or one holding an earlier run that --overwrite replaces whole (default: reports/<UTC time>)."`
	Software  bool           `help:"Also appraise software (CPU) adapters such as lavapipe; their cards say so."`
	Quick     bool           `help:"Fewer samples over smaller sizes: a fast, less precise appraisal."`
	JSON      bool           `name:"json" help:"Print the result as JSON instead of a table."`
	Device    string         `placeholder:"SEL" help:"Appraise only this device: an index or address from 'appraise devices', or 'all'."`
	AmbientC  *float64       `name:"ambient-c" placeholder:"CELSIUS" help:"Ambient inlet temperature, recorded as operator-supplied."`
	Overwrite bool           `help:"Replace the earlier run in --out, all of its files (only files appraise writes; a directory holding others is refused)."`
	Soak      *time.Duration `placeholder:"DURATION" help:"Thermal soak: how long to hold the device under load (default 2m, 10s with --quick or on a software adapter); 0 skips it."`
	SoakLoad  string         `name:"soak-load" enum:"auto,gemm,fma" default:"auto" help:"What the soak holds: gemm, the vendor BLAS library's matrix multiply (the heaviest checked load, which draws a GPU to its power limit), fma, the WebGPU vector multiply-add, or auto: gemm where the library is found for the device, else fma."`
	CoopMat   bool           `name:"coopmat" help:"Also measure matrix-engine GEMMs through VK_KHR_cooperative_matrix, every shape the driver offers."`
	BLAS      bool           `name:"blas" help:"Measure the vendor BLAS library's GEMMs (cuBLASLt on NVIDIA) for every precision it offers, beside the Vulkan matrix entries. Without it, only precisions the card has no Vulkan matrix entry for."`
	CuBLASLt  string         `name:"cublaslt" placeholder:"PATH" help:"cuBLASLt library file for the BLAS probe (default: $APPRAISE_CUBLASLT, else the loader path, CUDA toolkits and pip wheels)."`

	CrossCheck  bool    `name:"cross-check" help:"Require the cross-check: fail before probing unless BabelStream and mixbench are found and their smallest runs print what appraise reads. Without it they run whenever found, and the card says when they were not."`
	BabelStream string  `name:"babelstream" placeholder:"PATH" help:"BabelStream binary (implies --cross-check; default: cuda-stream, hip-stream or ocl-stream on PATH, by vendor)."`
	Mixbench    string  `name:"mixbench" placeholder:"PATH" help:"mixbench binary (implies --cross-check; default: mixbench-cuda, mixbench-hip or mixbench-ocl on PATH, by vendor)."`
	Tolerance   float64 `default:"0.05" placeholder:"FRACTION" help:"Largest relative disagreement --cross-check accepts (recorded in the card)."`
	Draft       bool    `help:"When --cross-check disagrees, write unsigned *.draft.json files instead of nothing."`
	AllowShared bool    `name:"allow-shared" help:"Appraise and sign a device another process is using, the card recording who else ran and how busy the device was. Without it such a device fails the run (exit 10), before probing or when the other process appears."`
	Serial      bool    `help:"Appraise the devices one after another, the others idle, instead of all at once (the host link and launch are measured one device at a time either way); each card records which."`
}

// written is what an appraisal prints about one report file.
type written struct {
	Kind    string           `json:"kind"`
	File    string           `json:"file"`
	Address string           `json:"address,omitempty"`
	Name    string           `json:"name,omitempty"`
	Figures []figures.Figure `json:"figures,omitempty"`
	// Disagreements are a card's disagreeing consistency checks (software adapters only).
	Disagreements []schema.ConsistencyCheck `json:"disagreements,omitempty"`
	// Error is why a device of kind "failed" has no card.
	Error string `json:"error,omitempty"`
}

func (c *appraiseCmd) Run(ctx context.Context, e *env, g *globals) error {
	if err := c.check(time.Now()); err != nil {
		return err
	}
	signer, err := unlockSigner(e, g)
	if err != nil {
		return err
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		return noDevice(err)
	}
	defer inst.Release()
	all, devs, err := c.devices(e, inst)
	if err != nil {
		return err
	}
	opts := c.options(e)
	pr := newProgress(e)
	opts.Progress = pr.set
	opts.Steps = pr.step
	run, err := appraisal.Appraise(ctx, inst, devs, all, opts)
	pr.done()
	if ctx.Err() != nil {
		return interrupted()
	}
	if errors.Is(err, crosscheck.ErrDisagree) {
		return c.refuse(e, run, err)
	}
	failed := deviceFailed(err)
	if err != nil && failed == nil {
		return probeError(err)
	}
	files, err := run.Sign(signer)
	if err != nil {
		return withCode(exitProbe, err, "nothing was signed")
	}
	if err := signer.record(); err != nil {
		return err
	}
	if err := appraisal.WriteAll(c.Out, files, c.Overwrite); err != nil {
		return outError(err, "nothing was written")
	}
	warn(e, sharedWarnings(run))
	if err := c.render(e, run, files); err != nil {
		return err
	}
	return failed
}

// deviceFailed is exit 11 for an err saying some devices failed while the
// others' cards were made; nil for any other err.
func deviceFailed(err error) error {
	if !errors.Is(err, appraisal.ErrDeviceFailed) {
		return nil
	}
	return withCode(exitDeviceFail, err, "the other devices' cards were signed and written; the box lists each failed device with the reason")
}

// devices finds the adapters (all) and those the run appraises (devs).
func (c *appraiseCmd) devices(e *env, inst *gpu.Instance) (all, devs []appraisal.Candidate, err error) {
	discover := appraisal.Discover
	if e.discover != nil {
		discover = e.discover
	}
	all, warnings, err := discover(inst, c.Software, e.getenv("APPRAISE_SYSFS_ROOT"))
	if err != nil {
		return nil, nil, noDevice(err)
	}
	warn(e, warnings)
	devs, err = appraisal.Select(all, c.Device)
	if err != nil {
		return nil, nil, withCode(exitNoDevice, err, "run 'appraise devices' to see what was found and why it was excluded")
	}
	return all, devs, nil
}

// options are the run's options from the command line.
func (c *appraiseCmd) options(e *env) appraisal.Options {
	opts := appraisal.Options{Quick: c.Quick, CoopMat: c.CoopMat, AmbientC: c.AmbientC, Soak: c.Soak, SoakLoad: c.SoakLoad, Version: version,
		SysfsRoot: e.getenv("APPRAISE_SYSFS_ROOT"), AllowShared: c.AllowShared, Serial: c.Serial,
		BLAS: appraisal.BLASOptions{All: c.BLAS, Load: cublaslt.LoadOptions{Path: c.CuBLASLt, Getenv: e.getenv}}}
	opts.CrossCheck = &crosscheck.Config{BabelStream: c.BabelStream, Mixbench: c.Mixbench, Tolerance: c.Tolerance,
		Required: c.CrossCheck || c.BabelStream != "" || c.Mixbench != ""}
	return opts
}

// check refuses (exit 2), before the key is unlocked or any device is
// opened, every option a run could not use.
func (c *appraiseCmd) check(now time.Time) error {
	if c.Out == "" {
		c.Out = filepath.Join("reports", now.UTC().Format("20060102T150405Z"))
	}
	if err := c.checkOptions(); err != nil {
		return err
	}
	return outError(appraisal.CheckOut(c.Out, c.Overwrite), "")
}

// checkOptions is check for every option but --out.
func (c *appraiseCmd) checkOptions() error {
	if c.Soak != nil && *c.Soak < 0 {
		return withCode(exitUsage, fmt.Errorf("--soak %s: want a duration of 0 or more", *c.Soak), "")
	}
	// The report format's range for ambient_c (schema: gte=-50, lte=80).
	if a := c.AmbientC; a != nil && !(*a >= -50 && *a <= 80) {
		return withCode(exitUsage, fmt.Errorf("--ambient-c %g: want an inlet temperature from -50 to 80 °C", *a), "")
	}
	if t := c.Tolerance; !(t > 0 && t < 1) {
		return withCode(exitUsage, fmt.Errorf("--tolerance %g: want a fraction between 0 and 1", t), "")
	}
	for flag, bin := range map[string]string{"--babelstream": c.BabelStream, "--mixbench": c.Mixbench} {
		if _, err := exec.LookPath(bin); bin != "" && err != nil {
			return withCode(exitUsage, fmt.Errorf("%s %s: %w", flag, bin, err), "name the tool's binary, or leave the flag out to search PATH")
		}
	}
	return c.checkBLAS()
}

// outError gives --out failures their exit code and hint: an unusable
// directory is exit 2, a failure while writing exit 1.
func outError(err error, nothing string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, appraisal.ErrExists):
		return withCode(exitUsage, err, join(nothing, "choose another --out directory, or pass --overwrite to replace that run"))
	case errors.Is(err, appraisal.ErrUnusableOut):
		return withCode(exitUsage, err, join(nothing, "name a new directory with --out (it is created), or an empty one"))
	}
	return withCode(exitError, err, nothing)
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// checkBLAS refuses (exit 2), before anything is probed, a --cublaslt
// that is not a regular file.
func (c *appraiseCmd) checkBLAS() error {
	if c.CuBLASLt == "" {
		return nil
	}
	fi, err := os.Stat(c.CuBLASLt)
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--cublaslt %s: %w", c.CuBLASLt, err),
			"name the libcublasLt.so.* file itself, e.g. .../site-packages/nvidia/cu13/lib/libcublasLt.so.13, or leave --cublaslt out to search")
	}
	return nil
}

// refuse handles a cross-check disagreement: nothing is signed.
func (c *appraiseCmd) refuse(e *env, run *appraisal.Run, err error) error {
	hint := "nothing was signed; pass --draft to write unsigned drafts"
	if c.Draft {
		files, derr := run.Drafts(err.Error())
		if derr == nil {
			derr = appraisal.WriteAll(c.Out, files, c.Overwrite)
		}
		if derr != nil {
			return outError(derr, "nothing was signed or written")
		}
		hint = "nothing was signed; unsigned drafts are in " + c.Out
	}
	return withCode(exitCrossCheck, err, hint)
}

// sharedWarnings are the devices of run that other processes used.
func sharedWarnings(run *appraisal.Run) []error {
	var out []error
	for i, card := range run.Cards {
		if s := figures.SharedWith(card.Capability.Environment.SharedUse); s != "" {
			out = append(out, fmt.Errorf("%s was %s; its card records it", run.Box.DriverVersions[i].BusAddress, s))
		}
	}
	return out
}

func probeError(err error) error {
	switch {
	case errors.Is(err, appraisal.ErrDeviceBusy):
		return withCode(exitBusy, err, "nothing was signed; stop the other process, or pass --allow-shared to sign anyway with the card recording who else ran")
	case errors.Is(err, context.Canceled):
		return interrupted()
	case errors.Is(err, appraisal.ErrSoakLoad):
		return withCode(exitUsage, err, "nothing was signed; pass --soak-load fma (or auto) on a device without a vendor BLAS library")
	case errors.Is(err, appraisal.ErrInconsistent):
		return withCode(exitConsistency, err, "nothing was signed; a GPU whose own figures disagree is measured wrong or unstable: appraise it again on an idle machine")
	case errors.Is(err, crosscheck.ErrToolMissing):
		return withCode(exitError, err, "nothing was probed; install BabelStream and mixbench builds for this GPU (CUDA, HIP or OpenCL), or drop --cross-check to sign with the card saying none ran")
	case errors.Is(err, crosscheck.ErrToolBroken):
		return withCode(exitError, err, "nothing was probed; run the tool named above by hand, or point --babelstream or --mixbench at a build that runs on this GPU, or drop --cross-check to sign with the card saying none ran")
	case errors.Is(err, appraisal.ErrProbe):
		return withCode(exitProbe, err, "nothing was signed")
	}
	return withCode(exitProbe, err, "nothing was signed")
}

func (c *appraiseCmd) render(e *env, run *appraisal.Run, files []appraisal.File) error {
	out := []written{{Kind: "box", File: filepath.Join(c.Out, files[0].Name), Name: run.Box.Host.Hostname, Figures: figures.Box(run.Box)}}
	for i, card := range run.Cards {
		out = append(out, written{
			Kind: "card", File: filepath.Join(c.Out, files[i+1].Name),
			Address: run.Box.DriverVersions[i].BusAddress, Name: card.Capability.Identity.Name,
			Figures: figures.List(card.Capability), Disagreements: card.Capability.Disagreements(),
		})
	}
	for _, f := range run.Box.FailedDevices {
		out = append(out, written{Kind: "failed", Address: f.BusAddress, Error: f.Reason})
	}
	if c.JSON {
		return e.printJSON(out)
	}
	for i, w := range out[1 : len(run.Cards)+1] {
		fmt.Fprintf(e.stdout, "%s  %s", w.Address, w.Name)
		if run.Cards[0].Capability.Identity.Software {
			fmt.Fprint(e.stdout, "  [software adapter: not a GPU]")
		}
		fmt.Fprintln(e.stdout)
		if err := writeFigures(e, w.Figures); err != nil {
			return err
		}
		warnDisagreements(e.stdout, "  warning: ", w.Disagreements)
		for _, s := range run.Cards[i].Capability.Skipped {
			fmt.Fprintf(e.stdout, "  skipped: %s %s: %s\n", s.Probe, s.Item, s.Reason)
		}
		fmt.Fprintf(e.stdout, "card: %s\n\n", w.File)
	}
	if hb := run.Box.HostBaseline; hb != nil {
		fmt.Fprintf(e.stdout, "host %s (%s, %d threads)\n", run.Box.Host.Hostname, hb.ISA, hb.Threads)
	} else {
		fmt.Fprintf(e.stdout, "host %s\n", run.Box.Host.Hostname)
	}
	if len(out[0].Figures) > 0 {
		if err := writeFigures(e, out[0].Figures); err != nil {
			return err
		}
	}
	for _, o := range run.Box.NotMeasured {
		if strings.HasPrefix(o.Field, "host_baseline") {
			fmt.Fprintf(e.stdout, "  not measured: %s: %s\n", o.Field, o.Reason)
		}
	}
	for _, f := range run.Box.FailedDevices {
		fmt.Fprintf(e.stdout, "failed: %s: %s (no card)\n", f.BusAddress, f.Reason)
	}
	_, err := fmt.Fprintf(e.stdout, "box:  %s\n", out[0].File)
	return err
}

// writeFigures prints figures as a table with human units.
func writeFigures(e *env, figs []figures.Figure) error {
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  FIGURE\tMEDIAN\tMIN\tMAX\tSAMPLES")
	for _, f := range figs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\n", f.Name, human(f.Median, f.Unit), human(f.Min, f.Unit), human(f.Max, f.Unit), f.Samples)
	}
	return tw.Flush()
}

// human formats a value in its unit with an SI or binary prefix: rates
// and counts in SI (GB/s = 1e9 bytes/s), sizes in GiB, times in µs/ms.
func human(v float64, unit string) string {
	switch unit {
	case "bytes/s":
		return si(v, "B/s")
	case "ops/s":
		return si(v, "OP/s")
	case "bytes":
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	case "s":
		switch {
		case v < 1e-3:
			return fmt.Sprintf("%.1f µs", v*1e6)
		case v < 1:
			return fmt.Sprintf("%.2f ms", v*1e3)
		}
		return fmt.Sprintf("%.2f s", v)
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}

func si(v float64, unit string) string {
	for _, p := range []struct {
		f float64
		s string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= p.f {
			return fmt.Sprintf("%.1f %s%s", v/p.f, p.s, unit)
		}
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
