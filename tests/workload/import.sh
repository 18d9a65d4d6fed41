#!/usr/bin/env bash
# simgpt import: Narayanan et al. 2021's GPT-3 175B command line, and BigScience's tr1-13B
# Megatron-DeepSpeed arguments with its DeepSpeed config, import into workloads that simulate to
# the same step as hand-written ones. A JSON report says what it was made from: its resolved
# workload, written to a file, simulates again to the same step, memory and collectives; its
# digests are the files' SHA-256. Bad input: one line, exit 2, no file touched.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

same_step() { # same_step A.json B.json: the same step time, peak memory and collectives
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ["step_time_s", "peak_memory_gib", "collectives", "p2p_transfers", "gpus", "micro_batches"]
diff = [k for k in keys if a[k] != b[k]]
if diff:
    print("differ:", {k: (a[k], b[k]) for k in diff})
sys.exit(1 if diff else 0)
PY
}

# GPT-3 175B on 1,024 A100s as Megatron-LM's command line gives it, launcher included.
"$simgpt" platform --preset dgx-a100 --nodes 128 -o "$tmp/a100.xml" > /dev/null
"$simgpt" import megatron -o "$tmp/175b.yaml" -- torchrun --nproc_per_node 8 --nnodes 128 --node_rank 0 \
  pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --num-layers 96 \
  --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 \
  --micro-batch-size 1 --global-batch-size 1536 --train-iters 500000 --lr 6.0e-5 --lr-decay-style cosine \
  --vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt --tokenizer-type GPT2BPETokenizer \
  --fp16 --checkpoint-activations 2> "$tmp/err"
check "import megatron: exit 0 ($(head -c 300 "$tmp/err"))" [ -s "$tmp/175b.yaml" ]
check "import megatron lists what it left out" grep -q -- "--lr-decay-style cosine" "$tmp/175b.yaml"
"$simgpt" --platform "$tmp/a100.xml" --workload "$tmp/175b.yaml" --format json > "$tmp/175b.json"
"$simgpt" --platform "$tmp/a100.xml" --workload workloads/gpt3_175b.yaml --format json > "$tmp/175b_hand.json"
check "imported 175B simulates as workloads/gpt3_175b.yaml" same_step "$tmp/175b.json" "$tmp/175b_hand.json"

# BigScience tr1-13B (bigscience-workshop/bigscience train/tr1-13B-base/tr1-13B-round1.slurm): its
# launcher, GPT_ARGS, OPTIMIZER_ARGS, DEEPSPEED_ARGS and ds_config.json, 16 nodes of 4 GPUs.
cat > "$tmp/ds_config.json" <<'JSON'
{
  "train_micro_batch_size_per_gpu": 2,
  "gradient_accumulation_steps": 256,
  "gradient_clipping": 1.0,
  "zero_optimization": {
    "stage": 1
  },
  "fp16": {
    "enabled": true,
    "loss_scale": 0,
    "loss_scale_window": 500,
    "hysteresis": 2,
    "min_loss_scale": 1,
    "initial_scale_power": 12
  },
  "steps_per_print": 2000,
  "wall_clock_breakdown": false
}
JSON
cp "$tmp/ds_config.json" "$tmp/ds_config.before"
bigscience=(python -u -m torch.distributed.launch --nproc_per_node 4 --nnodes 16 --master_addr node0
  --master_port 6000 --node_rank 0 /code/Megatron-DeepSpeed/pretrain_gpt.py
  --tensor-model-parallel-size 4 --pipeline-model-parallel-size 8 --num-layers 40 --hidden-size 5120
  --num-attention-heads 32 --ffn_hidden_size 20480 --seq-length 1024 --max-position-embeddings 1024
  --micro-batch-size 2 --rampup-batch-size 32 32 10_000_000 --global-batch-size 2048
  --train-samples 300_000_000 --vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt --loss-scale 12
  --clip-grad 1.0 --fp16 --checkpoint-activations --optimizer adam --adam-beta1 0.9 --adam-beta2 0.95
  --adam-eps 1e-8 --lr 1e-4 --lr-warmup-samples 432_640 --weight-decay 1e-1 --log-interval 1
  --save-interval 10 --eval-interval 100 --eval-iters 10 --data-path oscar-en --data-impl mmap
  --split 949,50,1 --distributed-backend nccl --deepspeed --deepspeed_config ds_config.json
  --zero-stage 1 --deepspeed-activation-checkpointing)
