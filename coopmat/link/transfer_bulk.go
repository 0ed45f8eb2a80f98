package link

import (
	"context"
	"errors"
	"fmt"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// bulk is one bulk candidate's buffers and recorded moves: uploads from
// src, downloads into back (host-cached; src itself when src is).
type bulk struct {
	d          *vulkan.Device
	r          route
	n          uint64
	shader     *stream // the route's kernel: pair 0 uploads, pair 1 downloads
	src, back  *vulkan.Buffer
	dev        *vulkan.Buffer
	kind, into vulkan.HostMemory
	up, down   *vulkan.Commands
	warm       *vulkan.Commands
	upT, downT *vulkan.Timer
	tamper     func(string, []byte)
	round      uint32
	checked    uint64
}

// bulkPath is one bulk candidate, its buffers made.
type bulkPath interface {
	// paths name the upload and (empty when it only uploads) the download.
	paths() (up, down Candidate)
	// warmOnce moves data unchecked, for a warm-up.
	warmOnce() error
	// once runs one checked round: upload and download seconds (0: none).
	once() (up, down float64, err error)
	words() uint64
	release()
}

// measureBulk fills res's bulk figures.
func measureBulk(ctx context.Context, d *vulkan.Device, n uint64, o TransferOptions, res *TransferResult) error {
	var ps []bulkPath
	defer func() {
		for _, p := range ps {
			res.CheckedWords += p.words()
			p.release()
		}
	}()
	for _, c := range bulkCandidates(featuresOf(d, o), d.Queue, d.CopyQ) {
		p, err := newBulkPath(d, c, n, o.tamper)
		if errors.Is(err, vulkan.ErrNoHostMemory) {
			continue
		}
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	o.progress("%s: %d paths (%d MiB transfers)", ProbeHostLink, len(ps), n>>20)
	upT, downT, err := bulkTrialTimes(ctx, ps, o)
	if err != nil {
		return err
	}
	var ups, downs []Candidate
	var downP []bulkPath
	for i, p := range ps {
		up, down := p.paths()
		if up.Trial, err = rates(n, upT[i]); err != nil {
			return fmt.Errorf("%s: %w", up.Path, err)
		}
		ups = append(ups, up)
		if down.Path != "" {
			if down.Trial, err = rates(n, downT[i]); err != nil {
				return fmt.Errorf("%s: %w", down.Path, err)
			}
			downs, downP = append(downs, down), append(downP, p)
		}
	}
	if len(downs) == 0 {
		return errors.New("no bulk path moves device to host")
	}
	bu, bd := fastest(ups, true), fastest(downs, true)
	upS, downS, err := sampleBulk(ctx, ps[bu], n, o, downP[bd] == ps[bu])
	if err != nil {
		return fmt.Errorf("%s: %w", ups[bu].Path, err)
	}
	if downP[bd] != ps[bu] {
		if _, downS, err = sampleBulk(ctx, downP[bd], n, o, true); err != nil {
			return fmt.Errorf("%s: %w", downs[bd].Path, err)
		}
	}
	res.HostToDevice, res.DeviceToHost = family(ups, bu, upS), family(downs, bd, downS)
	return nil
}

// newBulkPath makes c's buffers for n-byte moves.
func newBulkPath(d *vulkan.Device, c bulkSpec, n uint64, tamper func(string, []byte)) (bulkPath, error) {
	if c.route == nil {
		return newHostWrite(d, n, tamper)
	}
	b, err := newBulk(d, *c.route, n, c.from, tamper)
	if errors.Is(err, vulkan.ErrNoHostMemory) && c.from == vulkan.HostImported {
		b, err = newBulk(d, *c.route, n, vulkan.HostCached, tamper)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.route.name(true), err)
	}
	return b, nil
}

// bulkTrialTimes warms every path and returns each one's trial seconds.
func bulkTrialTimes(ctx context.Context, ps []bulkPath, o TransferOptions) (ups, downs [][]float64, err error) {
	t := bulkTrial(o)
	start := t.now()
	next := 0
	err = vulkan.WarmUp(ctx, o.warmup(), func() error {
		err := ps[next%len(ps)].warmOnce()
		next++
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	ups, downs = make([][]float64, len(ps)), make([][]float64, len(ps))
	_, err = t.run(ctx, start, func(kept bool) error {
		for i, p := range ps {
			up, down, err := p.once()
			if err != nil {
				u, _ := p.paths()
				return fmt.Errorf("%s: %w", u.Path, err)
			}
			if kept {
				ups[i], downs[i] = append(ups[i], up), append(downs[i], down)
			}
		}
		return nil
	})
	return ups, downs, err
}

// sampleBulk warms p, then samples its upload and, with both, its download.
func sampleBulk(ctx context.Context, p bulkPath, n uint64, o TransferOptions, both bool) (up, down schema.Stat, err error) {
	if err := vulkan.WarmUp(ctx, o.warmup(), p.warmOnce); err != nil {
		return up, down, fmt.Errorf("warm-up: %w", err)
	}
	var ups, downs []float64
	for range o.samples() {
		if err := ctx.Err(); err != nil {
			return up, down, err
		}
		u, d, err := p.once()
		if err != nil {
			return up, down, err
		}
		ups, downs = append(ups, u), append(downs, d)
	}
	if up, err = rates(n, ups); err == nil && both {
		down, err = rates(n, downs)
	}
	return up, down, err
}

func (b *bulk) paths() (up, down Candidate) {
	return Candidate{Path: transferPathPrefix + b.r.name(true) + "." + b.kind.Name(), Timing: b.upT.Method()},
		Candidate{Path: transferPathPrefix + b.r.name(false) + "." + b.into.Name(), Timing: b.downT.Method()}
}

func (b *bulk) warmOnce() error                     { _, err := b.warm.Submit(); return err }
func (b *bulk) once() (up, down float64, err error) { return b.roundTrip() }
func (b *bulk) words() uint64                       { return b.checked }

// rates summarises per-sample seconds of n-byte transfers as bytes/s.
func rates(n uint64, secs []float64) (schema.Stat, error) {
	r := make([]float64, len(secs))
	for i, s := range secs {
		r[i] = float64(n) / s
	}
	return stats.Summarize(r)
}

// newBulk creates the buffers, timers and moves; on error it leaves nothing.
func newBulk(d *vulkan.Device, r route, n uint64, k vulkan.HostKind, tamper func(string, []byte)) (*bulk, error) {
	b := &bulk{d: d, r: r, n: n, tamper: tamper}
	if err := b.create(k); err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

func (b *bulk) create(k vulkan.HostKind) error {
	var err error
	if b.src, b.kind, err = b.d.NewHostBuffer(b.n, k); err != nil {
		return fmt.Errorf("host buffer: %w", err)
	}
	b.back, b.into = b.src, b.kind
	if !b.kind.Cached || b.kind.Imported {
		if b.back, b.into, err = b.d.NewMappedBuffer(b.n, true); err != nil {
			return fmt.Errorf("readback buffer: %w", err)
		}
	}
	if b.dev, err = b.d.NewBuffer(b.n, false); err != nil {
		return fmt.Errorf("device buffer: %w", err)
	}
	if b.r.shader {
		if b.shader, err = newStream(b.d, b.n, [][]*vulkan.Buffer{{b.src, b.dev}, {b.dev, b.back}}); err != nil {
			return fmt.Errorf("stream kernel: %w", err)
		}
	}
	if b.upT, err = b.d.NewTimerOn(b.r.q, 2); err != nil {
		return err
	}
	if b.downT, err = b.d.NewTimerOn(b.r.q, 2); err != nil {
		return err
	}
	for _, c := range []**vulkan.Commands{&b.up, &b.down, &b.warm} {
		if *c, err = b.d.NewCommandsOn(b.r.q); err != nil {
			return err
		}
	}
	return b.record()
}

func (b *bulk) record() error {
	err := b.up.Record(func(cb vk.CommandBuffer) { b.move(cb, b.upT, true) })
	if err == nil {
		err = b.down.Record(func(cb vk.CommandBuffer) { b.move(cb, b.downT, false) })
	}
	if err == nil {
		err = b.warm.Record(func(cb vk.CommandBuffer) {
			for range transferWarmCopies {
				b.move(cb, nil, true)
				b.move(cb, nil, false)
			}
		})
	}
	return err
}

// move records an upload or download, timed by t unless t is nil.
func (b *bulk) move(cb vk.CommandBuffer, t *vulkan.Timer, up bool) {
	switch {
	case b.shader != nil && up:
		b.shader.move(cb, t, 0)
	case b.shader != nil:
		b.shader.move(cb, t, 1)
	case up:
		b.copy(cb, t, b.src, b.dev)
	default:
		b.copy(cb, t, b.dev, b.back)
	}
}

// copy records a whole-buffer copy, ordered as stream.move is.
func (b *bulk) copy(cb vk.CommandBuffer, t *vulkan.Timer, src, dst *vulkan.Buffer) {
	t.Reset(cb)
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	t.Stamp(cb, 0, vk.PipelineStageTopOfPipeBit)
	vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(b.n)}})
	t.Stamp(cb, 1, vk.PipelineStageBottomOfPipeBit)
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (b *bulk) release() {
	b.warm.Release()
	b.down.Release()
	b.up.Release()
	b.downT.Release()
	b.upT.Release()
	b.shader.release()
	b.dev.Release()
	if b.back != b.src {
		b.back.Release()
	}
	b.src.Release()
}

// roundTrip times a new pattern's upload and download, then checks it.
func (b *bulk) roundTrip() (up, down float64, err error) {
	b.round++
	fillPattern(b.src.Words(), b.round)
	if up, err = timedSubmit(b.up, b.upT); err != nil {
		return 0, 0, fmt.Errorf("host to device: %w", err)
	}
	words := b.back.Words()
	fillWord(words, poisonWord)
	if down, err = timedSubmit(b.down, b.downT); err != nil {
		return 0, 0, fmt.Errorf("device to host: %w", err)
	}
	if b.tamper != nil {
		b.tamper("transfer", b.back.Bytes())
	}
	if err := checkPattern(words, b.round); err != nil {
		return 0, 0, fmt.Errorf("round %d, after host to device and back: %w", b.round, err)
	}
	b.checked += uint64(len(words))
	return up, down, nil
}

// timedSubmit runs c: its time by t's timestamps, else the host's clock.
func timedSubmit(c *vulkan.Commands, t *vulkan.Timer) (float64, error) {
	if err := t.Prepare(); err != nil {
		return 0, err
	}
	host, err := c.Submit()
	if err != nil {
		return 0, err
	}
	if t.Pool == nil {
		return host.Seconds(), nil
	}
	secs, err := t.Intervals(2)
	if err != nil {
		return 0, err
	}
	return secs[0], nil
}
