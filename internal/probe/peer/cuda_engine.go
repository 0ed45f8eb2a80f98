//go:build linux && cgo

package peer

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/everycycle/appraise/internal/platform/cuda"

	"github.com/everycycle/appraise/schema"
)

// DetectCUDA says whether the cuda-peer path can run for this → peer; an
// absent library is Loaded false with Why, not an error.
func DetectCUDA(this, peer string) (CUDAStatus, error) {
	drv, err := loadCUDA()
	if err != nil {
		return CUDAStatus{Why: err.Error()}, nil
	}
	devs, ok, err := findPair(drv, this, peer)
	if err != nil || !ok {
		return CUDAStatus{Loaded: true, Why: whyNotFound(ok)}, err
	}
	can, err := canAccess(drv, devs)
	if err != nil || !can {
		return CUDAStatus{Loaded: true, Found: true, Why: "cuDeviceCanAccessPeer: no peer access"}, err
	}
	return CUDAStatus{Loaded: true, Found: true, PeerAccess: true}, nil
}

func whyNotFound(ok bool) string {
	if ok {
		return ""
	}
	return "devices not both found by bus address"
}

// MeasurePair measures this → peer through CUDA peer copies. bytes is the
// bulk size (0: DefaultBytes; a multiple of 4096, at least 1 MiB); each
// device needs 2×bytes free. A mismatch wraps ErrCheckFailed, an unusable
// library ErrNoCUDA.
func MeasurePair(ctx context.Context, this, peer string, bytes uint64) (PairResult, error) {
	ids, bytes, err := pairArgs(this, peer, bytes, DefaultBytes)
	if err != nil {
		return PairResult{}, err
	}
	drv, err := loadCUDA()
	if err != nil {
		return PairResult{}, err
	}
	// Contexts are current per OS thread: every call below runs on this one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e, err := openCUDA(drv, ids[0], ids[1])
	if err != nil {
		return PairResult{}, err
	}
	defer e.release()
	r, err := run(ctx, e, defaultPlan(bytes))
	if err != nil {
		return PairResult{}, fmt.Errorf("peer: cuda: %s → %s: %w", ids[0], ids[1], err)
	}
	r.This, r.Peer, r.Path = ids[0], ids[1], PathCUDAPeer
	return r, nil
}

// cudaEngine is the engine over two devices' primary contexts; copies from a
// side run on that side's stream, between its two events.
type cudaEngine struct {
	drv      *cuda.Driver
	dev      [2]cuda.Device
	ctx      [2]cuda.Context
	retained [2]bool
	enabled  [2]bool // peer access enabled from side i to the other
	stream   [2]cuda.Stream
	ev       [2][2]cuda.Event // start, stop
	bufs     []buffer
}

// openCUDA retains both primary contexts, enables peer access both ways and
// makes the streams and events; on error nothing is left behind.
func openCUDA(drv *cuda.Driver, this, peer string) (*cudaEngine, error) {
	devs, ok, err := findPair(drv, this, peer)
	if err == nil && !ok {
		err = fmt.Errorf("cuda: %s and %s are not both CUDA devices", this, peer)
	}
	if err != nil {
		return nil, err
	}
	if can, err := canAccess(drv, devs); err != nil || !can {
		return nil, errors.Join(err, fmt.Errorf("cuda: cuDeviceCanAccessPeer: %s and %s cannot access each other", this, peer))
	}
	e := &cudaEngine{drv: drv, dev: devs}
	if err := e.setup(); err != nil {
		e.release()
		return nil, err
	}
	return e, nil
}

// setup does openCUDA's work; the caller releases e on error.
func (e *cudaEngine) setup() error {
	var err error
	for s := range 2 {
		if e.ctx[s], err = e.drv.Retain(e.dev[s]); err != nil {
			return call(err)
		}
		e.retained[s] = true
	}
	for s := range 2 {
		if err := e.use(s); err != nil {
			return err
		}
		switch err := e.drv.EnablePeer(e.ctx[1-s]); {
		case err == nil:
			e.enabled[s] = true
		case alreadyEnabled(err):
		default:
			return call(err)
		}
		if e.stream[s], err = e.drv.NewStream(); err != nil {
			return call(err)
		}
		for k := range 2 {
			if e.ev[s][k], err = e.drv.NewEvent(); err != nil {
				return call(err)
			}
		}
	}
	return nil
}

