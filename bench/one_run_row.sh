# Sourced by bench/today.sh and bench/stragglers.sh (which set `out`, a scratch folder): one Markdown
# table row of a command run once, its wall time from hyperfine, its peak RSS from /usr/bin/time and
# the step time its report prints (the first number of its first "step time" line: a --draws study's
# median; "-" where it prints none).
# measure NAME COMMAND...
measure() {
  local name=$1
  shift
  hyperfine --runs 1 --export-json "$out/h.json" --command-name "$name" "$*" >/dev/null 2>&1
  /usr/bin/time -f '%M' -o "$out/rss" "$@" >"$out/report" 2>/dev/null || true
  local wall rss step
  wall=$(python3 -c "import json; print(f\"{json.load(open('$out/h.json'))['results'][0]['mean']:.2f}\")")
  rss=$(awk '{printf "%.0f", $1 / 1024}' "$out/rss")
  step=$(awk '/^  step time/ {for (i = 3; i <= NF; i++) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' "$out/report")
  echo "| $name | $wall | $rss | ${step:--} |"
}
