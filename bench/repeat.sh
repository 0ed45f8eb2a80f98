#!/usr/bin/env bash
# Repeated appraisals on the GPU host, for issue 15's "never crashes":
# builds the cross-check tools (bench/build-peers.sh), then runs RUNS
# appraisals (default 3) one after another — the first with the default
# soak, the others with SOAK (default 20s) — each into its own directory,
# with the cross-check (the tools are found on PATH) and, with COOPMAT=1,
# --coopmat; then verifies every run. Run from the repo root after
# `source .gl/env.sh`, bin/appraise built on the development machine.
# Results go to $OUT (or ./bench-out): repeat.txt (exit code and seconds
# of each run), run-N.json (each run's --json output), verify.txt.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/repeat.txt"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv >"$log" 2>&1
. bench/tools-env.sh "$log"
for i in $(seq 1 "${RUNS:-3}"); do
	soak=()
	[ "$i" -gt 1 ] && soak=(--soak "${SOAK:-20s}")
	start=$(date +%s)
	bin/appraise --out "/tmp/run-$i" --json "${soak[@]}" $([ "${COOPMAT:-0}" = 1 ] && echo --coopmat) \
		>"$out/run-$i.json" 2>"$out/run-$i.err"
	echo "run $i: exit $? in $(( $(date +%s) - start )) s" >>"$log"
done
bin/appraise verify /tmp/run-* --trust /tmp/pub.json >"$out/verify.txt" 2>&1
echo "verify: exit $?" >>"$log"
cat "$log"
