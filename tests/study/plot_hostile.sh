#!/usr/bin/env bash
# simgpt plot with hostile input: no string of a CSV or of the command line runs a command through
# gnuplot (backquotes are command substitution in gnuplot's double-quoted strings), -o never
# replaces one of the plot's inputs, a failed write leaves the earlier figure whole, values
# gnuplot cannot draw are refused, and 10,000 categories are drawn in linear time. The figure's
# format is -o's extension: .pdf is a PDF, .png a PNG, any other refused.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}

# Each route a string takes into the script: a column name (the x and y labels), an x value (a
# category's tick), a series value (a line's title), --title, --xlabel and --ylabel. Each would
# touch its own file.
csv="$tmp/hostile.csv"
{
  printf 'config,x`touch %s/column`,s,status,step_time_s,reason\n' "$tmp"
  printf '0,a`touch %s/x_value`,b`touch %s/series`,ok,1.5,\n' "$tmp" "$tmp"
  printf "1,c'\$(touch %s/dollar)',b\`touch %s/series\`,ok,2,\n" "$tmp" "$tmp"
  printf '2,"d""`touch %s/quoted`",e,ok,2.5,\n' "$tmp"
} > "$csv"
"$simgpt" plot "$csv" --x "x\`touch $tmp/column\`" --y step_time_s --series s --kind bar \
  --title "t\`touch $tmp/title\`'\`touch $tmp/title2\`'" -o "$tmp/fig.svg" > "$tmp/out" 2>&1
check "a hostile CSV is plotted ($(head -c 300 "$tmp/out"))" [ -s "$tmp/fig.svg" ]
"$simgpt" plot "$csv" --x "x\`touch $tmp/column\`" --y step_time_s --series s \
  --xlabel "x\`touch $tmp/xlabel\`'\$(touch $tmp/xlabel2)'\\n@x" --ylabel "y\"\`touch $tmp/ylabel\`\"" \
  -o "$tmp/labels.pdf" > "$tmp/out" 2>&1
check "hostile labels are plotted ($(head -c 300 "$tmp/out"))" [ -s "$tmp/labels.pdf" ]
for route in column x_value series dollar quoted title title2 xlabel xlabel2 ylabel; do
  check "no command runs through the $route route" [ ! -e "$tmp/$route" ]
done
check "the title is drawn as written" grep -Fq "t\`touch $tmp/title\`'\`touch $tmp/title2\`'" "$tmp/fig.svg"
check "a category is drawn as written" grep -Fq "a\`touch $tmp/x_value\`" "$tmp/fig.svg"
check "a quote in a label is kept" grep -Fq "c'\$(touch" "$tmp/fig.svg"
"$simgpt" plot "$csv" --x "x\`touch $tmp/column\`" --y step_time_s --series s \
  --xlabel "x\`touch $tmp/xlabel\`'\$(touch $tmp/xlabel2)'\\n@x" -o "$tmp/labels.svg" > "$tmp/out" 2>&1
check "--xlabel is drawn as written ($(head -c 300 "$tmp/out"))" \
  grep -Fq "x\`touch $tmp/xlabel\`'\$(touch $tmp/xlabel2)'\\n@x" "$tmp/labels.svg"
for route in column xlabel xlabel2; do
  check "no command runs through the $route route to an SVG" [ ! -e "$tmp/$route" ]
done

