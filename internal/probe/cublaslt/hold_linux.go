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

// Soak holds o's first offered precision on busID for o.Duration in pieces
// of about o.Piece and checks the last (ErrCheckFailed); none offered wraps
// ErrNoSoakLoad. Every device resource is released on return.
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

// Roofline sweeps K of m×n×K GEMMs for each precision of o on busID,
// checking each output (ErrCheckFailed). Every device resource is released
// on return.
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
		pool := newOperandPool(o.Seed)
		defer pool.wait()
		for i, p := range precs {
			if err := ctx.Err(); err != nil {
				return err
			}
			tell(o.Progress, "roofline "+p.Name)
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

// sweep measures one precision at every K of o in rounds of one sample per
// K, then checks each K's output.
func (d *device) sweep(ctx context.Context, p Precision, o RooflineOptions, seed uint64, draw func() (a, bt operand)) (s RooflineSweep, err error) {
	s = RooflineSweep{Precision: p, M: o.M, N: o.N}
	if !p.Packed {
		s.Status, s.Reason = StatusNotRun, "this probe does not lay out "+p.A.String()+" inputs yet"
		return s, nil
	}
	var mms []*matmul
	defer func() {
		for _, mm := range mms {
			err = errors.Join(err, mm.release())
		}
	}()
	for _, k := range o.Ks {
		mm, err := d.newMatmul(p, o.M, o.N, k, 1)
		var ref *refusal
		if errors.As(err, &ref) {
			s.Status, s.Reason = StatusNotOffered, fmt.Sprintf("K %d: %s", k, ref.reason)
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("K %d: %w", k, err)
		}
		mms = append(mms, mm)
	}
	a, bt := draw()
	full := gemm{p: p, m: o.M, n: o.N, k: o.K, a: a, bt: bt}
	if err := mms[len(mms)-1].load(full); err != nil {
		return s, err
	}
	for _, mm := range mms[:len(mms)-1] {
		mm.borrow(mms[len(mms)-1])
	}
	reps := make([]int, len(mms))
	for i, mm := range mms {
		per, _, err := mm.warmUp(ctx, o.Hold)
		if err != nil {
			return s, fmt.Errorf("K %d: %w", mm.k, err)
		}
		reps[i] = int(min(1e5, math.Ceil(o.MinSample.Seconds()/per)))
	}
	secs := make([][]float64, len(mms))
	for r := range o.Samples {
		for i, mm := range mms {
			if err := ctx.Err(); err != nil {
				return s, err
			}
			t, err := d.timed(func() error { return mm.launch(reps[i]) })
			if err != nil {
				return s, fmt.Errorf("K %d, round %d: %w", mm.k, r+1, err)
			}
			secs[i] = append(secs[i], t/float64(reps[i]))
		}
	}
	for i, mm := range mms {
		pt, err := mm.point(secs[i], a.prefix(mm.k), bt.prefix(mm.k), seed)
		if err != nil {
			return s, fmt.Errorf("K %d: %w", mm.k, err)
		}
		s.Points = append(s.Points, pt)
	}
	s.Status = StatusMeasured
	return s, nil
}

// point summarises one K's samples (seconds per GEMM) and checks the
// output of one more GEMM.
func (mm *matmul) point(secs []float64, a, bt operand, seed uint64) (RooflinePoint, error) {
	pt := RooflinePoint{K: mm.k, Ops: 2 * float64(mm.m) * float64(mm.n) * float64(mm.k), Bytes: leastBytes(mm.p, mm.m, mm.n, mm.k)}
	ops := make([]float64, len(secs))
	for i, t := range secs {
		ops[i] = pt.Ops / t
	}
	var err error
	if pt.Seconds, err = stats.Summarize(secs); err != nil {
		return pt, err
	}
	if pt.OpsPerS, err = stats.Summarize(ops); err != nil {
		return pt, err
	}
	if _, err := mm.d.timed(func() error { return mm.launch(1) }); err != nil {
		return pt, err
	}
	out, err := mm.result()
	if err != nil {
		return pt, err
	}
	pt.Check, err = gemm{p: mm.p, m: mm.m, n: mm.n, k: mm.k, a: a, bt: bt}.check(out, 0, seed)
	return pt, err
}
