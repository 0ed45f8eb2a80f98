package cublaslt

import "sync"

// Operand roles: which side of the GEMM an operand is drawn for. A and Bᵀ
// of the same type and shape are drawn from different streams, so a GEMM
// never multiplies a matrix by itself.
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

// seed is the stream the key's operand is drawn from: the run's seed
// mixed with the key, so that precisions sharing an input type (fp16
// with fp16 or fp32 accumulation and output) multiply the same operands,
// drawn once.
func (k operandKey) seed(base uint64) uint64 {
	x := base ^ uint64(k.t)<<48 ^ uint64(k.role)<<40 ^ uint64(k.rows)<<20 ^ uint64(k.cols)
	// splitmix64's finaliser: nearby keys give unrelated streams.
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// operandPool draws the operands of a run of precisions: each once, and
// the next precision's in the background while the device runs the
// current one (drawing two 8192×8192 operands is host work of the order
// of the device's time on a precision). It keeps only what the current
// and next precision use.
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

// operands returns the keys of p's A and Bᵀ for an m×n×k GEMM.
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

// get returns key's operand, drawing it now if nobody started it, and
// waiting for it if a background draw is under way.
func (p *operandPool) get(key operandKey) operand {
	p.start(key)
	p.mu.Lock()
	d := p.drawn[key]
	p.mu.Unlock()
	<-d.done
	return d.op
}

// keep forgets every operand but keys (their memory goes back once no
// GEMM holds them). A draw still running finishes in the background and
// is dropped.
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

// turnTo readies the pool for precision i of precs at m×n×k: it keeps
// that precision's operands and starts drawing the next one's, to be
// drawn while the device runs precision i, and forgets the rest. It
// returns precision i's keys.
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

// wait returns once no draw is running, so that no goroutine outlives the
// run that started it.
func (p *operandPool) wait() { p.wg.Wait() }
