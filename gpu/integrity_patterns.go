package gpu

import "math/bits"

// IntegrityPattern is one row of the integrity table.
type IntegrityPattern struct {
	Name          string
	Word          string // what word w of chunk c holds in pass p
	Steps         string // in order; each runs over all chunks
	Reads, Writes int    // sweeps of the region per pass

	kind  uint32 // PAT_* of integrity.wgsl
	steps []integrityStep
}

// BytesPerWord is 4*(Reads+Writes).
func (p IntegrityPattern) BytesPerWord() uint64 {
	return 4 * uint64(p.Reads+p.Writes)
}

// integrityStep is one submission over all chunks.
type integrityStep struct {
	verify     bool
	invert     bool // the expected word is the pattern's inverse
	descending bool
	rewrite    bool // verify writes the inverse of the expected word back
}

func (s integrityStep) bytesPerWord() uint64 {
	if s.verify && s.rewrite {
		return 8
	}
	return 4
}

const (
	patAddress uint32 = 0
	patWalk    uint32 = 1
	patChecker uint32 = 2
	patRandom  uint32 = 3
)

// The random pattern's seed in pass p is integritySeed + p*integritySeedStep.
const (
	integritySeed     uint32 = 0x5EED1DEA
	integritySeedStep uint32 = 0x9E3779B9
)

// IntegrityPatterns returns the table in the order the probe runs it. Each
// step covers all chunks before the next, so address catches two addresses
// that reach one cell; "descending" is the order work is handed out.
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

func lowbias32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// integrityWord is expect() of integrity.wgsl.
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