func (e *cudaEngine) use(s int) error { return call(e.drv.SetCurrent(e.ctx[s])) }

// release frees everything e made, in reverse; it is safe on a partial engine
// and twice. The driver's errors are dropped: the measurement's comes first.
func (e *cudaEngine) release() {
	drv := e.drv
	for s := range 2 {
		if !e.retained[s] || e.use(s) != nil {
			continue
		}
		for _, b := range e.bufs {
			if b.side == s {
				drv.Free(cuda.Ptr(b.ptr))
			}
		}
		for k := range 2 {
			if e.ev[s][k].Valid() {
				drv.DestroyEvent(e.ev[s][k])
				e.ev[s][k] = cuda.Event{}
			}
		}
		if e.stream[s].Valid() {
			drv.DestroyStream(e.stream[s])
			e.stream[s] = cuda.Stream{}
		}
		if e.enabled[s] {
			drv.DisablePeer(e.ctx[1-s])
			e.enabled[s] = false
		}
	}
	e.bufs = nil
	drv.SetCurrent(cuda.Context{})
	for s := range 2 {
		if e.retained[s] {
			drv.Release(e.dev[s])
			e.retained[s] = false
		}
	}
}

func (e *cudaEngine) alloc(s int, n uint64) (buffer, error) {
	if err := e.use(s); err != nil {
		return buffer{}, err
	}
	p, err := e.drv.Alloc(n)
	if err != nil {
		return buffer{}, call(err)
	}
	b := buffer{side: s, ptr: uint64(p), n: n}
	e.bufs = append(e.bufs, b)
	return b, nil
}

// upload copies p to b at off and waits until it has landed.
func (e *cudaEngine) upload(b buffer, off uint64, p []byte) error {
	if err := e.use(b.side); err != nil {
		return err
	}
	if err := e.drv.HtoD(cuda.Ptr(b.ptr+off), p); err != nil {
		return call(err)
	}
	return call(e.drv.Sync())
}

func (e *cudaEngine) download(p []byte, b buffer, off uint64) error {
	if err := e.use(b.side); err != nil {
		return err
	}
	return call(e.drv.DtoH(p, cuda.Ptr(b.ptr+off)))
}

// fill sets every word of b to w and waits.
func (e *cudaEngine) fill(b buffer, w uint32) error {
	if err := e.use(b.side); err != nil {
		return err
	}
	if err := e.drv.MemsetD32(cuda.Ptr(b.ptr), w, b.n/4); err != nil {
		return call(err)
	}
	return call(e.drv.Sync())
}

// copies issues each job on its source side's stream, then waits for all and
// returns their event-timed seconds.
func (e *cudaEngine) copies(jobs []job) ([]float64, error) {
	for i, j := range jobs {
		if i > 0 && j.src.side == jobs[0].src.side {
			return nil, errors.New("peer: cuda: two jobs from one side")
		}
		if err := e.issue(j); err != nil {
			return nil, err
		}
	}
	ts := make([]float64, len(jobs))
	for i, j := range jobs {
		s := j.src.side
		if err := e.drv.WaitEvent(e.ev[s][1]); err != nil {
			return nil, call(err)
		}
		t, err := e.drv.Elapsed(e.ev[s][0], e.ev[s][1])
		if err != nil {
			return nil, call(err)
		}
		ts[i] = t
	}
	return ts, nil
}

func (e *cudaEngine) issue(j job) error {
	s := j.src.side
	if err := e.use(s); err != nil {
		return err
	}
	if err := e.drv.Record(e.ev[s][0], e.stream[s]); err != nil {
		return call(err)
	}
	err := e.drv.PeerCopyAsync(cuda.Ptr(j.dst.ptr), e.ctx[j.dst.side], cuda.Ptr(j.src.ptr), e.ctx[s], j.n, e.stream[s])
	if err != nil {
		return call(err)
	}
	return call(e.drv.Record(e.ev[s][1], e.stream[s]))
}

func (e *cudaEngine) timing() schema.TimingMethod { return schema.TimingGPUTimestamp }
