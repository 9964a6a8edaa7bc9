#!/usr/bin/env bash
# Usage: generated_files.sh CCFORGE OUT_DIR BUILD_DIR
# A tune of a topology whose name is full of shell, Markdown and CSV syntax (issue 35): sourcing env.sh
# runs nothing of the name, DEPLOY.md and selection.md escape it, and every env.sh the tests generated
# under BUILD_DIR passes shellcheck (a message, not a failure, where shellcheck is not installed).
set -euo pipefail
ccforge="$1" out="$2" build="$3"
rm -rf "$out"
"$ccforge" tune --topo tests/data/names/ndv5-2gpu-odd-name.xml --coll allreduce -b 1K -e 1K --no-nccl-space \
  --out "$out" >/dev/null 2>&1
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null  # generated
(cd "$out" && set +u && source ./env.sh && [ "$MSCCL_ALGO_DIR" = "$PWD/algorithms" ]) || fail "sourcing env.sh"
if [ -e "$out/PWNED" ] || [ -e PWNED ]; then fail "sourcing env.sh ran a command from the topology's name"; fi

# shellcheck disable=SC2016  # the name's $(...) and backticks, literally
name='odd '\''q'\'' "$(touch PWNED)" \`touch PWNED\`; \|a\|b\| \<b\>, \[x\](y)'
head -n 1 "$out/DEPLOY.md" | grep -qxF "# Deploying this tune: $name on msccl-executor-nccl" || fail "DEPLOY.md title: $(head -n 1 "$out/DEPLOY.md")"
head -n 1 "$out/selection.md" | grep -qxF "# ccforge tune: $name" || fail "selection.md title: $(head -n 1 "$out/selection.md")"
# shellcheck disable=SC2016
grep -q '"topology": "odd '\''q'\'' \\"$(touch PWNED)\\"' "$out/report.json" || fail "report.json does not hold the name as JSON"

if ! command -v shellcheck >/dev/null; then
  echo "shellcheck not installed (scripts/install-deps.sh installs it): generated env.sh files not linted"
  exit 0
fi
checked=0
while IFS= read -r -d '' env; do
  shellcheck "$env" || fail "shellcheck $env"
  checked=$((checked + 1))
done < <(find "$build" "$out" -name env.sh -print0)
echo "shellcheck: $checked generated env.sh file(s) clean"
