package occupancy

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ErrBusy is wrapped by every BusyError: another process used a device the
// run must have to itself.
var ErrBusy = errors.New("device in use by another process")

// How and when a watch looks.
const (
	Gap = 200 * time.Millisecond // between the two readings before probing
	// The least time between two looks at a device at stage boundaries, and at
	// a long stage's progress steps.
	StageGap      = 5 * time.Second
	StepGap       = 10 * time.Second
	BusyThreshold = 10 // per cent both readings before probing reach, no process seen, for "in use"
)

// Limits of the record, the schema's (schema.SharedUse).
const (
	maxProcesses  = 256
	maxSamples    = 4096
	maxStageRunes = 200
)

// Env is where and when a watch reads.
type Env struct {
	Root string // procfs and sysfs are read below it; "" is the running system
	Self int    // the caller's pid: it and its descendants are never another user
	// Now and Sleep are the clock; nil means time.Now and time.Sleep.
	Now   func() time.Time
	Sleep func(time.Duration)
}

func (e Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e Env) sleep(d time.Duration) {
	if e.Sleep == nil {
		time.Sleep(d)
		return
	}
	e.Sleep(d)
}

// Target is one device to watch.
type Target struct {
	Addr     string // as the run names it (Stage's addr)
	BDF      string // sysfs form; "" when unknown
	Vendor   Vendor // nil when there is none
	NoVendor string // why Vendor is nil where the device should have one
	Skip     string // when set, why the device is left unchecked
}

// Watch looks for other users of a run's devices. Its methods are safe for
// concurrent use.
type Watch struct {
	env   Env
	allow bool
	start time.Time

	mu   sync.Mutex
	devs []*device
}

// device is a target and what was seen of it.
type device struct {
	Target
	last    time.Time
	clients Clients         // its DRM clients at the last look, ours included; nil when not read
	methods map[string]bool // the methods that worked at least once
	notes   []string        // why the others did not
	others  bool
	procs   []schema.SharedProcess
	util    []schema.UtilizationSample
}

// New watches targets; with allow, other users are recorded instead of
// failing the run. Every time in its records counts from now.
func New(env Env, targets []Target, allow bool) *Watch {
	w := &Watch{env: env, allow: allow, start: env.now()}
	for _, t := range targets {
		w.devs = append(w.devs, &device{Target: t, methods: map[string]bool{}})
	}
	return w
}

// Start looks at every device twice, Gap apart, before anything is probed. A
// device with another user, or busy by BusyThreshold in both readings, fails
// it with a *BusyError unless the watch allows sharing.
func (w *Watch) Start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := w.pick("")
	if len(live) == 0 {
		return nil
	}
	first := w.lookAll(live, schema.StageBeforeProbing)
	w.env.sleep(Gap)
	second := w.lookAll(live, schema.StageBeforeProbing)
	var errs []error
	for i, d := range live {
		a, b := first[i], second[i]
		found := append(append(a.procs, b.procs...), w.activeProcs(a.clients, b.clients, b.at)...)
		d.util = appendCapped(d.util, append(a.util, b.util...)...)
		d.clients, d.last = b.clients, b.when
		d.record(found)
		pct, src, busy := busyBoth(a.util, b.util)
		if len(found) > 0 || busy {
			d.others = true
		}
		if d.others && !w.allow {
			errs = append(errs, &BusyError{Addr: d.Addr, Processes: d.procs, BusyPercent: pct, BusySource: src})
		}
	}
	return errors.Join(errs...)
}

// Stage looks at the device addr names (every device, when none) as stage
// begins, unless it was looked at within StageGap. Another process using it
// fails the call with a *BusyError unless sharing is allowed; utilization is
// recorded, not judged, since it counts the run's own work.
func (w *Watch) Stage(addr, stage string) error { return w.check(addr, stage, StageGap) }

// Step is Stage for a long stage's progress steps, at most once per StepGap.
func (w *Watch) Step(addr, stage string) error { return w.check(addr, stage, StepGap) }

// Final looks at every device once more as the run ends.
func (w *Watch) Final() error { return w.check("", "end of run", 0) }

