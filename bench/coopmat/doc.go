//go:build explore

// Package coopmat is the driver of the cooperative-matrix GEMM's research
// harness: flag-driven runs on a GPU host of the product's own search,
// kernels and checks through coopmat's explore-tagged code. The search at
// any size over the product's candidates or the whole tile space
// (coopmat.ExploreShape, -coopmat.explore), diagnostic kernel variants
// (coopmat.ExploreVariants, -coopmat.variants), leads timed at full size
// (coopmat.ExploreLead, -coopmat.lead) and the Vulkan peer's own kernel in
// our harness (coopmat.ExplorePeerModule, -coopmat.peermodule). Nothing
// here changes what the product measures: a tile becomes a candidate only
// through coopmat/cmrun.go.
//
// It builds only with the explore tag and nothing in the product imports
// it: go test -c -tags explore -o bin/coopmat.test ./bench/coopmat/ builds
// the binary bench/coopmat.sh and bench/vkpeer.sh run.
package coopmat
