#!/usr/bin/env bash
# Installs the build in $1 into a scratch prefix, builds examples/embed against it with
# find_package(simgpt), and runs it: the library works for a project outside this tree.
set -euo pipefail
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
cmake -S examples/embed -B "$scratch/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/embed" > /dev/null
out=$("$scratch/embed/simgpt_embed")
echo "$out"
[[ $out =~ ^gpt3xl\.yaml\ on\ p3_16xlarge\.xml:\ step\ [0-9.]+\ s ]] || { echo "unexpected output"; exit 1; }
# The installed command finds its data files beside itself, with no SIMGPT_DATA.
json=$(env -u SIMGPT_DATA "$scratch/prefix/bin/simgpt" --platform "$scratch/prefix/share/simgpt/platforms/p3_16xlarge.xml" \
  --workload "$scratch/prefix/share/simgpt/workloads/gpt3xl.yaml" --format json)
[[ $json == *'"step_time_s"'* ]] || { echo "the installed simgpt printed no report"; exit 1; }
echo "installed package: ok"
