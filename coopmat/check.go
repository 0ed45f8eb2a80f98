package coopmat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/everycycle/appraise/coopmat/vk"
)

// Tolerances. A float GEMM element c = Σ_k a_k·b_k is accepted when
// |gpu − ref| ≤ slack·√K·u_acc·√(Σ_k (a_k·b_k)²) + u_out·|ref|, where ref
// is computed in float64 from the exact inputs, u_acc is the unit roundoff of
// the accumulator type and u_out that of the stored result. √K·u·‖ab‖ is the
// size of a random-walk accumulation error. A wrong layout or index produces
// errors of order ‖ab‖ itself, far outside; so does dropping one K block.
// Integer GEMMs must match exactly.
//
// The slack is 32 for fp32 (and wider) accumulators: tensor-core fp32
// accumulation is not IEEE round-to-nearest per addition, and measured
// errors come within a factor of four of that (docs/performance.md). For
// fp16 accumulators the measured worst is far smaller, so 8 keeps the check
// tight where fp16 accumulation is already coarse.
const (
	slackFP32 = 32
	slackFP16 = 8
)

func gemmSlack(acc vk.ComponentType) float64 {
	if acc.Bytes() >= 4 {
		return slackFP32
	}
	return slackFP16
}

// fullCheckLimit is the largest M·N·K checked element by element; above it
// the check samples whole rows and columns.
const fullCheckLimit = 1 << 28

// gemmCheck compares C (M×N row-major, raw bytes of type out) with A (M×K)
// times B, where bt holds B transposed (N×K row-major). acc is the
// accumulator type.
type gemmCheck struct {
	m, n, k uint32
	a, bt   []float64
	acc     vk.ComponentType
	out     vk.ComponentType
	lines   int
	seed    uint64
}

// run returns the check result, or an error wrapping ErrCheckFailed.
func (g gemmCheck) run(raw []byte) (vk.Check, error) {
	elems := g.elements()
	per := make([]vk.Check, runtime.GOMAXPROCS(0))
	bad := make([]string, len(per))
	var wg sync.WaitGroup
	for w := range per {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(elems); i += len(per) {
				if msg := g.one(raw, elems[i], &per[w]); msg != "" && bad[w] == "" {
					bad[w] = msg
				}
			}
		}()
	}
	wg.Wait()
	var c vk.Check
	for _, p := range per {
		c.Elements += p.Elements
		c.MaxError, c.Tolerance, c.Worst = math.Max(c.MaxError, p.MaxError), math.Max(c.Tolerance, p.Tolerance), math.Max(c.Worst, p.Worst)
	}
	for _, msg := range bad {
		if msg != "" {
			return c, fmt.Errorf("coopmat: %s: %w", msg, vk.ErrCheckFailed)
		}
	}
	return c, nil
}

// elements lists the (row, col) pairs to compare.
func (g gemmCheck) elements() [][2]uint32 {
	var out [][2]uint32
	if uint64(g.m)*uint64(g.n)*uint64(g.k) <= fullCheckLimit {
		for i := range g.m {
			for j := range g.n {
				out = append(out, [2]uint32{i, j})
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(g.seed, 0x636865636b))
	for range max(g.lines, 1) {
		i, j := rng.Uint32N(g.m), rng.Uint32N(g.n)
		for c := range g.n {
			out = append(out, [2]uint32{i, c})
		}
		for r := range g.m {
			out = append(out, [2]uint32{r, j})
		}
	}
	return out
}

// one checks element e, updating c; it returns a message on failure.
func (g gemmCheck) one(raw []byte, e [2]uint32, c *vk.Check) string {
	i, j := e[0], e[1]
	ar, br := g.a[int(i)*int(g.k):][:g.k], g.bt[int(j)*int(g.k):][:g.k]
	ref, sq := 0.0, 0.0
	for k := range ar {
		p := ar[k] * br[k]
		ref += p
		sq += p * p
	}
	got := decode(raw, g.out, int(i)*int(g.n)+int(j))
	tol := gemmSlack(g.acc)*math.Sqrt(float64(g.k))*unitRoundoff(g.acc)*math.Sqrt(sq) + unitRoundoff(g.out)*math.Abs(ref)
	if g.out.Integer() {
		ref = wrapInt(ref, g.out)
		tol = 0
	}
	diff := math.Abs(got - ref)
	c.Elements++
	c.MaxError, c.Tolerance = math.Max(c.MaxError, diff), math.Max(c.Tolerance, tol)
	ratio := diff / tol
	if tol == 0 && diff == 0 {
		ratio = 0
	}
	c.Worst = math.Max(c.Worst, ratio)
	if !(diff <= tol) {
		return fmt.Sprintf("C[%d][%d] = %g, reference %g, tolerance %g", i, j, got, ref, tol)
	}
	return ""
}

// wrapInt reduces an exact integer to the range of a 32-bit result type.
func wrapInt(v float64, t vk.ComponentType) float64 {
	x := uint32(int64(v))
	if t == vk.Sint32 {
		return float64(int32(x))
	}
	return float64(x)
}
