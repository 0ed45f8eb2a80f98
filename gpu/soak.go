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
	// Duration is how long the load runs, positive; it ends on the piece
	// of work nearest to it, and at least one piece runs.
	Duration time.Duration
	// OnPoint, when not nil, is called after each piece with its end since
	// the load began and its operations/s. It should return within a few
	// milliseconds: meanwhile only the pieces already queued keep the GPU
	// busy.
	OnPoint func(at time.Duration, opsPerS float64)
}

// SoakPoint is one timed piece of the sustained load.
type SoakPoint struct {
	At      time.Duration // since the load began, when the host saw the piece done
	OpsPerS float64       // counted as ALUKernels counts, timed by SoakResult.Timing
}

// SoakResult is a sustained load's throughput over time.
type SoakResult struct {
	Points   []SoakPoint   // At increasing
	Duration time.Duration // the last point's At
	Timing   schema.TimingMethod
	// Checked is the invocations of the last piece whose output was
	// compared exactly with the closed form.
	Checked uint64
	Kernel  string // the row of ALUKernels that made the load
}

// A piece is one submission of about soakPieceS seconds; soakDepth pieces
// are queued at once. A timestamp slot is held until its piece's
// timestamps are read, after the next piece is submitted, hence one slot
// more than the depth.
const (
	soakPieceS  = 0.1
	soakDepth   = 2
	soakSlots   = soakDepth + 1
	soakKernel  = "fp32-fma"
	soakMaxReps = 4096
)

var errSoakDuration = errors.New("gpu: soak duration must be positive")

// Soak loads the device with the ALU probe's fp32 FMA kernel for
// o.Duration and returns its throughput over time, each piece timed as
// the device times kernels. The kernel is sized and warmed up as the ALU
// probe does, so the first pieces' rate is comparable with its figure.
// After the load the last piece's output is checked exactly; a failed
// check returns an error wrapping ErrCheckFailed. A cancelled ctx stops
// the load once the queued pieces are done and returns ctx.Err().
func Soak(ctx context.Context, d *Device, o SoakOptions) (SoakResult, error) {
	if err := d.alive(); err != nil {
		return SoakResult{}, err
	}
	return soak(ctx, d, o, newALULimits(d.opts.Effort.ALU), nil)
}

func soak(ctx context.Context, d *Device, o SoakOptions, lim aluLimits, tamper tamperFunc) (SoakResult, error) {
	s, err := runSoak(ctx, d, o, lim, tamper)
	if err != nil {
		return SoakResult{}, err
	}
	return s.plan.res, nil
}

// runSoak returns the soak's state, for tests, with or without an error.
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

func (r SoakResult) check() schema.Check {
	return schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: "exact", Passed: true}
}

func soakRow() (ALUKernel, error) {
	for _, k := range ALUKernels() {
		if k.Name == soakKernel {
			return k, nil
		}
	}
	return ALUKernel{}, fmt.Errorf("gpu: no ALU kernel %q", soakKernel)
}

// soaker is one soak in progress: the device's side of it and its plan.
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

type soakPiece struct {
	finished        *notice   // seen when the device has done the piece
	slot            *soakSlot // nil without GPU timestamps
	submitted, done time.Time
	last            bool
}

// soakSlot is a GPU clock whose read buffer is mapped while later pieces
// run.
type soakSlot struct {
	clock   *gpuClock
	mapping *notice // the read buffer's mapping, nil when not asked for
}

func (s *soaker) run(ctx context.Context) error {
	if err := s.calibrate(ctx); err != nil {
		return err
	}
	if err := s.plan.run(ctx); err != nil {
		return err
	}
	return s.check()
}

// calibrate sizes and warms up the kernel as the ALU probe does, then sets
// the dispatches per piece from one trial.
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
// most soakPieceS, within [1, soakMaxReps].
func pieceReps(dispatchS float64) int {
	if !positiveFinite(dispatchS) {
		return 1
	}
	return max(1, min(soakMaxReps, int(soakPieceS/dispatchS)))
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

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

// submit submits one piece; the last first clears the output, outside its
// timestamps.
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

// enqueue submits p without waiting and starts mapping its timestamps.
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

func (s *soaker) wait(p *soakPiece) error {
	_, err := s.d.await(p.finished)
	return err
}

// pieceTime is p's duration in seconds: by its GPU timestamps, or from the
// later of its submission and the previous piece's end to its end.
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

// gpuTime checks a piece's timestamps as timeWork does.
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

func (s *soaker) check() error {
	var res ALUResult
	if err := s.r.check(s.a, &res); err != nil {
		return err
	}
	s.plan.res.Checked = res.Checked
	return nil
}
