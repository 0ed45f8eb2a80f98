# Sourced by the bench scripts that time appraisals by their progress
# lines (bench/gpu.sh, bench/modes.sh).

# stamp prefixes each line of its input with the epoch seconds it was read.
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }

# since prints the seconds since $1 (epoch seconds, as date +%s.%N), to a
# tenth.
since() { python3 -c 'import sys, time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$1"; }
