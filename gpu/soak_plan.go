package gpu

import (
	"context"
	"time"
)

// soakDevice is the device's side of a soak, as the plan drives it.
type soakDevice interface {
	submit(last bool) (*soakPiece, error)
	wait(p *soakPiece) error // blocks until p, the oldest queued piece, is done
	pieceTime(p *soakPiece) (float64, error)
}

// soakPlan keeps soakDepth pieces queued, decides which is the last from
// the piece times so far, and turns each finished piece into a point.
type soakPlan struct {
	o   SoakOptions
	now func() time.Time
	dev soakDevice
	res SoakResult

	ops    float64       // operations per piece
	pieceS time.Duration // latest piece's duration
	queue  []*soakPiece  // submitted, not yet waited for; oldest first
	n      int
	ended  bool // the last piece is submitted

	start     time.Time // first submission
	queuedEnd time.Time
}

// run records a point for each piece until the last is done. Nothing is
// submitted or waited for once ctx is cancelled.
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

// fill submits pieces until soakDepth are queued or the last one is: the
// one after which the queued work would end within half a piece of
// Duration.
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

// wait takes the oldest piece off the queue once done. The queued work is
// then expected to end a piece each after it, not as the submissions
// estimated.
func (p *soakPlan) wait() (*soakPiece, error) {
	pc := p.queue[0]
	err := p.dev.wait(pc)
	pc.done = p.now()
	p.queue = p.queue[1:]
	p.queuedEnd = pc.done.Add(p.pieceS * time.Duration(len(p.queue)))
	return pc, err
}

// account records a finished piece's point; its time is the next estimate
// of a piece.
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

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
