package gpu

import (
	"context"
	"errors"
	"testing"
	"time"
)

// simQueue is a simulated device for soakPlan on a simulated clock. It
// runs pieces one after another in submission order, the i-th taking
// took(i) of GPU time; recording and submitting a piece costs the host
// host. It counts the GPU's idle time between pieces.
type simQueue struct {
	now  time.Time
	host time.Duration
	took func(i int) time.Duration

	busy  time.Time // when the GPU ends what it has queued
	end   map[*soakPiece]time.Time
	dur   map[*soakPiece]time.Duration
	n     int           // pieces submitted
	lasts []int         // the pieces submitted as the last
	idle  time.Duration // GPU idle between pieces
}

func newSimQueue(host time.Duration, took func(i int) time.Duration) *simQueue {
	return &simQueue{now: time.Unix(1000, 0), host: host, took: took,
		end: map[*soakPiece]time.Time{}, dur: map[*soakPiece]time.Duration{}}
}

func (q *simQueue) clock() time.Time { return q.now }

func (q *simQueue) submit(last bool) (*soakPiece, error) {
	q.now = q.now.Add(q.host)
	p := &soakPiece{last: last, submitted: q.now}
	start := q.now
	if q.n > 0 {
		if q.busy.After(start) {
			start = q.busy
		} else {
			q.idle += start.Sub(q.busy)
		}
	}
	q.dur[p] = q.took(q.n)
	q.end[p] = start.Add(q.dur[p])
	q.busy = q.end[p]
	if last {
		q.lasts = append(q.lasts, q.n)
	}
	q.n++
	return p, nil
}

func (q *simQueue) wait(p *soakPiece) error {
	q.now = later(q.now, q.end[p])
	return nil
}

func (q *simQueue) pieceTime(p *soakPiece) (float64, error) { return q.dur[p].Seconds(), nil }

// simulate runs a plan of dur on q, its first piece estimated at
// estimate, 1e9 operations a piece.
func simulate(ctx context.Context, q *simQueue, dur, estimate time.Duration, onPoint func(time.Duration, float64)) (*soakPlan, error) {
	p := &soakPlan{o: SoakOptions{Duration: dur, OnPoint: onPoint}, now: q.clock, dev: q, ops: 1e9, pieceS: estimate}
	return p, p.run(ctx)
}

// checkPlan: one point per piece, At strictly increasing, the last piece
// submitted as such and nothing after it, the load ending within half a
// piece (of lastS) of dur, plus slack.
func checkPlan(t *testing.T, name string, p *soakPlan, q *simQueue, dur, lastS, slack time.Duration) {
	t.Helper()
	ps := p.res.Points
	if len(ps) != q.n || p.n != q.n || len(q.lasts) != 1 || q.lasts[0] != q.n-1 || len(p.queue) != 0 {
		t.Errorf("%s: %d points of %d pieces (plan %d), submitted as last: %v, %d left queued", name, len(ps), q.n, p.n, q.lasts, len(p.queue))
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].At <= ps[i-1].At {
			t.Errorf("%s: point %d at %v after %v", name, i, ps[i].At, ps[i-1].At)
		}
	}
	if d := p.res.Duration - dur; d < -lastS/2-slack || d > lastS/2+slack {
		t.Errorf("%s: ended at %v, want %v within half a piece of %v (+ %v)", name, p.res.Duration, dur, lastS, slack)
	}
}

// TestSoakPlanKeepsTheGPUBusy: with the host quicker than a piece, the
// GPU never waits between pieces, and the load ends on the piece nearest
// to the duration: steady pieces, a cold first piece three times as long,
// pieces that speed up from the calibrated estimate, and a first estimate
// far off.
func TestSoakPlanKeepsTheGPUBusy(t *testing.T) {
	const piece = 100 * time.Millisecond
	cases := []struct {
		name     string
		estimate time.Duration
		took     func(i int) time.Duration
		lastS    time.Duration
	}{
		{"steady", piece, func(int) time.Duration { return piece }, piece},
		{"cold first piece", piece, func(i int) time.Duration {
			if i == 0 {
				return 3 * piece
			}
			return piece
		}, piece},
		{"speeding up", piece, func(i int) time.Duration { return piece - time.Duration(min(i, 10))*4*time.Millisecond }, 60 * time.Millisecond},
		{"estimate 5x too long", 5 * piece, func(int) time.Duration { return piece }, piece},
	}
	for _, c := range cases {
		for _, dur := range []time.Duration{1500 * time.Millisecond, 10 * time.Second} {
			q := newSimQueue(time.Millisecond, c.took)
			p, err := simulate(t.Context(), q, dur, c.estimate, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, c.name, p, q, dur, c.lastS, 2*q.host)
			if q.idle != 0 {
				t.Errorf("%s, %v: the GPU idled %v between pieces", c.name, dur, q.idle)
			}
			if r := p.res.Points[len(p.res.Points)-1].OpsPerS; r != p.ops/c.took(q.n-1).Seconds() {
				t.Errorf("%s: last rate %v, want %v", c.name, r, p.ops/c.took(q.n-1).Seconds())
			}
		}
	}
}