"$simgpt" import deepspeed "$tmp/ds_config.json" -o "$tmp/13b.yaml" -- "${bigscience[@]}" 2> "$tmp/err"
check "import deepspeed: exit 0 ($(head -c 300 "$tmp/err"))" [ -s "$tmp/13b.yaml" ]
check "import deepspeed lists the config keys it left out" grep -q "fp16.loss_scale_window\|gradient_clipping" "$tmp/13b.yaml"
# The same job written by hand: the GPT-2 vocabulary padded to a multiple of 128 x tp 4 = 512.
cat > "$tmp/13b_hand.yaml" <<'YAML'
model: {layers: 40, hidden: 5120, heads: 32, ffn_hidden: 20480, seq_len: 1024, vocab: 50688}
training: {global_batch: 2048, micro_batch: 2, precision: fp16, recompute: full}
parallelism: {dp: 2, tp: 4, pp: 8, zero: 1}
framework: deepspeed
YAML
small=(--set training.global_batch=32)
"$simgpt" --platform platforms/p3_16xlarge_x8.xml --workload "$tmp/13b.yaml" "${small[@]}" --format json > "$tmp/13b.json"
"$simgpt" --platform platforms/p3_16xlarge_x8.xml --workload "$tmp/13b_hand.yaml" "${small[@]}" --format json > "$tmp/13b_hand.json"
check "imported tr1-13B simulates as the hand-written one" same_step "$tmp/13b.json" "$tmp/13b_hand.json"
check "the DeepSpeed config is untouched" cmp -s "$tmp/ds_config.json" "$tmp/ds_config.before"

# A report's resolved workload simulates again to the same step.
job=(--platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --set parallelism.pp=2
     --set parallelism.dp=4 --set network.delay=1ms --format json)
"$simgpt" "${job[@]}" > "$tmp/first.json"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["resolved_workload"], open(sys.argv[2], "w"))' \
  "$tmp/first.json" "$tmp/resolved.yaml"
"$simgpt" --platform platforms/p3_16xlarge.xml --workload "$tmp/resolved.yaml" --format json > "$tmp/again.json"
check "the resolved workload simulates to the same step" same_step "$tmp/first.json" "$tmp/again.json"
check "... and resolves to itself" python3 -c 'import json,sys; a,b=(json.load(open(p))["resolved_workload"] for p in sys.argv[1:]); sys.exit(a!=b)' \
  "$tmp/first.json" "$tmp/again.json"
provenance() { # provenance REPORT: the version, overrides and digests it records, as checked
  python3 - "$1" <<'PY'
import hashlib, json, re, sys
r = json.load(open(sys.argv[1]))
version = re.search(r"project\(simgpt VERSION ([0-9.]+)", open("CMakeLists.txt").read()).group(1)
ok = r["simgpt_version"] == version
ok &= r["overrides"] == ["parallelism.pp=2", "parallelism.dp=4", "network.delay=1ms"]
ok &= sorted(f["role"] for f in r["inputs"]) == ["gpu_catalog", "platform", "profile", "workload"]
for f in r["inputs"]:
    ok &= f["digest"] == "sha256:" + hashlib.sha256(open(f["file"], "rb").read()).hexdigest()
sys.exit(0 if ok else 1)
PY
}
check "the report records simgpt's version, the overrides and its inputs' SHA-256" provenance "$tmp/first.json"

# Bad input.
expect_refusal() { # expect_refusal DESCRIPTION PATTERN ARGS...
  local what="$1" pattern="$2"
  shift 2
  "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  check "$what: exit 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
  check "$what: one line" [ "$(wc -l < "$tmp/err")" -eq 1 ]
  check "$what: says '$pattern'" grep -q -- "$pattern" "$tmp/err"
}
expect_refusal "import megatron with no arguments" "give them after --" import megatron
expect_refusal "import with no GPU count" "give --gpus N" import megatron -- --num-layers 2 --hidden-size 64 \
  --num-attention-heads 2 --seq-length 8 --vocab-size 8
