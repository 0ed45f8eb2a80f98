package peer

import (
	"context"
	"encoding/binary"
	"fmt"
)

// meter runs checked rounds on an engine and counts what it checked.
type meter struct {
	e      engine
	p      plan
	rounds uint32
}

// patternWord is word i of the pattern seeded by seed.
func patternWord(seed uint32, i uint64) uint32 {
	x := uint32(i)*0x9E3779B1 ^ uint32(i>>32)*0x27D4EB2D ^ seed
	x ^= x >> 16
	x *= 0x85EBCA6B
	x ^= x >> 13
	return x
}

// putPattern writes words first, first+1, … of seed's pattern into p.
func putPattern(p []byte, seed uint32, first uint64) {
	for i := 0; i+4 <= len(p); i += 4 {
		binary.LittleEndian.PutUint32(p[i:], patternWord(seed, first+uint64(i/4)))
	}
}

// mismatch is the index of p's first word unlike seed's pattern from word
// first on, or -1.
func mismatch(p []byte, seed uint32, first uint64) int {
	for i := 0; i+4 <= len(p); i += 4 {
		if binary.LittleEndian.Uint32(p[i:]) != patternWord(seed, first+uint64(i/4)) {
			return i / 4
		}
	}
	return -1
}

// fillPattern uploads seed's pattern into b, a chunk at a time.
func (m *meter) fillPattern(b buffer, seed uint32) error {
	buf := make([]byte, min(m.p.chunk, b.n))
	for off := uint64(0); off < b.n; off += uint64(len(buf)) {
		c := buf[:min(uint64(len(buf)), b.n-off)]
		putPattern(c, seed, off/4)
		if err := m.e.upload(b, off, c); err != nil {
			return err
		}
	}
	return nil
}

// poison overwrites dsts with a word that changes every round, so a copy that
// did not happen fails the check.
func (m *meter) poison(dsts ...buffer) error {
	m.rounds++
	for _, d := range dsts {
		if err := m.e.fill(d, 0xDEAD0000^m.rounds); err != nil {
			return err
		}
	}
	return nil
}

// checkSpots compares p.spots 4 KiB blocks of b with seed's pattern and
// returns the words compared.
func (m *meter) checkSpots(b buffer, seed uint32) (uint64, error) {
	const block = 4096
	blocks := b.n / block
	if blocks <= uint64(m.p.spots) {
		return m.checkAll(b, seed)
	}
	got := make([]byte, block)
	var words uint64
	for k := 0; k < m.p.spots; k++ {
		i := uint64(k) * blocks / uint64(m.p.spots)
		if k > 0 && k < m.p.spots-1 {
			i = (i + uint64(m.rounds)*7919) % blocks
		} else if k == m.p.spots-1 {
			i = blocks - 1
		}
		if err := m.compare(got, b, i*block, seed); err != nil {
			return words, err
		}
		words += block / 4
	}
	return words, nil
}

// checkAll compares all of b with seed's pattern and returns the words compared.
func (m *meter) checkAll(b buffer, seed uint32) (uint64, error) {
	got := make([]byte, min(m.p.chunk, b.n))
	for off := uint64(0); off < b.n; off += uint64(len(got)) {
		if err := m.compare(got[:min(uint64(len(got)), b.n-off)], b, off, seed); err != nil {
			return 0, err
		}
	}
	return b.n / 4, nil
}

func (m *meter) compare(got []byte, b buffer, off uint64, seed uint32) error {
	if err := m.e.download(got, b, off); err != nil {
		return err
	}
	if i := mismatch(got, seed, off/4); i >= 0 {
		return fmt.Errorf("%w: round %d: word at byte %d of %d", ErrCheckFailed, m.rounds, off+uint64(i)*4, b.n)
	}
	return nil
}

// round poisons the jobs' destinations, runs the jobs at once and checks spots
// of each destination.
func (m *meter) round(ctx context.Context, jobs []job, seeds []uint32) (times []float64, words uint64, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	for _, j := range jobs {
		if err := m.poison(j.dst); err != nil {
			return nil, 0, err
		}
	}
	if times, err = m.e.copies(jobs); err != nil {
		return nil, 0, err
	}
	for i, j := range jobs {
		w, err := m.checkSpots(j.dst, seeds[i])
		if err != nil {
			return nil, 0, err
		}
		words += w
	}
	return times, words, nil
}
