#!/usr/bin/env bash
# README's accuracy table must be what `simgpt validate --format markdown` prints now: FILE is that
# output, written by the validation_gate test (CMakeLists.txt), so the set is replayed once.
# Regenerate README's table with: scripts/update_readme_accuracy.sh
set -u
file="$1"
[ -s "$file" ] || { echo "readme_accuracy: $file is missing or empty (validation_gate writes it)"; exit 1; }
actual=$(sed -n '/<!-- accuracy:begin -->/,/<!-- accuracy:end -->/p' README.md | sed '1d;$d')
if [ "$(cat "$file")" != "$actual" ]; then
  echo "README accuracy table is stale; run scripts/update_readme_accuracy.sh"
  diff "$file" <(echo "$actual")
  exit 1
fi