expect_refusal "--gpus 0" "^simgpt: --gpus: expected a whole number from 1 to 131072" import megatron --gpus 0 -- \
  --num-layers 2
expect_refusal "--gpus 1e3" "^simgpt: --gpus: expected a whole number from 1 to 131072" import megatron --gpus 1e3 -- \
  --num-layers 2
printf '{"train_batch_size": 1e400, "train_micro_batch_size_per_gpu": 1}' > "$tmp/huge.json"
expect_refusal "a DeepSpeed config's 1e400" "huge.json: holds a number too large for a double" import deepspeed \
  "$tmp/huge.json" --gpus 8 -- --num-layers 2
printf '{"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 0}' > "$tmp/zero_steps.json"
expect_refusal "gradient_accumulation_steps 0" "zero_steps.json: gradient_accumulation_steps: '0' is not valid (expected a positive" \
  import deepspeed "$tmp/zero_steps.json" --gpus 8 -- --num-layers 2
printf '{"zero_optimization": "stage3"}' > "$tmp/zero_text.json"
expect_refusal "zero_optimization as text" "zero_text.json: zero_optimization: '\"stage3\"' is not valid (expected an object" \
  import deepspeed "$tmp/zero_text.json" --gpus 8 -- --num-layers 2
# The launcher's world size is the job's: --gpus may repeat it, not contradict it (it was taken
# over the launcher's, silently); torchrun's --opt=value and underscore spellings count too.
shape=(--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 --vocab-size 50257
       --micro-batch-size 4 --global-batch-size 512)
expect_refusal "--gpus against the launcher" "^simgpt: --gpus: 8 contradicts the launcher's --nnodes 2 --nproc-per-node 8 (16 GPUs)" \
  import megatron --gpus 8 -- torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py "${shape[@]}"
"$simgpt" import megatron --gpus 16 -- torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py "${shape[@]}" > "$tmp/w.yaml"
check "--gpus that agrees with torchrun --nnodes=2 --nproc_per_node=8: dp 16" grep -q '^  dp: 16$' "$tmp/w.yaml"
expect_refusal "a launcher past 64 bits" "--nnodes 4294967296 --nproc-per-node 4294967296: starts more GPUs than a job may have" \
  import megatron -- torchrun --nnodes 4294967296 --nproc-per-node 4294967296 pretrain_gpt.py "${shape[@]}"
# A check of the workload names the Megatron argument the user wrote, not simgpt's key.
expect_refusal "tp that does not divide heads" "^simgpt: megatron arguments: --tensor-model-parallel-size: tp 3 does not divide heads 16" \
  import megatron --gpus 24 -- pretrain_gpt.py "${shape[@]}" --tensor-model-parallel-size 3
expect_refusal "tp as --tensor_model_parallel_size=3" "^simgpt: megatron arguments: --tensor_model_parallel_size: tp 3" \
  import megatron --gpus 24 -- pretrain_gpt.py "${shape[@]}" --tensor_model_parallel_size=3
expect_refusal "tp 0 (was a division by zero)" "megatron arguments: --tensor-model-parallel-size: 0 is out of range" \
  import megatron --gpus 8 -- pretrain_gpt.py "${shape[@]}" --tensor-model-parallel-size 0
expect_refusal "tp x pp past 64 bits (was a division by zero)" "--pipeline-model-parallel-size: 4294967296 x --tensor-model-parallel-size 4294967296 does not fit" \
  import megatron --gpus 8 -- pretrain_gpt.py "${shape[@]}" --tensor-model-parallel-size 4294967296 --pipeline-model-parallel-size 4294967296
expect_refusal "GPUs that pp does not divide" "^simgpt: megatron arguments: --nnodes 2 --nproc-per-node 8: 16 GPUs are not a multiple of --pipeline-model-parallel-size = 5" \
  import megatron -- torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py "${shape[@]}" --pipeline-model-parallel-size 5
expect_refusal "a global batch micro-batches do not divide" "megatron arguments: --global-batch-size: global_batch 511 is not divisible" \
  import megatron --gpus 8 -- pretrain_gpt.py "${shape[@]:0:12}" --global-batch-size 511
