package cublaslt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// ErrCheckFailed is wrapped when a GEMM's output disagrees with the CPU
// reference: the probe fails, with no figure.
var ErrCheckFailed = errors.New("GEMM output disagrees with the CPU reference")

// Check is how a GEMM's output compared with its CPU reference, in absolute
// terms; Bad is a column-major index i + j·m. Tolerance 0 means exact
// (integers); Worst, the largest error/tolerance, is at most 1 on a pass.
type Check struct {
	refcheck.Result
	MaxError  float64 // largest |device − reference|
	Tolerance float64 // largest per-element tolerance
	Worst     float64
}

// A float element is accepted when |device − ref| ≤
// slack·√K·u_acc·√(Σ_k (a_k·b_k)²) + u_out·|ref|, ref computed in float64
// from the same rounded inputs (Precision.accRoundoff gives u_acc and slack).
// Integer GEMMs must match exactly.

// Above fullCheckLimit (m·n·k) the check takes lines whole rows and
// columns plus scatteredChecks random elements.
const (
	fullCheckLimit  = 1 << 26
	scatteredChecks = 1024
)

// gemm is one problem as the check sees it: A and Bᵀ as uploaded, D read
// back column-major.
type gemm struct {
	p     Precision
	m, n  int
	k     int
	a, bt operand
}

// check compares d with the reference; the error wraps ErrCheckFailed.
func (g gemm) check(d []byte, lines int, seed uint64) (Check, error) {
	elems := g.elements(lines, seed)
	workers := max(1, runtime.GOMAXPROCS(0))
	parts := make([]Check, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			c := Check{Result: refcheck.New()}
			ar, br := make([]float64, g.k), make([]float64, g.k)
			lastA, lastB := -1, -1
			for x := w; x < len(elems); x += workers {
				e := elems[x]
				if e[0] != lastA {
					g.a.row(e[0], ar)
					lastA = e[0]
				}
				if e[1] != lastB {
					g.bt.row(e[1], br)
					lastB = e[1]
				}
				g.one(d, e, ar, br, &c)
			}
			parts[w] = c
		})
	}
	wg.Wait()
	c := Check{Result: refcheck.New()}
	for _, p := range parts {
		c.Merge(p)
	}
	if c.Bad < 0 {
		return c, nil
	}
	return c, fmt.Errorf("%w: gemm %s: D[%d][%d] = %v, want %v (%d values compared, largest tolerance %.3g absolute)",
		ErrCheckFailed, g.p.Name, c.Bad%int64(g.m), c.Bad/int64(g.m), c.Got, c.Want, c.Checked, c.Tolerance)
}

// elements lists the (row, col) pairs to compare, mostly sharing a row or
// column with the one before.
func (g gemm) elements(lines int, seed uint64) [][2]int {
	var out [][2]int
	if g.m*g.n*g.k <= fullCheckLimit {
		for i := range g.m {
			for j := range g.n {
				out = append(out, [2]int{i, j})
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x636865636b))
	for range lines {
		i, j := rng.IntN(g.m), rng.IntN(g.n)
		for c := range g.n {
			out = append(out, [2]int{i, c})
		}
		for r := range g.m {
			out = append(out, [2]int{r, j})
		}
	}
	for range scatteredChecks {
		out = append(out, [2]int{rng.IntN(g.m), rng.IntN(g.n)})
	}
	return out
}

// one compares element e, whose input rows are ar and br, updating c.
func (g gemm) one(d []byte, e [2]int, ar, br []float64, c *Check) {
	ref, sq := 0.0, 0.0
	for k := range ar {
		p := ar[k] * br[k]
		ref += p
		sq += p * p
	}
	idx := e[0] + e[1]*g.m
	got := value(d, g.p.Out, idx)
	u, slack := g.p.accRoundoff()
	tol := slack*math.Sqrt(float64(g.k))*u*math.Sqrt(sq) + g.p.Out.UnitRoundoff()*math.Abs(ref)
	if g.p.Out.Integer() {
		ref, tol = float64(int32(uint32(int64(ref)))), 0
	}
	diff := math.Abs(got - ref)
	c.MaxError, c.Tolerance = max(c.MaxError, diff), max(c.Tolerance, tol)
	ratio := 0.0
	if diff > 0 {
		ratio = diff / tol // +Inf where tol is 0
	}
	if !(ratio <= c.Worst) {
		c.Worst = ratio
	}
	ok := diff <= tol
	switch {
	case ref != 0:
		c.Compare(got, ref, tol/math.Abs(ref), int64(idx))
		if ok && c.Bad == int64(idx) { // rounding in tol/|ref|: trust the absolute test
			c.Bad = -1
		}
	case ok:
		c.Checked++
	default:
		c.Checked++
		if c.Bad < 0 {
			c.Bad, c.Got, c.Want = int64(idx), got, ref
		}
	}
	if !ok && c.Bad < 0 {
		c.Bad, c.Got, c.Want = int64(idx), got, ref
	}
}
