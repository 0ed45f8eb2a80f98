#!/usr/bin/env bash
# A shorter benchmark call: builds BabelStream (main branch, CUDA, grid
# stride, as its CMake default) and mixbench-cuda, then runs
# appraise --cross-check --coopmat --draft against them. Output in $OUT.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/log.txt"
bench/build-peers.sh "$log"
/tmp/cuda-stream -s 134217728 --csv >"$out/babelstream.csv" 2>&1
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys init --tenant bench >/dev/null
bin/appraise keys export-public >/tmp/pub.json
bin/appraise --out /tmp/reports-x --json --cross-check --draft ${COOPMAT:+--coopmat} \
	--babelstream /tmp/cuda-stream --mixbench /tmp/mixbench-cuda >"$out/crosscheck.json" 2>>"$log"
echo "appraise --cross-check rc=$?" >>"$log"
bin/appraise verify /tmp/reports-x --trust /tmp/pub.json >>"$log" 2>&1
tar -cf "$out/reports.tar" -C /tmp reports-x pub.json
