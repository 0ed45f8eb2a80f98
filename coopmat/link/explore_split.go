//go:build explore

package link

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"time"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// The split route moves one upload over two paths at once: the stream
// kernel pulls the first part from host memory (the device reads over the
// link) while the host's cores store the rest into device-mapped memory
// (the host writes over the link). The two use different transactions on
// the link (reads answered by completions, and posted writes), so where
// either alone stops short of the link, together they can move more. The
// part the kernel pulls is chosen by a short timed trial.

// splitRoute names the route in paths; the path ends in the percentage
// the kernel pulled.
const splitRoute = "split.pull-and-write"

// splitShares are the kernel's shares of an upload (in eighths) that the
// trial tries.
var splitShares = []uint64{4, 5, 6, 7}

// split is the buffers of the split route for n-byte uploads and the
// commands of each share tried. Every share uploads the same host buffer:
// the kernel pulls its first bytes into devA, the writers store the rest
// into the same offsets of devB; both are copied back into back.
type split struct {
	d       *vulkan.Device
	n       uint64
	host    *vulkan.Buffer // host-cached source
	devA    *vulkan.Buffer // device-local destination of the kernel's part
	devB    *vulkan.Buffer // device-mapped destination of the writers' part
	back    *vulkan.Buffer // host-cached readback
	shares  []*share
	round   uint32
	parts   int
	checked uint64
	tamper  func(string, []byte)
}

// share is one division of the upload: the kernel pulls the first pulled
// bytes.
type share struct {
	pulled     uint64
	s          *stream
	pull, read *vulkan.Commands
}

// newSplit creates the buffers and records the pulls and readbacks of
// every share; on error nothing is left behind. Without device-mapped
// memory it returns an error wrapping ErrNoHostMemory.
func newSplit(d *vulkan.Device, n uint64, tamper func(string, []byte)) (*split, error) {
	sp := &split{d: d, n: n, tamper: tamper, parts: runtime.GOMAXPROCS(0)}
	if err := sp.create(); err != nil {
		sp.release()
		return nil, err
	}
	return sp, nil
}

func (sp *split) create() error {
	d := sp.d
	var err error
	if sp.devB, err = d.NewDeviceMappedBuffer(sp.n); err != nil {
		return err
	}
	if sp.host, _, err = d.NewMappedBuffer(sp.n, true); err != nil {
		return err
	}
	if sp.back, _, err = d.NewMappedBuffer(sp.n, true); err != nil {
		return err
	}
	if sp.devA, err = d.NewBuffer(sp.n, false); err != nil {
		return err
	}
	for _, eighths := range splitShares {
		pulled := sp.n * eighths / 8 / transferAlign * transferAlign
		if pulled == 0 || pulled == sp.n {
			continue
		}
		sh := &share{pulled: pulled}
		sp.shares = append(sp.shares, sh) // released with sp, even on error
		if err := sp.record(sh); err != nil {
			return err
		}
	}
	if len(sp.shares) == 0 {
		return fmt.Errorf("%d bytes do not split: %w", sp.n, vulkan.ErrNoHostMemory)
	}
	return nil
}

// record builds sh's kernel, which moves the first sh.pulled bytes, and
// records its pull and the readback of both parts.
func (sp *split) record(sh *share) error {
	d := sp.d
	var err error
	if sh.s, err = newStream(d, sh.pulled, [][]*vulkan.Buffer{{sp.host, sp.devA}}); err != nil {
		return fmt.Errorf("stream kernel: %w", err)
	}
	if sh.pull, err = d.NewCommands(); err != nil {
		return err
	}
	if err := sh.pull.Record(func(cb vk.CommandBuffer) { sh.s.move(cb, nil, 0) }); err != nil {
		return err
	}
	if sh.read, err = d.NewCommands(); err != nil {
		return err
	}
	return sh.read.Record(func(cb vk.CommandBuffer) {
		vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
			vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
		vk.CmdCopyBuffer(cb, sp.devA.Buf, sp.back.Buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(sh.pulled)}})
		vk.CmdCopyBuffer(cb, sp.devB.Buf, sp.back.Buf, 1, []vk.BufferCopy{
			{SrcOffset: vk.DeviceSize(sh.pulled), DstOffset: vk.DeviceSize(sh.pulled), Size: vk.DeviceSize(sp.n - sh.pulled)},
		})
		vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
			vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
	})
}

