#!/usr/bin/env bash
# No profile parameter is fitted on fewer than 3 rows of 2 configurations that move it: for each
# profile that declares a calibration, `simgpt calibrate --check` lists the rows that move each
# fitted parameter and exits 1 when one has too few.
set -u
simgpt="$1"
fail=0
checked=0
for file in profiles/*.yaml; do
  grep -q '^calibration:' "$file" || continue
  profile=$(basename "$file" .yaml)
  if ! out=$("$simgpt" calibrate --profile "$profile" --check 2>&1); then
    echo "FAIL: $profile: $out"
    fail=1
  fi
  checked=$((checked + 1))
done
[ "$checked" -ge 1 ] || { echo "FAIL: no profile declares a calibration"; fail=1; }
exit $fail
