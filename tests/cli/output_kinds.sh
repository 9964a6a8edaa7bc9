#!/usr/bin/env bash
# Usage: output_kinds.sh CCFORGE SCRATCH_DIR
# Outputs never replace a FIFO, a device or a symbolic link (issue 35): --out, --trace and --write on
# each are refused with one line naming the path and what it is, exit 2, and each is left as it was (the
# device only where mknod is permitted, as root; otherwise a message says it was not tried).
set -euo pipefail
ccforge="$1" scratch="$2"
rm -rf "$scratch" && mkdir -p "$scratch"
fail() { echo "FAIL: $*" >&2; exit 1; }

mkfifo "$scratch/fifo"
printf 'kept\n' >"$scratch/target"
ln -s "$scratch/target" "$scratch/link"
kinds=(fifo link)
if mknod "$scratch/null" c 1 3 2>/dev/null; then
  kinds+=(null)
else
  echo "mknod not permitted here: the device node case is not run"
fi

# refused OUT WORDS...: `ccforge WORDS OUT` exits 2 with the one line for OUT's kind.
refused() {
  local out="$1" err rc want
  shift
  set +e
  err=$(timeout 60 "$ccforge" "$@" "$out" 2>&1 >/dev/null)
  rc=$?
  set -e
  case "$(basename "$out")" in
    fifo) want="$out: is a FIFO; outputs replace only regular files (give a new path or a regular file)" ;;
    link) want="$out: is a symbolic link; outputs are not written through links (give the link's target or a new path)" ;;
    null) want="$out: is a character device; outputs replace only regular files (give a new path or a regular file)" ;;
  esac
  if [ "$rc" -ne 2 ] || [ "$err" != "$want" ]; then fail "$* $out: exit $rc, '$err', expected '$want'"; fi
}

for kind in "${kinds[@]}"; do
  refused "$scratch/$kind" topo show tests/data/topologies/ndv5-topo.xml --gpu-model "H100 SXM" --nic-gbps 400 --write
  refused "$scratch/$kind" sim --topo data/topologies/ndv5.xml --coll allreduce -b 1K -e 1K --trace
  refused "$scratch/$kind" calibrate --topo data/topologies/ndv5.xml --measured tests/data/nccl-tests/ndv5_allreduce_perf.log --out
done

[ -p "$scratch/fifo" ] || fail "the FIFO was replaced"
if [ ! -L "$scratch/link" ] || [ "$(readlink "$scratch/link")" != "$scratch/target" ]; then fail "the link was replaced"; fi
[ "$(cat "$scratch/target")" = kept ] || fail "the link's target was changed"
if [ -e "$scratch/null" ]; then
  if [ ! -c "$scratch/null" ] || [ "$(stat -c %t:%T "$scratch/null")" != 1:3 ]; then fail "the device node was replaced"; fi
fi
[ "$(find "$scratch" -name '*.tmp.*' | wc -l)" -eq 0 ] || fail "a temporary file was left"
echo "outputs refused on ${kinds[*]}; each left as it was"
