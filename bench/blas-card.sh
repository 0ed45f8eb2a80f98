#!/usr/bin/env bash
# Issue 17's "done when" on the GPU host, in one call: the cuBLASLt probe
# beside its PyTorch peer (bench/blas.sh), then the cross-check tools built
# (bench/build-peers.sh) and one full appraisal with --coopmat --blas
# --cross-check (SOAK, default 2m; SOAK_LOAD picks --soak-load when set),
# verified against the tenant key and plotted. Run from the repo root
# after `source .gl/env.sh`; bin/appraise and bin/cublaslt.test are built
# on the development machine. SKIP_BLAS=1 leaves out bench/blas.sh.
# Results go to $OUT (or ./bench-out): blas-* (see bench/blas.sh),
# card-log.txt (build, appraisal stderr, exit codes, verify) and
# card.tar: card.json (the appraisal's --json), card-smi.csv (SM clock,
# power, power limit, throttle reasons every 200 ms during the appraisal),
# the signed reports and their plots (eight files in all: the device
# tool brings back at most eight).
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/card-log.txt"
[ "${SKIP_BLAS:-0}" = 1 ] || bench/blas.sh >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,power.limit,enforced.power.limit --format=csv >"$log" 2>&1
. bench/tools-env.sh "$log"
if [ -z "${APPRAISE_CUBLASLT:-}" ]; then
	lib=$(python3 bench/blas_peer.py which 2>/dev/null)
	[ -n "$lib" ] && export APPRAISE_CUBLASLT=$lib
fi

nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active \
	--format=csv -lms 200 >/tmp/card-smi.csv 2>&1 &
smi=$!
load=()
[ -n "${SOAK_LOAD:-}" ] && load=(--soak-load "$SOAK_LOAD")
start=$(date +%s)
bin/appraise --out /tmp/card --json --coopmat --blas --cross-check --soak "${SOAK:-2m}" "${load[@]}" \
	>/tmp/card.json 2>>"$log"
echo "appraise: exit $? in $(( $(date +%s) - start )) s" >>"$log"
kill "$smi" 2>/dev/null
bin/appraise verify /tmp/card --trust /tmp/pub.json >>"$log" 2>&1
echo "verify: exit $?" >>"$log"
for c in /tmp/card/card-*.appraisal.json; do
	[ -f "$c" ] && bin/appraise plot "$c" >>"$log" 2>&1
done
cp /tmp/card.json /tmp/card-smi.csv /tmp/pub.json /tmp/card/
tar -C /tmp -cf "$out/card.tar" card
cat "$log"
