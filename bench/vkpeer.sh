#!/usr/bin/env bash
# Our fp16 cooperative-matrix GEMM and the Vulkan peer,
# jeffbolznv/vk_cooperative_matrix_perf, in one call on the GPU host, so
# that their ratio is a same-run ratio (issue 5). Run from the repo root
# after `source .gl/env.sh`; builds nothing when the carried binaries start.
#
# Ours: bin/coopmat.test (go test -c -tags explore -o bin/coopmat.test ./bench/coopmat/ on the
# development machine), TestRunCoopMat at 8192^3 for the shapes matching
# $SHAPES (default f16->f16): its search, then the chosen tile with a
# 250 ms warm-up and the median of 5 samples, checked.
#
# The peer: its sources, precompiled shmem*.spv shaders and a binary built
# on the development machine live in the ignored .peers/vkcm/ (never
# committed): src/vk_cooperative_matrix_perf.cpp with .peers/vkcm/appraise.patch
# applied (--types and --shapes to limit the configs, --warmup-ms to hold load before
# timing, --samples to time several submissions and print their median, and
# a fast fill of the same values as its rand() loop), compiled with
# Vulkan-Headers 1.4 in .peers/vkcm/include:
#   g++ -O2 -fno-strict-aliasing -std=c++17 -Iinclude -x c++ \
#       src/vk_cooperative_matrix_perf.cpp -x none -o vkcm /usr/lib/x86_64-linux-gnu/libvulkan.so.1
# When the binary does not start here, it is rebuilt the same way. It runs
# its subgroup-scope "shmem" kernels only (--shmem), 8192^3, a 250 ms warm-up
# per config and the median of 5 timed submissions of 10 dispatches each,
# host-timed (its own method); first its exact correctness check at 256^3
# for the same types (PEER_CHECK=0 leaves it out). PEER_TYPES (default
# fp16_fp16; "all" for every type pair it has a shader for) picks the type
# pairs, PEER_SHAPES (e.g. 16x16x16; default all) the matrix shapes.
#
# LEAD_VARIANTS (e.g. bda,guard,bda+guard) also runs TestCoopLead after
# ours: the tiles named in LEAD_TILE (default the fp16 winner, wg2x4 t8x4
# bk32 brow; several separated by ";") on the shapes matching LEAD_SHAPES
# (default 16x16x16 f16->f16), as named and with each variant, checked,
# into lead.log.
#
# Output under $OUT (or ./bench-out): vkpeer-env.txt, ours.log, peer.log,
# peer-correct.log, vkpeer-smi.csv (SM clock, power, throttle reasons every
# 200 ms) and vkpeer-table.md: our figure per shape, the peer's per config,
# its best per type pair, and ours ÷ the peer's best.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
shapes=${SHAPES:-f16->f16}
types=${PEER_TYPES:-fp16_fp16}
peer=.peers/vkcm
start=$(date +%s)
stamp() { echo "$(($(date +%s) - start)) s: $*" >>"$out/vkpeer-env.txt"; }

nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,power.draw --format=csv >"$out/vkpeer-env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
	--format=csv -lms 200 >"$out/vkpeer-smi.csv" 2>&1 &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT

if ! (cd "$peer" && ./vkcm --list-devices) >>"$out/vkpeer-env.txt" 2>&1; then
	stamp "the carried peer binary does not start: rebuilding it here"
	(cd "$peer" && g++ -O2 -fno-strict-aliasing -std=c++17 -Iinclude -x c++ src/vk_cooperative_matrix_perf.cpp \
		-x none -o vkcm /usr/lib/x86_64-linux-gnu/libvulkan.so.1) >>"$out/vkpeer-env.txt" 2>&1
fi

typearg=--types=$types
[ "$types" = all ] && typearg=
[ -n "${PEER_SHAPES:-}" ] && typearg="$typearg --shapes=$PEER_SHAPES"

stamp "ours: coopmat.test -coopmat.shapes=$shapes"
timeout 300 bin/coopmat.test -test.run '^TestRunCoopMat$' -test.v -test.timeout 5m -coopmat.size=8192 \
	-coopmat.shapes="$shapes" >"$out/ours.log" 2>&1
stamp "coopmat.test rc=$?"

if [ -n "${LEAD_VARIANTS:-}" ]; then
	stamp "lead: $LEAD_VARIANTS"
	timeout 300 bin/coopmat.test -test.run '^TestCoopLead$' -test.v -test.timeout 5m -coopmat.size=8192 \
		-coopmat.lead="${LEAD_SHAPES:-^16x16x16 f16.f16.f16->f16}" -coopmat.leadtile="${LEAD_TILE:-wg2x4 t8x4 bk32 brow}" \
		-coopmat.leadvariants="$LEAD_VARIANTS" >"$out/lead.log" 2>&1
	stamp "lead rc=$?"
fi

: >"$out/peer-correct.log"
if [ "${PEER_CHECK:-1}" != 0 ]; then
	stamp "peer correctness $typearg"
	(cd "$peer" && timeout 120 ./vkcm --shmem --correctness $typearg) >"$out/peer-correct.log" 2>&1
	stamp "peer correctness rc=$?"
