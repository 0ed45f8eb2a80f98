package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

// SoakOptions says how long Soak loads the device and where its points go.
type SoakOptions struct {
	// Duration is how long the load runs; it ends on the piece of work
	// nearest to it, and at least one piece runs. It must be positive.
	Duration time.Duration
	// OnPoint, when not nil, is called from Soak's goroutine after each
	// timed piece of work with the piece's end as time since the load
	// began and its throughput in operations/s. It should return within a
	// few milliseconds: while it runs, the pieces already queued (at most
	// two) are all that keeps the GPU busy.
	OnPoint func(at time.Duration, opsPerS float64)
}

// SoakPoint is one timed piece of the sustained load.
type SoakPoint struct {
	// At is the time since the load began at which the host saw the piece
	// done (host monotonic clock, the clock driver telemetry is read by).
	At time.Duration
	// OpsPerS is the piece's throughput, in operations/s, counted by the
	// ALU table (ALUKernels) and timed by SoakResult.Timing.
	OpsPerS float64
}

// SoakResult is a sustained load's throughput over time.
type SoakResult struct {
	// Points are the pieces of work in order, At increasing.
	Points []SoakPoint
	// Duration is how long the load ran: the last point's At.
	Duration time.Duration
	// Timing says how each piece was timed.
	Timing schema.TimingMethod
	// Checked is the number of invocations of the last piece whose output
	// was compared exactly with the closed form.
	Checked uint64
	// Kernel names the row of ALUKernels that made the load.
	Kernel string
}

// Shape of the load. A piece is one submission: soakPieceS of back-to-back
// dispatches of the kernel between two GPU timestamps. soakDepth pieces
// are queued at once, so when one ends the next is already on the GPU and
// the host has a whole piece's time to queue another; a GPU timestamp
// slot serves each piece from its submission until its timestamps are
// read, which is after the piece behind it has been submitted, hence one
// slot more than the depth.
const (
	soakPieceS  = 0.1
	soakDepth   = 2
	soakSlots   = soakDepth + 1
	soakKernel  = "fp32-fma"
	soakMaxReps = 4096
)

// errSoakDuration is returned for a non-positive SoakOptions.Duration.
var errSoakDuration = errors.New("gpu: soak duration must be positive")

// Soak loads the device with the fp32 FMA kernel of the ALU probe for
// o.Duration and returns its throughput over time. The kernel is sized by
// the ALU probe's calibration; one further trial sets a piece of work to
// at most soakPieceS (at least half of it unless a single dispatch is
// longer). Pieces are submitted two ahead, so the GPU goes from one to the
// next without waiting for the host; each is timed with GPU timestamps
// when the device has trusted ones (Device.Timing), else as the host saw
// the queue finish it after the one before. Before the trial the kernel
// is warmed up as the ALU probe warms it before its samples (d.warmUp,
// the ALU limits' WarmUp: 250 ms on a GPU, SoftwareWarmUp on a software
// adapter), so the cold rate, the median of the first pieces, is the
// device's rate at the same point of a load as the ALU probe's fp32 FMA
// figure, which the consistency rules hold it to: without it the first
// pieces also carried what a first load after idle costs (a GPU's clocks
// coming up from idle, a software adapter's threads waking and its
// pages first touched), which is no rate of the device and no thermal
// behaviour either (that takes seconds; the warm-up is a tenth of the
// shortest soak). Only after the load
// is the last piece's output (cleared on the GPU just before it) checked
// exactly against the closed form; a failed check returns an error
// wrapping ErrCheckFailed and no result. A cancelled ctx stops the load
// once the pieces already queued are done (at most two) and returns
// ctx.Err().
func Soak(ctx context.Context, d *Device, o SoakOptions) (SoakResult, error) {
	if err := d.alive(); err != nil {
		return SoakResult{}, err
	}
	return soak(ctx, d, o, newALULimits(d.opts.Quick), nil)
}

// soak is Soak with explicit limits and a test hook.
func soak(ctx context.Context, d *Device, o SoakOptions, lim aluLimits, tamper tamperFunc) (SoakResult, error) {
	s, err := runSoak(ctx, d, o, lim, tamper)
	if err != nil {
		return SoakResult{}, err
	}
	return s.plan.res, nil
}

