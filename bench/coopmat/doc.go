//go:build explore

// Package coopmat is the cooperative-matrix GEMM's harness for a GPU host:
// the product's search and measurement of every shape at any size
// (coopmat.RunShape, TestRunCoopMat) and tiles with the leads' options
// timed at full size without a search (coopmat.RunTile, TestCoopLead),
// each checked like the product's figures. Nothing here changes what the
// product measures.
//
// It builds only with the explore tag and nothing in the product imports
// it: go test -c -tags explore -o bin/coopmat.test ./bench/coopmat/ builds
// the binary bench/coopmat.sh and bench/vkpeer.sh run.
package coopmat
