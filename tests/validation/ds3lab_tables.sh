#!/usr/bin/env bash
# validation/generate/ds3lab.py writes the committed DS3Lab tables byte for byte from the results pages in
# ../shared/measured/ds3lab (which every checkout of the project has beside it), and no ds3lab-*.yaml is
# left that it does not write.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! validation/generate/ds3lab.py "$(pwd)/../shared/measured/ds3lab" "$tmp" 2> "$tmp/err"; then
  echo "FAIL: validation/generate/ds3lab.py:"; cat "$tmp/err"; exit 1
fi
status=0
for f in "$tmp"/ds3lab-*.yaml; do
  name=$(basename "$f")
  if ! cmp -s "validation/tables/$name" "$f"; then
    echo "FAIL: validation/tables/$name is not what the generator writes:"
    diff "validation/tables/$name" "$f" | head -20; status=1
  fi
done
for f in validation/tables/ds3lab-*.yaml; do
  [ -e "$tmp/$(basename "$f")" ] || { echo "FAIL: $f is not written by the generator"; status=1; }
done
[ "$status" -eq 0 ] || exit 1
tables=$(ls "$tmp"/ds3lab-*.yaml | wc -l)
rows=$(cat "$tmp"/ds3lab-*.yaml | grep -c '^  - id: ')
[ "$tables" -eq 18 ] || { echo "FAIL: $tables tables, expected 18"; exit 1; }
[ "$rows" -eq 406 ] || { echo "FAIL: $rows rows, expected 406"; exit 1; }
echo "ds3lab-*.yaml: $tables tables, $rows rows, as the generator writes them"
