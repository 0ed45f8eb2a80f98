package gpu

import (
	"context"
	"time"
)

// soakDevice is the device's side of a soak, as the plan drives it.
type soakDevice interface {
	// submit queues one piece, the last one when last is set, and returns
	// it with its submission time.
	submit(last bool) (*soakPiece, error)
	// wait blocks until p, the oldest queued piece, is done.
	wait(p *soakPiece) error
	// pieceTime is the duration of p, done, in seconds.
	pieceTime(p *soakPiece) (float64, error)
}

// soakPlan schedules a soak's pieces: it keeps soakDepth of them queued,
// decides which is the last from the piece times seen so far, and turns
// each finished piece into a point. Its clock and its device are fields, so
// that tests can drive it with a simulated queue and clock.
type soakPlan struct {
	o   SoakOptions
	now func() time.Time
	dev soakDevice
	res SoakResult

	ops    float64       // operations per piece
	pieceS time.Duration // latest piece's duration, for planning the end
	queue  []*soakPiece  // submitted, not yet waited for; oldest first
	n      int           // pieces submitted
	ended  bool          // the last piece is submitted

	start     time.Time // first submission
	queuedEnd time.Time // when the queued work should end
}

// run keeps soakDepth pieces queued until the last one is done, and
// records a point for each. A cancelled ctx stops it before the next
// piece is waited for; nothing is submitted once ctx is cancelled.
func (p *soakPlan) run(ctx context.Context) error {
	if err := p.fill(ctx); err != nil {
		return err
	}
	for len(p.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		pc, err := p.wait()
		if err == nil {
			err = p.fill(ctx) // before anything else: the GPU has one piece left
		}
		if err == nil {
			err = p.account(pc)
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err() // cancelled before the first piece
}

// fill submits pieces until soakDepth are queued or the last one is. A
// piece is the last when the queued work would end within half a piece of
// Duration after the first submission.
func (p *soakPlan) fill(ctx context.Context) error {
	for len(p.queue) < soakDepth && !p.ended && ctx.Err() == nil {
		now := p.now()
		if p.n == 0 {
			p.start = now
		}
		p.queuedEnd = later(now, p.queuedEnd).Add(p.pieceS)
		last := p.queuedEnd.Sub(p.start) >= p.o.Duration-p.pieceS/2
		pc, err := p.dev.submit(last)
		if err != nil {
			return err
		}
		p.queue = append(p.queue, pc)
		p.n++
		p.ended = last
	}
	return nil
}

// wait waits for the oldest queued piece, notes when the host saw it done
// and takes it off the queue. The pieces still queued are then expected to
// end a piece each after it: fill decides on the last piece before the
// piece just done is timed, and an end estimated from the submissions
// alone would carry a stale estimate (a calibration trial slowed by a
// busy host) forward a whole piece.
func (p *soakPlan) wait() (*soakPiece, error) {
	pc := p.queue[0]
	err := p.dev.wait(pc)
	pc.done = p.now()
	p.queue = p.queue[1:]
	p.queuedEnd = pc.done.Add(p.pieceS * time.Duration(len(p.queue)))
	return pc, err
}

// account times a finished piece, records its point and reports it. The
// piece's time is the next estimate of a piece, and the queued work is
// expected to end that many pieces after this one.
func (p *soakPlan) account(pc *soakPiece) error {
	t, err := p.dev.pieceTime(pc)
	if err != nil {
		return err
	}
	p.pieceS = seconds(t)
	p.queuedEnd = pc.done.Add(p.pieceS * time.Duration(len(p.queue)))
	at := pc.done.Sub(p.start)
	p.res.Points = append(p.res.Points, SoakPoint{At: at, OpsPerS: p.ops / t})
	p.res.Duration = at
	if p.o.OnPoint != nil {
		p.o.OnPoint(at, p.ops/t)
	}
	return nil
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
