#!/usr/bin/env bash
# README's accuracy table must be what `simgpt validate --format markdown` prints now.
# Regenerate it with: scripts/update_readme_accuracy.sh
set -u
simgpt="$1"
expected=$("$simgpt" validate --format markdown) || exit 1
actual=$(sed -n '/<!-- accuracy:begin -->/,/<!-- accuracy:end -->/p' README.md | sed '1d;$d')
if [ "$expected" != "$actual" ]; then
  echo "README accuracy table is stale; run scripts/update_readme_accuracy.sh"
  diff <(echo "$expected") <(echo "$actual")
  exit 1
fi
