#!/usr/bin/env bash
# Builds what the GPU checks run (ccforge, executor_cuda_test, the NCCL tuner plugin and its one-rank
# load check, the single-GPU executor bench) with the CUDA backend, Release, into BUILD_DIR; fails when
# CMake does not enable the CUDA backend. Used by gpu-check.sh, gpu-executor-check.sh and gpu-bundle.sh.
# Usage: [JOBS=N] scripts/gpu-build.sh BUILD_DIR   (JOBS defaults to nproc)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
configure=$(cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCFORGE_BUILD_BENCH=ON)
grep -q "CUDA backend ON" <<< "$configure" ||
  { echo "gpu-build: CMake did not enable the CUDA backend (is nvcc on PATH or under /usr/local/cuda?)" >&2; exit 2; }
cmake --build "$build" -j"${JOBS:-$(nproc)}" --target ccforge executor_cuda_test nccl_tuner_ccforge nccl_tuner_load_check executor_gpu_bench
