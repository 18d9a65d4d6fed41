#!/usr/bin/env bash
# A generator in validation/generate/ writes the committed tables byte for byte from its source in
# ../shared/measured (which every checkout of the project has beside it), and no table matching its
# pattern is left that it does not write.
# usage: generated_tables.sh GENERATOR SOURCE PATTERN TABLES ROWS [FILE]
#   GENERATOR and SOURCE relative to validation/generate/ and ../shared/measured/ (or ./PATH in this
#   checkout); PATTERN a glob of table file names; FILE: the generator writes one table to this name
#   (else into a directory).
set -u
gen=$1 source=$2 pattern=$3 want_tables=$4 want_rows=$5 file=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp${file:+/$file}
# A SOURCE starting with ./ is in this checkout (simgpt's own measurements, validation/device).
src="$(pwd)/../shared/measured/$source"
case $source in ./*) src="$(pwd)/${source#./}" ;; esac
if ! "validation/generate/$gen" "$src" "$out" 2> "$tmp/err"; then
  echo "FAIL: validation/generate/$gen:"; cat "$tmp/err"; exit 1
fi
status=0
for f in "$tmp"/$pattern; do
  name=$(basename "$f")
  if ! cmp -s "validation/tables/$name" "$f"; then
    echo "FAIL: validation/tables/$name is not what the generator writes:"
    diff "validation/tables/$name" "$f" | head -20; status=1
  fi
done
for f in validation/tables/$pattern; do
  [ -e "$tmp/$(basename "$f")" ] || { echo "FAIL: $f is not written by the generator"; status=1; }
done
[ "$status" -eq 0 ] || exit 1
tables=$(ls "$tmp"/$pattern | wc -l)
rows=$(cat "$tmp"/$pattern | grep -c '^  - id: ')
[ "$tables" -eq "$want_tables" ] || { echo "FAIL: $tables tables, expected $want_tables"; exit 1; }
[ "$rows" -eq "$want_rows" ] || { echo "FAIL: $rows rows, expected $want_rows"; exit 1; }
echo "$pattern: $tables tables, $rows rows, as validation/generate/$gen writes them"
