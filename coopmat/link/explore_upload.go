//go:build explore

package link

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
)

// uploadPathPrefix starts the path of a 1 MiB upload timed from data in
// host memory, its copy into the staging buffer included.
const uploadPathPrefix = "vulkan-host-"

// uploadSweep is the product's uploader (its slots, readback, check and
// device-mapped destination) with every staging memory kind the device
// has, the uploads of each on every route, and a writer pool for each count
// of host writers.
type uploadSweep struct {
	*uploader
	routes  []route
	stages  []*vulkan.Buffer // stages[0] is the uploader's host-cached stage
	kinds   []vulkan.HostMemory
	streams []*stream              // the kernel's pull of each stage, one pair per slot
	copies  [][][]*vulkan.Commands // [route][stage][slot]: stage → slot, pre-recorded
	pools   map[int]*writers       // pools of host writes of more than one writer
}

// exploreUploads logs the median of every 1 MiB upload method, from host
// memory and pinned, then checks the last uploads.
func exploreUploads(ctx context.Context, d *vulkan.Device, o TransferOptions, logf Logf) error {
	s := &uploadSweep{uploader: &uploader{d: d, tamper: o.tamper, src: make([]uint32, latencyUploadBytes/4)}, routes: routes(d)}
	defer s.release()
	if err := s.create(); err != nil {
		return err
	}
	for _, pinned := range []bool{false, true} {
		for _, m := range s.methods(pinned) {
			st, err := sampleLatency(ctx, m, o.warmup(), latencySamples)
			if err != nil {
				return err
			}
			logf("%s %.1f µs (min %.1f, max %.1f)", m.path, st.Median*1e6, st.Min*1e6, st.Max*1e6)
		}
	}
	return s.check()
}

// create makes the uploader's buffers (with a device-mapped destination
// where the device has room for one), then a staging buffer of each host
// memory kind the device has beyond host-cached (uncached where it
// differs; imported where the device imports host memory) and the uploads
// of every stage on every route.
func (s *uploadSweep) create() error {
	if _, err := s.uploader.create([]uploadSpec{{writers: 1}}); err != nil {
		return err
	}
	s.stages, s.kinds = []*vulkan.Buffer{s.stage}, []vulkan.HostMemory{s.kind}
	for _, hk := range vulkan.HostKinds {
		st, k, err := s.d.NewHostBuffer(latencyUploadBytes, hk)
		if errors.Is(err, vulkan.ErrNoHostMemory) {
			continue
		}
		if err != nil {
			return err
		}
		if slices.Contains(s.kinds, k) {
			st.Release()
			continue
		}
		s.stages, s.kinds = append(s.stages, st), append(s.kinds, k)
	}
	s.copies = make([][][]*vulkan.Commands, len(s.routes))
	for _, st := range s.stages {
		pairs := make([][]*vulkan.Buffer, len(s.dsts))
		for i, dst := range s.dsts {
			pairs[i] = []*vulkan.Buffer{st, dst}
		}
		k, err := newStream(s.d, latencyUploadBytes, pairs)
		if err != nil {
			return fmt.Errorf("stream kernel: %w", err)
		}
		s.streams = append(s.streams, k)
		for ri, r := range s.routes {
			cs, err := s.recordUploads(r, st, k)
			s.copies[ri] = append(s.copies[ri], cs) // released with s, even on error
			if err != nil {
				return err
			}
		}
	}
	if s.mapped != nil {
		s.pools = map[int]*writers{}
		for _, n := range writerCounts() {
			if n > 1 {
				s.pools[n] = newWriters(n)
			}
		}
	}
	return nil
}

// writerCounts are the numbers of goroutines a 1 MiB host write is tried
// with, up to GOMAXPROCS.
func writerCounts() []int {
	var ns []int
	for _, n := range []int{1, 2, 4, 8, 16} {
		if n <= runtime.GOMAXPROCS(0) {
			ns = append(ns, n)
		}
	}
	return ns
}

// methods are the uploads on each route from each stage, waited for each
// way, and the host writes of each count of writers; pinned ones start
// with the data already staged.
func (s *uploadSweep) methods(pinned bool) []latencyMethod {
	prefix := uploadPathPrefix
	if pinned {
		prefix = pinnedPathPrefix
	}
	var ms []latencyMethod
	for ri, r := range s.routes {
		for i, k := range s.kinds {
			for _, w := range []vulkan.FenceWait{vulkan.FenceBlock, vulkan.FenceSpin} {
				ms = append(ms, latencyMethod{prefix + r.name(true) + "." + k.Name() + "." + w.String(),
					func() (float64, error) { return s.once(ri, i, w, pinned) }})
			}
		}
	}
	if s.mapped != nil {
		for _, n := range writerCounts() {
			ms = append(ms, latencyMethod{writePath(prefix, n), func() (float64, error) {
				s.writers = s.pools[n]
				return s.write(n)
			}})
		}
	}
	return ms
}

// once makes a fresh pattern (untimed), then times its copy into stage i
// (unless pinned: then the copy is done before the clock starts), the
// submit of the recorded upload into the next free slot on route ri and
// the wait w. Once every slot holds an upload, all are checked.
func (s *uploadSweep) once(ri, i int, w vulkan.FenceWait, pinned bool) (float64, error) {
	s.round++
	fillPattern(s.src, s.round)
	stage, slot := s.stages[i].Words(), len(s.rounds)
	if pinned {
		copy(stage, s.src)
	}
	if err := s.copies[ri][i][slot].ResetFence(); err != nil {
		return 0, err
	}
	start := time.Now()
	if !pinned {
		copy(stage, s.src)
	}
	if err := s.copies[ri][i][slot].Issue(w); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	return secs, s.uploaded(upload{round: s.round})
}

// release releases what the sweep added, then the uploader (which owns
// stages[0] and no writer pool).
func (s *uploadSweep) release() {
	for _, byStage := range s.copies {
		for _, cs := range byStage {
			for _, c := range cs {
				c.Release()
			}
		}
	}
	for _, k := range s.streams {
		k.release()
	}
	for _, b := range s.stages[min(1, len(s.stages)):] {
		b.Release()
	}
	for _, w := range s.pools {
		w.close()
	}
	s.writers = nil
	s.uploader.release()
}
