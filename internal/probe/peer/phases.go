package peer

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/schema"
)

// oneWay times bulk copies this → peer with the reverse idle.
func (m *meter) oneWay(ctx context.Context, b bufs) (Transfer, error) {
	jobs := []job{{src: b.fwdSrc, dst: b.fwdDst, n: m.p.bytes}}
	rates, words, err := m.bulk(ctx, jobs, []uint32{seedForward})
	if err != nil {
		return Transfer{}, err
	}
	return m.transfer(rates[0], words)
}

// bothWays times bulk copies both ways at once, returning this → peer's rate.
func (m *meter) bothWays(ctx context.Context, b bufs) (Transfer, error) {
	jobs := []job{{src: b.fwdSrc, dst: b.fwdDst, n: m.p.bytes}, {src: b.revSrc, dst: b.revDst, n: m.p.bytes}}
	rates, words, err := m.bulk(ctx, jobs, []uint32{seedForward, seedReverse})
	if err != nil {
		return Transfer{}, err
	}
	return m.transfer(rates[0], words)
}

// bulk runs warm-up and sampled rounds of jobs, then checks every destination
// in full; it returns each job's rates in bytes/s and the words checked.
func (m *meter) bulk(ctx context.Context, jobs []job, seeds []uint32) ([][]float64, uint64, error) {
	rates := make([][]float64, len(jobs))
	var words uint64
	for r := 0; r < m.p.warm+m.p.samples; r++ {
		ts, w, err := m.round(ctx, jobs, seeds)
		if err != nil {
			return nil, 0, err
		}
		words += w
		for i, t := range ts {
			if r >= m.p.warm && t > 0 {
				rates[i] = append(rates[i], float64(jobs[i].n)/t)
			} else if t <= 0 {
				return nil, 0, fmt.Errorf("peer: copy timed at %g s", t)
			}
		}
	}
	for i, j := range jobs {
		w, err := m.checkAll(j.dst, seeds[i])
		if err != nil {
			return nil, 0, err
		}
		words += w
	}
	return rates, words, nil
}

// latency times small copies this → peer, each checked in full.
func (m *meter) latency(ctx context.Context, b bufs) (schema.Stat, error) {
	jobs := []job{{src: b.smallSrc, dst: b.smallDst, n: m.p.small}}
	var ts []float64
	for r := 0; r < m.p.smallWarm+m.p.smallRuns; r++ {
		t, _, err := m.round(ctx, jobs, []uint32{seedSmall})
		if err != nil {
			return schema.Stat{}, err
		}
		if r >= m.p.smallWarm {
			ts = append(ts, t[0])
		}
	}
	return newStat(ts)
}

func (m *meter) transfer(rates []float64, words uint64) (Transfer, error) {
	st, err := newStat(rates)
	return Transfer{BytesPerS: st, TransferBytes: m.p.bytes, Timing: m.e.timing(), CheckedWords: words}, err
}
