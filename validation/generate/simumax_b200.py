#!/usr/bin/env python3
"""Writes validation/tables/simumax-b200.yaml from SimuMax's measured Megatron-LM runs on one DGX B200.

    validation/generate/simumax_b200.py [SOURCE_DIR [OUTPUT]]

SOURCE_DIR defaults to ../shared/measured/simumax-b200 beside this checkout (MooreThreads/SimuMax
4dcaae513ba7679d56c116a17cd4a691ec41e252: docs/b200/b200_release_v1.2_summary.json, the 43 rows of
its formal table; tools/b200/run_params/b200_bf16_ceperm_sweep.json, the sweep's micro-batch and
sequence length; configs/models/*.json, the model shapes, here model_*.json); OUTPUT to the table
in this checkout. One row per case, its id the case name and its `row` its place in the summary's
`rows`. A row keeps the measured iteration time (`real_ms`, in seconds) and, where the row's own
run measured it, the measured peak of allocated memory (`real_alloc_gib`, GiB as torch reports
it), both as printed. SimuMax's own predictions in the same file (`perf_ms`, `perf_alloc_gib`,
...) are not measurements and are not read. The output is deterministic; ctest
(`simumax_b200_table`) checks that the committed table is what this script writes.
"""
import json
import os
import re
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "..", "shared", "measured", "simumax-b200")
OUTPUT = os.path.join(ROOT, "validation", "tables", "simumax-b200.yaml")
SUMMARY = "b200_release_v1.2_summary.json"
SWEEP = "b200_bf16_ceperm_sweep.json"
# The summary's model name -> its shape file (configs/models/<name>.json in the source).
MODEL_FILES = {
    "llama3-70b": "model_llama3-70b.json",
    "llama3-405b": "model_llama3-405b_padding_128.json",
    "deepseekv2": "model_deepseekv2.json",
    "deepseekv3": "model_deepseekv3.json",
}
GPUS = 8  # one node (the launchers' world_size)
# Megatron pads the vocabulary to a multiple of make_vocab_size_divisible_by (128, its default and
# SimuMax's setting for these cases) x tensor-parallel size.
VOCAB_DIVISIBLE_BY = 128
# run_pretrain_deepseekv2.sh's --moe-layer-freq ([0]*1+[1]*(n-1)) for DeepSeek-V2 and V3 alike;
# the summary's notes: "DeepSeekV3 formal rows use dense_layers=1" (its model file says 3).
DEEPSEEK_DENSE_LAYERS = 1
CASE_FIELD = re.compile(r"(?:^|_)(tp|pp|dp|ep|cp|l|mbc|seq)(\d+)(?=_|$)")

