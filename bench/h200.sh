#!/usr/bin/env bash
# One benchmark call on the GPU host: builds the peers from their public
# sources (carried in the ignored .peers/: BabelStream's main branch in
# .peers/babelstream-main, mixbench in .peers/mixbench), runs appraise on
# the H200 and the peers in the same call, then appraise --cross-check
# (with --coopmat when COOPMAT=1) and appraise again for run-to-run
# stability, and prints the comparison. Run from the repo
# root on the GPU host after `source .gl/env.sh`; bin/appraise and
# bin/nvml.test are built on the development machine. CROSSCHECK=0 leaves
# the cross-check out.
# Results go to $OUT (or ./bench-out): log.txt, appraise.json,
# appraise2.json, crosscheck.json, peers.json, babelstream.csv,
# mixbench.txt and reports.tar (the signed or draft reports).
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/log.txt"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw,temperature.gpu --format=csv >"$log" 2>&1

bench/build-peers.sh "$log"

[ -x bin/nvml.test ] && bin/nvml.test -test.run OnHardware -test.v >>"$log" 2>&1

export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys init --tenant bench >/dev/null
bin/appraise keys export-public >/tmp/pub.json
bin/appraise devices >>"$log" 2>&1
run_appraise() { # $1: run number, $2: output file
	bin/appraise --out /tmp/reports$1 --json >"$2" 2>>"$log"
	echo "appraise run $1 rc=$?" >>"$log"
}
run_appraise 1 "$out/appraise.json"
/tmp/cuda-stream -s 134217728 --csv >"$out/babelstream.csv" 2>&1
/tmp/mixbench-cuda >"$out/mixbench.txt" 2>&1
python3 bench/peers.py >"$out/peers.json" 2>>"$log"

# --cross-check (add --coopmat with COOPMAT=1): refuses to sign, with drafts, on disagreement.
# CROSSCHECK=0 leaves it out (about 150 s).
mkdir -p /tmp/reports-x
if [ "${CROSSCHECK:-1}" = 1 ]; then
	bin/appraise --out /tmp/reports-x --json --cross-check --draft $([ "${COOPMAT:-0}" = 1 ] && echo --coopmat) \
		--babelstream /tmp/cuda-stream --mixbench /tmp/mixbench-cuda >"$out/crosscheck.json" 2>>"$log"
	echo "appraise --cross-check rc=$?" >>"$log"
fi

# A second appraisal: every throughput should be within 3 % of the first.
run_appraise 2 "$out/appraise2.json"
bin/appraise verify /tmp/reports1 /tmp/reports2 --trust /tmp/pub.json >>"$log" 2>&1
tar -cf "$out/reports.tar" -C /tmp reports1 reports-x pub.json
python3 bench/compare.py "$out/appraise.json" "$out/peers.json" "$out/babelstream.csv" "$out/mixbench.txt" "$out/appraise2.json"
