#!/usr/bin/env bash
# README's profile-parameter table must be what `simgpt profile-parameters --format markdown` prints
# now, i.e. the registry in src/framework/parameters.cpp. Regenerate it by replacing the lines
# between the markers with that command's output.
set -u
simgpt="$1"
expected=$("$simgpt" profile-parameters --format markdown) || exit 1
actual=$(sed -n '/<!-- parameters:begin -->/,/<!-- parameters:end -->/p' README.md | sed '1d;$d')
if [ "$expected" != "$actual" ]; then
  echo "README profile-parameter table is stale; put 'simgpt profile-parameters --format markdown' between its markers"
  diff <(echo "$expected") <(echo "$actual")
  exit 1
fi
