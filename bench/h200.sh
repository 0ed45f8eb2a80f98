#!/usr/bin/env bash
# One benchmark call on the GPU host: builds the peers from their public
# sources (carried in the ignored .peers/), runs appraise on the H200 and
# the peers in the same call, and prints the comparison. Run from the repo
# root on the GPU host after `source .gl/env.sh`; bin/appraise is built on
# the development machine (go build -o bin/appraise ./cmd/appraise).
# Results go to $OUT (or ./bench-out): log.txt, appraise.json, peers.json,
# babelstream.csv, table.md and the signed reports.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw --format=csv >"$out/log.txt" 2>&1

# Peers, built here (no network on the host).
(cd .peers/babelstream && nvcc -O3 -std=c++17 -arch=sm_90 -DCUDA -Isrc -Isrc/cuda \
	src/main.cpp src/cuda/CUDAStream.cu -o /tmp/cuda-stream) >>"$out/log.txt" 2>&1 || echo "babelstream build failed" >&2

export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys init --tenant bench >/dev/null
bin/appraise devices >>"$out/log.txt" 2>&1
bin/appraise --out /tmp/reports --json "$@" >"$out/appraise.json" 2>>"$out/log.txt"
echo "appraise rc=$?" >>"$out/log.txt"
bin/appraise verify /tmp/reports >>"$out/log.txt" 2>&1
# The matrix engine through VK_KHR_cooperative_matrix, when asked for
# (COOPMAT=1): every shape the driver offers; its card and box come back.
if [ "${COOPMAT:-0}" = 1 ]; then
	bin/appraise --coopmat --out /tmp/reports-cm --json >"$out/coopmat.json" 2>>"$out/log.txt"
	echo "appraise --coopmat rc=$?" >>"$out/log.txt"
	bin/appraise verify /tmp/reports-cm >>"$out/log.txt" 2>&1
	cp /tmp/reports-cm/*.appraisal.json "$out/" 2>/dev/null
else
	cp /tmp/reports/*.appraisal.json "$out/" 2>/dev/null
fi

/tmp/cuda-stream -s 268435456 --csv >"$out/babelstream.csv" 2>&1
python3 bench/peers.py >"$out/peers.json" 2>>"$out/log.txt"
python3 bench/compare.py "$out/appraise.json" "$out/peers.json" "$out/babelstream.csv" | tee "$out/table.md"
