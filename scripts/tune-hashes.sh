#!/usr/bin/env bash
# Runs `ccforge tune` on the bundled topologies whose tune finishes in about a minute on a 2-core machine
# and prints one "sha256  file" line per output file (report.json without its run-dependent `timing` and
# the command line in its metadata, which names this run's binary and folders; the
# checkpoint journal as its sorted lines: it is appended in completion order),
# so that a refactoring can be checked to leave every output byte-identical:
#   scripts/tune-hashes.sh build /tmp/before > before.txt; ...; scripts/tune-hashes.sh build /tmp/after > after.txt
#   diff before.txt after.txt
# ndv5-x128 and ndv5-x2048 are left out: their tunes take minutes to hours (README Performance).
# Usage: scripts/tune-hashes.sh [BUILD_DIR] [SCRATCH_DIR]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
scratch=${2:-$(mktemp -d)}
mkdir -p "$scratch"
topologies=(dgx-h100 dgx1-v100 mi300x ndv4 ndv4-degraded ndv5 ndv5-x2 ndv5-x16 pcie-4gpu)

for topo in "${topologies[@]}"; do
  out=$scratch/$topo
  rm -rf "$out"
  "$build/ccforge" tune --topo "$root/data/topologies/$topo.xml" --out "$out" > "$scratch/$topo.log" 2>&1 ||
    { echo "tune-hashes: tune of $topo failed (see $scratch/$topo.log)" >&2; exit 1; }
done

cd "$scratch"
find "${topologies[@]}" -type f | LC_ALL=C sort | while read -r f; do
  if [[ $(basename "$f") == report.json ]]; then
    printf '%s  %s\n' "$(jq -S 'del(.timing, .metadata.command)' "$f" | sha256sum | cut -d' ' -f1)" "$f"
  elif [[ $(basename "$f") == checkpoint*.jsonl ]]; then  # journaled in completion order: compare as a set
    printf '%s  %s\n' "$(LC_ALL=C sort "$f" | sha256sum | cut -d' ' -f1)" "$f"
  else
    sha256sum "$f"
  fi
done
