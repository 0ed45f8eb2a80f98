package vk

import (
	"fmt"

	vk "github.com/vulkan-go/vulkan"
)

// HeapUsage returns the usage and budget in bytes of device index's largest
// device-local heap; errors wrap ErrExtensionMissing or ErrFeatureMissing.
func HeapUsage(index int) (usage, budget uint64, err error) {
	err = withDevices(func(in *instance, pds []vk.PhysicalDevice) error {
		if index < 0 || index >= len(pds) {
			return fmt.Errorf("vulkan: device %d of %d: %w", index, len(pds), ErrNoVulkan)
		}
		pd := pds[index]
		exts, err := deviceExtensions(pd)
		if err != nil {
			return err
		}
		if !(DeviceInfo{Extensions: exts}).HasExtension(ExtMemoryBudget) {
			return fmt.Errorf("vulkan: device %d: %s: %w", index, ExtMemoryBudget, ErrExtensionMissing)
		}
		heap, _, heaps := deviceLocalHeap(pd)
		if heap < 0 {
			return fmt.Errorf("vulkan: device %d: device-local heap: %w", index, ErrFeatureMissing)
		}
		b, u := in.ext.queryBudget(pd, heaps)
		if heap >= len(b) {
			return fmt.Errorf("vulkan: device %d: heap %d beyond the %d the budget structure holds", index, heap, len(b))
		}
		usage, budget = u[heap], b[heap]
		return nil
	})
	return usage, budget, err
}
