package gpu

import "fmt"

// integrityPlan lays the region out in chunks, each a buffer of its own or
// a part of a held one.
type integrityPlan struct {
	total  uint64 // bytes tested, a multiple of integrityElement
	pieces []integrityPiece
	keep   int // the first held buffers, which the region lies in
	passes int
}

// integrityPiece is bytes [offset, offset+size) of held buffer held, or,
// when held is -1, a buffer allocated for it.
type integrityPiece struct {
	size, offset uint64
	held         int
}

func (p integrityPlan) chunks() int { return len(p.pieces) }

func (p integrityPlan) chunkSize(c int) uint64 { return p.pieces[c].size }

// planIntegrity lays the region over the held buffers, of sizes held, in
// order. The last one it reaches is kept only where the others' release
// leaves room for the bookkeeping; else its part is allocated afresh.
func planIntegrity(l Limits, memLimit uint64, o IntegrityOptions, held []uint64) (integrityPlan, error) {
	if o.Passes < 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: %d passes", o.Passes)
	}
	chunk := min(uint64(maxChunkBytes), l.MaxStorageBindingBytes, l.MaxBufferBytes)
	if o.chunkBytes != 0 {
		chunk = min(chunk, o.chunkBytes)
	}
	chunk &^= integrityAlign - 1
	if chunk == 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: no chunk fits the device's limits (max storage binding %d, max buffer %d)", l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	overhead := integrityOverhead(memLimit/chunk + 1)
	target := o.TargetBytes
	if target == 0 && memLimit > overhead {
		target = memLimit - overhead
	}
	target &^= integrityElement - 1
	if target == 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: nothing to test (target %d bytes, memory limit %d)", o.TargetBytes, memLimit)
	}
	p := integrityPlan{total: target, passes: max(o.Passes, 1)}
	p.lay(chunk, held)
	if p.keep > 0 && p.heldBytes(held)+p.overhead() > min(memLimit, sumBytes(held)) {
		p.unkeepLast()
	}
	if need := p.heldBytes(held) + p.freshBytes() + p.overhead(); need > memLimit {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: %d bytes to test need %d bytes with bookkeeping, over the memory limit of %d; open the device with a larger Options.MemoryLimit", target, need, memLimit)
	}
	return p, nil
}

func (p *integrityPlan) lay(chunk uint64, held []uint64) {
	left := p.total
	for i, size := range held {
		for off := uint64(0); off < size && left > 0; off += chunk {
			n := min(chunk, (size-off)&^(integrityElement-1), left)
			if n == 0 {
				break
			}
			p.pieces = append(p.pieces, integrityPiece{size: n, offset: off, held: i})
			left -= n
			p.keep = i + 1
		}
	}
	for left > 0 {
		n := min(chunk, left)
		p.pieces = append(p.pieces, integrityPiece{size: n, held: -1})
		left -= n
	}
}

func (p *integrityPlan) unkeepLast() {
	p.keep--
	for i := range p.pieces {
		if p.pieces[i].held == p.keep {
			p.pieces[i].held, p.pieces[i].offset = -1, 0
		}
	}
}

func (p integrityPlan) heldBytes(held []uint64) uint64 { return sumBytes(held[:p.keep]) }

func (p integrityPlan) freshBytes() uint64 {
	var n uint64
	for _, c := range p.pieces {
		if c.held < 0 {
			n += c.size
		}
	}
	return n
}

func (p integrityPlan) largest() uint64 {
	var n uint64
	for _, c := range p.pieces {
		n = max(n, c.size)
	}
	return n
}

func (p integrityPlan) overhead() uint64 { return integrityOverhead(uint64(p.chunks())) }

func sumBytes(sizes []uint64) uint64 {
	var n uint64
	for _, s := range sizes {
		n += s
	}
	return n
}

// integrityOverhead is the bytes of the bookkeeping buffers for n chunks.
func integrityOverhead(n uint64) uint64 {
	status := 4 * (integrityCounts + integrityPerChunk*n)
	return 2*status + n*integrityChunkBytes + integrityStepBytes + (integrityMaxFaults+1)*16
}
