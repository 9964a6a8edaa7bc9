#!/usr/bin/env bash
# The executor's one-GPU check (issue 32), sized for one device run of at most 6 minutes: the cuda
# backend bit for bit against the host oracle, `validate --suite osu` latency and bw for LL, LL128 and
# Simple, the single-GPU executor bench, and every reference MSCCL file and every file tuned for ndv5
# (in-place and out-of-place, every element checked). Each step has its own time limit (350 s in all,
# 390 s when it must tune first); a summary (GB/s per protocol, 8-byte latency, pass/fail counts, the
# issue's targets) ends the output. Commands go to OUT/commands.txt, each step's output to OUT/NAME.log,
# the summary to OUT/summary.txt, and all of them into OUT/results.tar.gz at the end.
#
# Usage: scripts/gpu-executor-check.sh [BUILD_DIR]
#   BUILD_DIR  the CUDA build (default build-gpu); with SKIP_BUILD=1 it must already hold ccforge,
#              tests/executor/executor_cuda_test and bench/executor_gpu_bench (gpu-bundle.sh makes one:
#              .gpu/build, with its tuned-ndv5/ folder next to it)
#   OUT        where results.tar.gz (every log, CSV and command of the run) and summary.txt go (default
#              BUILD_DIR/gpu-executor-check, where the run writes them; a device run's OUT hands back at
#              most 8 files, so the run itself works in BUILD_DIR/gpu-executor-check, emptied first)
#   JOBS       build parallelism (default 16: the device machine's cores)
#   TUNED      a `ccforge tune --out` folder for data/topologies/ndv5.xml (default BUILD_DIR/../tuned-ndv5
#              when it exists, else tuned on the spot into OUT/tuned-ndv5)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-gpu}")
out=$build/gpu-executor-check
results=$(realpath -m "${OUT:-$out}")
rm -rf "$out" && mkdir -p "$out" "$results" || { echo "gpu-executor-check: cannot make $out and $results" >&2; exit 2; }
ccforge=$build/ccforge
started=$SECONDS

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  echo "== build (JOBS=${JOBS:-16}) into $build"
  JOBS=${JOBS:-16} "$root/scripts/gpu-build.sh" "$build" > "$out/build.log" 2>&1 ||
    { tail -n 20 "$out/build.log"; echo "gpu-executor-check: build failed (see $out/build.log)" >&2; exit 2; }
  tail -n 1 "$out/build.log"
fi
for f in "$ccforge" "$build/tests/executor/executor_cuda_test" "$build/bench/executor_gpu_bench"; do
  [[ -x $f ]] || { echo "gpu-executor-check: $f is missing: build without SKIP_BUILD=1, or run scripts/gpu-bundle.sh" >&2; exit 2; }
done
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-executor-check: built in $((SECONDS - started)) s; no GPU visible (nvidia-smi -L failed), nothing to run" >&2
  exit 2
fi
nvidia-smi -L | tee "$out/gpus.txt"

status=0
step() {  # step NAME SECONDS COMMAND...: runs with a time limit, logs to $out/NAME.log
  local name=$1 limit=$2
  shift 2
  echo "== $name (limit ${limit}s, at $((SECONDS - started)) s)"
  echo "$name: $*" >> "$out/commands.txt"
  if timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1; then
    echo "== $name: ok"
  else
    echo "== $name: FAILED (exit $?; see $out/$name.log)"; tail -n 5 "$out/$name.log"; status=1
  fi
}

