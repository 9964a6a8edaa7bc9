#!/usr/bin/env bash
# Usage: tests/fuzz/run.sh SECONDS
# Builds the MSCCL XML importer fuzzer with clang (-fsanitize=fuzzer,address) in build-fuzz/ and runs
# it for SECONDS over a seed corpus made from tests/data/msccl, then the nccl-tuner.conf parser's
# fuzzer for SECONDS. Exits non-zero on any crash.
set -euo pipefail
seconds="${1:?usage: tests/fuzz/run.sh SECONDS}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${CCFORGE_FUZZ_BUILD_DIR:-$root/build-fuzz}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_COMPILER=NOTFOUND \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCCFORGE_FUZZ=ON -DCCFORGE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target ir_import_fuzzer tuner_conf_fuzzer

corpus="$build/fuzz-corpus/ir_import"
mkdir -p "$corpus"
cp "$root"/tests/data/msccl/*.xml "$root"/tests/ir/broken/*.xml "$corpus"/
# Inputs up to 64 KiB: enough for every seed but the two largest, which seed by their prefixes.
"$build/tests/fuzz/ir_import_fuzzer" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1

# The nccl-tuner.conf parser (loaded into NCCL by the tuner plugin), seeded with a valid table.
corpus="$build/fuzz-corpus/tuner_conf"
mkdir -p "$corpus"
printf 'ccforge-nccl-tuner 1\n# c\nallreduce 524288 1048575 2 8 tree ll128 0\nallgather 1 9 1 8 nvls simple 16\n' \
  > "$corpus/seed.conf"
"$build/tests/fuzz/tuner_conf_fuzzer" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1
