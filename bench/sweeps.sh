#!/usr/bin/env bash
# Run-to-run spread of the vendor-library figures, two builds in one call
# on the GPU host: the default appraisal without the soak, OLD and NEW in
# turn, RUNS times each (default 2), then NEW with --quick. bench/sweeps.py
# then prints, per figure of the cuBLASLt probe (GEMMs and K-sweep
# roofline ratios), each build's runs and their spread, and the seconds
# of the vendor-BLAS stage. Run from the repo root on the GPU host after
# `source .gl/env.sh`, with OLD and NEW (default bin/appraise-base and
# bin/appraise; a missing one is unpacked from NAME.xz) built on the
# development machine. Results go to $OUT (or ./bench-out): summary.txt,
# sweeps.md, and each run's --json output and stamped progress lines.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
old=${OLD:-bin/appraise-base} new=${NEW:-bin/appraise}
for b in "$old" "$new"; do
	[ -x "$b" ] || xz -dk "$b.xz" || { echo "bench/sweeps.sh: no $b nor $b.xz" >&2; exit 2; }
done
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw,temperature.gpu --format=csv >"$out/log.txt" 2>&1
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
"$new" keys init --tenant bench >/dev/null
"$new" keys export-public >/tmp/pub.json
. bench/runlog.sh
appraise() { # NAME BINARY FLAGS...
	local name=$1 bin=$2 t0 rc
	shift 2
	t0=$(date +%s.%N)
	APPRAISE_PROGRESS=lines "$bin" --out "/tmp/r-$name" --json "$@" >"$out/$name.json" 2> >(stamp >"$out/$name.stages")
	rc=$?
	echo "$name rc=$rc wall=$(since "$t0") s" >>"$out/summary.txt"
	sleep 1 # the stamp process finishes its file
}
for i in $(seq 1 "${RUNS:-2}"); do
	appraise "old-$i" "$old" --soak 0
	appraise "new-$i" "$new" --soak 0
done
appraise new-quick "$new" --quick --soak 0
"$new" verify /tmp/r-new-* --trust /tmp/pub.json >>"$out/log.txt" 2>&1
echo "verify rc=$?" >>"$out/summary.txt"
python3 bench/sweeps.py "$out" >"$out/sweeps.md" 2>>"$out/log.txt"
cat "$out/summary.txt"