fi

stamp "peer timing $typearg"
(cd "$peer" && timeout 300 ./vkcm --shmem --dim=8192 --warmup-ms=250 --samples=5 $typearg) >"$out/peer.log" 2>&1
stamp "peer rc=$?"

python3 - "$out/ours.log" "$out/peer.log" "$out/peer-correct.log" <<'EOF' | tee "$out/vkpeer-table.md"
import re, sys

ours_log, peer_log, correct_log = sys.argv[1:4]
# Our types as the peer names them.
TOKENS = {"f16": "fp16", "f32": "fp32", "bf16": "bf16", "u8": "u8", "s8": "s8", "u32": "u32", "s32": "s32"}
ours = []
line = re.compile(r"RESULT (\d+x\d+x\d+) (\w+)\*\w+\+\w+->(\w+) \w+\s+\{[^}]*\} tile (.+?)\s+([\d.]+) T/s "
                  r"\(min ([\d.]+) max ([\d.]+), n=(\d+)")
for l in open(ours_log):
    m = line.search(l)
    if m:
        shape, a, r, tile, med, lo, hi, n = m.groups()
        ours.append((f"{TOKENS.get(a, a)}_{TOKENS.get(r, r)}", shape, tile, float(med), float(lo), float(hi), int(n)))

peer, shape, pair = [], None, None
props = re.compile(r"cooperativeMatrixProps = (\d+x\d+x\d+)\s+A = (\w+) B = \w+ C = \w+ D = (\w+)")
names = {"float16_t": "fp16", "float32_t": "fp32", "bfloat16_t": "bf16", "uint8_t": "u8", "int8_t": "s8",
         "uint32_t": "u32", "int32_t": "s32", "floate4m3_t": "e4m3", "floate5m2_t": "e5m2"}
cfg = re.compile(r"TILE_M=(\d+) TILE_N=(\d+), TILE_K=(\d+) BColMajor=(\d) workgroupSize=(\d+)\s+([\d.]+) TFlops"
                 r"(?: \(median of (\d+) submissions: min ([\d.]+) max ([\d.]+)\))?")
for l in open(peer_log):
    m = props.search(l)
    if m:
        shape, pair = m.group(1), f"{names.get(m.group(2), m.group(2))}_{names.get(m.group(3), m.group(3))}"
        continue
    m = cfg.search(l)
    if m and shape:
        tm, tn, tk, bcol, wg, med, n, lo, hi = m.groups()
        peer.append((pair, shape, f"{tm}x{tn}x{tk} B {'col' if bcol == '1' else 'row'}-major", float(med),
                     float(lo or med), float(hi or med), int(n or 1)))

# Its correctness lines end in "pass" or "fail" after the config.
passes = sum(1 for l in open(correct_log) if l.rstrip().endswith(" pass") or l.strip() == "pass")
fails = sum(1 for l in open(correct_log) if l.rstrip().endswith(" fail") or l.strip() == "fail")

print("## Ours (TestRunCoopMat, 8192^3, checked)\n")
print("| shape | types | tile | TOP/s median (min-max, n) |")
print("| --- | --- | --- | --- |")
for pair, shape, tile, med, lo, hi, n in ours:
    print(f"| {shape} | {pair} | {tile} | {med:.1f} ({lo:.1f}-{hi:.1f}, {n}) |")

print("\n## The peer (vk_cooperative_matrix_perf --shmem, 8192^3, median of timed submissions)\n")
print(f"Its correctness check at 256^3: {passes} pass, {fails} fail.\n")
print("| types | shape | workgroup tile | TOP/s median (min-max, n) |")
print("| --- | --- | --- | --- |")
for pair, shape, tile, med, lo, hi, n in peer:
    print(f"| {pair} | {shape} | {tile} | {med:.1f} ({lo:.1f}-{hi:.1f}, {n}) |")

print("\n## Same call: ours / the peer's best\n")
print("| types | ours (best shape, median) | peer best config (median) | peer best max | ratio (medians) |")
print("| --- | --- | --- | --- | --- |")
for pair in sorted({p[0] for p in ours} | {p[0] for p in peer}):
    o = max((x for x in ours if x[0] == pair), key=lambda x: x[3], default=None)
    p = max((x for x in peer if x[0] == pair), key=lambda x: x[3], default=None)
    os_ = f"{o[3]:.1f} ({o[1]} {o[2]})" if o else "-"
    ps = f"{p[3]:.1f} ({p[1]} {p[2]})" if p else "-"
    pm = f"{p[5]:.1f}" if p else "-"
    ratio = f"{o[3] / p[3]:.3f}" if o and p else "-"
    print(f"| {pair} | {os_} | {ps} | {pm} | {ratio} |")
    if o and p:
        print(f"SUMMARY {pair}: ours {o[3]:.1f} peer {p[3]:.1f} ratio {o[3] / p[3]:.3f}", file=sys.stderr)
EOF
stamp "done"
