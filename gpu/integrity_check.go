package gpu

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// integrityStatus is a verify step's status buffer, decoded.
type integrityStatus struct {
	claimed uint32           // records claimed, may exceed MaxIntegrityErrors
	records []IntegrityError // without Pattern
	errors  []uint64         // per chunk
	checked []uint64         // elements, per chunk
}

func parseStatus(b []byte, chunks int) integrityStatus {
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	st := integrityStatus{claimed: word(0), errors: make([]uint64, chunks), checked: make([]uint64, chunks)}
	for r := 0; r < int(min(st.claimed, MaxIntegrityErrors)); r++ {
		i := integrityRecords + 4*r
		st.records = append(st.records, IntegrityError{Chunk: int(word(i)), WordIndex: uint64(word(i + 1)),
			Expected: word(i + 2), Actual: word(i + 3)})
	}
	for c := range chunks {
		base := integrityCounts + integrityPerChunk*c
		st.errors[c] = uint64(word(base))
		for k := 1; k <= integrityShards; k++ {
			st.checked[c] += uint64(word(base + k))
		}
	}
	return st
}

// verifyStatus returns a step's error count and records by chunk and word,
// or ErrCheckFailed unless every element was checked and each record agrees
// with the count, its chunk and the reference.
func verifyStatus(st integrityStatus, sizes []uint64, p IntegrityPattern, seed uint32, s integrityStep) (uint64, []IntegrityError, error) {
	var total uint64
	for c, n := range sizes {
		if st.checked[c] != n {
			return 0, nil, fmt.Errorf("%w: verify checked %d of the %d elements of chunk %d", ErrCheckFailed, st.checked[c], n, c)
		}
		total += st.errors[c]
	}
	// An invocation that saw mismatches records its first bad element's.
	if c := uint64(st.claimed); c > total || (c == 0) != (total == 0) {
		return 0, nil, fmt.Errorf("%w: verify claimed %d error records for %d errors", ErrCheckFailed, c, total)
	}
	for _, e := range st.records {
		if e.Chunk >= len(sizes) || e.WordIndex >= 4*sizes[e.Chunk] {
			return 0, nil, fmt.Errorf("%w: verify recorded word %d of chunk %d, outside the region", ErrCheckFailed, e.WordIndex, e.Chunk)
		}
		want := integrityWord(p.kind, seed, s.invert, uint32(e.Chunk), uint32(e.WordIndex))
		if e.Expected != want || e.Actual == e.Expected {
			return 0, nil, fmt.Errorf("%w: verify recorded word %d of chunk %d as expected %#08x, actual %#08x; the reference expects %#08x",
				ErrCheckFailed, e.WordIndex, e.Chunk, e.Expected, e.Actual, want)
		}
	}
	recs := slices.Clone(st.records)
	slices.SortFunc(recs, func(a, b IntegrityError) int {
		return cmp.Or(cmp.Compare(a.Chunk, b.Chunk), cmp.Compare(a.WordIndex, b.WordIndex))
	})
	for i := range recs {
		recs[i].Pattern = p.Name
	}
	return total, recs, nil
}

type integrityTally struct {
	res         IntegrityResult
	done, total uint64 // bytes moved by the table
}

func (r *integrityRun) runPasses(ctx context.Context) (IntegrityResult, error) {
	pats := IntegrityPatterns()
	words := r.plan.total / 4
	t := &integrityTally{}
	for _, p := range pats {
		t.total += p.BytesPerWord() * words * uint64(r.plan.passes)
		t.res.Patterns = append(t.res.Patterns, p.Name)
	}
	start := time.Now()
	for pass := 0; pass < r.plan.passes; pass++ {
		for _, p := range pats {
			r.d.progress("integrity: pass %d of %d, %s", pass+1, r.plan.passes, p.Name)
			if err := r.runPattern(ctx, p, pass, t); err != nil {
				return IntegrityResult{}, fmt.Errorf("integrity %s, pass %d: %w", p.Name, pass+1, err)
			}
		}
	}
	res := t.res
	res.Duration = time.Since(start)
	res.BytesTested, res.ChunkBytes, res.Chunks = r.plan.total, r.plan.largest(), len(r.chunks)
	res.Passes, res.BytesMoved = r.plan.passes, t.done
	res.BytesPerS = float64(t.done) / res.Duration.Seconds()
	return res, nil
}

func (r *integrityRun) runPattern(ctx context.Context, p IntegrityPattern, pass int, t *integrityTally) error {
	seed := seedFor(p.kind, pass)
	sizes := make([]uint64, len(r.chunks))
	for i, ch := range r.chunks {
		sizes[i] = ch.n
	}
	for i, s := range p.steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := r.runStep(p.kind, seed, s)
		if err != nil {
			return err
		}
		if s.verify {
			errs, recs, err := verifyStatus(st, sizes, p, seed, s)
			if err != nil {
				return err
			}
			t.add(errs, recs)
		}
		t.done += s.bytesPerWord() * (r.plan.total / 4)
		if r.opts.Progress != nil {
			r.opts.Progress(t.done, t.total)
		}
		if i == 0 && r.opts.inject != nil {
			if err := r.inject(p.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *integrityTally) add(errs uint64, recs []IntegrityError) {
	t.res.Errors += errs
	room := MaxIntegrityErrors - len(t.res.FirstErrors)
	t.res.FirstErrors = append(t.res.FirstErrors, recs[:min(room, len(recs))]...)
}
