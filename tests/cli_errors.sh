#!/usr/bin/env bash
# Bad input: one line on stderr naming the file or key, exit status 2 (3 past a documented limit),
# within 2 seconds, never a crash or a hang.
set -u
simgpt="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp workloads/gpt3xl.yaml "$tmp/ok.yaml"
printf 'model: [1, 2\n' > "$tmp/malformed.yaml"
sed 's/framework: torch-pipe/framework: nosuch/' workloads/gpt3xl.yaml > "$tmp/profile.yaml"
printf '<platform version="4.1"><zone id="z"' > "$tmp/broken.xml"
sed 's|<prop id="role" value="nic"/>|<prop id="role" value="nic"/><prop id="flow_limit" value="10Gbps"/>|' \
  platforms/p3_16xlarge.xml > "$tmp/flow_limit.xml"
sed 's|<prop id="cpu" value="intel"/>|<prop id="cpu" value="z80"/>|' platforms/p3_16xlarge.xml > "$tmp/bad_cpu.xml"
# Platforms SimGrid loads but cannot simulate: a bad rate or delay, a missing route.
sed '0,/bandwidth="[^"]*"/s//bandwidth="0Bps"/' platforms/p3_2xlarge_x2.xml > "$tmp/zero_bw.xml"
sed '0,/bandwidth="[^"]*"/s//bandwidth="-5GBps"/' platforms/p3_2xlarge_x2.xml > "$tmp/neg_bw.xml"
sed '0,/latency="[^"]*"/s//latency="-1us"/' platforms/p3_2xlarge_x2.xml > "$tmp/neg_lat.xml"
# Without the switch's route into node 0, node 1 cannot reach it (SimGrid's Floyd routing throws).
grep -v '<zoneRoute src="switch" dst="node-0"' platforms/p3_2xlarge_x2.xml > "$tmp/no_route.xml"
# 2000 framework options: each is a lookup in the profile's YAML maps.
{ cat workloads/gpt3xl.yaml; echo 'framework_options:'; for i in $(seq 2000); do echo "  compute.k$i: 1"; done; } > "$tmp/options.yaml"
# 200,000 options (4 MB): past the YAML file limit, refused before yaml-cpp builds their tree.
{ cat workloads/gpt3xl.yaml; echo 'framework_options:'; seq 200000 | sed 's/.*/  compute.k&: 1/'; } > "$tmp/options_200k.yaml"
# The costliest tree under the limit: a flow list of 130,000 numbers (yaml-cpp: about 1 us and 500 bytes each).
{ cat workloads/gpt3xl.yaml; printf 'junk: ['; yes 1, | head -n 130000 | tr -d '\n'; echo '1]'; } > "$tmp/list.yaml"
# Platforms SimGrid 3.32 hangs on (a missing route in a Dijkstra zone), aborts on (a host in a None
# zone, a route declared twice, <include>) or routes with a free hop (a missing route inside a node).
sed 's/<zone id="node-1" routing="Full">/<zone id="node-1" routing="Dijkstra">/' platforms/p3_2xlarge_x2.xml \
  | sed 's|<route src="gpu-1" dst="node-1-gw" symmetrical="YES">|<route src="gpu-1" dst="node-1-gw" symmetrical="NO">|' \
  > "$tmp/dijkstra.xml"
sed 's/<zone id="node-0" routing="Full">/<zone id="node-0" routing="None">/' platforms/p3_2xlarge_x2.xml > "$tmp/none_zone.xml"
sed '/<route src="gpu-0" dst="node-0-gw" symmetrical="YES">/a <route src="node-0-gw" dst="gpu-0" symmetrical="NO"><link_ctn id="nic-0" direction="DOWN"/></route>' \
  platforms/p3_2xlarge_x2.xml > "$tmp/twice.xml"
sed 's|<zone id="links" routing="None">|<include file="more.xml"/><zone id="links" routing="None">|' \
  platforms/p3_2xlarge_x2.xml > "$tmp/include.xml"
