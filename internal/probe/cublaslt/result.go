package cublaslt

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ProbeName is the probe's name on the card.
const ProbeName = "cuda-cublaslt"

// ProbeVersion is the version of the probe's method.
const ProbeVersion = "3"

// OpCounting is the operation-counting rule: a GEMM is 2·m·n·k operations.
const OpCounting = "gemm=2mnk"

// Errors a caller turns into a skip of the probe: no usable library, no
// usable driver, no device at the bus address asked for.
var (
	ErrNoLibrary = errors.New("BLAS library not found")
	ErrNoDriver  = errors.New("GPU driver library unavailable")
	ErrNoDevice  = errors.New("no such device")
)

// LibraryInfo names the loaded library.
type LibraryInfo struct {
	Name    string // e.g. "cuBLASLt"
	Path    string // as the dynamic loader resolved it
	Version int    // major·10000 + minor·100 + patch
	Source  string // "option", "env", "loader" or "search"
}

// VersionString formats Version as major.minor.patch.
func (l LibraryInfo) VersionString() string {
	v := l.Version
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// Options control Run; zero fields take the Default values.
type Options struct {
	M, N, K    int
	Precisions []string // by Precision.Name; nil: all
	// WarmUp is how long the first precision keeps the device busy before timing.
	WarmUp time.Duration
	// Hold is how long each precision runs its kept algorithm right before its samples.
	Hold           time.Duration
	Algorithms     int           // asked of the heuristic; the fastest is kept
	Samples        int           // timed samples
	MinSample      time.Duration // a sample repeats the GEMM at least this long
	WorkspaceBytes uint64
	CheckLines     int // whole rows and columns checked at large sizes; 1
	Seed           uint64
	// Progress, when set, is told each step as it starts ("gemm bf16", "roofline bf16").
	Progress func(step string)
}

// tell tells progress, when set, that step starts.
func tell(progress func(step string), step string) {
	if progress != nil {
		progress(step)
	}
}

// Defaults for Options' zero fields.
const (
	DefaultSize           = 8192
	DefaultWarmUp         = 250 * time.Millisecond
	DefaultHold           = 250 * time.Millisecond
	DefaultAlgorithms     = 4
	DefaultSamples        = 8
	DefaultMinSample      = 10 * time.Millisecond
	DefaultWorkspaceBytes = 32 << 20
	// AlgorithmTrials is how many batches time each algorithm; the fastest counts.
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

// selected returns the precisions o asks for.
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

// validate requires every dimension to be a positive multiple of 32.
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

// An Entry is measured (timed and checked), not offered by the library on
// this device, or offered but not run: the probe cannot lay out its inputs.
const (
	StatusMeasured   Status = "measured"
	StatusNotOffered Status = "not_offered"
	StatusNotRun     Status = "not_run"
)

// Entry is one precision's outcome; times are in seconds.
type Entry struct {
	Precision  Precision
	Status     Status
	Reason     string // why there are no figures
	M, N, K    int
	OpsPerGEMM float64 // 2·m·n·k
	// Seconds is one GEMM's time by the CUDA events, over the samples.
	Seconds schema.Stat
	OpsPerS schema.Stat
	Repeats int // GEMMs per sample
	WarmUpS float64
	// Algorithm is the index in the heuristic's order of the fastest of Trials.
	Algorithm      int
	Trials         []Trial
	WorkspaceBytes uint64  // asked for by the kept algorithm
	Check          Check   // of the last sample's output
	ElapsedS       float64 // wall time, host work included
	Phases         Phases
}

// Phases is where a measured precision's wall time went, in seconds.
type Phases struct {
	DrawS, LoadS, WarmUpS, TrialsS, HoldS, SamplesS, CheckS float64
}

// Trial is one algorithm's brief timing before the samples. Its output is
// checked too, so a wrong algorithm fails the probe even when not kept.
type Trial struct {
	Seconds        float64 // the fastest batch's, per GEMM
	WorkspaceBytes uint64
	Check          Check
}

// Report is one Run: the library, the device and an entry per precision
// asked for, in order.
type Report struct {
	Probe         string // ProbeName
	Library       LibraryInfo
	BusID, Device string // PCI address and name
	Entries       []Entry
	ElapsedS      float64
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

// NotFoundError, wrapping ErrNoLibrary, lists every place tried and why.
type NotFoundError struct {
	Tried []Attempt
}

// Attempt is one place a library was looked for.
type Attempt struct {
	Path   string // a file or soname
	Source string // as LibraryInfo.Source
	Err    string
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
