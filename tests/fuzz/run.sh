#!/usr/bin/env bash
# Usage: tests/fuzz/run.sh SECONDS [TARGET...]
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address) in build-fuzz/ and runs each for
# SECONDS over a seed corpus made from the project's own inputs, good and bad. Targets: msccl, topology,
# cluster, import, profile, measurements, tuner_conf, selection_table, compare, checkpoint (default: all). Exits non-zero on any crash, hang or leak.
set -euo pipefail
seconds="${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}"
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(msccl topology cluster import profile measurements tuner_conf selection_table compare checkpoint)
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${CCFORGE_FUZZ_BUILD_DIR:-$root/build-fuzz}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_COMPILER=NOTFOUND \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCCFORGE_FUZZ=ON -DCCFORGE_BUILD_BENCH=OFF >/dev/null

# seeds TARGET: the seed files of one target, one path a line.
seeds() {
  case "$1" in
    msccl) ls "$root"/tests/data/msccl/*.xml "$root"/tests/ir/broken/*.xml ;;
    topology) grep -L "<cluster" "$root"/data/topologies/*.xml "$root"/tests/data/topologies/*.xml \
                "$root"/tests/topology/malformed/*.xml "$root"/tests/bad-inputs/inputs/*.xml ;;
    cluster) grep -l "<cluster" "$root"/data/topologies/*.xml "$root"/tests/data/topologies/*.xml \
               "$root"/tests/topology/malformed/*.xml "$root"/tests/bad-inputs/inputs/*.xml ;;
    # topo import: real tool outputs (dumps, topo -m, rocm-smi, -q, ibstat) and the bad ones.
    import) ls "$root"/tests/data/import/* "$root"/tests/bad-inputs/inputs/import_* ;;
    profile) ls "$root"/tests/topology/malformed/*.profile.xml "$root"/tests/bad-inputs/inputs/profile_*.xml \
               "$root"/tests/data/sim/*profile*.xml ;;
    measurements) ls "$root"/tests/data/nccl-tests/*.log ;;
    # The nccl-tuner.conf parser (loaded into NCCL by the tuner plugin), seeded with a valid table.
    tuner_conf) printf 'ccforge-nccl-tuner 1\n# c\nallreduce 524288 1048575 2 8 tree ll128 0\nallgather 1 9 1 8 nvls simple 16\n' \
                  > "$build/tuner_seed.conf" && echo "$build/tuner_seed.conf" ;;
    # selection.csv and selection.md as ccforge tune and validate write them (tests' own tables).
    selection_table) ls "$root"/tests/data/selection/* ;;
    # compare's inputs: sim CSVs and selection tables, good and bad (a tune folder's report.json is the
    # same bytes in the fuzzer).
    compare) ls "$root"/tests/validate/compare/*.csv "$root"/tests/data/selection/*.csv "$root"/tests/bad-inputs/inputs/compare_*.csv ;;
    # A tune checkpoint (the fuzzer's fingerprint "fp", sizes 1024 and 2048) with every kind of entry.
    checkpoint) printf '%s\n' '{"fingerprint":"fp","version":1}' \
                  '{"key":"built/allreduce/ring/0/3/Simple","verdict":{"accepted":true,"name":"ring_c1","unfit":false,"why_not":""}}' \
                  '{"key":"floors/allreduce/ring_c1","floors":[0,5]}' '{"key":"allreduce/NCCL/1024","ps":7}' \
                  '{"key":"allreduce/ring_c1/2048","ps":null,"error":"does not fit"}' '{"finished":true}' \
                  > "$build/checkpoint_seed.jsonl" && echo "$build/checkpoint_seed.jsonl" ;;
    *) echo "unknown fuzz target '$1' (msccl, topology, cluster, import, profile, measurements, tuner_conf, selection_table, compare, checkpoint)" >&2; exit 2 ;;
  esac
}

for target in "${targets[@]}"; do
  binary="${target}_fuzzer"
  [ "$target" = msccl ] && binary=ir_import_fuzzer
  cmake --build "$build" -j "$(nproc)" --target "$binary"
  corpus="$build/fuzz-corpus/$target"
  mkdir -p "$corpus"
  seeds "$target" | xargs cp -t "$corpus"
  echo "== fuzz $target for $seconds s"
  # Inputs up to 64 KiB: enough for every seed but the largest MSCCL files, which seed by their prefixes.
  "$build/tests/fuzz/$binary" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1
done
