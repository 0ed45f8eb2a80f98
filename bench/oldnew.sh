#!/usr/bin/env bash
# An old build against a new one in one call on the GPU host, with the
# peers in the same call: is the new build faster with the same figures?
# Runs, in turn, the default appraisal without the soak (new, old), the
# --quick one without the soak (old, new), BabelStream, mixbench and the
# PyTorch peers, then bench/blas.sh (cuBLASLt beside PyTorch). Each
# appraisal's progress lines are kept with the time each was read, so the
# seconds per stage can be compared (bench/same_figures.py).
# Run from the repo root on the GPU host after `source .gl/env.sh`, with
# OLD and NEW (default bin/appraise-base and bin/appraise; a missing one is
# unpacked from NAME.xz, which keeps the carried tree small) and
# bin/cublaslt.test built on the development machine; the peers' sources
# in .peers/ (bench/build-peers.sh). Results go to $OUT (or ./bench-out):
# summary.txt (exit code and wall time of each run), same-full.md and
# same-quick.md (figure by figure, new/old, and seconds per stage),
# peers-old.md and peers-new.md (each against the peers of this call),
# and what bench/blas.sh writes.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/log.txt"
old=${OLD:-bin/appraise-base} new=${NEW:-bin/appraise}
for b in "$old" "$new"; do
	[ -x "$b" ] || xz -dk "$b.xz" || { echo "bench/oldnew.sh: no $b nor $b.xz" >&2; exit 2; }
done
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw,temperature.gpu --format=csv >"$log" 2>&1
bench/build-peers.sh "$log"
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
"$new" keys init --tenant bench >/dev/null
"$new" keys export-public >/tmp/pub.json
. bench/runlog.sh
appraise() { # NAME BINARY FLAGS...
	local name=$1 bin=$2 t0 rc wall
	shift 2
	t0=$(date +%s.%N)
	APPRAISE_PROGRESS=lines "$bin" --out "/tmp/r-$name" --json "$@" >"$out/$name.json" 2> >(stamp >"$out/$name.stages")
	rc=$? wall=$(since "$t0")
	sleep 1 # the stamp process finishes its file
	echo "$name rc=$rc wall=$wall s" >>"$out/summary.txt"
}
appraise new-full "$new" --soak 0
appraise old-full "$old" --soak 0
appraise old-quick "$old" --quick --soak 0
appraise new-quick "$new" --quick --soak 0
/tmp/cuda-stream -s 134217728 --csv >"$out/babelstream.csv" 2>&1
/tmp/mixbench-cuda >"$out/mixbench.txt" 2>&1
python3 bench/peers.py >"$out/peers.json" 2>>"$log"
"$new" verify /tmp/r-new-full /tmp/r-new-quick --trust /tmp/pub.json >>"$log" 2>&1
echo "verify rc=$?" >>"$out/summary.txt"
for m in full quick; do
	python3 bench/same_figures.py "$out/old-$m.json" "$out/new-$m.json" "$out/old-$m.stages" "$out/new-$m.stages" >"$out/same-$m.md" 2>>"$log"
done
for b in old new; do
	python3 bench/compare.py "$out/$b-full.json" "$out/peers.json" "$out/babelstream.csv" "$out/mixbench.txt" >"$out/peers-$b.md" 2>>"$log"
done
bench/blas.sh >>"$log" 2>&1
cat "$out/summary.txt"
