#!/usr/bin/env bash
# The busy-device rule on the GPU host, in one call: an idle quick
# appraisal signs with shared_use checked and no other user; beside a
# PyTorch bf16 GEMM loop the same command is refused (exit 10) naming the
# process; with --allow-shared it signs and the card lists the process;
# compare of the shared card against the idle one exits 6; a load started
# 10 s into an idle run fails it "during the run". Run from the repo root
# on the GPU host after `source .gl/env.sh`, with bin/appraise and
# bin/nvml.test built on the development machine. Results go to $OUT (or
# ./bench-out): log.txt, idle.json, shared.json and the cards.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
log="$out/log.txt"
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys init --tenant bench >/dev/null
bin/appraise keys export-public >/tmp/pub.json
[ -x bin/nvml.test ] && bin/nvml.test -test.run OnHardware -test.v >>"$log" 2>&1

gemm() { # a bf16 GEMM loop until killed; touches /tmp/gemm-ready once running
	python3 -c '
import torch, pathlib
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for i in range(20): c = a @ b
torch.cuda.synchronize(); pathlib.Path("/tmp/gemm-ready").touch()
while True:
    c = a @ b
    torch.cuda.synchronize()' &
	gemm_pid=$!
}
wait_gemm() { while [ ! -e /tmp/gemm-ready ]; do sleep 0.5; done; rm -f /tmp/gemm-ready; }
step() { # $1: name, rest: appraise arguments
	local name=$1; shift
	local t0=$SECONDS
	bin/appraise "$@" --out "/tmp/$name" --json >"$out/$name.json" 2>"$out/$name.err"
	local rc=$?
	echo "== $name: exit $rc in $((SECONDS - t0)) s" >>"$log"
	tail -n 4 "$out/$name.err" >>"$log"
}

step idle --quick --soak 0
bin/appraise verify /tmp/idle --trust /tmp/pub.json >>"$log" 2>&1; echo "verify idle rc=$?" >>"$log"
gemm; wait_gemm
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >>"$log" 2>&1
step busy --quick --soak 0
step shared --quick --soak 0 --allow-shared
kill $gemm_pid; wait $gemm_pid 2>/dev/null
bin/appraise verify /tmp/shared --trust /tmp/pub.json >>"$log" 2>&1; echo "verify shared rc=$?" >>"$log"
bin/appraise compare --trust /tmp/pub.json /tmp/idle/card-*.appraisal.json /tmp/shared/card-*.appraisal.json >>"$log" 2>&1; echo "compare idle shared rc=$? (6: environments differ)" >>"$log"
(sleep 10; gemm; echo "load started at 10 s" >>"$log"; sleep 120; kill $gemm_pid) &
step midrun --quick --soak 0
wait
for r in idle shared; do cp /tmp/$r/card-*.appraisal.json "$out/card-$r.json" 2>/dev/null; done
exit 0