// runSoak runs a soak and returns its state, for tests to inspect; on a
// failed run, with the error, whatever state there is.
func runSoak(ctx context.Context, d *Device, o SoakOptions, lim aluLimits, tamper tamperFunc) (*soaker, error) {
	if o.Duration <= 0 {
		return nil, errSoakDuration
	}
	r, err := newALURun(ctx, d, lim, tamper)
	if err != nil {
		return nil, err
	}
	defer r.release()
	s := &soaker{d: d, r: r}
	s.plan = soakPlan{o: o, now: time.Now, dev: s, res: SoakResult{Timing: d.timing, Kernel: soakKernel}}
	defer s.release()
	if err := s.run(ctx); err != nil {
		return s, fmt.Errorf("soak %s: %w", soakKernel, err)
	}
	return s, nil
}

// check is the soak's check: its last piece's output, compared exactly
// with the closed form of the kernel's chains.
func (r SoakResult) check() schema.Check {
	return schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: "exact", Passed: true}
}

// soakRow is the ALU table's row the soak runs.
func soakRow() (ALUKernel, error) {
	for _, k := range ALUKernels() {
		if k.Name == soakKernel {
			return k, nil
		}
	}
	return ALUKernel{}, fmt.Errorf("gpu: no ALU kernel %q", soakKernel)
}

// soaker is one soak in progress: the device's side of it (the kernel,
// its pieces' command buffers and clocks) and its plan.
type soaker struct {
	d    *Device
	r    *aluRun
	a    *aluDispatch
	plan soakPlan

	reps   int         // dispatches per piece
	groups uint32      // workgroups per dispatch
	slots  []*soakSlot // nil without GPU timestamps
	n      int         // pieces submitted, for choosing slots

	prevDone time.Time // when the host saw the previous piece done
}

// soakPiece is one submitted piece.
type soakPiece struct {
	finished        *notice   // seen when the device has done the piece
	slot            *soakSlot // nil without GPU timestamps
	submitted, done time.Time
	last            bool
}

// soakSlot is a GPU clock whose read buffer is mapped asynchronously while
// later pieces run.
type soakSlot struct {
	clock   *gpuClock
	mapping *notice // the read buffer's mapping, nil when not asked for
}

// run calibrates, runs the plan and checks the output.
func (s *soaker) run(ctx context.Context) error {
	if err := s.calibrate(ctx); err != nil {
		return err
	}
	if err := s.plan.run(ctx); err != nil {
		return err
	}
	return s.check()
}

// calibrate binds and sizes the kernel as the ALU probe does, warms it up
// as the ALU probe does, times one trial dispatch, and sets the
// dispatches per piece and the GPU clocks.
func (s *soaker) calibrate(ctx context.Context) error {
	row, err := soakRow()
	if err != nil {
		return err
	}
	if s.a, err = s.r.bind(row); err != nil {
		return err
	}
	if err := s.r.size(ctx, s.a); err != nil {
		return err
	}
	if _, err := s.d.warmUp(ctx, s.a.dispatch, s.r.lim.WarmUp, s.r.lim.cal.MaxIterations); err != nil {
		return err
	}
	t, err := s.r.trial(s.a)
	if err != nil {
		return err
	}
	s.reps, s.groups = pieceReps(t), s.a.groups
	s.plan.ops = float64(s.a.opsPerDispatch()) * float64(s.reps)
	s.plan.pieceS = seconds(t * float64(s.reps))
	return s.newSlots()
}

// pieceReps is the dispatches of dispatchS seconds that make a piece of at
// most soakPieceS (between half and all of it when a dispatch is shorter),
// at least 1 and at most soakMaxReps.
func pieceReps(dispatchS float64) int {
	if !positiveFinite(dispatchS) {
		return 1
	}
	return max(1, min(soakMaxReps, int(soakPieceS/dispatchS)))
}

// seconds converts seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// newSlots creates the GPU clocks when the device times by timestamps.
func (s *soaker) newSlots() error {
	if s.d.timing != schema.TimingGPUTimestamp {
		return nil
	}
	for i := 0; i < soakSlots; i++ {
		c, err := s.d.newClock()
		if err != nil {
			return err
		}
		s.slots = append(s.slots, &soakSlot{clock: c})
	}
	return nil
}

// release waits for anything still queued, then frees the clocks and the
// dispatch. Safe on a partial soak.
func (s *soaker) release() {
	for _, p := range s.plan.queue { // the soak has failed or ended already
		if s.d.dev == nil {
			break
		}
		if _, err := s.d.await(p.finished); err != nil {
			break
		}
	}
	for _, sl := range s.slots {
		if sl.mapping != nil { // mapped once its piece is done, which was waited for
			if st, err := s.d.await(sl.mapping); err == nil && st == mapSucceeded {
				_ = unmap(sl.clock.read)
			}
		}
		sl.clock.release()
	}
	s.slots, s.plan.queue = nil, nil
	if s.a != nil {
		s.a.release()
		s.a = nil
	}
}

