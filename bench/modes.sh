#!/usr/bin/env bash
# Every device of a box appraised at once (the default), one after another
# (--serial), and the first device alone, in one call: each run timed and
# verified, then each device's figures at once against in turn and the wall
# times (bench/modes.py). The arguments are passed to every appraisal, e.g.
#   bench/modes.sh --soak 15s                           (a GPU host)
#   APPRAISE="scripts/with-two-devices bin/appraise" bench/modes.sh --software --quick --soak 2s
# Needs bin/appraise (APPRAISE: the command that runs it) and python3; uses the key in
# APPRAISE_KEY_DIR (APPRAISE_PASSPHRASE), making one when there is none.
# Output in $OUT (or ./bench-out): modes-{concurrent,serial,one}.json and
# .stages (progress lines, each with the time it was read), modes-summary.txt
# and modes.md.
set -uo pipefail
out=${OUT:-bench-out}
mkdir -p "$out"
read -ra app <<<"${APPRAISE:-bin/appraise}"
export APPRAISE_KEY_DIR=${APPRAISE_KEY_DIR:-/tmp/modes-keys} APPRAISE_PASSPHRASE=${APPRAISE_PASSPHRASE:-bench}
pub="$out/modes-pub.json"
"${app[@]}" keys export-public >"$pub" 2>/dev/null ||
	{ "${app[@]}" keys init --tenant bench >/dev/null && "${app[@]}" keys export-public >"$pub"; } ||
	{ echo "bench/modes.sh: no key" >&2; exit 2; }
. bench/runlog.sh
: >"$out/modes-summary.txt"
appraise() { # NAME FLAGS...
	local name=$1 t0 rc vrc dir wall
	shift
	dir=$(mktemp -d /tmp/modes-"$name".XXXXXX)
	t0=$(date +%s.%N)
	APPRAISE_PROGRESS=lines "${app[@]}" --out "$dir/run" --json "$@" >"$out/modes-$name.json" 2> >(stamp >"$out/modes-$name.stages")
	rc=$? wall=$(since "$t0")
	sleep 1 # the stamp process finishes its file
	"${app[@]}" verify "$dir/run" --trust "$pub" >/dev/null 2>&1
	vrc=$?
	echo "$name rc=$rc verify=$vrc wall=$wall" >>"$out/modes-summary.txt"
}
appraise concurrent "$@"
appraise serial --serial "$@"
first=$(python3 -c 'import json,sys; print(sorted(w["address"] for w in json.load(open(sys.argv[1])) if w["kind"]=="card")[0])' "$out/modes-concurrent.json")
[ -n "$first" ] || { echo "bench/modes.sh: no card in the concurrent run" >&2; cat "$out/modes-summary.txt"; exit 1; }
appraise one --device "$first" "$@"
python3 bench/modes.py "$out" >"$out/modes.md"
cat "$out/modes-summary.txt" "$out/modes.md"