expect_refusal "an fp8 format" "megatron arguments: --fp8-format: 'e5m2' is not valid" \
  import megatron --gpus 8 -- pretrain_gpt.py "${shape[@]}" --fp8-format e5m2
expect_refusal "--bf16 with --fp16" "megatron arguments: --fp16: sets training.precision to fp16 but --bf16 sets it to bf16" \
  import megatron --gpus 8 -- pretrain_gpt.py "${shape[@]}" --bf16 --fp16
"$simgpt" import megatron --gpus 8 -- pretrain_gpt.py --num-layers 2000 --hidden-size 2048 --num-attention-heads 16 \
  --seq-length 2048 --vocab-size 50257 > "$tmp/out" 2> "$tmp/err"
got=$?
check "a layer count past the limit: status 3 ($got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 3 ]
check "... naming --num-layers" grep -q "^simgpt: megatron arguments: --num-layers: 2000 exceeds" "$tmp/err"

# DeepSpeed's batch sizes: the one not given derived as DeepSpeed derives it, all three held to
# train_batch_size = micro-batch x gradient accumulation x data-parallel GPUs; a key given twice
# (JSON keeps the last) refused.
ds_import() { "$simgpt" import deepspeed "$tmp/ds.json" --gpus 8 -- pretrain_gpt.py --num-layers 24 --hidden-size 2048 \
  --num-attention-heads 16 --seq-length 2048 --vocab-size 50257 "$@"; }
echo '{"train_batch_size": 64, "gradient_accumulation_steps": 4}' > "$tmp/ds.json"
ds_import > "$tmp/w.yaml"
check "the micro-batch derived from train_batch_size / (8 GPUs x 4 steps): 2" grep -q '^  micro_batch: 2$' "$tmp/w.yaml"
echo '{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4}' > "$tmp/ds.json"
ds_import > "$tmp/w.yaml"
check "the global batch derived from 2 x 4 steps x 8 GPUs: 64" grep -q '^  global_batch: 64$' "$tmp/w.yaml"
echo '{"train_batch_size": 100, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4}' > "$tmp/ds.json"
expect_refusal "a train_batch_size the others do not make up" \
  "ds.json: train_batch_size: 100 is not train_micro_batch_size_per_gpu 2 x gradient_accumulation_steps 4 x 8 data-parallel GPUs" \
  import deepspeed "$tmp/ds.json" --gpus 8 -- --num-layers 24
expect_refusal "... nor the GPUs it implies without --gpus" "ds.json: train_batch_size: 100 is not a multiple of" \
  import deepspeed "$tmp/ds.json" -- --num-layers 24
echo '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "train_micro_batch_size_per_gpu": 4}' > "$tmp/ds.json"
expect_refusal "a key given twice" "ds.json: train_micro_batch_size_per_gpu: is given twice in one object" \
  import deepspeed "$tmp/ds.json" --gpus 8 -- --num-layers 24
echo '{"zero_optimization": {"stage": 1, "stage": 2}}' > "$tmp/ds.json"
expect_refusal "a nested key given twice" "ds.json: zero_optimization.stage: is given twice" \
  import deepspeed "$tmp/ds.json" --gpus 8 -- --num-layers 24
echo '{"zero_optimization": {"stage": 2}}' > "$tmp/ds.json"
expect_refusal "a ZeRO stage the command line contradicts" "ds.json: zero_optimization.stage: gives 2 but the command line's --zero-stage is 1" \
  import deepspeed "$tmp/ds.json" --gpus 8 -- --num-layers 24 --zero-stage 1
expect_refusal "an argument without its value" "is given without its value" import megatron --gpus 8 -- --num-layers
expect_refusal "a missing DeepSpeed config" "DeepSpeed config" import deepspeed "$tmp/none.json" -- --num-layers 2
echo '{"train_batch_size": "auto"}' > "$tmp/auto.json"
expect_refusal "a config's \"auto\"" "auto" import deepspeed "$tmp/auto.json" --gpus 8 -- --num-layers 2
expect_refusal "-o naming the DeepSpeed config" "also an input" import deepspeed "$tmp/ds_config.json" \
  -o "$tmp/ds_config.json" -- "${bigscience[@]}"
check "the DeepSpeed config is still untouched" cmp -s "$tmp/ds_config.json" "$tmp/ds_config.before"
exit $fail