sed 's|<route src="gpu-1" dst="node-1-gw" symmetrical="YES">|<route src="gpu-1" dst="node-1-gw" symmetrical="NO">|' \
  platforms/p3_2xlarge_x2.xml > "$tmp/no_leg.xml"
# A Floyd zone of 1201 hosts: SimGrid computes its routes in time growing with their cube (minutes).
{ echo '<platform version="4.1"><zone id="flat" routing="Floyd">'; seq 0 1200 | sed 's|.*|<host id="gpu-&" speed="1Gf"/>|'
  echo '</zone></platform>'; } > "$tmp/floyd.xml"

# Refusals must be quick: 2 s, and 5 s at most for any run, times SIMGPT_TEST_SLOWDOWN (1; the
# sanitizer build, scripts/sanitize.sh, runs several times slower).
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}
expect() { # expect STATUS PATTERN ARGS...
  local status="$1" pattern="$2"
  shift 2
  local start=$(date +%s%N)
  timeout $((5 * slowdown)) "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  local lines
  lines=$(wc -l < "$tmp/err")
  if [ "$got" -ne "$status" ] || { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; } || { [ "$status" -ge 2 ] && [ "$lines" -ne 1 ]; } || [ "$(wc -c < "$tmp/err")" -gt 301 ] || { [ "$status" -ge 2 ] && [ "$ms" -gt $((2000 * slowdown)) ]; }; then
    echo "FAIL: simgpt $(echo "$*" | head -c 300) -> status $got (want $status) in $ms ms, stderr:"
    head -c 2000 "$tmp/err"; fail=1
  fi
}

P=platforms/p3_16xlarge.xml
expect 2 "cannot read the workload file" --platform $P --workload "$tmp/missing.yaml"
expect 2 "malformed YAML" --platform $P --workload "$tmp/malformed.yaml"
expect 2 "unknown framework profile 'nosuch'" --platform $P --workload "$tmp/profile.yaml"
expect 2 "parallelism.pp" --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=5
expect 2 "needs 16 GPUs" --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=16 --set model.layers=32
# A plan of fewer GPUs than the platform has runs only when placement.gpus asks for it; a workload
# without dp takes it from the GPUs, and says so.
expect 2 "ok.yaml: parallelism.dp: the plan dp\*tp\*pp = 1\*1\*4 uses 4 of the platform's 8 GPUs; leave parallelism.dp out to derive it from them (dp 2), or set placement.gpus: 4" \
  --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=4
expect 0 "" --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=4 --set placement.gpus=4
# --memory-headroom keeps a share of each GPU's memory free: the usable memory falls by it.
expect 2 "--memory-headroom: expected a percentage from 0 to 50" --platform $P --workload "$tmp/ok.yaml" --memory-headroom 60
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json > "$tmp/plain.json" 2>/dev/null
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json --memory-headroom 10 > "$tmp/headroom.json" 2>/dev/null
python3 - "$tmp/plain.json" "$tmp/headroom.json" <<'PY' || { echo "FAIL: --memory-headroom 10 lowers the usable memory by 10% of the GPU's"; fail=1; }
import json, sys
plain, room = (json.load(open(f))["stages"][0]["memory_gib"] for f in sys.argv[1:3])
sys.exit(0 if abs(plain["usable"] - room["usable"] - 0.1 * plain["capacity"]) < 1e-6 and room["peak"] == plain["peak"] else 1)
PY
sed '/^  dp:/d' workloads/gpt3xl.yaml > "$tmp/no_dp.yaml"
expect 0 "" --platform $P --workload "$tmp/no_dp.yaml" --set parallelism.pp=4
grep -q "dp=2 derived from the 8 GPUs" "$tmp/out" || { echo "FAIL: a workload without dp says dp=2 was derived"; fail=1; }
expect 2 "no_dp.yaml: parallelism.dp: is left out.*8 GPUs are not a multiple of tp\*pp = 1\*3 = 3" \
  --platform $P --workload "$tmp/no_dp.yaml" --set parallelism.pp=3
