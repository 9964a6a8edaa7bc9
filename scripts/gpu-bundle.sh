#!/usr/bin/env bash
# Packs a CUDA build of ccforge for a bare GPU machine that has the CUDA driver and NCCL but none of the
# Debian packages the build needs (Boost, oneTBB, fmt, pugixml): the binaries gpu-check.sh runs plus the
# shared libraries they load that are not part of glibc, libstdc++, the driver or NCCL, the NCCL tuner
# plugin with its load check (gpu-check.sh step 4), the executor bench, and the files `ccforge tune`
# exports for data/topologies/ndv5.xml (BUNDLE_DIR/tuned-ndv5, so the GPU's time is not spent tuning).
# Build here, copy or carry BUNDLE_DIR there, then run there:
#   source BUNDLE_DIR/env.sh && SKIP_BUILD=1 scripts/gpu-check.sh BUNDLE_DIR/build
#   source BUNDLE_DIR/env.sh && SKIP_BUILD=1 scripts/gpu-executor-check.sh BUNDLE_DIR/build
# Usage: scripts/gpu-bundle.sh [BUNDLE_DIR] (default .gpu; the build itself goes to build-gpu/).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:-$root/.gpu}
build=$root/build-gpu
"$root/scripts/gpu-build.sh" "$build"

rm -rf "$bundle"
mkdir -p "$bundle/build/tests/executor" "$bundle/build/bench" "$bundle/lib"
binaries=("$build/ccforge" "$build/tests/executor/executor_cuda_test" "$build/bench/executor_gpu_bench" "$build/nccl_tuner_load_check"
          "$build/libnccl-tuner-ccforge.so")
for f in "${binaries[@]}"; do cp "$f" "$bundle/build/${f#"$build"/}"; done
ldd "${binaries[@]}" | awk '$2 == "=>" {print $1, $3}' | sort -u |
  while read -r name path; do
    case $name in
      libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|libstdc++.so*|libgcc_s.so*|libcuda.so*|libnccl.so*) ;;
      *) cp -L "$path" "$bundle/lib/" ;;
    esac
  done
"$build/ccforge" tune --topo "$root/data/topologies/ndv5.xml" --out "$bundle/tuned-ndv5" > "$bundle/tuned-ndv5.log"

# NCCL is taken from the machine: CUDA's lib folders, else the nvidia-nccl wheel of its Python.
cat > "$bundle/env.sh" <<'ENV'
bundle_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib
nccl_dir=$(for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [[ -e $d/libnccl.so.2 ]] && echo "$d" && break; done)
[[ -n $nccl_dir ]] || nccl_dir=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
export LD_LIBRARY_PATH=$bundle_lib:${nccl_dir:+$nccl_dir:}/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
ENV
echo "gpu-bundle: $(du -sh "$bundle" | cut -f1) in $bundle; libraries: $(ls "$bundle/lib" | tr '\n' ' ')"