HEADER = """\
# Written by validation/generate/simumax_b200.py from ../shared/measured/simumax-b200: do not
# edit; change the script and rerun it.
table: simumax-b200
source:
  seed: shared/measured/simumax-b200/b200_release_v1.2_summary.json
  heading: "MooreThreads/SimuMax 4dcaae513ba7679d56c116a17cd4a691ec41e252, docs/b200/b200_release_v1.2_summary.json: the 43 rows of its formal table (real_ms, real_alloc_gib)"
description: >-
  Megatron-LM step times and peak allocated memory of truncated Llama-3 70B (12 layers) and 405B (4
  layers) and DeepSeek-V2 and V3 (4 layers) on one node of 8 B200, by tensor, pipeline, data, expert
  and context parallelism and micro-batches per step (mbc). What the source states
  (docs/b200/b200_real_repro_guide.md): Megatron-LM 23e00ed0, TransformerEngine 2.11.0, torch 2.10
  (NGC PyTorch 26.01 family), overlap paths off (section 3.3; the launchers disable TP communication
  overlap and ask for no gradient-reduce overlap); memory is the largest
  torch.cuda.max_memory_allocated over all ranks (section 6), compared here with simgpt's peak of
  allocated tensors; the runs' launchers
  (simu_tools/megatron_scripts/scripts/run_pretrain_llama3.sh, run_pretrain_deepseekv2.sh, with
  run_llama3.sh, run_deepseekv2.sh and tools/b200/run_megatron_perf_real_pipeline.py) give bf16,
  micro-batch 1 and sequence 4096 (tools/b200/run_params/b200_bf16_ceperm_sweep.json; the
  context-parallel rows' sequence is in their names), global batch mbc x dp with dp = 8 / (tp x pp x
  cp), --use-distributed-optimizer (zero 1 where dp x cp > 1: Megatron shards over both),
  --sequence-parallel (Megatron drops it at tp 1), --use-flash-attn with TransformerEngine,
  --recompute-granularity full with --recompute-method block and --recompute-num-layers 0 (no layer
  recomputed: recompute none), --no-bias-dropout-fusion (compute.fused_elementwise false), attention
  and hidden dropout 0.0 (compute.dropout false), no linear biases, SwiGLU, RMSNorm, rotary
  positions, untied embeddings, Adam (Megatron's default), --accumulate-allreduce-grads-in-fp32,
  Megatron's default gradient-accumulation fusion, under which TransformerEngine 2.11 caches a
  placeholder weight gradient per distinct linear and grouped-linear weight shape
  (memory.dummy_wgrads dense_and_grouped), Megatron-LM's default --check-for-nan-in-loss-and-grad,
  which takes each gradient bucket's norm before its reduction (optimizer.grad_passes adds nan_check
  to the megatron profile's passes),
  grouped-query attention with 8 groups (70B) or 16 (405B: the launcher's and SimuMax's model
  file's, not Meta's 8), the vocabulary of 128256 padded as Megatron pads it (128 x tp, SimuMax's
  make_vocab_size_divisible_by for these cases), context parallelism with --cp-comm-type a2a (the
  launcher's default; section 7). DeepSeek rows: multi-latent attention (q/kv LoRA ranks 1536/512,
  query-key head 128 plus 64 rotary, value head 128, --qk-layernorm), 160 or 256 experts, top-6 or
  top-8, expert MLP 1536 or 2048, shared expert 3072 or 2048, the first layer dense
  (--moe-layer-freq; the summary's notes: "DeepSeekV3 formal rows use dense_layers=1"), the alltoall
  dispatcher, capacity factor 1 with --moe-pad-expert-input-to-capacity, grouped GEMM, tp 1. The
  case names' "cef": TransformerEngine's fused cross-entropy (compute.te_cross_entropy), which the
  source's docs/strategy.md says the suffix means for its Megatron real runs
  (--cross-entropy-loss-fusion with --cross-entropy-fusion-impl te), though the launchers at this
  commit do not pass the flags (commented out in the DeepSeek one). For the DeepSeek rows the pipeline passes "4096" where run_deepseekv2.sh
  reads its dtype, which would take run_pretrain_deepseekv2.sh's fp8 branch (--fp8-format hybrid);
  the summary's system is "bf16", so bf16 is kept. Assumed: the DGX B200's 180 GB B200 (the dgx-b200
  preset). Step time: the fastest of iterations 2 and 3 on rank 7 (Megatron's "elapsed time per
  iteration", as the source's run_megatron_perf_real_batch.py reads it), ms converted to seconds.
  Peak memory only on the rows whose own run measured it: for the mbc8 and mbc32 rows the summary
  repeats the mbc4 run's memory (its memory_source_case; guide section 6: "if only mbc changes, one
  representative real-memory run may be reused"), and the row's note says so. SimuMax's predictions
  (perf_ms, perf_alloc_gib) in the same file are not used. Rows simgpt cannot simulate yet (expert
  parallelism, multi-latent attention, context parallelism) carry the keys they need; validate
  reports them not simulated, with the reason.
platform: dgx_b200.xml
peak_memory: allocated
workload:
  model: {layers: 12, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, position: rope, bias: false, tie_embeddings: false, seq_len: 4096, vocab: 128256, attention: flash}
  training: {global_batch: 16, micro_batch: 1, precision: bf16, recompute: none, optimizer: adam}
  parallelism: {dp: 4, tp: 1, pp: 2, zero: 1, sequence_parallel: false, schedule: 1f1b}
  framework: megatron
  framework_options: {compute.dropout: false, compute.fused_elementwise: false, compute.te_cross_entropy: true, memory.dummy_wgrads: dense_and_grouped, optimizer.grad_passes: "[zero_buffer, dp_scale, nan_check, clip_norm]"}
rows:
"""


