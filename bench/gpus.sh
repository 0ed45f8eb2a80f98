#!/usr/bin/env bash
# One benchmark call on a host with two GPUs (e.g. device kind nvidia-h100-x2):
# builds BabelStream (main branch) and mixbench-cuda from .peers/, appraises
# both GPUs at once, then in turn (--serial), then the first alone
# (bench/modes.sh: wall times, every run verified, figures at once against in
# turn; each run with the host links at once and the peer links both ways),
# measures PyTorch's peer and host
# copies in the same call, then the single-device peers and
# appraise --cross-check on the first GPU. Run from the repo root after
# `source .gl/env.sh`; bin/appraise is built on the development machine.
# Output in $OUT (or ./bench-out): log.txt, pair.json (the run at once),
# modes.md and bench/modes.sh's other files, peers_pair.json, peers.json,
# babelstream.csv, mixbench.txt, crosscheck.json, reports.tar (more than
# the 8 files a device call brings back: tar them there).
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
# Both GPUs at once (the default), then --serial, then the first alone
# (bench/modes.sh): each timed and verified, each device's figures at once
# against in turn, and at once ÷ (one GPU + the box's host and peer links).
OUT="$out" bench/modes.sh --soak "${SOAK:-15s}" >>"$log" 2>&1
echo "bench/modes.sh rc=$?" >>"$log"
cp "$out/modes-concurrent.json" "$out/pair.json"
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
tar -cf "$out/reports.tar" -C /tmp reports-x pub.json