expect 2 "not divisible" --platform $P --workload "$tmp/ok.yaml" --set training.global_batch=63 --set training.micro_batch=2
expect 2 "unknown key 'speed'" --platform $P --workload "$tmp/ok.yaml" --set network.speed=1
expect 2 "network.delay" --platform $P --workload "$tmp/ok.yaml" --set network.delay=soon
expect 2 "expected KEY=VALUE" --platform $P --workload "$tmp/ok.yaml" --set nonsense
# Conditions: one line naming the key, the flag, or what is out of the job or platform.
expect 2 "conditions.gpu_slowdown: '3:0.5': '0.5' is not a factor" --platform $P --workload "$tmp/ok.yaml" \
  --set conditions.gpu_slowdown=3:0.5
expect 2 "conditions.gpu_slowdown: GPU 99 is not one of the job's" --platform $P --workload "$tmp/ok.yaml" \
  --set conditions.gpu_slowdown=99:1.2
expect 2 "conditions: 'nic-99' is not a link of" --platform $P --workload "$tmp/ok.yaml" --set conditions.link_bandwidth=nic-99:0.5
expect 2 "^simgpt: --draws: .*draws no slow GPUs at random" --platform $P --workload "$tmp/ok.yaml" --draws 4
expect 2 "^simgpt: --draws: 0 is out of range" --platform $P --workload "$tmp/ok.yaml" --draws 0 \
  --set conditions.random_fraction=0.5
expect 2 "^simgpt: --jobs: applies to --draws" --platform $P --workload "$tmp/ok.yaml" --jobs 1
expect 2 "^simgpt: --fidelity: estimate prices" --platform $P --workload "$tmp/ok.yaml" --fidelity estimate \
  --set conditions.gpu_slowdown=1:1.2
expect 2 "^simgpt: --trace: applies to one job" --platform $P --workload "$tmp/ok.yaml" --workload "$tmp/ok.yaml" \
  --trace "$tmp/t.json"
expect 2 "placement.first_gpu: .* is not a GPU of" --platform $P --workload "$tmp/ok.yaml" --set placement.first_gpu=64
expect 2 "does not support bf16" --platform $P --workload "$tmp/ok.yaml" --set training.precision=bf16
expect 2 "model.attention" --platform $P --workload "$tmp/ok.yaml" --set model.attention=flash
# fp8 training needs fp8 tensor cores (compute capability 8.9): the A100s of a DGX A100 have none.
"$simgpt" platform --preset dgx-a100 --nodes 2 -o "$tmp/dgx_a100.xml" > /dev/null
expect 2 "llama3_8b.yaml: training.fp8: hybrid needs fp8 tensor cores and GPU A100-SXM4-80GB has none" \
  --platform "$tmp/dgx_a100.xml" --workload workloads/llama3_8b.yaml --set training.fp8=hybrid
expect 0 "" --platform "$tmp/dgx_a100.xml" --workload workloads/llama3_8b.yaml
expect 2 "training.fp8: 'fp4' is not valid (expected one of: e4m3, hybrid, none)" \
  --platform "$tmp/dgx_a100.xml" --workload workloads/llama3_8b.yaml --set training.fp8=fp4
expect 2 "training.fp8_recipe: applies only with fp8 training" \
  --platform "$tmp/dgx_a100.xml" --workload workloads/llama3_8b.yaml --set training.fp8_recipe=tensorwise
