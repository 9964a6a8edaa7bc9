#!/usr/bin/env bash
# GPU check for the executor's cuda backend and `ccforge validate --device cuda`, sized to finish in
# under 10 minutes of run time on a one-GPU machine (8 ranks share the device) and on an 8-GPU node
# (one rank per GPU, NCCL as the baseline). Usage: scripts/gpu-check.sh [BUILD_DIR]
# Set SKIP_BUILD=1 to reuse an existing build. Outputs land in BUILD_DIR/gpu-check/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
out=$build/gpu-check
mkdir -p "$out"

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-check: no GPU visible (nvidia-smi -L failed); nothing to check" >&2
  exit 2
fi
gpus=$(nvidia-smi -L | wc -l)
echo "gpu-check: $gpus GPU(s):"
nvidia-smi -L

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  "$root/scripts/gpu-build.sh" "$build"
fi

start=$SECONDS
step() {  # step NAME SECONDS COMMAND...: runs with a time limit, logs to $out/NAME.log
  local name=$1 limit=$2
  shift 2
  echo "== $name (limit ${limit}s)"
  if timeout "$limit" "$@" 2>&1 | tee "$out/$name.log"; then echo "== $name: ok"; else echo "== $name: FAILED (see $out/$name.log)"; status=1; fi
}
status=0

# 1. The cuda backend against the host oracle, bit for bit, and the GPU watchdog.
step cuda_tests 180 "$build/tests/executor/executor_cuda_test"
# 2. All real MSCCL files with 8 ranks (and the 4-rank ones), every element checked; NCCL as baseline
#    when there is one GPU per rank.
step validate_8 180 "$build/ccforge" validate --device cuda --nranks 8 --algos "$root/tests/data/msccl" \
  -b 3K -e 12M -f 8 -n 10 -w 2 --all-sizes --out "$out/validate_8"
step validate_4 90 "$build/ccforge" validate --device cuda --nranks 4 --algos "$root/tests/data/msccl" \
  -b 3K -e 12M -f 8 -n 10 -w 2 --all-sizes --out "$out/validate_4"
# 3. Point-to-point alpha/beta between ranks 0 and 1 (same GPU on a one-GPU machine).
step osu_latency 60 "$build/ccforge" validate --device cuda --suite osu latency -b 8 -e 1M -f 4 -n 20 -w 5 --out "$out"
step osu_bw 60 "$build/ccforge" validate --device cuda --suite osu bw -b 8K -e 4M -f 4 -n 10 -w 2 --out "$out"
# 4. The NCCL tuner plugin in a real one-rank NCCL communicator: loaded, initialised, a bad table warned.
step tuner_plugin 60 "$root/scripts/gpu-tuner-check.sh" "$build" "$out"

echo "gpu-check: run time $((SECONDS - start)) s on $gpus GPU(s); results in $out"
exit $status
