# Sourced by the GPU-host benchmarks that run full appraisals with the
# cross-check: builds the peer tools (bench/build-peers.sh, compiler output
# to the log file $1), puts them on PATH under the names appraise looks
# for, and makes (once) and exports the bench tenant key, its public half
# in /tmp/pub.json.
bench/build-peers.sh "$1"
mkdir -p /tmp/tools
ln -sf /tmp/cuda-stream /tmp/tools/cuda-stream
ln -sf /tmp/mixbench-cuda /tmp/tools/mixbench-cuda
export PATH=/tmp/tools:$PATH
export APPRAISE_KEY_DIR=/tmp/keys APPRAISE_PASSPHRASE=bench
bin/appraise keys show >/dev/null 2>&1 || bin/appraise keys init --tenant bench >/dev/null
bin/appraise keys export-public >/tmp/pub.json
