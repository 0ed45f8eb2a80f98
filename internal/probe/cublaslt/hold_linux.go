//go:build linux && cgo

package cublaslt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// Soak holds the first precision of o the library offers on the device
// at busID for o.Duration: pieces of about o.Piece each, timed by the
// device's events, one after another with nothing but the host's wait in
// between. The output of the last piece is checked against the CPU
// reference (every piece multiplies the same operands, so a device that
// goes wrong while hot shows there); a failure wraps ErrCheckFailed and
// no result is returned. None of the precisions offered wraps
// ErrNoSoakLoad. Every device resource is released before Soak returns.
func (l *Library) Soak(ctx context.Context, busID string, o SoakOptions) (SoakResult, error) {
	o, err := o.withDefaults()
	if err != nil {
		return SoakResult{}, err
	}
	var res SoakResult
	err = l.onDevice("Soak", busID, o.WorkspaceBytes, func(d *device) error {
		var err error
		res, err = d.soak(ctx, o)
		return err
	})
	return res, err
}

func (d *device) soak(ctx context.Context, o SoakOptions) (SoakResult, error) {
	res := SoakResult{Probe: ProbeName, M: o.M, N: o.N, K: o.K}
	for _, name := range o.Precisions {
		p, ok := LookupPrecision(name)
		if !ok {
			return res, fmt.Errorf("cublaslt: unknown precision %q", name)
		}
		if !p.Packed {
			res.Refused = append(res.Refused, name+": this probe does not lay out its inputs yet")
			continue
		}
		mm, err := d.newMatmul(p, o.M, o.N, o.K, 1)
		var ref *refusal
		if errors.As(err, &ref) {
			res.Refused = append(res.Refused, name+": "+ref.reason)
			continue
		}
		if err != nil {
			return res, fmt.Errorf("cublaslt: soak %s: %w", name, err)
		}
		res.Precision = p
		err = mm.hold(ctx, o, &res)
		return res, errors.Join(err, mm.release())
	}
	return res, fmt.Errorf("cublaslt: soak: %w (%v)", ErrNoSoakLoad, res.Refused)
}

// hold is Soak's load on one set-up precision.
func (mm *matmul) hold(ctx context.Context, o SoakOptions, res *SoakResult) error {
	keys := operands(mm.p, mm.m, mm.n, mm.k)
	g := gemm{p: mm.p, m: mm.m, n: mm.n, k: mm.k,
		a:  randomOperand(keys[0].t, keys[0].rows, keys[0].cols, keys[0].seed(o.Seed)),
		bt: randomOperand(keys[1].t, keys[1].rows, keys[1].cols, keys[1].seed(o.Seed))}
	if err := mm.load(g); err != nil {
		return err
	}
	// One piece's worth of GEMMs sizes the pieces; it is not a point.
	per, _, err := mm.warmUp(ctx, o.Piece)
	if err != nil {
		return err
	}
	res.Repeats = int(max(1, min(1e5, math.Round(o.Piece.Seconds()/per))))
	ops := 2 * float64(mm.m) * float64(mm.n) * float64(mm.k) * float64(res.Repeats)
	start := time.Now()
	for time.Since(start) < o.Duration {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := mm.d.timed(func() error { return mm.launch(res.Repeats) })
		if err != nil {
			return err
		}
		pt := SoakPoint{At: time.Since(start), OpsPerS: ops / t}
		res.Points = append(res.Points, pt)
		if o.OnPoint != nil {
			o.OnPoint(pt.At, pt.OpsPerS)
		}
	}
	res.Duration = time.Since(start)
	out, err := mm.result()
	if err != nil {
		return err
	}
	res.Check, err = g.check(out, o.CheckLines, o.Seed)
	return err
}