expect 2 "cannot read the platform file" --platform "$tmp/none.xml" --workload "$tmp/ok.yaml"
expect 2 "not a valid SimGrid platform" --platform "$tmp/broken.xml" --workload "$tmp/ok.yaml"
expect 2 "FATPIPE" --platform "$tmp/flow_limit.xml" --workload "$tmp/ok.yaml"
expect 2 "property cpu: unknown cpu 'z80' (expected intel, amd, arm or power)" --platform "$tmp/bad_cpu.xml" --workload "$tmp/ok.yaml"
expect 2 "unknown cpu 'z80'" platform --preset p3.16xlarge --nodes 1 --cpu z80 -o "$tmp/never.xml"
expect 2 "framework_options" --platform $P --workload "$tmp/ok.yaml" --set framework_options.compute.fused=true
{ cat workloads/gpt3xl.yaml; printf 'framework_options:\n  collectives.library: nosuch\n'; } > "$tmp/library.yaml"
expect 2 "collectives.library: 'nosuch' is not a collective library" --platform $P --workload "$tmp/library.yaml"
expect 2 "format" --platform $P --workload "$tmp/ok.yaml" --format yaml
# A run's options over its profile's calibration (which rows fitted it) change nothing: refused, not ignored.
expect 2 "framework_options.calibration.fitted: calibration is how the profile was fitted, not a run's option" \
  --platform $P --workload "$tmp/ok.yaml" --set framework_options.calibration.fitted=p2p.max_rate
# A NUL byte (yaml-cpp read it as an unknown escape or the end of a key), and a file without read
# permission (run as nobody where the test runs as root, which reads any file): each named with why.
{ cat workloads/gpt3xl.yaml; printf 'x\0y\n'; } > "$tmp/nul.yaml"
expect 2 "nul.yaml: contains a NUL byte (line [0-9]*, byte [0-9]*): expected text" --platform $P --workload "$tmp/nul.yaml"
cp workloads/gpt3xl.yaml "$tmp/locked.yaml"
chmod 000 "$tmp/locked.yaml"
if [ "$(id -u)" -ne 0 ]; then
  expect 2 "locked.yaml: cannot read the workload file: permission denied" --platform $P --workload "$tmp/locked.yaml"
elif setpriv --reuid=65534 --regid=65534 --clear-groups "$simgpt" --version > /dev/null 2>&1; then # nobody can run it
  chmod 755 "$tmp"
  printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' "$simgpt" > "$tmp/as_nobody"
  chmod 755 "$tmp/as_nobody"
  real_simgpt="$simgpt"
  simgpt="$tmp/as_nobody"
  expect 2 "locked.yaml: cannot read the workload file: permission denied" --platform $P --workload "$tmp/locked.yaml"
  simgpt="$real_simgpt"
  chmod 700 "$tmp"
fi
# One gradient call per tensor lists a dense layer's tensors: refused for MoE models.
expect 2 "collectives.dp_per_tensor: lists the tensors of dense GPT layers only" \
  --platform "$tmp/dgx_a100.xml" --workload workloads/mixtral_8x7b.yaml --set parallelism.ep=1 --set parallelism.pp=1 \
  --set framework_options.collectives.dp_per_tensor=true
expect 0 "" --platform $P --workload "$tmp/ok.yaml"
expect 2 "missing/trace.json: its directory .* does not exist" --platform $P --workload "$tmp/ok.yaml" --trace "$tmp/missing/trace.json"
expect 2 "is a directory; name the file to write" --platform $P --workload "$tmp/ok.yaml" --trace "$tmp"
expect 0 "" --platform $P --workload "$tmp/ok.yaml" --trace "$tmp/trace.json"
grep -q '"traceEvents"' "$tmp/trace.json" || { echo "FAIL: --trace wrote no trace events"; fail=1; }

