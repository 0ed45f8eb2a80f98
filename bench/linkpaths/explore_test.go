//go:build explore

// The exploration harness of the host link: every route, memory and 1 MiB
// upload method at full size, logged on a GPU host by the product's own
// code (link.ExploreTransfer; go test -c -tags explore -o bin/vklink.test
// ./bench/linkpaths/; bench/h200.sh EXPLORE=1).

package linkpaths

import (
	"flag"
	"testing"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

var flagLink = flag.Bool("coopmat.transfer", false, "log every host-link path (each queue, 256 MiB) and every 1 MiB upload method")

// TestTransferPathsFullSize logs the bulk host link on every queue from
// every host memory kind at sizes up to the default, and every 1 MiB upload
// method's median, for a look at how a device's queues and host memory
// differ; for imported host memory, also how much of it the kernel backed
// with transparent huge pages. It runs only with -coopmat.transfer.
func TestTransferPathsFullSize(t *testing.T) {
	if !*flagLink {
		t.Skip("pass -coopmat.transfer")
	}
	if err := link.ExploreTransfer(t.Context(), vktest.Device(t), t.Logf); err != nil {
		t.Fatal(err)
	}
}

// TestSplitCopyExploration times one copy split in halves over the compute
// and the transfer queue at once, uploads and downloads, to see whether two
// engines move more than one. Runs only with -coopmat.transfer on a device
// with a copy queue.
func TestSplitCopyExploration(t *testing.T) {
	if !*flagLink {
		t.Skip("pass -coopmat.transfer")
	}
	d := vktest.Device(t)
	if d.CopyQ == nil {
		t.Skipf("%s has no transfer-only queue family", d.Info.Name)
	}
	if err := link.ExploreSplitCopy(t.Context(), d, t.Logf); err != nil {
		t.Fatal(err)
	}
}
