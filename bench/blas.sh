#!/usr/bin/env bash
# The cuBLASLt GEMM probe (internal/probe/cublaslt) on the GPU host, beside its
# PyTorch peer in the same call. Builds nothing there: bin/cublaslt.test is
# built on the development machine with
#   go test -tags explore -c -o bin/cublaslt.test ./bench/blas
# (for an arm64 host: CGO_ENABLED=1 GOARCH=arm64 CC=aarch64-linux-gnu-gcc
# go test -tags explore -c -o bin/cublaslt.test ./bench/blas). Run from the repo
# root on the GPU host after `source .gl/env.sh`:
#   bench/blas.sh [SIZE]            m = n = k = SIZE, default 8192
# Environment: APPRAISE_CUBLASLT (the cuBLASLt file; default: the one
# PyTorch loads, else the probe's own search), APPRAISE_CUBLASLT_BUS (PCI
# address; default device 0), APPRAISE_CUBLASLT_PRECISIONS (comma list),
# APPRAISE_CUBLASLT_ALGORITHMS (how many heuristic algorithms each
# precision tries; default 4: the fastest is kept).
#
# Output in $OUT (or ./bench-out): blas-env.txt, blas-probe.log (the probe's
# table: per precision the algorithm kept of those tried, each one's trial
# TFLOP/s and the wall time), blas-probe.json, blas-peer.json, blas-smi.csv (SM clock, power,
# throttle reasons every 200 ms) and blas-table.md (probe vs peer, ratios
# against the issue-17 targets: >= 0.97x the peer, fp8 e4m3 >= 1100 TFLOP/s,
# the whole probe <= 10 s; with the algorithm kept per precision).
set -uo pipefail
size=${1:-8192}
out=${OUT:-bench-out}
mkdir -p "$out"
# A carried bin/cublaslt.test.xz (smaller to carry) is unpacked here.
[ -x bin/cublaslt.test ] || [ ! -f bin/cublaslt.test.xz ] || { xz -dkf bin/cublaslt.test.xz && chmod +x bin/cublaslt.test; }
if [ ! -x bin/cublaslt.test ]; then
	echo "bench/blas.sh: bin/cublaslt.test is missing: build it on the development machine with" >&2
	echo "  go test -tags explore -c -o bin/cublaslt.test ./bench/blas" >&2
	exit 2
fi
{
	nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw,power.limit --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} >"$out/blas-env.txt" 2>&1

# The cuBLASLt to measure: the one PyTorch itself loads, so probe and peer
# run the same library, unless the caller chose one.
if [ -z "${APPRAISE_CUBLASLT:-}" ]; then
	lib=$(python3 bench/blas_peer.py which 2>>"$out/blas-env.txt")
	if [ -n "$lib" ]; then
		export APPRAISE_CUBLASLT=$lib
	fi
fi
echo "cuBLASLt for the probe: ${APPRAISE_CUBLASLT:-<not set: the probe searches the loader path, CUDA toolkits and pip wheels>}" | tee -a "$out/blas-env.txt"

nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
	--format=csv -lms 200 >"$out/blas-smi.csv" 2>&1 &
smi=$!
APPRAISE_CUBLASLT_HW=1 APPRAISE_CUBLASLT_SIZE=$size APPRAISE_CUBLASLT_JSON="$out/blas-probe.json" \
	bin/cublaslt.test -test.run '^TestHardware$' -test.v -test.timeout 10m 2>&1 | tee "$out/blas-probe.log"
echo "cublaslt.test rc=${PIPESTATUS[0]}" | tee -a "$out/blas-env.txt"
python3 bench/blas_peer.py peer --size "$size" --json "$out/blas-peer.json" 2>&1 | tee -a "$out/blas-env.txt"
kill "$smi" 2>/dev/null

if [ -f "$out/blas-probe.json" ] && [ -f "$out/blas-peer.json" ]; then
	python3 bench/blas_peer.py compare "$out/blas-probe.json" "$out/blas-peer.json" | tee "$out/blas-table.md"
	echo "targets rc=${PIPESTATUS[0]} (0: all met)" | tee -a "$out/blas-env.txt"
else
	echo "bench/blas.sh: no comparison: a JSON file is missing (see $out/blas-probe.log, $out/blas-env.txt)" >&2
	exit 1
fi