// TestSoakPlanHostStall: when the host stalls for longer than the queued
// work (a busy machine deschedules it inside OnPoint), the GPU idles for
// the rest of the stall and no longer, and the load still ends within
// half a piece of the duration.
func TestSoakPlanHostStall(t *testing.T) {
	const piece, stall = 100 * time.Millisecond, 350 * time.Millisecond
	q := newSimQueue(time.Millisecond, func(int) time.Duration { return piece })
	points := 0
	p, err := simulate(t.Context(), q, 2*time.Second, piece, func(time.Duration, float64) {
		if points++; points == 4 {
			q.now = q.now.Add(stall)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, "stall", p, q, 2*time.Second, piece, 2*q.host)
	// OnPoint runs with soakDepth pieces queued: the GPU idles from their
	// end, soakDepth pieces after the piece just done, to the submission
	// after the stall, a host's submission on each side of it.
	if want := q.host + stall + q.host - soakDepth*piece; q.idle != want {
		t.Errorf("the GPU idled %v, want %v", q.idle, want)
	}
}

// TestSoakPlanShortDuration: a duration shorter than half a piece still
// runs one piece, submitted as the last.
func TestSoakPlanShortDuration(t *testing.T) {
	q := newSimQueue(time.Millisecond, func(int) time.Duration { return 100 * time.Millisecond })
	p, err := simulate(t.Context(), q, 10*time.Millisecond, 100*time.Millisecond, nil)
	if err != nil || q.n != 1 || len(q.lasts) != 1 || len(p.res.Points) != 1 {
		t.Errorf("err %v, %d pieces, lasts %v, %d points; want one last piece", err, q.n, q.lasts, len(p.res.Points))
	}
}

// TestSoakPlanCancel: a cancel from OnPoint stops the plan with the
// context's error: no point and no submission after it, and at most
// soakDepth pieces left queued (Soak's release waits for them).
func TestSoakPlanCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := newSimQueue(time.Millisecond, func(int) time.Duration { return 100 * time.Millisecond })
	atCancel := -1
	p, err := simulate(ctx, q, time.Minute, 100*time.Millisecond, func(time.Duration, float64) {
		if atCancel < 0 {
			atCancel = q.n
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(p.res.Points) != 1 {
		t.Fatalf("err %v, %d points; want context.Canceled after one point", err, len(p.res.Points))
	}
	if q.n != atCancel || len(p.queue) > soakDepth || len(q.lasts) != 0 {
		t.Errorf("%d pieces submitted, %d at the cancel; %d left queued", q.n, atCancel, len(p.queue))
	}
	p, err = simulate(ctx, newSimQueue(0, nil), time.Minute, 100*time.Millisecond, nil)
	if !errors.Is(err, context.Canceled) || p.n != 0 {
		t.Errorf("cancelled before the start: err %v, %d pieces submitted", err, p.n)
	}
}

// TestSoakPieceTimes: timed by the host, a piece runs from its submission
// or the previous piece's end, whichever is later, so queued pieces do not
// count their wait; timed by GPU timestamps, timestamps that do not
// increase or that span more than the host saw are refused.
func TestSoakPieceTimes(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	s := &soaker{}
	for _, c := range []struct {
		sub, done int
		want      float64
	}{{0, 100, 0.1}, {1, 200, 0.1}, {250, 300, 0.05}} {
		got, err := s.pieceTime(&soakPiece{submitted: at(c.sub), done: at(c.done)})
		if err != nil || got != c.want {
			t.Errorf("submitted at %d ms, done at %d ms: %v, %v; want %v s", c.sub, c.done, got, err, c.want)
		}
	}
	if _, err := s.pieceTime(&soakPiece{submitted: at(400), done: at(300)}); err == nil {
		t.Error("a piece done before it was submitted was timed")
	}
	g := &soaker{}
	const ms = uint64(time.Millisecond)
	p := &soakPiece{submitted: at(0), done: at(250)}
	for _, ts := range [][2]uint64{{1000 * ms, 1100 * ms}, {1100 * ms, 1200 * ms}, {1203 * ms, 1303 * ms}} {
		if got, err := g.gpuTime(p, ts[0], ts[1]); err != nil || got != 0.1 {
			t.Errorf("timestamps %v: %v, %v", ts, got, err)
		}
	}
	if _, err := g.gpuTime(p, 2000*ms, 2000*ms); err == nil {
		t.Error("timestamps that do not increase were accepted")
	}
	if _, err := g.gpuTime(p, 3000*ms, 3300*ms); err == nil {
		t.Error("300 ms of GPU time in a piece the host saw done in 250 ms was accepted")
	}
}
