#!/bin/sh
# Writes every platform file of this folder with `simgpt platform` (presets: presets.yaml, GPU
# models: gpus.yaml, both read from this checkout). The output is deterministic: do not edit the
# XML by hand; change the presets or the generator and rerun.
#
#   platforms/regenerate.sh build/simgpt            # rewrites platforms/*.xml
#   platforms/regenerate.sh build/simgpt /tmp/out   # writes them into /tmp/out instead
set -eu
simgpt=${1:?usage: platforms/regenerate.sh SIMGPT [OUTPUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here}
platform() { # FILE PRESET NODES [OPTION ...]
  file=$1 preset=$2 nodes=$3
  shift 3
  "$simgpt" platform --data "$here/.." --preset "$preset" --nodes "$nodes" "$@" -o "$out/$file" > /dev/null
}
platform p3_2xlarge_x2.xml p3.2xlarge 2      # the two-node transfer test
platform p3_2xlarge_x12.xml p3.2xlarge 12    # seed 001 pipeline runs
platform p3_2xlarge_x48.xml p3.2xlarge 48    # seed 001 GPipe + data parallel
platform p3_2xlarge_x64.xml p3.2xlarge 64    # DS3Lab pipelines of 8 with data parallel 8, Megatron on 64 nodes
platform p3_16xlarge.xml p3.16xlarge 1
platform p3_16xlarge_x2.xml p3.16xlarge 2
platform p3_16xlarge_x6.xml p3.16xlarge 6
platform p3_16xlarge_x8.xml p3.16xlarge 8   # DS3Lab Megatron and NeurIPS case 1
platform v100_32gb_x16_nvswitch.xml v100-nvswitch-16 1   # seed 000's server
platform dgx_a100.xml dgx-a100 1             # vTrain's one-node runs
platform nd_a100_v4_x16.xml nd-a100-v4 16     # nccl-tests all-reduce, up to 128 GPUs
platform dgx_b200.xml dgx-b200 1             # SimuMax's one-node B200 Megatron-LM runs
platform dgx_h200.xml dgx-h200 1             # the device's one-GPU GPT training steps (validation/device)
for n in 1 16 32 64; do   # torchtitan's Llama 3.1 runs on 8 to 512 H100 (validation/generate/torchtitan_h100.py)
  platform grand_teton_h100_x$n.yaml grand-teton-h100 $n
done
# Megatron-Bridge's measured pre-training runs on 8 to 1024 GPUs (validation/generate/megatron_bridge.py)
for n in 1 2 8 32 128; do platform dgx_h100_x$n.yaml dgx-h100 $n; done
for n in 1 8 16 32; do platform dgx_b200_x$n.yaml dgx-b200 $n; done
for n in 1 8 32; do platform dgx_b300_x$n.yaml dgx-b300 $n; done
for n in 1 2 4; do platform gb200_nvl72_x$n.yaml gb200-nvl72 $n; platform gb300_nvl72_x$n.yaml gb300-nvl72 $n; done
# Their runs past one rack use 16 trays (64 GPUs) of each NVL72 rack (the launcher's Slurm segment,
# Megatron-Bridge scripts/performance/utils/executors.py): a node of 64 GPUs and 64 NICs.
for n in 2 4; do
  platform gb200_nvl72_64_x$n.yaml gb200-nvl72 $n --gpus-per-node 64 --nics-per-node 64
  platform gb300_nvl72_64_x$n.yaml gb300-nvl72 $n --gpus-per-node 64 --nics-per-node 64
done
