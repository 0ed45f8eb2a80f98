//go:build explore

// Package linkpaths is the driver of the host link's research harness:
// every raw-Vulkan path the product's short rule (coopmat/link)
// does not try, measured by that package's explore-tagged code
// (link.ExploreTransfer, link.ExploreSplitCopy) with the product's own
// buffers, kernels, patterns and checks. Bulk moves on every queue's copy
// command and the kernel's pull and push, from host-cached, write-combined
// and imported host memory; the host's stores into device-mapped memory,
// alone and beside the kernel's pull (the split route); every 1 MiB upload
// method (each route, staging memory and fence wait, 1 to 16 host
// writers), from host memory and pinned. The explore tests log every path
// (bench/h200.sh EXPLORE=1).
//
// It builds only with the explore tag and nothing in the product imports
// it: go test -c -tags explore -o bin/vklink.test ./bench/linkpaths/.
package linkpaths
