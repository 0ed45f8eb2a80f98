package coopmat

import (
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// TestRunCoopMat searches and measures every cooperative-matrix shape at
// 256³, each checked. The exploration harness's test of that name, which
// takes its sizes and shapes from flags, is in bench/coopmat.
func TestRunCoopMat(t *testing.T) {
	d := vktest.Device(t)
	o := Options{Options: vk.Options{Size: 256, Seed: 7, Progress: func(l string) { t.Log(l) }}}
	o.Timing = vk.Timing{SampleTime: 20 * time.Millisecond}
	runCoopMat(t, d, o)
}
