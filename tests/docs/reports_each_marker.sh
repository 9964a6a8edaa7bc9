#!/bin/sh
# no_history_markers.sh on its fixture tests/docs/marked: it must fail and report every listed marker,
# one line each (a pattern that stopped matching, or matched twice, changes the count).
set -u
here=$(dirname "$0")
out=$(sh "$here/no_history_markers.sh" "$here/marked" 2>/dev/null)
rc=$?
expected=$(grep -c '^- ' "$here/marked/README.md")
reported=$(printf '%s\n' "$out" | grep -c .)
printf '%s\n' "$out"
[ "$rc" -eq 1 ] && [ "$reported" -eq "$expected" ] && exit 0
echo "expected exit 1 and $expected reported lines, got exit $rc and $reported" >&2
exit 1