// submit records and submits one piece; the last piece first clears the
// output (outside its timestamps) so the check sees what it wrote.
func (s *soaker) submit(last bool) (*soakPiece, error) {
	enc, err := s.d.encoder()
	if err != nil {
		return nil, err
	}
	defer enc.Release()
	p := &soakPiece{last: last}
	if len(s.slots) > 0 {
		p.slot = s.slots[s.n%len(s.slots)]
	}
	if err := s.record(enc, p); err != nil {
		return nil, err
	}
	cb, err := finish(enc)
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	return p, s.enqueue(p, cb)
}

// record records p's work: the clear when it is the last, then reps
// dispatches between the slot's timestamps.
func (s *soaker) record(enc *wgpu.CommandEncoder, p *soakPiece) error {
	if p.last {
		if err := enc.ClearBuffer(s.r.out, 0, s.a.invocations()*4); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer: %w", err)
		}
	}
	var c *gpuClock
	if p.slot != nil {
		c = p.slot.clock
	}
	return s.d.recordTimed(enc, work(s.a.dispatch, s.reps), c)
}

// enqueue submits p's command buffer without waiting, asks for the notice
// of its end and starts mapping its timestamps, which completes when the
// GPU has done p.
func (s *soaker) enqueue(p *soakPiece, cb *wgpu.CommandBuffer) error {
	if err := s.d.alive(); err != nil {
		return err
	}
	p.submitted = time.Now()
	s.d.queue.Submit(cb)
	var err error
	if p.finished, err = s.d.workDone(); err != nil {
		return err
	}
	s.n++
	if p.slot == nil {
		return nil
	}
	p.slot.mapping, err = s.d.mapAsync(p.slot.clock.read, wgpu.MapModeRead, 2*wgpu.QuerySize)
	return err
}

// wait waits until p, a queued piece, is done. Only that submission is
// waited for; the next stays queued.
func (s *soaker) wait(p *soakPiece) error {
	_, err := s.d.await(p.finished)
	return err
}

// pieceTime is p's duration in seconds: its GPU timestamps' difference, or
// without them the time from when the host saw the piece before it done
// (or from p's submission, if later) to when it saw p done.
func (s *soaker) pieceTime(p *soakPiece) (float64, error) {
	wallS := p.done.Sub(later(p.submitted, s.prevDone)).Seconds()
	s.prevDone = p.done
	if p.slot == nil {
		if !positiveFinite(wallS) {
			return 0, fmt.Errorf("gpu: host clock measured %v s for a piece", wallS)
		}
		return wallS, nil
	}
	t0, t1, err := s.readSlot(p)
	if err != nil {
		return 0, err
	}
	return s.gpuTime(p, t0, t1)
}

// gpuTime checks a piece's timestamps like timeWork does (increasing, and
// within the host's submit-to-done time) and notes the GPU's idle time
// since the previous piece ended.
func (s *soaker) gpuTime(p *soakPiece, t0, t1 uint64) (float64, error) {
	if t1 <= t0 {
		return 0, fmt.Errorf("gpu: timestamps do not increase: %d then %d", t0, t1)
	}
	gpuS, hostS := float64(t1-t0)*1e-9, p.done.Sub(p.submitted).Seconds()
	if gpuS > hostS*maxClockRatio+clockSlackS {
		return 0, fmt.Errorf("gpu: GPU timestamps say %.6g s but the host saw the piece done in %.6g s", gpuS, hostS)
	}
	return gpuS, nil
}

// readSlot reads the timestamps of a finished piece and unmaps its slot.
func (s *soaker) readSlot(p *soakPiece) (t0, t1 uint64, err error) {
	sl := p.slot
	st, err := s.d.await(sl.mapping) // p is done: this only runs the map callback
	if err != nil {
		return 0, 0, err
	}
	sl.mapping = nil
	if st != mapSucceeded {
		return 0, 0, fmt.Errorf("webgpu: Buffer.MapAsync (timestamps): status %v", wgpu.BufferMapAsyncStatus(st))
	}
	b := sl.clock.read.GetMappedRange(0, 2*wgpu.QuerySize)
	t0, t1 = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	return t0, t1, unmap(sl.clock.read)
}

// check compares the last piece's output exactly with the closed form.
func (s *soaker) check() error {
	var res ALUResult
	if err := s.r.check(s.a, &res); err != nil {
		return err
	}
	s.plan.res.Checked = res.Checked
	return nil
}