func (w *Watch) check(addr, stage string, gap time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.env.now()
	var due []*device
	for _, d := range w.pick(addr) {
		if now.Sub(d.last) >= gap {
			due = append(due, d)
		}
	}
	if len(due) == 0 {
		return nil
	}
	var errs []error
	for i, l := range w.lookAll(due, stage) {
		d := due[i]
		found := append(l.procs, w.activeProcs(d.clients, l.clients, l.at)...)
		d.util = appendCapped(d.util, l.util...)
		d.clients, d.last = l.clients, l.when
		d.record(found)
		if len(found) > 0 {
			d.others = true
			if !w.allow {
				errs = append(errs, &BusyError{Addr: d.Addr, Stage: stage, Processes: found})
			}
		}
	}
	return errors.Join(errs...)
}

// pick returns the device addr names, or every checked device when it names
// none.
func (w *Watch) pick(addr string) []*device {
	var all []*device
	for _, d := range w.devs {
		if d.Skip != "" {
			continue
		}
		if d.Addr == addr {
			return []*device{d}
		}
		all = append(all, d)
	}
	return all
}

// Record is the card's record of the device at addr. A device no method could
// read is recorded as not checked, with why.
func (w *Watch) Record(addr string) schema.SharedUse {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := slices.IndexFunc(w.devs, func(d *device) bool { return d.Addr == addr })
	if i < 0 {
		return schema.SharedUse{NotCheckedReason: "not among the devices watched for other users"}
	}
	d := w.devs[i]
	if d.Skip != "" {
		return schema.SharedUse{NotCheckedReason: d.Skip}
	}
	var methods []string
	for _, m := range []string{schema.SharedNVML, schema.SharedDRMFdinfo, schema.SharedGPUBusyPercent} {
		if d.methods[m] {
			methods = append(methods, m)
		}
	}
	if len(methods) == 0 {
		return schema.SharedUse{NotCheckedReason: d.notChecked()}
	}
	return schema.SharedUse{Checked: true, Methods: methods, Allowed: w.allow, OthersFound: d.others,
		Processes: slices.Clone(d.procs), Utilization: slices.Clone(d.util)}
}

func (d *device) notChecked() string {
	var why []string
	if d.NoVendor != "" {
		why = append(why, d.NoVendor)
	}
	why = append(why, d.notes...)
	if d.BDF != "" {
		why = append(why, "no DRM client of "+d.BDF+" in /proc/*/fdinfo reports engine counters", "no amdgpu gpu_busy_percent")
	}
	return truncate("nothing can see other users of this device: "+strings.Join(why, "; "), 400)
}

// record adds found to d's processes once per pid and source, keeping the
// larger memory figure.
func (d *device) record(found []schema.SharedProcess) {
	for _, f := range found {
		i := slices.IndexFunc(d.procs, func(p schema.SharedProcess) bool { return p.PID == f.PID && p.Source == f.Source })
		switch {
		case i >= 0:
			if m := f.UsedMemoryBytes; m != nil && (d.procs[i].UsedMemoryBytes == nil || *m > *d.procs[i].UsedMemoryBytes) {
				d.procs[i].UsedMemoryBytes = m
			}
		case len(d.procs) < maxProcesses:
			d.procs = append(d.procs, f)
		}
	}
}

// busyBoth reports whether one source read the device busy by BusyThreshold
// in both readings, and the lower reading.
func busyBoth(a, b []schema.UtilizationSample) (pct float64, source string, busy bool) {
	for _, x := range a {
		for _, y := range b {
			if x.Source == y.Source && math.Min(x.GPUPercent, y.GPUPercent) >= BusyThreshold {
				return math.Min(x.GPUPercent, y.GPUPercent), x.Source, true
			}
		}
	}
	return 0, "", false
}

func appendCapped(s []schema.UtilizationSample, more ...schema.UtilizationSample) []schema.UtilizationSample {
	for _, m := range more {
		if len(s) >= maxSamples {
			break
		}
		s = append(s, m)
	}
	return s
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
