package coopmat

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// RooflinePoint is one N×N×K GEMM of a sweep.
type RooflinePoint struct {
	K            uint32              // the reduction length
	Ops, Bytes   float64             // 2·N·N·K; the least bytes moved (A, B and the result once)
	OpsPerSecond schema.Stat         // the samples' throughput
	Timing       schema.TimingMethod // how the samples were timed
	Check        vk.Check            // the comparison with the CPU reference (passed)
}

// Intensity is the point's arithmetic intensity, operations per byte.
func (p RooflinePoint) Intensity() float64 { return p.Ops / p.Bytes }

// Roofline sweeps the reduction length of r, a result of Run: its shape,
// tile and N, with K doubling from the tile's BK (at least 32) up to N,
// each point timed as the tile search times and checked; a failed check
// wraps ErrCheckFailed.
func Roofline(ctx context.Context, d *vk.Device, r Result, o Options) ([]RooflinePoint, error) {
	if !r.MatrixEngine || r.tile.BK == 0 {
		return nil, fmt.Errorf("coopmat: roofline of %s %v: not a cooperative-matrix GEMM result of Run", r.Probe, r.Shape)
	}
	s, n := r.Shape, r.Problem.M
	l := newLayout(r.tile, s, d.Info.SubgroupSize)
	cache := &operandCache{}
	a := cache.get(o.Seed, s.A, n, 0)
	bt := cache.get(o.Seed, s.B, n, 1)
	var out []RooflinePoint
	for k := max(r.tile.BK, 32); k <= n; k *= 2 {
		if k%r.tile.BK != 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := rooflinePoint(ctx, d, l, n, k, a, bt, o)
		if err != nil {
			return nil, fmt.Errorf("coopmat: roofline %v K %d: %w", s, k, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// rooflinePoint runs one N×N×k GEMM on the first N·k elements of a and bt.
func rooflinePoint(ctx context.Context, d *vk.Device, l cmLayout, n, k uint32, a, bt operand, o Options) (RooflinePoint, error) {
	s := l.s
	if err := l.check(n, n, k, d.Info); err != nil {
		return RooflinePoint{}, err
	}
	cnt := int(n) * int(k)
	aRaw, bRaw := a.raw[:cnt*s.A.Bytes()], bt.raw[:cnt*s.B.Bytes()]
	if l.t.BRowMajor {
		bRaw = transposeRaw(bRaw, int(n), int(k), s.B.Bytes())
	}
	version := vk.SpirvVersion(d.Info.API)
	if l.t.Version != 0 {
		version = l.t.Version
	}
	words, err := buildCoopGEMM(version, l, n, n, k)
	if err != nil {
		return RooflinePoint{}, err
	}
	ops := 2 * float64(n) * float64(n) * float64(k)
	p := RooflinePoint{K: k, Ops: ops,
		Bytes: float64(cnt*s.A.Bytes()) + float64(cnt*s.B.Bytes()) + float64(n)*float64(n)*float64(s.Result.Bytes())}
	outBytes := uint64(n) * uint64(n) * uint64(s.Result.Bytes())
	groups := [3]uint32{n / l.bn, n / l.bm, 1}
	padA, padB := l.padBytes(n)
	setup := vk.KernelSetup{Addressed: l.t.Addressed, FullSubgroups: l.t.FullSubgroups, Pad: []uint64{padA, padB}}
	raw, m, err := d.RunGEMM(ctx, words, aRaw, bRaw, setup, outBytes, groups, ops, o.searchOptions().Timing)
	if err != nil {
		return RooflinePoint{}, err
	}
	if o.tamper != nil {
		o.tamper(vk.ProbeCoopMatGEMM, raw)
	}
	g := gemmCheck{m: n, n: n, k: k, a: a.values[:cnt], bt: bt.values[:cnt], acc: s.C, out: s.Result, lines: 1,
		seed: o.Seed ^ uint64(k)}
	if p.Check, err = g.run(raw); err != nil {
		return RooflinePoint{}, err
	}
	p.OpsPerSecond, p.Timing = m.Rate, m.Method
	return p, nil
}
