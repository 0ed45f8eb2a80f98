#!/usr/bin/env bash
# The cooperative-matrix GEMM on the GPU host, beside the Vulkan peer and
# cuBLAS. Builds nothing there: bin/coopmat.test is built on the development
# machine with the exploration harness (go test -c -tags explore -o
# bin/coopmat.test ./bench/coopmat/) and, for APPRAISE=1,
# bin/appraise (go build -o bin/appraise ./cmd/appraise). Run from the repo
# root on the GPU host after `source .gl/env.sh`; extra arguments go to the
# test binary (e.g. -coopmat.shapes='f16->f16' -coopmat.search=8192).
#
# The peer figures are not measured here: jeffbolznv/vk_cooperative_matrix_perf
# and cuBLAS cannot be rebuilt in this call, so the table quotes them from
# shared/anchors/h200.md ("peer (anchor, 2026-11-29)", same card, 8192^3).
# Compare ratios, not absolute figures, across runs.
#
# Output in $OUT (or ./bench-out): coopmat-env.txt, coopmat.log (every search
# line and RESULT), coopmat-table.md, coopmat-smi.csv (SM clock, power and
# throttle reasons every 200 ms while the tests run, to tell a kernel held
# back by the power cap from a slow one); with APPRAISE=1 also
# appraise-coopmat.json.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw --format=csv >"$out/coopmat-env.txt" 2>&1

nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
	--format=csv -lms 200 >"$out/coopmat-smi.csv" 2>&1 &
smi=$!
# Without -tags explore the binary has no -coopmat.* flags: say so, not a
# run at the default 256³.
if ! bin/coopmat.test -test.run '^$' -coopmat.size=1 >/dev/null 2>&1; then
	echo "bin/coopmat.test lacks the harness flags: build it with go test -c -tags explore -o bin/coopmat.test ./bench/coopmat/" | tee -a "$out/coopmat-env.txt" >&2
	kill "$smi"
	exit 2
fi
bin/coopmat.test -test.run '^TestRunCoopMat$' -test.v -test.timeout 30m -coopmat.size=8192 "$@" 2>&1 | tee "$out/coopmat.log"
echo "coopmat.test rc=${PIPESTATUS[0]}" >>"$out/coopmat-env.txt"
kill "$smi"

if [ "${APPRAISE:-0}" = 1 ]; then
	export APPRAISE_KEY_DIR=/tmp/k APPRAISE_PASSPHRASE=x
	bin/appraise keys init --tenant bench >/dev/null 2>&1
	bin/appraise --coopmat --json --out /tmp/reports-cm >"$out/appraise-coopmat.json" 2>>"$out/coopmat-env.txt"
	echo "appraise --coopmat rc=$?" >>"$out/coopmat-env.txt"
fi

python3 - "$out/coopmat.log" <<'EOF' | tee "$out/coopmat-table.md"
import re, sys

# Anchor figures (shared/anchors/h200.md, measured 2026-11-29 on the same H200).
PEER = {("f16", "f16"): 421e12, ("f16", "f32"): 195e12, ("bf16", "f32"): 189e12,
        ("s8", "s32"): 510e12, ("u8", "u32"): 510e12}
CUBLAS = {("f16", "f16"): 652e12, ("f16", "f32"): 647e12, ("bf16", "f32"): 662e12,
          ("s8", "s32"): 870e12, ("u8", "u32"): 870e12}
line = re.compile(r"RESULT (\d+x\d+x\d+) (\w+)\*\w+\+\w+->(\w+) \w+\s+\{[^}]*\} tile (.+?)\s+([\d.]+) T/s "
                  r"\(min ([\d.]+) max ([\d.]+), n=(\d+)")
print("| shape | types | tile | ours TOP/s median (min-max, n) | peer (anchor, 2026-11-29) | ours/peer | cuBLAS (anchor) | ours/cuBLAS |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for l in open(sys.argv[1]):
    m = line.search(l)
    if not m:
        continue
    shape, a, r, tile, med, lo, hi, n = m.groups()
    key, v = (a, r), float(med) * 1e12
    peer, cb = PEER.get(key), CUBLAS.get(key)
    ratio = f"{v / peer:.2f}" if peer else "-"
    cratio = f"{v / cb:.2f}" if cb else "-"
    print(f"| {shape} | {a}->{r} | {tile} | {float(med):.0f} ({float(lo):.0f}-{float(hi):.0f}, {n}) | "
          f"{peer / 1e12 if peer else 0:.0f} | {ratio} | {cb / 1e12 if cb else 0:.0f} | {cratio} |")
EOF