# 1. The cuda backend against the host oracle, bit for bit, and the GPU watchdog.
step cuda_tests 60 "$build/tests/executor/executor_cuda_test"
# 2. The issue's figures: latency at 8 B (also 4 KB, 2 MB) and bandwidth per pair at 2 and 8 MB, LL, LL128
#    and Simple.
step osu_latency 20 "$ccforge" validate --device cuda --suite osu latency -b 8 -e 2M -f 512 -n 100 -w 10 --out "$out/osu"
step osu_bw 45 "$ccforge" validate --device cuda --suite osu bw -b 2M -e 8M -f 4 -n 5 -w 1 --out "$out/osu"
# 3. The executor bench: references (copy, producer/consumer, LL lines, memcpy, step costs) and the
#    interpreter in three shapes (wide-640, wide-512, narrow-512).
step bench 100 "$build/bench/executor_gpu_bench" "$out/bench"
# 4. Correctness of real files: the reference MSCCL files (8 and 4 ranks), then every file tuned for ndv5.
step msccl_8 45 "$ccforge" validate --device cuda --nranks 8 --algos "$root/tests/data/msccl" -b 3K -e 3M -f 32 -n 2 -w 1 --all-sizes --out "$out/msccl_8"
step msccl_4 20 "$ccforge" validate --device cuda --nranks 4 --algos "$root/tests/data/msccl" -b 3K -e 3M -f 32 -n 2 -w 1 --all-sizes --out "$out/msccl_4"
tuned=${TUNED:-$build/../tuned-ndv5}
if [[ ! -e $tuned/selection.csv ]]; then
  tuned=$out/tuned-ndv5
  step tune_ndv5 40 "$ccforge" tune --topo "$root/data/topologies/ndv5.xml" --out "$tuned"
fi
step tuned_ndv5 60 "$ccforge" validate --device cuda --tuned "$tuned" -b 1K -e 4M -f 64 --all-sizes -n 2 -w 1 --out "$out/tuned_ndv5"

summary() {
echo "== summary (run time $((SECONDS - started)) s; results in $out, all of them packed in $results/results.tar.gz)"
command -v python3 > /dev/null || { echo "no python3 here: read $out/osu/*.csv and $out/*/measured.csv"; return; }
python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
def rows(path):
    try:
        with open(path) as f: return list(csv.DictReader(f))
    except OSError: return []
targets_bw = {"LL": 8.5, "LL128": 12.0, "Simple": 15.0}
bw = rows(f"{out}/osu/osu_bw.csv")
for proto, target in targets_bw.items():
    sizes = [r for r in bw if r["protocol"] == proto and int(r["size_bytes"]) >= 2 << 20]
    best = max((float(r["bandwidth_MBps"]) / 1000 for r in sizes), default=None)
    print(f"osu bw {proto:6}: " + ("not run" if best is None else f"{best:6.2f} GB/s per pair at >= 2 MB (target >= {target}: {'met' if best >= target else 'NOT met'})"))
for r in rows(f"{out}/osu/osu_latency.csv"):
    us = float(r["latency_us"])
    target = f" (target <= 5: {'met' if us <= 5 else 'NOT met'})" if r["size_bytes"] == "8" else ""
    print(f"osu latency {r['protocol']:6} {r['size_bytes']:>7} B: {us:8.2f} us{target}")
for name in ("msccl_8", "msccl_4", "tuned_ndv5"):
    runs = rows(f"{out}/{name}/measured.csv")
    runs = [r for r in runs if r.get("file")]
    bad = [r for r in runs if r.get("error") or int(r.get("wrong") or 0) != 0]
    places = sorted({r.get("placement", "") for r in runs})
    print(f"{name:10}: {len(runs)} runs ({', '.join(places) or 'none'}), {len(bad)} failed or wrong")
    for r in bad[:5]: print(f"   {r['file']} {r['size_bytes']} {r.get('placement','')}: wrong {r.get('wrong')} {r.get('error','')}")
for r in rows(f"{out}/bench/executor_gpu_bench.csv"):
    print(f"bench {r['test']:23} {r['variant']:15} {r['protocol']:6} {r['threads']:>4} thr {r['bytes']:>10} B {float(r['GBps']):7.2f} GB/s {float(r['us']):10.3f} us  {r['note']}")
PY
}
summary | tee "$out/summary.txt"
[[ $results == "$out" ]] || cp "$out/summary.txt" "$results/summary.txt"
tar -czf "$results/results.tar.gz.part" -C "$out" --exclude=results.tar.gz --exclude=results.tar.gz.part . &&
  mv "$results/results.tar.gz.part" "$results/results.tar.gz" || { echo "gpu-executor-check: packing $results/results.tar.gz failed" >&2; status=1; }
echo "gpu-executor-check: $([[ $status == 0 ]] && echo 'all steps ok' || echo 'some steps FAILED') in $((SECONDS - started)) s"
exit $status
