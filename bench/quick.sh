#!/usr/bin/env bash
# How long a `--quick --software` appraisal takes, for issue 15's target of
# at most 20 s on the software device (a benchmark, not a test: the time
# depends on the host and on what else it runs). Builds bin/appraise
# (unless NO_BUILD=1), then runs RUNS appraisals (default 5) one after
# another, each with APPRAISE_PROGRESS=lines so that every stage reports
# when it starts, with the wall-clock and the user+system CPU seconds
# since the run began. Prints, per run, its wall and CPU seconds and the
# load average before and after; then, per stage group (the stage's text
# up to its first detail), the median over the runs of the wall and CPU
# seconds spent there; then the medians of the whole runs. Exits 1 when
# a run fails, and 2 when the median wall time is over LIMIT_S (default
# 20). Run from the repository root; needs /usr/bin/time (Debian: time)
# and python3. Each run's stage lines and card stay in $OUT (default a
# fresh directory under /tmp). FLAGS adds flags to every run (e.g.
# FLAGS='--soak 0', as issue 28's target times the probes without the soak).
set -euo pipefail
runs=${RUNS:-5}
limit=${LIMIT_S:-20}
out=${OUT:-$(mktemp -d /tmp/quick-bench.XXXXXX)}
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "bench/quick.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ "${NO_BUILD:-0}" != 1 ]; then
	. scripts/cgo-env
	go build -o bin/appraise ./cmd/appraise
fi
export APPRAISE_KEY_DIR="$out/keys" APPRAISE_PASSPHRASE=quick-bench
[ -d "$APPRAISE_KEY_DIR" ] || bin/appraise keys init --tenant quick-bench >/dev/null
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)'), $(nproc) cores, results in $out"
for i in $(seq 1 "$runs"); do
	rm -rf "$out/run-$i"
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	rc=0
	APPRAISE_PROGRESS=lines /usr/bin/time -o "$out/time-$i" -f '%e %U %S' \
		bin/appraise --software --quick ${FLAGS:-} --out "$out/run-$i" --json >"$out/run-$i.json" 2>"$out/run-$i.err" || rc=$?
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	if [ "$rc" != 0 ]; then
		echo "run $i: exit $rc (see $out/run-$i.err)" >&2
		tail -5 "$out/run-$i.err" >&2
		exit 1
	fi
	grep '^stage ' "$out/run-$i.err" >"$out/stages-$i"
	read -r wall user sys <"$out/time-$i"
	echo "run $i: wall $wall s, cpu $(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}') s (user $user, sys $sys), load $load_before -> $load_after"
done
python3 - "$out" "$runs" "$limit" <<'EOF'
import statistics, sys

out, runs, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])


def group(stage):
    # "software-0: bandwidth: read over 128 MiB arrays" -> "bandwidth";
    # "software-0: vulkan: host link: ..." -> "vulkan: host link".
    _, _, rest = stage.partition(": ")
    if not rest:
        return stage
    if rest.startswith("vulkan: "):
        return "vulkan: " + rest[len("vulkan: "):].split(":")[0]
    return rest.split(":")[0]


per_run, order = [], []
for i in range(1, runs + 1):
    rows = []
    for line in open(f"{out}/stages-{i}"):
        _, wall, cpu, stage = line.rstrip("\n").split(" ", 3)
        rows.append((float(wall), float(cpu), stage))
    spent = {}
    for (w0, c0, stage), (w1, c1, _) in zip(rows, rows[1:]):
        g = group(stage)
        if g not in order:
            order.append(g)
        w, c = spent.get(g, (0.0, 0.0))
        spent[g] = (w + w1 - w0, c + c1 - c0)
    per_run.append(spent)

print(f"\nper stage, median of {runs} runs:\n{'wall s':>8} {'cpu s':>8}  stage")
for g in order:
    w = statistics.median(r.get(g, (0, 0))[0] for r in per_run)
    c = statistics.median(r.get(g, (0, 0))[1] for r in per_run)
    print(f"{w:8.2f} {c:8.2f}  {g}")

walls, cpus = [], []
for i in range(1, runs + 1):
    wall, user, sys_ = (float(x) for x in open(f"{out}/time-{i}").read().split())
    walls.append(wall)
    cpus.append(user + sys_)
med = statistics.median(walls)
print(f"\nmedian of {runs} runs: wall {med:.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
      f"cpu {statistics.median(cpus):.2f} s (min {min(cpus):.2f}, max {max(cpus):.2f}); target: wall <= {limit:g} s")
if med > limit:
    print(f"OVER: the median wall time {med:.2f} s is over {limit:g} s")
    sys.exit(2)
EOF
