package coopmat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/everycycle/appraise/coopmat/vk"
)

// A float GEMM element passes when |gpu − ref| ≤ slack·√K·u_acc·√Σ(a_k·b_k)²
// + u_out·|ref|, with ref in float64 and u the unit roundoff of the
// accumulator and of the result; slackFP32 holds for accumulators of 4 bytes
// or more, slackFP16 below. Integer GEMMs match exactly.
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

// fullCheckLimit is the largest M·N·K checked whole; above it the check
// takes whole rows and columns.
const fullCheckLimit = 1 << 28

// gemmCheck compares C (M×N row-major, of type out) with A (M×K) times B,
// bt holding B transposed (N×K row-major).
type gemmCheck struct {
	m, n, k uint32
	a, bt   []float64
	acc     vk.ComponentType
	out     vk.ComponentType
	lines   int
	seed    uint64
}

// run checks raw; a mismatch is an error wrapping ErrCheckFailed.
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

// one checks element e into c: "" when it passes, else why not.
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

func wrapInt(v float64, t vk.ComponentType) float64 {
	x := uint32(int64(v))
	if t == vk.Sint32 {
		return float64(int32(x))
	}
	return float64(x)
}
