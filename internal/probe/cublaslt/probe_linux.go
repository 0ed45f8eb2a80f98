//go:build linux && cgo

package cublaslt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/stats"
)

// Run measures every precision of o on busID ("": the first CUDA device);
// one not offered is StatusNotOffered, a failed check wraps ErrCheckFailed.
// Every device resource is released on return.
func (l *Library) Run(ctx context.Context, busID string, o Options) (Report, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return Report{}, err
	}
	precs, err := o.selected()
	if err != nil {
		return Report{}, err
	}
	start := time.Now()
	var rep Report
	err = l.onDevice("Run", busID, o.WorkspaceBytes, func(d *device) error {
		rep = Report{Probe: ProbeName, Library: l.info, BusID: d.busID, Device: d.name}
		pool := newOperandPool(o.Seed)
		defer pool.wait()
		warm := o.WarmUp // only the first measured precision warms up
		for i, p := range precs {
			if err := ctx.Err(); err != nil {
				return err
			}
			tell(o.Progress, "gemm "+p.Name)
			t0 := time.Now()
			pool.turnTo(precs, i, o.M, o.N, o.K)
			e, err := d.runOne(ctx, p, o, warm, pool, o.Seed+uint64(i)*0x9e3779b97f4a7c15)
			if err != nil {
				return fmt.Errorf("cublaslt: %s on %s: %w", p.Name, d.busID, err)
			}
			if e.Status == StatusMeasured {
				warm = 0
			}
			e.ElapsedS = time.Since(t0).Seconds()
			rep.Entries = append(rep.Entries, e)
		}
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	rep.ElapsedS = time.Since(start).Seconds()
	return rep, nil
}

// onDevice runs fn on the device at busID with this goroutine locked to
// its OS thread, where the CUDA context is current, and releases the device.
func (l *Library) onDevice(what, busID string, workspace uint64, fn func(d *device) error) error {
	if l.api == nil {
		return fmt.Errorf("cublaslt: %s on a closed Library", what)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, err := l.openDevice(busID, workspace)
	if err != nil {
		return err
	}
	return errors.Join(fn(d), d.release())
}

func (d *device) runOne(ctx context.Context, p Precision, o Options, warm time.Duration, pool *operandPool, seed uint64) (Entry, error) {
	e := Entry{Precision: p, M: o.M, N: o.N, K: o.K, OpsPerGEMM: 2 * float64(o.M) * float64(o.N) * float64(o.K),
		Check: Check{Result: refcheck.New()}}
	mm, err := d.newMatmul(p, o.M, o.N, o.K, o.Algorithms)
	var ref *refusal
	if errors.As(err, &ref) {
		e.Status, e.Reason = StatusNotOffered, ref.reason
		return e, nil
	}
	if err != nil {
		return e, err
	}
	if !p.Packed {
		e.Status = StatusNotRun
		e.Reason = fmt.Sprintf("cuBLASLt %s offers it, but this probe does not lay out %v inputs yet", d.l.info.VersionString(), p.A)
		return e, mm.release()
	}
	err = mm.measure(ctx, o, warm, pool, seed, &e)
	return e, errors.Join(err, mm.release())
}

// measure warms up, times and checks each algorithm, holds the fastest,
// times the samples with it and checks the last output, into e.
func (mm *matmul) measure(ctx context.Context, o Options, warm time.Duration, pool *operandPool, seed uint64, e *Entry) error {
	ph := phaseClock{start: time.Now(), into: &e.Phases}
	keys := operands(mm.p, mm.m, mm.n, mm.k)
	g := gemm{p: mm.p, m: mm.m, n: mm.n, k: mm.k, a: pool.get(keys[0]), bt: pool.get(keys[1])}
	ph.lap(&e.Phases.DrawS)
	if err := mm.load(g); err != nil {
		return err
	}
	ph.lap(&e.Phases.LoadS)
	per, busy, err := mm.warmUp(ctx, warm)
	if err != nil {
		return err
	}
	e.WarmUpS = busy
	e.Repeats = int(min(1e4, math.Ceil(o.MinSample.Seconds()/per)))
	ph.lap(&e.Phases.WarmUpS)
	if err := mm.pick(ctx, g, seed, e); err != nil {
		return err
	}
	ph.lap(&e.Phases.TrialsS)
	// Hold right before the samples: the device idled during the trials' checks.
	_, hold, err := mm.warmUp(ctx, o.Hold)
	if err != nil {
		return err
	}
	e.WarmUpS += hold
	ph.lap(&e.Phases.HoldS)
	secs, ops := make([]float64, o.Samples), make([]float64, o.Samples)
	for i := range secs {
		t, err := mm.d.timed(func() error { return mm.launch(e.Repeats) })
		if err != nil {
			return err
		}
		secs[i] = t / float64(e.Repeats)
		ops[i] = e.OpsPerGEMM / secs[i]
	}
	if e.Seconds, err = stats.Summarize(secs); err != nil {
		return err
	}
	if e.OpsPerS, err = stats.Summarize(ops); err != nil {
		return err
	}
	ph.lap(&e.Phases.SamplesS)
	out, err := mm.result()
	if err != nil {
		return err
	}
	e.Check, err = g.check(out, o.CheckLines, seed)
	if err != nil {
		return err
	}
	ph.lap(&e.Phases.CheckS)
	e.Status = StatusMeasured
	return nil
}

// phaseClock adds the wall time since its last lap to a phase.
type phaseClock struct {
	start time.Time
	into  *Phases
}

func (c *phaseClock) lap(phase *float64) {
	now := time.Now()
	*phase += now.Sub(c.start).Seconds()
	c.start = now
}

// pick times each algorithm over AlgorithmTrials batches, checks each
// output, and leaves the fastest as mm.cur.
func (mm *matmul) pick(ctx context.Context, g gemm, seed uint64, e *Entry) error {
	e.Trials = make([]Trial, len(mm.algos))
	for i := range mm.algos {
		if err := ctx.Err(); err != nil {
			return err
		}
		mm.cur = i
		best := math.Inf(1)
		for range AlgorithmTrials {
			t, err := mm.d.timed(func() error { return mm.launch(e.Repeats) })
			if err != nil {
				return fmt.Errorf("algorithm %d of %d: %w", i, len(mm.algos), err)
			}
			best = min(best, t/float64(e.Repeats))
		}
		out, err := mm.result()
		if err != nil {
			return err
		}
		c, err := g.check(out, 0, seed+uint64(i))
		if err != nil {
			return fmt.Errorf("algorithm %d of %d: %w", i, len(mm.algos), err)
		}
		e.Trials[i] = Trial{Seconds: best, WorkspaceBytes: mm.algos[i].wsNeed, Check: c}
		if i == 0 || best < e.Trials[e.Algorithm].Seconds {
			e.Algorithm = i
		}
	}
	mm.cur = e.Algorithm
	e.WorkspaceBytes = mm.algos[mm.cur].wsNeed
	return nil
}

// warmUp runs batches, growing at most fourfold, until the device has been
// busy for dur; it returns the last batch's seconds per GEMM and the total.
func (mm *matmul) warmUp(ctx context.Context, dur time.Duration) (per, busy float64, err error) {
	batch := 1
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		t, err := mm.d.timed(func() error { return mm.launch(batch) })
		if err != nil {
			return 0, 0, err
		}
		busy += t
		per = max(t/float64(batch), 1e-9)
		left := dur.Seconds() - busy
		if left <= 0 {
			return per, busy, nil
		}
		batch = int(min(math.Ceil(left/per), float64(4*batch)))
	}
}
