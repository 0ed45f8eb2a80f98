package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/stats"
)

const launchEntry = "touch"

// launcher runs the one-invocation counter kernel whose round trip
// calibrations take as the launch overhead.
type launcher struct {
	d       *Device
	tamper  tamperFunc
	ks      *kernelSet
	counter *wgpu.Buffer
	bg      *wgpu.BindGroup
	count   uint64 // dispatches submitted
}

// newLauncher leaves nothing behind on error.
func newLauncher(d *Device, tamper tamperFunc) (*launcher, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	l := &launcher{d: d, tamper: tamper}
	if err := l.setup(); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

func (l *launcher) setup() error {
	var err error
	if l.ks, err = l.d.compile("launch", probeKernels()["launch"]...); err != nil {
		return err
	}
	// The kernel uses the first word of a 16-byte copy unit.
	if l.counter, err = l.d.storageBuffer("counter", 16); err != nil {
		return err
	}
	if err = l.d.run(func(enc *wgpu.CommandEncoder) error { return enc.ClearBuffer(l.counter, 0, 16) }); err != nil {
		return fmt.Errorf("webgpu: ClearBuffer: %w", err)
	}
	l.bg, err = l.d.bindGroup(l.ks.kernels[launchEntry], binding{0, l.counter})
	return err
}

// release is safe on a partial launcher.
func (l *launcher) release() {
	if l.bg != nil {
		l.bg.Release()
	}
	if l.counter != nil {
		l.counter.Release()
	}
	if l.ks != nil {
		l.ks.release()
	}
}

func (l *launcher) roundTrip() (float64, error) {
	ds := dispatch{k: l.ks.kernels[launchEntry], bg: l.bg, x: 1, y: 1}
	start := time.Now()
	if err := l.d.run(work(ds, 1)); err != nil {
		return 0, err
	}
	l.count++
	return time.Since(start).Seconds(), nil
}

// checkCounter checks that the kernel counted every dispatch sent.
func (l *launcher) checkCounter() error {
	var got uint32
	err := l.d.readBack(l.counter, 16, func(off uint64, chunk []byte) error {
		if l.tamper != nil {
			chunk = l.tamper("counter", off, append([]byte(nil), chunk...))
		}
		got = binary.LittleEndian.Uint32(chunk)
		return nil
	})
	if err != nil {
		return err
	}
	if want := uint32(l.count); got != want {
		return fmt.Errorf("%w: the counter kernel ran %d times, want %d", ErrCheckFailed, got, want)
	}
	return nil
}

// emptyRoundTripS is the median of n checked empty-dispatch round trips,
// after n discarded ones.
func (d *Device) emptyRoundTripS(ctx context.Context, n int) (float64, error) {
	l, err := newLauncher(d, nil)
	if err != nil {
		return 0, err
	}
	defer l.release()
	samples := make([]float64, 0, n)
	for i := 0; i < 2*n; i++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t, err := l.roundTrip()
		if err != nil {
			return 0, err
		}
		if i >= n {
			samples = append(samples, t)
		}
	}
	if err := l.checkCounter(); err != nil {
		return 0, err
	}
	return stats.Median(samples), nil
}
