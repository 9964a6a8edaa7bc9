#!/bin/sh
# READMEs and docs/ say what the tool does and what the data shows, not how the project got there.
# Fails, listing FILE:LINE: text, on a history marker outside code blocks (quoted program output may
# print "a -> b"): work sessions and numbered work periods, investigation passes, issue numbers,
# "was X %" and before -> after figures of past changes, branch names, reverted commits, dates of work.
# Usage: no_history_markers.sh SOURCE_DIR
set -u
cd "${1:-.}" || exit 2

markers='\b[Ss]essions?\b'
markers="$markers"'|\b([Ww]ork|[Ww]orking) periods?\b|\b[Ss]print [0-9]|\b[Mm]ilestone [0-9]'
markers="$markers"'|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|[0-9]+(st|nd|rd|th)|later|earlier|previous|final|new) (investigation )?pass(es)?\b'
markers="$markers"'|\b[Pp]ass(es)? [0-9]+\b'
markers="$markers"'|\b[Ii]ssues? #?[0-9]+'
markers="$markers"'|\b(was|were) [-+−]?[0-9][0-9.,]* ?%|\((was|were) [0-9]|, (was|were) [0-9]'
markers="$markers"'|[0-9] ?%? ?(→|->) ?[-+−]?[0-9]|\| *(before|after) *\||\b[Bb]efore (this|the) (change|fix|commit)'
markers="$markers"'|\b(on|in|from|to) (the )?branch\b|\bbranch `|\b[Rr]evert(ed|ing|s)?\b'
markers="$markers"'|(^|[^-0-9A-Za-z_/.])20[0-9][0-9]-[01][0-9]-[0-3][0-9]'
markers="$markers"'|\b(January|February|March|April|May|June|July|August|September|October|November|December) [0-9]{1,2},? 20[0-9][0-9]'

files=
for f in README.md */README.md docs/*.md; do [ -f "$f" ] && files="$files $f"; done
[ -n "$files" ] || { echo "no README.md or docs/*.md under $(pwd)" >&2; exit 2; }

# Prose only: fenced blocks and indented code lines are dropped (they quote what the tool prints).
# shellcheck disable=SC2086 # $files is a list of names without spaces
found=$(awk '
  FNR == 1 { fence = 0 }
  /^ *```/ { fence = !fence; next }
  !fence && !/^    / { print FILENAME ":" FNR ": " $0 }
' $files | grep -E "$markers")
if [ -n "$found" ]; then
  printf '%s\n' "$found"
  echo "history markers above: state the current fact (what the model does, what the data shows) instead" >&2
  exit 1
fi
exit 0
