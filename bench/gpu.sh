#!/usr/bin/env bash
# One benchmark call on a GPU host of any NVIDIA SKU: the peers are built
# for the card's own compute capability, and every step runs unchanged on
# any card. Run from the repo root on the GPU host after
# `source .gl/env.sh`, with what the steps need built on the development
# machine (bench/README.md) and the peers' sources in the ignored .peers/.
#
#   bench/gpu.sh STEP...
#
# Steps, run in the order given:
#   peers    build BabelStream, mixbench, nvbandwidth and cudafloor, then
#            run them, PyTorch (bench/peers.py) and vkfloor: the peer
#            figures of this call
#   example  a default appraisal (with the soak) by bin/appraise, kept as
#            the SKU's example run (example.tar) and set beside the peers
#   oldnew   bin/appraise-base against bin/appraise, default and --quick
#            without the soak: the same figures, and the time per stage
#   quick    one --quick appraisal by bin/appraise, beside the peers
#   crosscheck  appraise --cross-check --draft against the peers built by
#            the peers step (COOPMAT=1 adds --coopmat)
#   next     bin/appraise-next (a build after bin/appraise's), default and
#            --quick without the soak, beside the peers
#   blas     the cuBLASLt probe beside PyTorch (bench/blas.sh)
#
# Results go to $OUT (or ./bench-out): summary.md (the tables) and
# results.tar.xz (every output and log), so that a call returns two files.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out/r"
r=$out/r
log=$r/log.txt
. bench/runlog.sh
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
new=bin/appraise old=bin/appraise-base next=bin/appraise-next
for b in "$new" "$old" "$next"; do
	[ -x "$b" ] || [ ! -f "$b.xz" ] || xz -dkf "$b.xz"
done
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,compute_cap,memory.total,power.limit,clocks.max.sm --format=csv >"$r/smi.csv" 2>&1
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
echo "gpu.sh: $(sed -n 2p "$r/smi.csv"), sm_$cap" | tee -a "$log"
"$new" keys init --tenant bench >/dev/null 2>&1
"$new" keys export-public >/tmp/pub.json

appraise() { # NAME BINARY FLAGS...: progress stamped into NAME.stages, the --json into NAME.json
	local name=$1 bin=$2 t0 rc
	shift 2
	t0=$(date +%s.%N)
	APPRAISE_PROGRESS=lines "$bin" --out "/tmp/r-$name" --json "$@" >"$r/$name.json" 2> >(stamp >"$r/$name.stages")
	rc=$?
	echo "$name rc=$rc wall=$(since "$t0") s" | tee -a "$r/summary.txt"
	sleep 1
	cp -r "/tmp/r-$name" "$r/reports-$name" 2>/dev/null
}

step_peers() {
	ARCH=sm_$cap bench/build-peers.sh "$log"
	/tmp/cuda-stream -s 134217728 --csv >"$r/babelstream.csv" 2>>"$log"
	/tmp/mixbench-cuda >"$r/mixbench.txt" 2>>"$log"
	/tmp/nvbandwidth -j -t host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_memcpy_sm \
		device_to_host_memcpy_sm host_device_latency_sm >"$r/nvbandwidth.json" 2>>"$log"
	python3 bench/peers.py >"$r/peers.json" 2>>"$log"
	/tmp/cudafloor 2000 >"$r/cudafloor.jsonl" 2>>"$log"
	bin/vkfloor -1 2000 >"$r/vkfloor.jsonl" 2>>"$log"
	echo "peers done" | tee -a "$r/summary.txt"
}

step_example() {
	appraise example "$new"
	"$new" verify /tmp/r-example --trust /tmp/pub.json >>"$log" 2>&1
	echo "verify example rc=$?" | tee -a "$r/summary.txt"
	cp /tmp/pub.json /tmp/r-example/pub.json
	tar -cf "$r/example.tar" -C /tmp/r-example .
}

step_oldnew() {
	appraise new-full "$new" --soak 0
	appraise old-full "$old" --soak 0
	appraise old-quick "$old" --quick --soak 0
	appraise new-quick "$new" --quick --soak 0
	"$new" verify /tmp/r-new-full /tmp/r-new-quick --trust /tmp/pub.json >>"$log" 2>&1
	echo "verify new rc=$?" | tee -a "$r/summary.txt"
}

step_quick() { appraise quick "$new" --quick; }

step_next() {
	appraise next-full "$next" --soak 0
	appraise next-quick "$next" --quick --soak 0
}

step_crosscheck() {
	appraise crosscheck "$new" --cross-check --draft $([ "${COOPMAT:-0}" = 1 ] && echo --coopmat) \
		--babelstream /tmp/cuda-stream --mixbench /tmp/mixbench-cuda
}

step_blas() { OUT=$r bench/blas.sh >>"$log" 2>&1; }

for s in "$@"; do
	"step_$s"
done

{
	echo "# $(sed -n 2p "$r/smi.csv")"
	cat "$r/summary.txt"
	for j in example new-full old-full quick next-full next-quick; do
		[ -s "$r/$j.json" ] && [ -s "$r/peers.json" ] || continue
		echo; echo "## $j beside the peers"
		python3 bench/compare.py "$r/$j.json" "$r/peers.json" "$r/babelstream.csv" "$r/mixbench.txt"
		python3 bench/linkfloor.py "$r/$j.json" "$r/peers.json" "$r/nvbandwidth.json" "$r/cudafloor.jsonl" "$r/vkfloor.jsonl"
	done
	for m in full quick; do
		[ -s "$r/old-$m.json" ] && [ -s "$r/new-$m.json" ] || continue
		echo; echo "## old against new, $m"
		python3 bench/same_figures.py "$r/old-$m.json" "$r/new-$m.json" "$r/old-$m.stages" "$r/new-$m.stages"
	done
	[ -s "$r/blas-table.md" ] && { echo; echo "## cuBLASLt beside PyTorch"; cat "$r/blas-table.md"; }
} >"$out/summary.md" 2>>"$log"
tar -cJf "$out/results.tar.xz" -C "$r" .
rm -rf "$r"
cat "$out/summary.md"
