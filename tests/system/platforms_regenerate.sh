#!/usr/bin/env bash
# platforms/regenerate.sh with this build's `simgpt platform` writes every committed platform
# file byte for byte, and writes nothing the folder does not hold.
set -u
simgpt="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! platforms/regenerate.sh "$simgpt" "$tmp" 2> "$tmp/err"; then
  echo "FAIL: platforms/regenerate.sh:"; cat "$tmp/err"; exit 1
fi
fail=0
for committed in platforms/*.xml; do
  name=$(basename "$committed")
  if [ ! -f "$tmp/$name" ]; then
    echo "FAIL: platforms/regenerate.sh does not write $name"; fail=1
  elif ! cmp -s "$committed" "$tmp/$name"; then
    echo "FAIL: $name differs from what simgpt platform writes:"; diff "$committed" "$tmp/$name" | head -20; fail=1
  fi
done
for generated in "$tmp"/*.xml; do
  [ -f "platforms/$(basename "$generated")" ] || { echo "FAIL: $(basename "$generated") is not committed"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "all $(ls platforms/*.xml | wc -l) platform files regenerate byte for byte"
exit "$fail"
