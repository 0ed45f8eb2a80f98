package appraisal

import (
	"fmt"
)

// proofBytes is how much memory is held on an adapter to see which
// physical device's usage rises; proofShare of it must show up.
const (
	proofBytes = 256 << 20
	proofShare = 0.75
)

// holdFunc holds bytes of device memory on a WebGPU adapter until release.
type holdFunc func(adapter int, bytes uint64) (release func(), err error)

// usageFunc reads a raw-Vulkan device's device-local heap usage, bytes.
type usageFunc func(vkIndex int) (uint64, error)

// proveMapping ties each adapter of amb to the Vulkan index whose usage rises.
func proveMapping(amb map[int][]int, hold holdFunc, usage usageFunc) (map[int]int, error) {
	out := map[int]int{}
	for adapter, vks := range amb {
		before := map[int]uint64{}
		for _, v := range vks {
			u, err := usage(v)
			if err != nil {
				return nil, fmt.Errorf("memory usage of Vulkan device %d: %w", v, err)
			}
			before[v] = u
		}
		release, err := hold(adapter, proofBytes)
		if err != nil {
			return nil, fmt.Errorf("hold memory on adapter %d: %w", adapter, err)
		}
		var rose []int
		for _, v := range vks {
			u, err := usage(v)
			if err != nil {
				release()
				return nil, fmt.Errorf("memory usage of Vulkan device %d: %w", v, err)
			}
			if u > before[v] && float64(u-before[v]) >= proofShare*proofBytes {
				rose = append(rose, v)
			}
		}
		release()
		if len(rose) == 1 {
			out[adapter] = rose[0]
		}
	}
	return out, nil
}