# Hostile inputs: overflowing integers, limits, YAML that yaml-cpp accepts silently, files that are
# not files, units past range, values that would break the message's one line.
mkfifo "$tmp/fifo.yaml"
mkdir "$tmp/dir.yaml"
head -c 17000000 /dev/zero | tr '\0' '#' > "$tmp/big.yaml"
sed 's/^  layers: 24$/  layers: 24\n  layers: 12/' workloads/gpt3xl.yaml > "$tmp/dup_key.yaml"
{ cat workloads/gpt3xl.yaml; printf 'model:\n  layers: 3\n'; } > "$tmp/dup_section.yaml"
{ cat workloads/gpt3xl.yaml; printf '? [a, b]\n: 1\n'; } > "$tmp/complex_key.yaml"
printf 'model: 5\ntraining:\n  global_batch: 8\n' > "$tmp/scalar_model.yaml"
{ echo 'a: &a [1,1,1,1,1,1,1,1,1,1]'; p=a
  for i in 1 2 3 4 5 6 7 8 9; do echo "n$i: &n$i [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"; p=n$i; done; } > "$tmp/laughs.yaml"
{ printf 'model: '; head -c 5000 /dev/zero | tr '\0' '['; } > "$tmp/deep.yaml"
sed 's/^  head: classifier$/  head: "a\\nb\\0c"/' workloads/gpt3xl.yaml > "$tmp/control.yaml"
long=$(head -c 100000 /dev/zero | tr '\0' x) # near the kernel's limit for one argument (128 KiB)
W=(--platform $P --workload "$tmp/ok.yaml")
while IFS='|' read -r status pattern args; do
  [ -z "$status" ] && continue
  eval "expect $status \"$pattern\" $args"