# The format is -o's extension: a PDF and a PNG by their magic bytes; another extension is
# refused before any work, naming -o and the valid ones, and nothing is written.
printf 'config,x,status,step_time_s,reason\n0,1ms,ok,1.5,\n1,5ms,ok,2,\n' > "$tmp/formats.csv"
"$simgpt" plot "$tmp/formats.csv" --x x --y step_time_s -o "$tmp/fig.pdf" > "$tmp/out" 2>&1; status=$?
check "plot -o fig.pdf exits 0 ($(head -c 300 "$tmp/out"))" [ "$status" -eq 0 ]
check "plot -o fig.pdf writes a PDF" [ "$(head -c 5 "$tmp/fig.pdf")" = "%PDF-" ]
"$simgpt" plot "$tmp/formats.csv" --x x --y step_time_s -o "$tmp/again.pdf" > /dev/null 2>&1
check "the same PDF twice, byte for byte" cmp -s "$tmp/fig.pdf" "$tmp/again.pdf"
"$simgpt" plot "$tmp/formats.csv" --x x --y step_time_s -o "$tmp/fig.png" > "$tmp/out" 2>&1; status=$?
check "plot -o fig.png exits 0 ($(head -c 300 "$tmp/out"))" [ "$status" -eq 0 ]
check "plot -o fig.png writes a PNG" [ "$(head -c 8 "$tmp/fig.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
"$simgpt" plot "$tmp/formats.csv" --x x --y step_time_s -o "$tmp/fig.jpg" > "$tmp/out" 2> "$tmp/err"
got=$?
check "plot -o fig.jpg exits 2 (got $got)" [ "$got" -eq 2 ]
check "plot -o fig.jpg: one line naming -o and the valid extensions ($(head -c 300 "$tmp/err"))" \
  grep -qx "simgpt: -o: '.*fig.jpg' ends in .jpg; the figure's format comes from its extension: .svg, .pdf or .png" \
  "$tmp/err"
check "plot -o fig.jpg writes nothing" [ ! -e "$tmp/fig.jpg" ]

# -o naming an input, a directory or a FIFO: refused before any work, the input untouched.
cp "$csv" "$tmp/before.csv"
expect_refusal() { # expect_refusal DESCRIPTION PATTERN ARGS...
  local what="$1" pattern="$2"
  shift 2
  timeout $((5 * slowdown)) "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  check "$what: exit 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
  check "$what: one line naming it" [ "$(wc -l < "$tmp/err")" -eq 1 ]
  check "$what: says '$pattern'" grep -q -- "$pattern" "$tmp/err"
}
printf 'config,x,status,step_time_s,reason\n0,1,ok,1.5,\n1,2,ok,2,\n' > "$tmp/simple.csv"
plot=(plot "$tmp/simple.csv" --x x --y step_time_s --measured "$csv")
expect_refusal "-o the CSV" "also an input" "${plot[@]}" -o "$tmp/simple.csv"
expect_refusal "-o the --measured table" "also an input" "${plot[@]}" -o "$csv"
check "the CSV is untouched" cmp -s "$csv" "$tmp/before.csv"
ln -s "$csv" "$tmp/link.csv"
expect_refusal "-o a link to the CSV" "also an input" "${plot[@]}" -o "$tmp/link.csv"
check "the CSV is untouched through a link" cmp -s "$csv" "$tmp/before.csv"
expect_refusal "-o a directory" "is a directory" "${plot[@]}" -o "$tmp"
mkfifo "$tmp/fifo"
expect_refusal "-o a FIFO" "not a regular file" "${plot[@]}" -o "$tmp/fifo"
expect_refusal "-o a device" "not a regular file" "${plot[@]}" -o /dev/full
expect_refusal "-o in a missing directory" "does not exist" "${plot[@]}" -o "$tmp/no/such/fig.svg"
cp "$tmp/fig.svg" "$tmp/readonly.svg"
chmod 444 "$tmp/readonly.svg"
if [ "$(id -u)" -ne 0 ]; then # root writes read-only files
  expect_refusal "-o a read-only file" "read-only" "${plot[@]}" -o "$tmp/readonly.svg"
fi

# A write that fails (files limited to 1 KiB, as a full disk would cut them) leaves the earlier
# figure as it was and exits non-zero; nothing is left beside it.
cp "$tmp/fig.svg" "$tmp/earlier.svg"
(trap '' XFSZ; ulimit -f 1; "$simgpt" plot "$tmp/simple.csv" --x x --y step_time_s -o "$tmp/fig.svg" > "$tmp/out" 2> "$tmp/err")
got=$?
check "a failed write exits 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
check "a failed write says so ($(head -c 300 "$tmp/err"))" grep -q "cannot be written" "$tmp/err"
check "a failed write leaves the earlier figure whole" cmp -s "$tmp/fig.svg" "$tmp/earlier.svg"
check "a failed write leaves no temporary file" [ -z "$(find "$tmp" -name '.*simgpt-*')" ]

# Bytes that are not UTF-8 in a title or a value are drawn as U+FFFD: the SVG stays well-formed.
printf 'config,x,status,step_time_s,reason\n0,a\377,ok,1,\n1,b,ok,2,\n' > "$tmp/bytes.csv"
"$simgpt" plot "$tmp/bytes.csv" --x x --y step_time_s --title "$(printf 't\377\376')" -o "$tmp/bytes.svg" > "$tmp/out" 2>&1
check "a plot of non-UTF-8 bytes is drawn ($(head -c 300 "$tmp/out"))" [ -s "$tmp/bytes.svg" ]
check "no byte that is not UTF-8 reaches the SVG" iconv -f UTF-8 -t UTF-8 "$tmp/bytes.svg" -o /dev/null

# A gnuplot on PATH that fails, or writes nothing, is named with exit 2; one that ignores its
# input dies with simgpt.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho broken >&2\nexit 1\n' > "$tmp/bin/gnuplot"
chmod +x "$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" expect_refusal "a failing gnuplot" "gnuplot failed: broken" plot "$tmp/simple.csv" --x x --y step_time_s -o "$tmp/g.svg"
printf '#!/bin/sh\ncat > /dev/null\n' > "$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" expect_refusal "a gnuplot that writes nothing" "wrote no figure" plot "$tmp/simple.csv" --x x --y step_time_s -o "$tmp/g.svg"
check "no empty figure is written" [ ! -e "$tmp/g.svg" ]
printf '#!/bin/sh\nexec sleep 97.25\n' > "$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" "$simgpt" plot "$tmp/simple.csv" --x x --y step_time_s -o "$tmp/g.svg" > /dev/null 2>&1 &
pid=$!
check "the hanging gnuplot started" wait_for 5 sh -c 'pgrep -f "sleep 97.25" > /dev/null'
kill -TERM "$pid"
wait "$pid" 2> /dev/null
check "the gnuplot dies with simgpt" wait_for 5 eval '! pgrep -f "sleep 97.25" > /dev/null'
pkill -f "sleep 97.25"

# Values gnuplot cannot draw (it takes |v| > 8.9e307 as undefined): refused with the line.
printf 'config,x,status,step_time_s,reason\n0,1,ok,1e308,\n1,2,ok,-1e308,\n' > "$tmp/huge.csv"
expect_refusal "a y value of 1e308" "huge.csv:2" plot "$tmp/huge.csv" --x x --y step_time_s -o "$tmp/h.svg"
printf 'config,x,status,step_time_s,reason\n0,1e308,ok,1,\n1,2,ok,2,\n' > "$tmp/huge_x.csv"
expect_refusal "an x value of 1e308" "huge_x.csv:2" plot "$tmp/huge_x.csv" --x x --y step_time_s -o "$tmp/h.svg"

# 10,000 categorical x values are drawn (their time is measured by bench/plot_categories.sh).
{ echo 'config,x,status,step_time_s,reason'; seq 0 9999 | sed 's/.*/&,v&,ok,&.5,/'; } > "$tmp/many.csv"
"$simgpt" plot "$tmp/many.csv" --x x --y step_time_s -o "$tmp/many.svg" > "$tmp/out" 2>&1
check "10,000 categories are plotted ($(head -c 300 "$tmp/out"))" [ -s "$tmp/many.svg" ]
check "the 10,000th category is a tick" grep -q '>v9999<' "$tmp/many.svg"

# A gnuplot that never exits, or never stops printing, is stopped at its limits (killed with
# what it started) rather than waited on: tests/study/test_plot.cpp runs those with short limits.
exit $fail