def fail(where, message):
    sys.exit(f"{where}: {message}")


def load_json(path):
    with open(path) as f:
        return json.load(f)


def padded_vocab(vocab, tp):
    multiple = VOCAB_DIVISIBLE_BY * tp
    return (vocab + multiple - 1) // multiple * multiple


def case_fields(where, r):
    """tp, pp, dp, ep, cp, layers, mbc and seq from the case name, checked against the row's fields."""
    name = r["case"]
    found = {}
    for key, value in CASE_FIELD.findall(name):
        if key in found:
            fail(where, f"{name}: {key} given twice")
        found[key] = int(value)
    for key in ("tp", "pp", "dp", "l", "mbc"):
        if key not in found:
            fail(where, f"{name}: no {key} in the case name")
    c = {"tp": found["tp"], "pp": found["pp"], "dp": found["dp"], "ep": found.get("ep", 1),
         "cp": found.get("cp", 1), "layers": found["l"], "mbc": found["mbc"], "seq": found.get("seq")}
    if r["layer_num"] != c["layers"] or r["mbc"] != c["mbc"]:
        fail(where, f"{name}: layer_num {r['layer_num']} / mbc {r['mbc']} differ from the name")
    if r.get("cp_size", 1) != c["cp"]:
        fail(where, f"{name}: cp_size {r.get('cp_size')} differs from the name")
    parallel = f"tp{c['tp']}" + (f"cp{c['cp']}" if c["cp"] > 1 else "") + (f"ep{c['ep']}" if c["ep"] > 1 else "")
    if r["parallel"] != parallel + f"pp{c['pp']}":
        fail(where, f"{name}: parallel {r['parallel']} differs from the name")
    if c["tp"] * c["pp"] * c["dp"] * c["cp"] != GPUS:
        fail(where, f"{name}: tp x pp x dp x cp is not {GPUS}")
    if c["dp"] % c["ep"]:
        fail(where, f"{name}: ep does not divide dp")
    if r["status"] != "ok" or r["vp_size"] != 1 or r["pp_comm_async"]:
        fail(where, f"{name}: not an ok, non-interleaved, synchronous run")
    # What the description says of every row: timed on rank 7, iterations 2 and 3; the memory the
    # largest max-allocated of the 8 ranks (MiB), in GiB to two places.
    if r["timing_rank"] != GPUS - 1 or r["steady_iterations"] != [2, 3]:
        fail(where, f"{name}: not timed on rank {GPUS - 1} over iterations 2 and 3")
    ranks = r["peak_memory_by_rank_mb"]
    if len(ranks) != GPUS or round(max(m["max_allocated_mb"] for m in ranks.values()) / 1024, 2) != r["real_alloc_gib"]:
        fail(where, f"{name}: real_alloc_gib is not the largest max_allocated_mb of the {GPUS} ranks")
    return c


