//go:build explore

package coopmat_test

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

var flagPeerModule = flag.String("coopmat.peermodule", "", "path: the Vulkan peer's fp16->fp16 shmem module with its specialisation constants frozen (16x16x16, 256x256x32 blocks, B row-major, 8192^3, alpha 1, beta 0), run in our harness")

// TestPeerModule runs the Vulkan peer's own fp16 kernel through our
// buffers, timing and check (coopmat.ExplorePeerModule) and logs it as a
// PEERMODULE line, on the operands -coopmat.leaddata names. bench/vkpeer.sh
// prepares the module in the ignored .peers/vkcm. Without
// -coopmat.peermodule it skips.
func TestPeerModule(t *testing.T) {
	if *flagPeerModule == "" {
		t.Skip("no -coopmat.peermodule")
	}
	peer := peerData(t)
	raw, err := os.ReadFile(*flagPeerModule)
	if err != nil {
		t.Fatal(err)
	}
	d := vktest.Device(t)
	var inspect func([]vk.Executable, error)
	if *flagInspect != "" {
		inspect = func(x []vk.Executable, err error) { saveExecutables(t, "peer-module", x, err) }
	}
	r, err := coopmat.ExplorePeerModule(context.Background(), d, raw, peer, inspect)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PEERMODULE %v %s %8.1f T/s (min %.1f max %.1f, n=%d, %s, reps %d) check worst %.3g on %d at %s", r.Shape, *flagLeadData,
		r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12, r.OpsPerSecond.Samples, r.Timing, r.Repeats,
		r.Check.Worst, r.Check.Elements, time.Now().UTC().Format("15:04:05.000"))
}