func (sp *split) release() {
	for _, sh := range sp.shares {
		sh.read.Release()
		sh.pull.Release()
		sh.s.release()
	}
	for _, b := range []*vulkan.Buffer{sp.devA, sp.back, sp.host, sp.devB} {
		b.Release()
	}
}

// once uploads a new pattern over both paths in share sh, timed by the
// host from the submit of the pull until both the pull's fence and every
// writer's read back, then checks every word of the device's copy back.
func (sp *split) once(sh *share) (float64, error) {
	sp.round++
	src := sp.host.Words()
	fillPattern(src, sp.round)
	a := sh.pulled / 4
	start := time.Now()
	if err := sh.pull.ResetFence(); err != nil {
		return 0, err
	}
	if err := sh.pull.Enqueue(); err != nil {
		return 0, err
	}
	if err := writeMapped(sp.devB.Words()[a:], src[a:], sp.parts); err != nil {
		return 0, err
	}
	if err := sh.pull.Wait(vulkan.FenceSpin); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	words := sp.back.Words()
	fillWord(words, poisonWord)
	if _, err := sh.read.Submit(); err != nil {
		return 0, fmt.Errorf("read back: %w", err)
	}
	if sp.tamper != nil {
		sp.tamper("transfer", sp.back.Bytes())
	}
	if err := checkPattern(words, sp.round); err != nil {
		return 0, fmt.Errorf("round %d, pulled and written, copied back: %w", sp.round, err)
	}
	sp.checked += uint64(len(words))
	return secs, nil
}

// splitRounds are the trial's rounds of each share.
const splitRounds = 3

// bulkSplit measures host → device over the split route for n-byte
// uploads: a trial of the kernel's shares (the product's trial, round
// robin after o.Warmup of them), then the samples of the one with the
// lowest median. Without device-mapped memory it returns an error
// wrapping ErrNoHostMemory.
func bulkSplit(ctx context.Context, d *vulkan.Device, n uint64, o TransferOptions) (Candidate, schema.Stat, error) {
	sp, err := newSplit(d, n, o.tamper)
	if err != nil {
		return Candidate{}, schema.Stat{}, err
	}
	defer sp.release()
	ms := make([]latencyMethod, len(sp.shares))
	for i, sh := range sp.shares {
		ms[i] = latencyMethod{"pulled " + strconv.FormatUint(sh.pulled, 10) + " bytes", func() (float64, error) { return sp.once(sh) }}
	}
	t := trial{budget: familyBudget, keep: splitRounds, now: time.Now}
	times, err := latencyTrialTimes(ctx, ms, o, t)
	if err != nil {
		return Candidate{}, schema.Stat{}, err
	}
	best := 0
	for i := range times {
		if stats.Median(times[i]) < stats.Median(times[best]) {
			best = i
		}
	}
	sh := sp.shares[best]
	var secs []float64
	for range o.samples() {
		if err := ctx.Err(); err != nil {
			return Candidate{}, schema.Stat{}, err
		}
		s, err := sp.once(sh)
		if err != nil {
			return Candidate{}, schema.Stat{}, err
		}
		secs = append(secs, s)
	}
	st, err := rates(n, secs)
	pct := strconv.FormatUint(sh.pulled*100/n, 10)
	path := transferPathPrefix + splitRoute + "." + d.Queue.Name + ".host-cached." + deviceMapped + ".pulled-" + pct
	return Candidate{Path: path, Timing: schema.TimingHostWallClock}, st, err
}