def model_sets(where, shape, model, c, seq):
    sets = [("model.layers", c["layers"]), ("model.hidden", shape["hidden_size"]),
            ("model.heads", shape["head_num"]),
            # Latent attention: as many key/value heads as heads (every head's from the latent).
            ("model.kv_heads", shape["kv_head_num"]),
            ("model.ffn_hidden", shape["intermediate_size"]),
            ("model.vocab", padded_vocab(shape["vocab_size"], c["tp"])), ("model.seq_len", seq)]
    if not shape.get("use_swiglu"):
        fail(where, f"{model}: not a SwiGLU model")
    if shape["model_type"] == "dense":
        if shape["hidden_size"] != shape["head_num"] * shape["head_size"]:
            fail(where, f"{model}: hidden is not heads x head_size")
    elif shape["model_type"] == "moe" and shape.get("attention_type") == "mla":
        sets += [("model.experts", shape["expert_num"]), ("model.top_k", shape["topk"]),
                 ("model.moe_ffn_hidden", shape["moe_ffn_hidden_size"]),
                 ("model.shared_expert_ffn_hidden", shape["moe_shared_expert_intermediate_size"]),
                 ("model.dense_layers", DEEPSEEK_DENSE_LAYERS), ("model.capacity_factor", 1)]
        sets += [("model.latent_attention", "true")]
        sets += [(f"model.{k}", shape[k]) for k in
                 ("q_lora_rank", "kv_lora_rank", "qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim")]
    else:
        fail(where, f"{model}: neither a dense model nor a mixture of experts with multi-latent attention")
    return sets


def row_yaml(index, r, shapes, sweep, where):
    c = case_fields(where, r)
    model = r["model"]
    if model not in MODEL_FILES:
        fail(where, f"{r['case']}: model {model} has no shape file")
    seq = c["seq"] if c["seq"] is not None else sweep["seq"]
    sets = model_sets(where, shapes[model], model, c, seq)
    sets += [("training.global_batch", c["mbc"] * c["dp"]), ("training.micro_batch", sweep["micro_batch"]),
             ("parallelism.tp", c["tp"]), ("parallelism.pp", c["pp"]), ("parallelism.dp", c["dp"])]
    if c["ep"] > 1:
        sets.append(("parallelism.ep", c["ep"]))
    if c["cp"] > 1:
        sets += [("parallelism.cp", c["cp"]), ("parallelism.cp_comm_type", "a2a")]
    # The distributed optimizer shards over the data- and context-parallel ranks together.
    sets += [("parallelism.zero", 1 if c["dp"] * c["cp"] > 1 else 0),
             ("parallelism.sequence_parallel", "true" if c["tp"] > 1 else "false")]

    ms, gib = r["real_ms"], r["real_alloc_gib"]
    measured = [f"step_time_s: {ms / 1000:.9g}"]
    source_case = r.get("memory_source_case", r["case"])
    note = None
    if source_case == r["case"]:
        measured.append(f"peak_mem_gb: {gib!r}")
    else:
        note = (f'"peak memory not compared: the summary gives this row the memory of {source_case} '
                f'(memory_source_case), not its own run\'s"')
    fields = [("id", r["case"]), ("row", f'"rows[{index}]"'),
              ("column", f'"real_ms: {ms!r}, real_alloc_gib: {gib!r}"'),
              ("set", "{" + ", ".join(f"{k}: {v}" for k, v in sets) + "}"),
              ("measured", "{" + ", ".join(measured) + "}"), ("flags", "[]")]
    if note:
        fields.append(("note", note))
    return table_yaml.row(fields)


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    summary_path = os.path.join(source, SUMMARY)
    summary = load_json(summary_path)
    sweep_json = load_json(os.path.join(source, SWEEP))
    if sweep_json["mbs_list"] != [1] or sweep_json["seq_len_list"] != [4096]:
        fail(os.path.join(source, SWEEP), "expected one micro-batch size (1) and one sequence length (4096)")
    sweep = {"micro_batch": sweep_json["mbs_list"][0], "seq": sweep_json["seq_len_list"][0]}
    shapes = {model: load_json(os.path.join(source, f)) for model, f in MODEL_FILES.items()}
    rows = summary["rows"]
    if len(rows) != 43 or len({r["case"] for r in rows}) != len(rows):
        fail(summary_path, f"expected the 43 distinct cases of the formal table, found {len(rows)}")
    text = "".join(row_yaml(i, r, shapes, sweep, f"{summary_path}: rows[{i}]") for i, r in enumerate(rows))
    table_yaml.write_whole(output, HEADER + text)


if __name__ == "__main__":
    main()