// Roofline sweeps the reduction length K of m×n×K GEMMs for each
// precision of o on the device at busID, from memory-bound (small K: the
// output's traffic dominates) to compute-bound. Each point uses the
// heuristic's first algorithm for its shape, holds it briefly, takes
// o.Samples samples and checks its output (sampled elements). A
// precision the library does not offer is a sweep with that status; a
// failed check wraps ErrCheckFailed. Every device resource is released
// before Roofline returns.
func (l *Library) Roofline(ctx context.Context, busID string, o RooflineOptions) ([]RooflineSweep, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	precs, err := (Options{Precisions: o.Precisions}).selected()
	if err != nil {
		return nil, err
	}
	var out []RooflineSweep
	err = l.onDevice("Roofline", busID, o.WorkspaceBytes, func(d *device) error {
		// The next precision's operands are drawn while the device sweeps
		// this one's, as Run draws them.
		pool := newOperandPool(o.Seed)
		defer pool.wait()
		for i, p := range precs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if o.Progress != nil {
				o.Progress("roofline " + p.Name)
			}
			cur := pool.turnTo(precs, i, o.M, o.N, o.K)
			seed := o.Seed + uint64(i)*0x9e3779b97f4a7c15
			s, err := d.sweep(ctx, p, o, seed, func() (operand, operand) { return pool.get(cur[0]), pool.get(cur[1]) })
			if err != nil {
				return fmt.Errorf("cublaslt: roofline %s on %s: %w", p.Name, d.busID, err)
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sweep measures one precision at every K of o. The operands, from
// draw, are the full-size ones (rows × o.K), taken once at the first
// point; a smaller K reads the first rows·K elements of each as its
// rows×K operand (random values all the same, packed as its layout
// says), uploaded for that point.
func (d *device) sweep(ctx context.Context, p Precision, o RooflineOptions, seed uint64, draw func() (a, bt operand)) (RooflineSweep, error) {
	s := RooflineSweep{Precision: p, M: o.M, N: o.N}
	if !p.Packed {
		s.Status, s.Reason = StatusNotRun, "this probe does not lay out "+p.A.String()+" inputs yet"
		return s, nil
	}
	var a, bt operand
	for _, k := range o.Ks {
		mm, err := d.newMatmul(p, o.M, o.N, k, 1)
		var ref *refusal
		if errors.As(err, &ref) {
			s.Status, s.Reason, s.Points = StatusNotOffered, fmt.Sprintf("K %d: %s", k, ref.reason), nil
			return s, nil
		}
		if err != nil {
			return s, err
		}
		if a.raw == nil {
			a, bt = draw()
		}
		pt, err := mm.point(ctx, o, a.prefix(k), bt.prefix(k), seed)
		if err = errors.Join(err, mm.release()); err != nil {
			return s, fmt.Errorf("K %d: %w", k, err)
		}
		s.Points = append(s.Points, pt)
	}
	s.Status = StatusMeasured
	return s, nil
}

// point times and checks one GEMM of a sweep.
func (mm *matmul) point(ctx context.Context, o RooflineOptions, a, bt operand, seed uint64) (RooflinePoint, error) {
	g := gemm{p: mm.p, m: mm.m, n: mm.n, k: mm.k, a: a, bt: bt}
	pt := RooflinePoint{K: mm.k, Ops: 2 * float64(mm.m) * float64(mm.n) * float64(mm.k), Bytes: leastBytes(mm.p, mm.m, mm.n, mm.k)}
	if err := mm.load(g); err != nil {
		return pt, err
	}
	per, _, err := mm.warmUp(ctx, o.Hold)
	if err != nil {
		return pt, err
	}
	reps := int(min(1e5, math.Ceil(o.MinSample.Seconds()/per)))
	secs, ops := make([]float64, o.Samples), make([]float64, o.Samples)
	for i := range secs {
		t, err := mm.d.timed(func() error { return mm.launch(reps) })
		if err != nil {
			return pt, err
		}
		secs[i] = t / float64(reps)
		ops[i] = pt.Ops / secs[i]
	}
	if pt.Seconds, err = stats.Summarize(secs); err != nil {
		return pt, err
	}
	if pt.OpsPerS, err = stats.Summarize(ops); err != nil {
		return pt, err
	}
	out, err := mm.result()
	if err != nil {
		return pt, err
	}
	pt.Check, err = g.check(out, 0, seed)
	return pt, err
}
