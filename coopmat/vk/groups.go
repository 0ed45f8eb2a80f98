package vk

import (
	"slices"

	vk "github.com/vulkan-go/vulkan"
)

// DeviceGroups lists the Vulkan device groups the driver forms, each as the
// indexes (vkEnumeratePhysicalDevices order, as Devices and Open use) of
// its physical devices. A group of two or more devices can share peer
// memory (AMD and Intel drivers form such groups over linked cards); a
// driver that forms one group per device (as NVIDIA's does, even over
// NVLink) offers no Vulkan peer path.
func DeviceGroups() ([][]int, error) {
	var out [][]int
	err := withDevices(func(in *instance, pds []vk.PhysicalDevice) error {
		groups, err := in.ext.queryGroups(in.h)
		if err != nil {
			return err
		}
		for _, g := range groups {
			var idx []int
			for _, pd := range g {
				if i := slices.Index(pds, pd); i >= 0 {
					idx = append(idx, i)
				}
			}
			out = append(out, idx)
		}
		return nil
	})
	return out, err
}

// SharedGroup reports whether one group of groups holds both device
// indexes a and b.
func SharedGroup(groups [][]int, a, b int) bool {
	for _, g := range groups {
		if slices.Contains(g, a) && slices.Contains(g, b) {
			return true
		}
	}
	return false
}
