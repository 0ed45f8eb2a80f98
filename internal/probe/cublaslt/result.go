package cublaslt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/everycycle/appraise/schema"
)

// Nothing in this file is specific to NVIDIA: a hipBLASLt probe returns
// the same Report through the same Backend interface.

// ProbeName is the probe's name on the card.
const ProbeName = "cuda-cublaslt"

// ProbeVersion is the version of the probe's method.
const ProbeVersion = "3"

// OpCounting is the operation-counting rule: a GEMM is 2·m·n·k operations.
const OpCounting = "gemm=2mnk"

// Sentinels callers branch on.
var (
	// ErrNoLibrary is wrapped when no usable BLAS library was found or
	// it lacks an entry point: the probe is skipped with the error's text.
	ErrNoLibrary = errors.New("BLAS library not found")
	// ErrNoDriver is wrapped when the vendor driver library cannot be
	// loaded or initialised: the probe is skipped likewise.
	ErrNoDriver = errors.New("GPU driver library unavailable")
	// ErrNoDevice is wrapped when no device has the requested bus address.
	ErrNoDevice = errors.New("no such device")
)

// LibraryInfo names the loaded library.
type LibraryInfo struct {
	// Name is the library, e.g. "cuBLASLt".
	Name string
	// Path is the file loaded, as the dynamic loader resolved it.
	Path string
	// Version is the library's own version number (cublasLtGetVersion:
	// major·10000 + minor·100 + patch).
	Version int
	// Source says how it was found: "option", "env", "loader" or "search".
	Source string
}

