#!/usr/bin/env bash
# validation/generate/kernel_tables.py writes the committed kernel tables platforms/kernels/*.yaml
# byte for byte (the B200's from ../shared/measured, which every checkout of the project has beside
# it; the H200's from validation/device/h200-kernels.json), no table there is left that it does not
# write, and each table has the rows of each kind expected.
# usage (from the repository root): tests/validation/kernel_tables.sh
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! validation/generate/kernel_tables.py "$(pwd)/../shared/measured" "$tmp" 2> "$tmp/err"; then
  echo "FAIL: validation/generate/kernel_tables.py:"; cat "$tmp/err"; exit 1
fi
# table: the rows of each kind (gemm grouped_gemm attention memory)
declare -A want=(
  [B200-SXM-180GB.yaml]="514 76 64 0"
  [H200-SXM-141GB.yaml]="333 0 26 30"
)
status=0
for name in "${!want[@]}"; do
  [ -e "$tmp/$name" ] || { echo "FAIL: the generator did not write $name"; status=1; }
done
for f in "$tmp"/*.yaml; do
  name=$(basename "$f")
  if [ ! -e "platforms/kernels/$name" ]; then
    echo "FAIL: platforms/kernels/$name is missing: run validation/generate/kernel_tables.py"; status=1
  elif ! cmp -s "platforms/kernels/$name" "$f"; then
    echo "FAIL: platforms/kernels/$name is not what the generator writes:"
    diff "platforms/kernels/$name" "$f" | head -20; status=1
  fi
  [ -n "${want[$name]:-}" ] || { echo "FAIL: the generator writes $name, which this test does not expect"; status=1; continue; }
  # Rows of each kind: the "  - " lines under each top-level key.
  got=$(awk '/^[a-z_]+:/ { kind = $1 } /^  - / { n[kind]++ }
             END { printf "%d %d %d %d", n["gemm:"], n["grouped_gemm:"], n["attention:"], n["memory:"] }' "$f")
  if [ "$got" != "${want[$name]}" ]; then
    echo "FAIL: $name has $got rows (gemm grouped_gemm attention memory), expected ${want[$name]}"; status=1
  fi
done
for f in platforms/kernels/*.yaml; do
  [ -e "$f" ] || continue
  [ -e "$tmp/$(basename "$f")" ] || { echo "FAIL: $f is not written by validation/generate/kernel_tables.py"; status=1; }
done
[ "$status" -eq 0 ] || exit 1
for name in B200-SXM-180GB.yaml H200-SXM-141GB.yaml; do
  echo "platforms/kernels/$name: rows (gemm grouped_gemm attention memory) ${want[$name]}, as validation/generate/kernel_tables.py writes them"
done