done <<'TABLE'
3|parallelism.dp|"${W[@]}" --set parallelism.dp=4294967296
3|parallelism.*65536|"${W[@]}" --set parallelism.dp=65536 --set parallelism.tp=65536
3|parallelism.pp|"${W[@]}" --set parallelism.pp=99999999999999999999
3|training.global_batch.*65536|"${W[@]}" --set training.global_batch=1000000000000
3|model.layers.*1024|"${W[@]}" --set model.layers=1025
3|model.hidden.*131072|"${W[@]}" --set model.hidden=4611686018427387904
3|model.seq_len.*1048576|"${W[@]}" --set model.seq_len=1048577
3|model.vocab.*4194304|"${W[@]}" --set model.vocab=4194305
3|placement.gpus|"${W[@]}" --set placement.gpus=200000
2|training.micro_batch|"${W[@]}" --set training.micro_batch=4611686018427387904 --set parallelism.dp=4 --set parallelism.pp=2
2|training.micro_batch.*64 bits|"${W[@]}" --set training.micro_batch=4294967296 --set training.global_batch=4294967296 --set model.seq_len=1048576 --set model.hidden=131072 --set model.heads=16
2|parallelism.chunks|"${W[@]}" --set parallelism.schedule=interleaved --set parallelism.chunks=9223372036854775807
2|parallelism.partition|"${W[@]}" --set parallelism.partition=9223372036854775807,9223372036854775807,1,1,1,1,1,1
2|model.heads.*64-bit|"${W[@]}" --set model.heads=18446744073709551616
2|model.layers: duplicated key|--platform $P --workload "$tmp/dup_key.yaml"
2|model: duplicated key|--platform $P --workload "$tmp/dup_section.yaml"
2|complex_key.yaml.*plain names|--platform $P --workload "$tmp/complex_key.yaml"
2|scalar_model.yaml: model: is not a mapping|--platform $P --workload "$tmp/scalar_model.yaml" --set model.layers=3
2|fifo.yaml: is not a regular file|--platform $P --workload "$tmp/fifo.yaml"
2|dir.yaml: is a directory|--platform $P --workload "$tmp/dir.yaml"
2|/dev/zero: is not a regular file|--platform $P --workload /dev/zero
3|big.yaml.*256 KiB|--platform $P --workload "$tmp/big.yaml"
2|fifo.yaml: is not a regular file|--platform "$tmp/fifo.yaml" --workload "$tmp/ok.yaml"
2|/dev/zero: is not a regular file|--platform /dev/zero --workload "$tmp/ok.yaml"
2|dir.yaml: is a directory|--platform "$tmp/dir.yaml" --workload "$tmp/ok.yaml"
3|big.yaml.*16 MiB|--platform "$tmp/big.yaml" --workload "$tmp/ok.yaml"
3|laughs.yaml.*YAML nodes|--platform $P --workload "$tmp/laughs.yaml"
2|deep.yaml.*nested too deep|--platform $P --workload "$tmp/deep.yaml"
2|network.delay.*too large|"${W[@]}" --set network.delay=1e300min
2|network.bandwidth.*too large|"${W[@]}" --set network.bandwidth=1e300TBps
2|compute.op_overhead|"${W[@]}" --set framework_options.compute.op_overhead=1e300min
2|model.head: 'a.nb.x00c'|--platform $P --workload "$tmp/control.yaml"
2|zero_bw.xml: link pcie-0.* bandwidth|--platform "$tmp/zero_bw.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|neg_bw.xml: link pcie-0.* bandwidth|--platform "$tmp/neg_bw.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|neg_lat.xml: link pcie-0.* latency|--platform "$tmp/neg_lat.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|no_route.xml: no route from gpu-1 to gpu-0|--platform "$tmp/no_route.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|dijkstra.xml:18: zone 'node-1' routing=.Dijkstra.: simgpt accepts zones routed Full or Floyd|--platform "$tmp/dijkstra.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|none_zone.xml:.*zone 'node-0' is routed None but holds <host> 'gpu-0'|--platform "$tmp/none_zone.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|twice.xml:.*zone 'node-0' declares the route from 'node-0-gw' to 'gpu-0' twice|--platform "$tmp/twice.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|include.xml:.*<include> was removed|--platform "$tmp/include.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
2|no_leg.xml: no route from gpu-0 to gpu-1: zone 'node-1' has no route from 'node-1-gw' to 'gpu-1'|--platform "$tmp/no_leg.xml" --workload "$tmp/ok.yaml" --set parallelism.pp=2
3|floyd.xml:1102: zone 'flat' routed Floyd holds more than 1100 hosts|--platform "$tmp/floyd.xml" --workload "$tmp/ok.yaml"
2|--preset: unknown preset 'p9'.*dgx-a100|platform --preset p9 --nodes 2 -o "$tmp/p.xml"
2|--gpu: is required|platform --nodes 2 -o "$tmp/p.xml"
2|--nodes: is required|platform --preset dgx-a100 -o "$tmp/p.xml"
2|--nodes: '0' is not a positive integer|platform --preset dgx-a100 --nodes 0 -o "$tmp/p.xml"
2|--fabric: unknown fabric 'warp'|platform --preset dgx-a100 --nodes 2 --fabric warp -o "$tmp/p.xml"
2|--topology: unknown topology 'ring'|platform --preset dgx-a100 --nodes 2 --topology ring -o "$tmp/p.xml"
2|--nic-bandwidth: 'fast' is not a bandwidth|platform --preset dgx-a100 --nodes 2 --nic-bandwidth fast -o "$tmp/p.xml"
2|--nics-per-node.*at most one NIC per GPU|platform --preset dgx-a100 --nodes 2 --nics-per-node 9 -o "$tmp/p.xml"
2|--fabric nvlink-cube-mesh: needs 8 GPUs|platform --preset p3.16xlarge --nodes 2 --gpus-per-node 4 -o "$tmp/p.xml"
2|--gpu: unknown GPU 'Z100'|platform --preset dgx-a100 --nodes 2 --gpu Z100 -o "$tmp/p.xml"
2|missing/p.xml: its directory .* does not exist|platform --preset dgx-a100 --nodes 2 -o "$tmp/missing/p.xml"
2|output.*required|platform --preset dgx-a100 --nodes 2
3|--topology: 2048 nodes.*fat-tree|platform --preset p3.2xlarge --nodes 2048 -o "$tmp/p.xml"
3|--nodes.*65536 GPUs|platform --preset dgx-a100 --nodes 9000 -o "$tmp/p.xml"
2|network.bandwidth.*too small|"${W[@]}" --set network.bandwidth=1e-300bps
2|network.bandwidth.*too small|"${W[@]}" --set network.bandwidth=0Gbps
2|network.delay.*at most 1h|"${W[@]}" --set network.delay=3601s
2|network.delay.*has no unit|"${W[@]}" --set network.delay=10
2|network.delay.*at most 1h|"${W[@]}" --set network.delay=61min
2|model.layers: '010' has a leading zero|"${W[@]}" --set model.layers=010
2|model.layers: '0x18' is not an integer|"${W[@]}" --set model.layers=0x18
3|framework_options.*limit of 1000|--platform $P --workload "$tmp/options.yaml"
3|options_200k.yaml: is .* bytes; a workload file may be at most 256 KiB|--platform $P --workload "$tmp/options_200k.yaml"
2|list.yaml: junk: unknown section|--platform $P --workload "$tmp/list.yaml"
2|training.precision: 'x\{80\}\.\.\.'|"${W[@]}" --set "training.precision=$long"
2|unknown key 'x\{80\}\.\.\.'|"${W[@]}" --set "network.$long=1"
TABLE

