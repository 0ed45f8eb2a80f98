//go:build linux && cgo

package peer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// loadCUDA loads the driver and runs cuInit once per process; it stays
// loaded, its entry points and contexts being process-wide.
var loadCUDA = sync.OnceValues(func() (*cuda.Driver, error) {
	drv, err := cuda.Open(cuda.DefaultLibrary)
	if err != nil {
		return nil, fmt.Errorf("cuda: %w: %w", err, ErrNoCUDA)
	}
	return drv, nil
})

func call(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cuda: %w", err)
}

// devicesByBusID maps each CUDA device's normalised bus address to its ordinal.
func devicesByBusID(drv *cuda.Driver) (map[string]cuda.Device, error) {
	n, err := drv.Count()
	if err != nil {
		return nil, call(err)
	}
	m := make(map[string]cuda.Device, n)
	for i := range n {
		d, err := drv.Device(i)
		if err != nil {
			return nil, call(err)
		}
		bus, err := drv.BusID(d)
		if err != nil {
			return nil, call(err)
		}
		id, err := NormalizeBusID(bus)
		if err != nil {
			return nil, err
		}
		m[id] = d
	}
	return m, nil
}

// findPair returns the CUDA devices at this and peer; ok is false when either
// is not one.
func findPair(drv *cuda.Driver, this, peer string) (devs [2]cuda.Device, ok bool, err error) {
	m, err := devicesByBusID(drv)
	if err != nil {
		return devs, false, err
	}
	for i, bdf := range []string{this, peer} {
		id, err := NormalizeBusID(bdf)
		if err != nil {
			return devs, false, err
		}
		d, found := m[id]
		if !found {
			return devs, false, nil
		}
		devs[i] = d
	}
	return devs, true, nil
}

// canAccess reports whether each device may access the other's memory.
func canAccess(drv *cuda.Driver, d [2]cuda.Device) (bool, error) {
	for _, p := range [][2]cuda.Device{{d[0], d[1]}, {d[1], d[0]}} {
		ok, err := drv.CanAccessPeer(p[0], p[1])
		if err != nil || !ok {
			return false, call(err)
		}
	}
	return true, nil
}

// alreadyEnabled reports whether err says peer access was already enabled.
func alreadyEnabled(err error) bool {
	var ce *cuda.Error
	return errors.As(err, &ce) && ce.Code == cuda.ErrPeerAccessAlreadyEnabled
}
