package cublaslt

import "sync"

// Operand roles: A and Bᵀ of one type and shape come from different streams.
const (
	roleA = iota
	roleB
)

// operandKey names one drawn operand: its type, shape and role.
type operandKey struct {
	t          Type
	rows, cols int
	role       int
}

// seed is the stream of the key's operand: precisions sharing an input
// type multiply the same operands, drawn once.
func (k operandKey) seed(base uint64) uint64 {
	x := base ^ uint64(k.t)<<48 ^ uint64(k.role)<<40 ^ uint64(k.rows)<<20 ^ uint64(k.cols)
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// operandPool draws the operands of a run of precisions, each once, the
// next precision's in the background while the device runs the current one.
type operandPool struct {
	seed  uint64
	mu    sync.Mutex
	drawn map[operandKey]*drawing
	wg    sync.WaitGroup
}

// drawing is one operand, ready when done is closed.
type drawing struct {
	done chan struct{}
	op   operand
}

func newOperandPool(seed uint64) *operandPool {
	return &operandPool{seed: seed, drawn: map[operandKey]*drawing{}}
}

func operands(p Precision, m, n, k int) [2]operandKey {
	return [2]operandKey{{t: p.A, rows: m, cols: k, role: roleA}, {t: p.B, rows: n, cols: k, role: roleB}}
}

// start begins drawing each key not already drawn or being drawn.
func (p *operandPool) start(keys ...operandKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range keys {
		if _, ok := p.drawn[k]; ok {
			continue
		}
		d := &drawing{done: make(chan struct{})}
		p.drawn[k] = d
		p.wg.Go(func() {
			d.op = randomOperand(k.t, k.rows, k.cols, k.seed(p.seed))
			close(d.done)
		})
	}
}

// get returns key's operand, drawing it or waiting for its draw.
func (p *operandPool) get(key operandKey) operand {
	p.start(key)
	p.mu.Lock()
	d := p.drawn[key]
	p.mu.Unlock()
	<-d.done
	return d.op
}

// keep forgets every operand but keys; a draw under way is dropped when done.
func (p *operandPool) keep(keys ...operandKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.drawn {
		wanted := false
		for _, w := range keys {
			wanted = wanted || w == k
		}
		if !wanted {
			delete(p.drawn, k)
		}
	}
}

// turnTo keeps precision i's operands, starts drawing the next one's,
// forgets the rest, and returns precision i's keys.
func (p *operandPool) turnTo(precs []Precision, i, m, n, k int) [2]operandKey {
	cur := operands(precs[i], m, n, k)
	keep := cur[:]
	if i+1 < len(precs) {
		next := operands(precs[i+1], m, n, k)
		keep = append(keep, next[:]...)
		p.start(next[:]...)
	}
	p.keep(keep...)
	return cur
}

// wait returns once no draw is running.
func (p *operandPool) wait() { p.wg.Wait() }
