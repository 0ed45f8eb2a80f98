package vk

import (
	"slices"

	vk "github.com/vulkan-go/vulkan"
)

// DeviceGroups lists the device groups the driver forms, each as the indexes
// (as Devices lists them) of its devices. Only a group of two or more shares
// peer memory.
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

// SharedGroup reports whether one of groups holds both devices a and b.
func SharedGroup(groups [][]int, a, b int) bool {
	for _, g := range groups {
		if slices.Contains(g, a) && slices.Contains(g, b) {
			return true
		}
	}
	return false
}
