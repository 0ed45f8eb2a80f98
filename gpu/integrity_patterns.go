package gpu

import "math/bits"

// The pattern table of the integrity probe and the CPU reference of the
// words its kernels (wgsl/integrity.wgsl) write. The host never reads the
// tested memory; it uses the reference to check the expected value of every
// mismatch the GPU records, so a kernel that computes a wrong pattern fails
// the probe instead of reporting errors the memory does not have.

// IntegrityPattern is one row of the integrity table (like BabelStream's
// benchmark.h for bandwidth): what every word holds, the steps that write
// and verify it, and how many full sweeps of the region they read and
// write.
type IntegrityPattern struct {
	// Name is the pattern's name in results.
	Name string
	// Word is the value word w (its index within chunk c) holds in pass p.
	Word string
	// Steps lists the steps in order; each runs over all chunks.
	Steps string
	// Reads and Writes count the full sweeps of the region the steps read
	// and write per pass.
	Reads, Writes int

	kind  uint32 // the PAT_* constant of integrity.wgsl
	steps []integrityStep
}

// BytesPerWord is the bytes the pattern moves per 32-bit word tested per
// pass: 4*(Reads+Writes).
func (p IntegrityPattern) BytesPerWord() uint64 {
	return 4 * uint64(p.Reads+p.Writes)
}

// integrityStep is one submission over all chunks: a fill, or a verify
// that may walk down and may write the inverse back.
type integrityStep struct {
	verify     bool
	invert     bool // the expected word is the pattern's inverse
	descending bool
	rewrite    bool // verify writes the inverse of the expected word back
}

// bytesPerWord is what the step moves per word.
func (s integrityStep) bytesPerWord() uint64 {
	if s.verify && s.rewrite {
		return 8
	}
	return 4
}

// PAT_* of integrity.wgsl.
const (
	patAddress uint32 = 0
	patWalk    uint32 = 1
	patChecker uint32 = 2
	patRandom  uint32 = 3
)

// integritySeed is the random pattern's seed in pass 0; pass p adds
// p*integritySeedStep.
const (
	integritySeed     uint32 = 0x5EED1DEA
	integritySeedStep uint32 = 0x9E3779B9
)

// IntegrityPatterns returns the table, in the order the probe runs it:
//
//	pattern            word w of chunk c, pass p             steps                                 reads writes bytes/word
//	address            w ^ c*0x9E3779B1                      fill; verify                          1     1      8
//	walking-ones       1 << ((w+p) mod 32)                   fill; verify                          1     1      8
//	walking-zeros      ^(1 << ((w+p) mod 32))                fill; verify                          1     1      8
//	moving-inversions  0x55555555 (w even), 0xAAAAAAAA (odd) fill; verify+write ^ up; verify ^ down 2     2      16
//	random             h(w + h(seed_p ^ h(c))), h=lowbias32  fill; verify                          1     1      8
//	total                                                                                          6     6      48
//
// Every step runs over all chunks before the next begins, so the whole
// region is written before any of it is read back: address-in-address then
// catches two addresses (in one chunk or in two) that reach the same cell.
// Moving inversions verifies the checkerboard while writing its inverse
// walking up, then verifies the inverse walking down (workgroups take the
// top of the chunk first and chunks run last to first; a GPU has no single
// address order, so "down" is the order work is handed out). The random
// words come from a hash of the word index, regenerated on the GPU to
// check them. A pass over N bytes moves 12*N bytes: on a GPU at 4 TB/s,
// 140 GB take about 0.4 s.
func IntegrityPatterns() []IntegrityPattern {
	fillStep, verifyStep := integrityStep{}, integrityStep{verify: true}
	fv := []integrityStep{fillStep, verifyStep}
	inv := func(s integrityStep) integrityStep { s.invert = true; return s }
	return []IntegrityPattern{
		{Name: "address", Word: "w ^ c*0x9E3779B1", Steps: "fill; verify",
			Reads: 1, Writes: 1, kind: patAddress, steps: fv},
		{Name: "walking-ones", Word: "1 << ((w+p) mod 32)", Steps: "fill; verify",
			Reads: 1, Writes: 1, kind: patWalk, steps: fv},
		{Name: "walking-zeros", Word: "^(1 << ((w+p) mod 32))", Steps: "fill; verify",
			Reads: 1, Writes: 1, kind: patWalk, steps: []integrityStep{inv(fillStep), inv(verifyStep)}},
		{Name: "moving-inversions", Word: "0x55555555 for even w, 0xAAAAAAAA for odd w",
			Steps: "fill; verify and write the inverse, ascending; verify the inverse, descending",
			Reads: 2, Writes: 2, kind: patChecker, steps: []integrityStep{fillStep,
				{verify: true, rewrite: true}, {verify: true, invert: true, descending: true}}},
		{Name: "random", Word: "h(w + h(seed_p ^ h(c))), h = lowbias32", Steps: "fill; verify",
			Reads: 1, Writes: 1, kind: patRandom, steps: fv},
	}
}

// seedFor is the Step seed of pattern kind in pass p.
func seedFor(kind uint32, pass int) uint32 {
	switch kind {
	case patWalk:
		return uint32(pass)
	case patRandom:
		return integritySeed + uint32(pass)*integritySeedStep
	default:
		return 0
	}
}

// lowbias32 is lowbias32() of integrity.wgsl.
func lowbias32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// integrityWord is expect() of integrity.wgsl: the word w of chunk c holds
// for pattern kind with the step's seed, inverted when invert is set.
func integrityWord(kind, seed uint32, invert bool, chunk, w uint32) uint32 {
	var v uint32
	switch kind {
	case patAddress:
		v = w ^ chunk*0x9E3779B1
	case patWalk:
		v = bits.RotateLeft32(1, int((w+seed)&31))
	case patChecker:
		v = 0x55555555
		if w&1 != 0 {
			v = 0xAAAAAAAA
		}
	default:
		v = lowbias32(w + lowbias32(seed^lowbias32(chunk)))
	}
	if invert {
		v = ^v
	}
	return v
}
