package coopmat

import "github.com/everycycle/appraise/coopmat/vk/vktest"

// smallOptions are vktest's small options as this package's Options.
func smallOptions() Options {
	return Options{Options: vktest.SmallOptions()}
}
