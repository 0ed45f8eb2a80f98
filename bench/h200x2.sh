#!/usr/bin/env bash
# One benchmark call on the two-GPU host (device kind nvidia-h200-x2):
# builds BabelStream (main branch) and mixbench-cuda from .peers/, appraises
# both GPUs in one run (each alone, then host links at once and the peer
# links both ways), verifies the run, measures PyTorch's peer and host
# copies in the same call, then the single-device peers and
# appraise --cross-check on the first GPU. Run from the repo root after
# `source .gl/env.sh`; bin/appraise is built on the development machine.
# Output in $OUT (or ./bench-out): log.txt, pair.json, peers_pair.json,
# peers.json, babelstream.csv, mixbench.txt, crosscheck.json, reports.tar.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/log.txt"
export CUDA_DEVICE_ORDER=PCI_BUS_ID # cuda:N is the N-th GPU by bus address, as appraise orders cards
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw,temperature.gpu --format=csv >"$log" 2>&1
nvidia-smi topo -m >>"$log" 2>&1

bench/build-peers.sh "$log"

export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys init --tenant bench >/dev/null
bin/appraise keys export-public >/tmp/pub.json
bin/appraise devices >>"$log" 2>&1
bin/appraise --out /tmp/pair --json --soak ${SOAK:-15s} >"$out/pair.json" 2>>"$log"
echo "appraise (both GPUs) rc=$?" >>"$log"
bin/appraise verify /tmp/pair --trust /tmp/pub.json >>"$log" 2>&1
echo "verify rc=$?" >>"$log"
python3 bench/peers_pair.py >"$out/peers_pair.json" 2>>"$log"
python3 bench/compare_pair.py "$out/pair.json" "$out/peers_pair.json"

python3 bench/peers.py >"$out/peers.json" 2>>"$log"
/tmp/cuda-stream --device 0 -s 134217728 --csv >"$out/babelstream.csv" 2>&1
/tmp/mixbench-cuda 0 >"$out/mixbench.txt" 2>&1
python3 bench/compare.py "$out/pair.json" "$out/peers.json" "$out/babelstream.csv" "$out/mixbench.txt"

first=$(python3 -c 'import json,sys; print(sorted(w["address"] for w in json.load(open(sys.argv[1])) if w["kind"]=="card")[0])' "$out/pair.json")
[ -n "$first" ] || { echo "no card in pair.json: cross-check skipped" >>"$log"; exit 1; }
bin/appraise --device "$first" --out /tmp/reports-x --json --soak 0 --cross-check --draft ${COOPMAT:+--coopmat} \
	--babelstream /tmp/cuda-stream --mixbench /tmp/mixbench-cuda >"$out/crosscheck.json" 2>>"$log"
echo "appraise --cross-check rc=$?" >>"$log"
tar -cf "$out/reports.tar" -C /tmp pair reports-x pub.json