// VersionString formats Version as major.minor.patch.
func (l LibraryInfo) VersionString() string {
	v := l.Version
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// Options control Run. The zero value is the default probe.
type Options struct {
	// M, N, K are the GEMM's dimensions; 0 means DefaultSize.
	M, N, K int
	// Precisions names the precisions to run (Precision.Name); nil: all.
	Precisions []string
	// WarmUp is how long the first precision measured keeps the device
	// busy before timing (an idle GPU clocks low); 0 means DefaultWarmUp.
	WarmUp time.Duration
	// Hold is how long each precision keeps the device busy with the
	// algorithm it kept right before its timed samples; 0 means
	// DefaultHold.
	Hold time.Duration
	// Algorithms is how many algorithms the heuristic is asked for; each
	// is timed briefly and the fastest kept. 0 means DefaultAlgorithms.
	Algorithms int
	// Samples is the number of timed samples; 0 means DefaultSamples.
	Samples int
	// MinSample is the shortest timed sample: a sample repeats the GEMM
	// until it lasts this long; 0 means DefaultMinSample.
	MinSample time.Duration
	// WorkspaceBytes is the workspace offered to the library; 0 means
	// DefaultWorkspaceBytes.
	WorkspaceBytes uint64
	// CheckLines is the number of whole rows and columns checked at large
	// sizes (plus scattered elements); 0 means 1.
	CheckLines int
	// Seed seeds the random operands.
	Seed uint64
	// Progress, when set, is told each precision as its GEMM and then its
	// roofline sweep start (e.g. "gemm bf16", "roofline bf16").
	Progress func(step string)
}

// tell tells progress, when set, that step starts.
func tell(progress func(step string), step string) {
	if progress != nil {
		progress(step)
	}
}

// Defaults for Options' zero fields. Device time per measured
// precision: a warm-up before the first (250 ms, as long as an idle GPU
// takes to reach its boost clock; later precisions only size their
// batches), AlgorithmTrials batches of at least MinSample per algorithm
// (4 × 2 × 10 ms), then a hold of the kept algorithm (250 ms, the rule
// every probe of this suite follows: the device under load for at least
// that long before timing, so the figure is a sustained one, not a burst
// before the power limit acts), then Samples × MinSample (8 × 10 ms). The
// host's work comes on top: drawing two operands (table-driven, see fill),
// uploading them, and checking each algorithm's output (sampled rows and
// columns).
const (
	DefaultSize           = 8192
	DefaultWarmUp         = 250 * time.Millisecond
	DefaultHold           = 250 * time.Millisecond
	DefaultAlgorithms     = 4
	DefaultSamples        = 8
	DefaultMinSample      = 10 * time.Millisecond
	DefaultWorkspaceBytes = 32 << 20
	// AlgorithmTrials is how many batches time each algorithm; the
	// fastest batch counts, so a first launch's set-up cost does not.
	AlgorithmTrials = 2
)

// withDefaults fills o's zero fields.
func (o Options) withDefaults() Options {
	for _, d := range []*int{&o.M, &o.N, &o.K} {
		if *d == 0 {
			*d = DefaultSize
		}
	}
	if o.WarmUp == 0 {
		o.WarmUp = DefaultWarmUp
	}
	if o.Hold == 0 {
		o.Hold = DefaultHold
	}
	if o.Algorithms == 0 {
		o.Algorithms = DefaultAlgorithms
	}
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.MinSample == 0 {
		o.MinSample = DefaultMinSample
	}
	if o.WorkspaceBytes == 0 {
		o.WorkspaceBytes = DefaultWorkspaceBytes
	}
	o.CheckLines = max(o.CheckLines, 1)
	return o
}

// selected returns the precisions o asks for, or an error naming an
// unknown one.
func (o Options) selected() ([]Precision, error) {
	if o.Precisions == nil {
		return Precisions(), nil
	}
	var out []Precision
	for _, name := range o.Precisions {
		p, ok := LookupPrecision(name)
		if !ok {
			return nil, fmt.Errorf("cublaslt: unknown precision %q", name)
		}
		out = append(out, p)
	}
	return out, nil
}

// validate rejects shapes the layouts cannot take: every dimension a
// positive multiple of 32 (block-scaled K blocks and int8/fp8 alignment).
func (o Options) validate() error {
	if o.Algorithms < 1 || o.Samples < 1 {
		return fmt.Errorf("cublaslt: %d algorithms, %d samples: each must be at least 1", o.Algorithms, o.Samples)
	}
	if o.M <= 0 || o.N <= 0 || o.K <= 0 || o.M%32 != 0 || o.N%32 != 0 || o.K%32 != 0 {
		return fmt.Errorf("cublaslt: GEMM %d×%d×%d: every dimension must be a positive multiple of 32", o.M, o.N, o.K)
	}
	return nil
}

// Status says what became of one precision.
type Status string

// The statuses of an Entry.
const (
	// StatusMeasured: timed and checked; the entry has figures.
	StatusMeasured Status = "measured"
	// StatusNotOffered: the library has no algorithm for it on this device
	// (or refused an attribute it needs); Reason says which answer.
	StatusNotOffered Status = "not_offered"
	// StatusNotRun: offered, but this probe cannot lay out its inputs yet.
	StatusNotRun Status = "not_run"
)

// Entry is one precision's outcome.
type Entry struct {
	Precision Precision
	Status    Status
	// Reason says why an entry has no figures.
	Reason string
	// M, N, K are the GEMM's dimensions.
	M, N, K int
	// OpsPerGEMM is 2·m·n·k.
	OpsPerGEMM float64
	// Seconds is the time of one GEMM (CUDA events around each sample's
	// batch, divided by the batch), over the timed samples.
	Seconds schema.Stat
	// OpsPerS is operations per second per sample (OpCounting).
	OpsPerS schema.Stat
	// Repeats is how many GEMMs each timed sample ran.
	Repeats int
	// WarmUpS is how long the warm-up kept the device busy, in seconds.
	WarmUpS float64
	// Algorithm is the index, in the heuristic's order, of the algorithm
	// the figures are from: the fastest of Trials.
	Algorithm int
	// Trials holds each algorithm the heuristic proposed and the library
	// could run, in its order, with its trial time.
	Trials []Trial
	// WorkspaceBytes is the workspace the kept algorithm asked for.
	WorkspaceBytes uint64
	// Check is the reference check the timed output passed.
	Check Check
	// ElapsedS is the wall time spent on this precision, host work
	// (drawing, upload, checks) included, in seconds.
	ElapsedS float64
	// Phases splits the wall time of a measured precision by step.
	Phases Phases
}

// Phases is where a measured precision's wall time went, in seconds.
type Phases struct {
	// DrawS is the wait for its operands (drawn in the background while
	// the previous precision ran, so mostly zero after the first).
	DrawS float64
	// LoadS is uploading the operands and allocating the output.
	LoadS float64
	// WarmUpS is the warm-up that sizes the batches.
	WarmUpS float64
	// TrialsS is timing and checking each algorithm.
	TrialsS float64
	// HoldS is the hold of the kept algorithm before the samples.
	HoldS float64
	// SamplesS is the timed samples.
	SamplesS float64
	// CheckS is reading back and checking the last sample's output.
	CheckS float64
}

// Trial is one algorithm's brief timing before the samples. Its output
// was checked too (sampled elements at large sizes), so a wrong
// algorithm fails the probe even when it is not the one kept.
type Trial struct {
	// Seconds is the fastest trial batch's time per GEMM.
	Seconds float64
	// WorkspaceBytes is the workspace the algorithm asked for.
	WorkspaceBytes uint64
	// Check is how its output compared with the reference.
	Check Check
}

// Report is one Run: the library, the device and an entry per precision.
type Report struct {
	// Probe is ProbeName.
	Probe string
	// Library is the library that ran.
	Library LibraryInfo
	// BusID is the device's PCI address; Device its name.
	BusID, Device string
	// Entries holds one entry per precision asked for, in order.
	Entries []Entry
	// ElapsedS is the whole run's wall time in seconds.
	ElapsedS float64
}

// Measured returns the entries with figures.
func (r Report) Measured() []Entry {
	var out []Entry
	for _, e := range r.Entries {
		if e.Status == StatusMeasured {
			out = append(out, e)
		}
	}
	return out
}

// Skips returns the card's skip records for entries without figures.
func (r Report) Skips() []schema.Skip {
	var out []schema.Skip
	for _, e := range r.Entries {
		if e.Status != StatusMeasured {
			out = append(out, schema.Skip{Probe: r.Probe, Item: "gemm " + e.Precision.Name, Reason: e.Reason})
		}
	}
	return out
}

// NotFoundError is returned (wrapping ErrNoLibrary) when no candidate
// could be loaded: every place tried and why it failed.
type NotFoundError struct {
	Tried []Attempt
}

// Attempt is one place a library was looked for.
type Attempt struct {
	// Path is the file or soname tried.
	Path string
	// Source is how it came to be tried ("option", "env", "loader", "search").
	Source string
	// Err is why it could not be used.
	Err string
}

func (e *NotFoundError) Error() string {
	if len(e.Tried) == 0 {
		return "cublaslt: no cuBLASLt library found: nothing to try"
	}
	var b strings.Builder
	b.WriteString("cublaslt: no usable cuBLASLt library (tried ")
	for i, a := range e.Tried {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s [%s]: %s", a.Path, a.Source, a.Err)
	}
	b.WriteString(")")
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNoLibrary) true.
func (e *NotFoundError) Unwrap() error { return ErrNoLibrary }
