#!/usr/bin/env bash
# GPU check of libnccl-tuner-ccforge.so in a real NCCL communicator (one rank on GPU 0): NCCL's log must
# show the plugin loaded and initialised from a table with a rule for 1 node x 1 rank; a malformed table
# must be one warning, with the communicator still working. Called by gpu-check.sh.
# Usage: scripts/gpu-tuner-check.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$1
out=$2

run() {  # run NAME TABLE: the one-rank program with the plugin and TABLE, log in OUT_DIR/NAME.log
  NCCL_TUNER_PLUGIN="$build/libnccl-tuner-ccforge.so" CCFORGE_NCCL_TUNER_CONF=$2 NCCL_DEBUG=INFO \
    NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING "$build/nccl_tuner_load_check" > "$out/$1.log" 2>&1
}
expect() {  # expect LOG PATTERN: prints the matching line or says what is missing
  grep -F -- "$2" "$out/$1.log" || { echo "gpu-tuner-check: '$2' not in $out/$1.log" >&2; return 1; }
}

printf 'ccforge-nccl-tuner 1\nallreduce 0 1073741824 1 1 ring simple 1\n' > "$out/tuner-1x1.conf"
printf 'ccforge-nccl-tuner 1\nallreduce 0 1073741824 1 1 ring\n' > "$out/tuner-bad.conf"
run tuner_plugin "$out/tuner-1x1.conf"
run tuner_plugin_bad "$out/tuner-bad.conf"
expect tuner_plugin "TUNER/Plugin: Using ccforge"
expect tuner_plugin "ccforge tuner: initialised from $out/tuner-1x1.conf, 1 of 1 rules for 1 node(s) x 1 ranks"
expect tuner_plugin "nccl_tuner_load_check: ok"
expect tuner_plugin_bad "WARN ccforge tuner: $out/tuner-bad.conf:2: expected 8 fields"
expect tuner_plugin_bad "nccl_tuner_load_check: ok"
echo "gpu-tuner-check: plugin loaded and initialised by NCCL; malformed table warned once, no failure"
