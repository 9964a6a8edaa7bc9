#!/usr/bin/env bash
# Issue 6's CI proof for one topology, from the command line:
#   1. `ccforge tune --all-candidates` over 1 KB..TUNE_MAX;
#   2. `ccforge validate --tuned` over the same sizes: every exported file runs inside its band with
#      #wrong = 0 and the measured selection table is written;
#   3. `ccforge validate --all-sizes` at CANDIDATE_SIZE on every candidate that passed the checker
#      (every generator and parameter choice for this rank count): every file runs, #wrong = 0.
# CANDIDATE_SIZE must split into every candidate's chunks (a multiple of each file's per-rank chunk
# unit); a candidate that the executor cannot run at that size fails the test rather than being skipped.
# Usage: tuned_and_generated.sh CCFORGE TOPOLOGY NRANKS TUNE_MAX CANDIDATE_SIZE WORKDIR
set -euo pipefail
ccforge=$1 topology=$2 nranks=$3 tune_max=$4 candidate_size=$5 work=$6

rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ccforge" tune --topo "$topology" -b 1K -e "$tune_max" --out "$work/tune" --all-candidates --export-rooted --jobs 2 \
  > "$work/tune.log" 2>&1 ||
  fail "tune exited $? ($(tail -n 1 "$work/tune.log"))"

# Every file in DIR ran (at least once) and every run of a file got every element right.
expect_all_ran_clean() {
  local dir=$1 measured=$2 what=$3
  [ -s "$measured" ] || fail "$what: $measured not written"
  local files ran bad
  files=$(find "$dir" -name '*.xml' | sort)
  [ -n "$files" ] || fail "$what: no files in $dir"
  ran=$(awk -F, 'NR > 1 && $5 != "" { print $5 }' "$measured" | sort -u)
  missing=$(comm -23 <(echo "$files") <(echo "$ran"))
  [ -z "$missing" ] || fail "$what: never ran (size does not split into its chunks?): $(echo "$missing" | head -n 3 | tr '\n' ' ')"
  bad=$(awk -F, 'NR > 1 && $5 != "" && $15 != "0" { print $5 " at " $7 " B: #wrong " $15 " " $16 }' "$measured" | head -n 3)
  [ -z "$bad" ] || fail "$what: $bad"
  echo "$what: $(echo "$files" | wc -l) files, $(($(wc -l < "$measured") - 1)) runs, #wrong = 0"
}

# The exported files (in-place, out-of-place variants, rooted ones) in their bands; validate infers the
# rank count from them and exits non-zero when it runs none.
if [ -n "$(find "$work/tune" -path '*/algorithms*' -name '*.xml' 2> /dev/null)" ]; then
  "$ccforge" validate --device host --tuned "$work/tune" -b 1K -e "$tune_max" -n 1 -w 0 -c 1 \
    --out "$work/tuned" > "$work/tuned.log" 2>&1 || fail "validate --tuned exited $? ($(grep -m 1 BROKEN "$work/tuned.log" || tail -n 1 "$work/tuned.log"))"
  grep -q "^# ccforge validate: device host, $nranks ranks (the algorithms')" "$work/tuned.log" || fail "rank count not inferred"
  [ -s "$work/tuned/selection.csv" ] || fail "measured selection.csv not written"
  for folder in algorithms algorithms-rooted; do
    if [ -d "$work/tune/$folder" ]; then expect_all_ran_clean "$work/tune/$folder" "$work/tuned/measured.csv" "tuned $folder"; fi
  done
else
  echo "tuned: NCCL kept at every size (no files)"
fi

"$ccforge" validate --device host --nranks "$nranks" --algos "$work/tune/candidates" --all-sizes -b "$candidate_size" \
  -e "$candidate_size" -n 1 -w 0 -c 1 --out "$work/candidates" > "$work/candidates.log" 2>&1 ||
  fail "validate of the candidates exited $? ($(grep -m 1 BROKEN "$work/candidates.log" || tail -n 1 "$work/candidates.log"))"
expect_all_ran_clean "$work/tune/candidates" "$work/candidates/measured.csv" "candidates"
