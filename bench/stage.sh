#!/usr/bin/env bash
# Builds, on the development machine, what bench/gpu.sh runs on the GPU
# host, into the ignored bin/: bin/appraise.xz from this checkout and, with
# BASE=<commit>, bin/appraise-base.xz from that commit (a temporary
# worktree), both stripped and xz-compressed so that the carried tree stays
# small; bin/vkfloor (bench/vkfloor/vkfloor.c, against the Vulkan loader's
# headers: Debian's libvulkan-dev); and, with BLAS=1, bin/cublaslt.test.xz
# for bench/blas.sh. The GPU host is x86-64: run this on an x86-64 machine.
# Then carry .gl, .peers and bin (../shared/gpu-host/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cgo-env
mkdir -p bin
rm -f bin/appraise bin/appraise-base bin/appraise.xz bin/appraise-base.xz bin/cublaslt.test bin/cublaslt.test.xz
go build -ldflags='-s -w' -o bin/appraise ./cmd/appraise
if [ -n "${BASE:-}" ]; then
	tmp=$(mktemp -d)
	trap 'git worktree remove --force "$tmp/base"; rm -rf "$tmp"' EXIT
	git worktree add -q --detach "$tmp/base" "$BASE"
	(cd "$tmp/base" && go build -ldflags='-s -w' -o "$OLDPWD/bin/appraise-base" ./cmd/appraise)
fi
if [ "${BLAS:-0}" = 1 ]; then
	go test -tags explore -c -o bin/cublaslt.test ./bench/blas
fi
gcc -O2 -Wall -o bin/vkfloor bench/vkfloor/vkfloor.c -lvulkan
for b in bin/appraise bin/appraise-base bin/cublaslt.test; do
	[ -f "$b" ] && xz -T0 -f "$b"
done
ls -l bin