# The environment is input too: a $SIMGPT_DATA or --data that holds no data files, a $TMPDIR that
# names nothing; and simgpt renamed still runs its own child processes.
env_expect() { # env_expect STATUS PATTERN ENV... -- ARGS...
  local envs=()
  local status="$1" pattern="$2"
  shift 2
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" timeout $((5 * slowdown)) "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  if [ "$got" -ne "$status" ] || ! grep -q -- "$pattern" "$tmp/err" || { [ "$status" -ge 2 ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; }; then
    echo "FAIL: ${envs[*]} simgpt $* -> status $got (want $status), stderr:"; head -c 2000 "$tmp/err"; fail=1
  fi
}
mkdir -p "$tmp/empty"
env_expect 2 "SIMGPT_DATA $tmp/empty: is not a simgpt data folder" SIMGPT_DATA="$tmp/empty" -- --platform $P --workload "$tmp/ok.yaml"
env_expect 2 "SIMGPT_DATA /no/such/dir: is not a simgpt data folder" SIMGPT_DATA=/no/such/dir -- --platform $P --workload "$tmp/ok.yaml"
env_expect 2 "data $tmp/empty: is not a simgpt data folder" SIMGPT_DATA= -- --platform $P --workload "$tmp/ok.yaml" --data "$tmp/empty"
printf 'config,network.delay,status,step_time_s,reason\n0,1ms,ok,1,\n' > "$tmp/sweep.csv"
# (validate's planner comparison writes its scratch workloads there; the row is not simulated.)
env_expect 2 "TMPDIR /no/such/dir: cannot make a scratch directory" TMPDIR=/no/such/dir -- validate --data . --filter seed002-autodist-tensor/350M-1 --jobs 1
cp "$simgpt" "$tmp/simgpt-renamed"
"$tmp/simgpt-renamed" validate --data . --filter notes-p2p-p3-2xlarge/gloo-64mb-default --jobs 1 > "$tmp/out" 2> "$tmp/err" ||
  { echo "FAIL: a renamed simgpt cannot validate: $(head -c 300 "$tmp/err")"; fail=1; }
# A workload file name that is not UTF-8 is written into the JSON report as U+FFFD.
cp "$tmp/ok.yaml" "$tmp/w$(printf '\xff').yaml"
"$simgpt" --platform $P --workload "$tmp/w$(printf '\xff').yaml" --format json > "$tmp/out" 2> "$tmp/err" ||
  { echo "FAIL: a non-UTF-8 workload name with --format json: $(head -c 300 "$tmp/err")"; fail=1; }

# The same inputs give byte-identical JSON.
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json > "$tmp/a.json"
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json > "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "FAIL: JSON differs between identical runs"; fail=1; }
grep -q '"step_time_s"' "$tmp/a.json" || { echo "FAIL: JSON lacks step_time_s"; fail=1; }
exit $fail
