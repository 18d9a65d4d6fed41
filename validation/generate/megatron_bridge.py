#!/usr/bin/env python3
"""Writes validation/tables/megatron-bridge-*.yaml from NVIDIA's Megatron-Bridge performance summaries.

    validation/generate/megatron_bridge.py [SOURCE_DIR [OUTPUT_DIR]]

SOURCE_DIR defaults to ../shared/measured/megatron-bridge beside this checkout (NVIDIA-NeMo/Megatron-Bridge
067f987df: docs/performance-summary.md, the 26.08 container, and docs/performance-summary-archive.md,
26.06.01 back to 25.09; docs/versions1.json maps containers to releases); OUTPUT_DIR to validation/tables
in this checkout. One table per (system, GPU count): one platform each. Every row of every pre-training
table becomes a row (a row printing a second run in parentheses, "37556 (36108)", two rows); SFT and LoRA
tables are skipped. A row's `row` names the file, the container, the heading and the row's index in its
table; its `column` quotes the measured cells as printed. Measured: the step time, global batch x
sequence length / (tokens/s/GPU x GPUs), as the source's README says. Model TFLOP/s/GPU is the
framework's formula applied to that throughput, not a measurement: it is quoted, not compared.

Settings a row's cells do not print come from Megatron-Bridge at the release's tag (RELEASES, RECIPES,
PRESETS below, each citing tag:path); rows simgpt cannot express carry `flags: [not_reproducible]` and
the reason. The output is deterministic; ctest (`megatron_bridge_tables`) checks that the committed
tables are what this script writes.
"""
import csv
import math
import os
import re
import sys

import table_yaml
from megatron_bridge_moe_presets import deepseek_v3_layout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "..", "shared", "measured", "megatron-bridge")
OUTPUT = os.path.join(ROOT, "validation", "tables")
FILES = ["performance-summary.md", "performance-summary-archive.md"]
REPO = "NVIDIA-NeMo/Megatron-Bridge"

# Container -> Megatron-Bridge release tag (docs/versions1.json; 25.09's 0.1.0 has no tag: its last
# release candidate, v0.1.0rc4 of 2025-10-23, is the code of that container's configs).
RELEASES = {
    "26.08": "v0.6.0", "26.06.01": "v0.5.1", "26.06": "v0.5.0", "26.04.01": "v0.4.2", "26.04": "v0.4.0",
    "26.02.01": "v0.3.1", "26.02": "v0.3.0", "25.11": "v0.2.0", "25.09": "v0.1.0rc4",
}

# System -> (platforms/presets.yaml preset, GPUs per simgpt node). The GB200 and GB300 NVL72 presets
# are one rack of 72 GPUs on one NVLink domain; a job of fewer GPUs than the racks hold places its
# GPUs on the first ones (placement.gpus).
SYSTEMS = {
    "DGX-H100": ("dgx-h100", 8), "DGX-B200": ("dgx-b200", 8), "DGX-B300": ("dgx-b300", 8),
    "DGX-GB200": ("gb200-nvl72", 72), "DGX-GB300": ("gb300-nvl72", 72),
}
GPUS_PER_TRAY = 4  # a GB200 / GB300 compute tray: 2 superchips, 4 GPUs (Slurm's node)

# The Megatron FSDP runs' presets, read at the rows' tags. The GB200 and GB300 ones offload
# activations to the CPU (cpu_offloading_num_layers: training.cpu_offload_layers; the performance
# scripts' overrides set cpu_offloading with cpu_offloading_weights false, scripts/performance/
# utils/overrides.py).
FSDP_OFFLOAD = {
    ("DGX-GB200", "llama3_70b"): (40, "v0.1.0rc4 scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml "
                                      "gb200 fp8_cs; LLAMA3_70B_GB200_FP8_CS_BASE_CONFIG (v0.2.0), "
                                      "LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V1/V2 (v0.3.0 to v0.4.2)"),
    ("DGX-GB300", "llama3_70b"): (20, "LLAMA3_70B_GB300_FP8_CS_BASE_CONFIG (v0.2.0), "
                                      "LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_CS_V1/V2 (v0.3.0 to v0.4.2)"),
    ("DGX-GB200", "llama31_405b"): (95, "v0.1.0rc4 scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml "
                                        "gb200 fp8_cs"),
}
# Megatron FSDP runs whose preset shards as printed and offloads nothing: ZeRO-3 (the performance
# scripts set data_parallel_sharding_strategy optim_grads_params with use_megatron_fsdp:
# v0.1.0rc4 scripts/performance/utils/helpers.py).
FSDP_PRESETS = {
    ("DGX-H100", "25.09", "llama3_8b"): "v0.1.0rc4 scripts/performance/configs/llama3/llama3_8b_llm_pretrain.yaml "
                                         "h100 fp8_cs: use_megatron_fsdp, keep_fp8_transpose_cache_when_using_custom_fsdp",
}
FSDP_UNRESOLVED = {
    ("DGX-H100", "25.11", "llama3_8b"): "v0.2.0 LLAMA3_8B_H100_FP8_CS_BASE_CONFIG sets no use_megatron_fsdp, and "
                                         "recompute_num_layers 5: which ran is not resolved",
}


def nvlink_domain(system, gpus):
    """GPUs the run used on each NVLink domain. On NVL72 racks Megatron-Bridge's launcher asks Slurm
    for a block of `segment` compute trays per rack (scripts/performance/utils/executors.py, at
    v0.1.0rc4 to v0.6.0: with more than 18 trays, the largest divisor of the trays up to 18): 256
    GPUs are 64 trays in 4 racks of 16 trays (64 GPUs) each, not the first 256 of 4 x 72."""
    per_node = SYSTEMS[system][1]
    if per_node != 72 or gpus <= per_node:
        return per_node
    trays = gpus // GPUS_PER_TRAY
    segment = next(s for s in range(18, 0, -1) if trays % s == 0)
    return segment * GPUS_PER_TRAY


def platform_of(system, gpus):
    """The platform file of a table (platforms/regenerate.sh writes them) and its GPUs per node."""
    preset, per_node = SYSTEMS[system]
    domain = nvlink_domain(system, gpus)
    nodes = math.ceil(gpus / domain)
    name = preset.replace('-', '_') + (f"_{domain}" if domain != per_node else "")
    return f"{name}_x{nodes}.yaml", domain


# Model shapes (Megatron-Bridge's model providers), for the models simgpt can express. Vocabulary
# 128256 (the performance drivers' cfg.tokenizer.vocab_size, configs/llama/llama3_llm_pretrain.py)
# padded by Megatron to a multiple of 128 x tp (make_vocab_size_divisible_by 128).
SHAPES = {
    "llama3_8b": {"cite": "src/megatron/bridge/models/llama/llama_provider.py: Llama3ModelProvider8B",
                  "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "vocab": 128256},
    "llama3_70b": {"cite": "src/megatron/bridge/models/llama/llama_provider.py: Llama3ModelProvider70B",
                   "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672, "vocab": 128256},
    "llama31_405b": {"cite": "src/megatron/bridge/models/llama/llama_provider.py: Llama31ModelProvider405B",
                     "layers": 126, "hidden": 16384, "heads": 128, "kv_heads": 8, "ffn_hidden": 53248,
                     "vocab": 128256},
    # DeepSeek-V3 (src/megatron/bridge/models/deepseek/deepseek_provider.py: DeepSeekV3ModelProvider):
    # 61 layers, the first 3 dense (moe_layer_freq), MLA (q_lora_rank 1536, kv_lora_rank 512, qk head
    # 128 + 64 rotary, v head 128), 256 experts top-8 of 2048, one shared expert of 2048, vocab 129280.
    "deepseek_v3": {"cite": "src/megatron/bridge/models/deepseek/deepseek_provider.py: DeepSeekV3ModelProvider",
                    "layers": 61, "hidden": 7168, "heads": 128, "ffn_hidden": 18432, "vocab": 129280,
                    "dense_layers": 3, "experts": 256, "top_k": 8, "moe_ffn_hidden": 2048,
                    "shared_expert_ffn_hidden": 2048, "q_lora_rank": 1536, "kv_lora_rank": 512,
                    "qk_head_dim": 128, "qk_pos_emb_head_dim": 64, "v_head_dim": 128},
    # Qwen3 MoE (src/megatron/bridge/models/qwen/qwen_provider.py: Qwen3MoEModelProvider and its sizes):
    # 128-wide heads (kv_channels 128) apart from hidden / heads, 4 key-value heads, qk_layernorm, RMSNorm,
    # SwiGLU, no biases, untied embeddings, every layer's MLP 128 experts top-8, no shared expert, vocab 151936.
    "qwen3_30b_a3b": {"cite": "src/megatron/bridge/models/qwen/qwen_provider.py: Qwen3MoEModelProvider30B_A3B",
                      "layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4, "head_dim": 128,
                      "qk_layernorm": "true", "ffn_hidden": 6144, "vocab": 151936, "dense_layers": 0,
                      "experts": 128, "top_k": 8, "moe_ffn_hidden": 768, "shared_expert_ffn_hidden": 0},
    "qwen3_235b_a22b": {"cite": "src/megatron/bridge/models/qwen/qwen_provider.py: Qwen3MoEModelProvider235B_A22B",
                        "layers": 94, "hidden": 4096, "heads": 64, "kv_heads": 4, "head_dim": 128,
                        "qk_layernorm": "true", "ffn_hidden": 12288, "vocab": 151936, "dense_layers": 0,
                        "experts": 128, "top_k": 8, "moe_ffn_hidden": 1536, "shared_expert_ffn_hidden": 0},
    # GPT-OSS 120B (v0.2.0:src/megatron/bridge/models/gpt_oss/gpt_oss_provider.py: GPTOSSProvider120B;
    # from v0.3.1 src/megatron/bridge/models/gpt_oss/gpt_oss_bridge.py over openai/gpt-oss-120b's
    # config): 36 layers, all MoE, hidden 2880, 64 heads of kv_channels 64 and 8 query groups, 128
    # experts top-4 of 2880, no shared expert, add_bias_linear (QKV, projection, experts, router),
    # RMSNorm, quick_gelu gated unit (glu_linear_offset 1) clamped at 7 (activation_func_clamp_value),
    # YaRN rotary positions, window_size (128, 0) to v0.3.1 and (127, 0) from v0.4.0 (HF's
    # sliding_window - 1) on layers window_attn_skip_freq 2 leaves windowed, softmax_type learnable
    # (sinks), untied embeddings, vocab 201088 (not padded: the perf runs' NullTokenizer keeps the
    # model's vocab_size, v0.4.0:src/megatron/bridge/training/setup.py).
    "gpt_oss_120b": {"cite": "src/megatron/bridge/models/gpt_oss/gpt_oss_provider.py: GPTOSSProvider120B",
                     "layers": 36, "hidden": 2880, "heads": 64, "kv_heads": 8, "head_dim": 64, "ffn_hidden": 2880,
                     "vocab": 201088, "dense_layers": 0, "experts": 128, "top_k": 4, "moe_ffn_hidden": 2880,
                     "shared_expert_ffn_hidden": 0, "mlp": "quick_geglu", "activation_clamp": 7,
                     "position": "yarn", "bias": "true", "full_attention_every": 2, "attention_sinks": "true"},
    # Nemotron 3 Nano 30B-A3B (NemotronH: Megatron-Core's hybrid stack; v0.3.1:src/megatron/bridge/models/
    # nemotronh/nemotron_h_provider.py: Nemotron3NanoProvider, the same shape written out in
    # src/megatron/bridge/recipes/nemotronh/nemotron_3_nano.py from v0.4.0 and recipes/nemotronh/h100/
    # nemotron_3_nano.py at v0.6.0): 52 layers of hybrid_layer_pattern (23 Mamba-2, 6 attention, 23 MoE),
    # hidden 2688, 32 heads of kv_channels 128 in 2 query groups, Mamba-2 64 heads of 64 with state 128 in 8
    # groups, 128 experts top-6 of 1856 and a shared expert of 3712, squared ReLU (not gated), RMSNorm, no
    # biases, no position embedding, untied embeddings; vocabulary 131072 (the recipe's tokenizer
    # nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: the provider sets none; its config's vocab_size, v0.6.0
    # tests/unit_tests/models/nemotronh/test_nemotron_h_bridge.py). first_last_layers_bf16 is the provider's,
    # but the perf runs' precision config overwrites it with its own False (training/mixed_precision.py:
    # update_config_with_precision_overrides).
    "nemotron_3_nano": {"cite": "src/megatron/bridge/recipes/nemotronh/nemotron_3_nano.py: nemotron_3_nano_pretrain_config",
                        "hybrid_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
                        "layers": 52, "hidden": 2688, "heads": 32, "kv_heads": 2, "head_dim": 128, "ffn_hidden": 1856,
                        "vocab": 131072, "mlp": "squared_relu", "position": "none",
                        "mamba_heads": 64, "mamba_head_dim": 64, "mamba_state": 128, "mamba_groups": 8,
                        "dense_layers": 0, "experts": 128, "top_k": 6, "moe_ffn_hidden": 1856,
                        "shared_expert_ffn_hidden": 3712},
    # Nemotron 3 Super 120B-A12B: its recipe builds the model from the Hugging Face config of
    # nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16 (AutoBridge; src/megatron/bridge/recipes/nemotronh/
    # nemotron_3_super.py, v0.4.0 to v0.5.1; recipes/nemotronh/h100/nemotron_3_super.py at v0.6.0), whose
    # dimensions Megatron-LM's examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.sh
    # writes out: 88 layers (40 Mamba-2, 8 attention, 40 latent MoE), hidden 4096, 32 heads of 128 in 2
    # query groups, Mamba-2 128 heads of 64 (state 128 and 8 groups: Megatron-Core's defaults), 512 experts
    # top-22 of 2688 on a latent width of 1024 (moe_latent_size), a shared expert of 5376, squared ReLU, no
    # position embedding, untied embeddings, vocabulary 131072; multi-token prediction mtp_num_layers 2 with
    # mtp_use_repeated_layer (the recipe), each depth an attention and a MoE layer (mtp_hybrid_override_pattern
    # *E, v0.6.0 tests/unit_tests/recipes/nemotronh/test_nemotron_3_super.py). Checked: these give
    # 123,611,033,088 parameters with one MTP layer's weights, the count v0.6.0
    # examples/model_verification_cards/nemotron-3-super-120b-a12b/card.yaml gives the checkpoint.
    "nemotron_3_super": {"cite": "src/megatron/bridge/recipes/nemotronh/nemotron_3_super.py: nemotron_3_super_pretrain_config",
                         "hybrid_pattern": ("MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*"
                                            "EMEMEMEM*EMEMEMEME"),
                         "layers": 88, "hidden": 4096, "heads": 32, "kv_heads": 2, "head_dim": 128, "ffn_hidden": 2688,
                         "vocab": 131072, "mlp": "squared_relu", "position": "none",
                         "mamba_heads": 128, "mamba_head_dim": 64, "mamba_state": 128, "mamba_groups": 8,
                         "dense_layers": 0, "experts": 512, "top_k": 22, "moe_ffn_hidden": 2688,
                         "shared_expert_ffn_hidden": 5376, "moe_latent": 1024, "mtp_layers": 2},
}
for _key in ("nemotron_3_nano", "nemotron_3_super"):
    if len(SHAPES[_key]["hybrid_pattern"]) != SHAPES[_key]["layers"]:
        sys.exit(f"{_key}: hybrid_pattern is not layers long")

# A heading's model name -> the SHAPES key, or the reason simgpt cannot express it (with its source).
MODELS = {
    "LLAMA3_8B": "llama3_8b", "LLAMA3_70B": "llama3_70b", "LLAMA3.1_405B": "llama31_405b",
    "DeepSeekV3": "deepseek_v3",
    "GPT OSS 120B": "gpt_oss_120b",
    "Qwen3_30B_a3B": "qwen3_30b_a3b", "Qwen3_235B_a22B": "qwen3_235b_a22b",
    "Kimi_K2": ("Kimi K2: the Muon optimizer (the table's note: \\\"Muon optimizer was used\\\"; "
                "training.optimizer has adam, sgd and sgd_momentum only)"),
    "Nemotron_3_Nano": "nemotron_3_nano", "Nemotron_3_Super": "nemotron_3_super",
    "Nemotron_3_Ultra": ("Nemotron 3 Ultra: Megatron FSDP as HSDP (optim_grads_params within each NVLink domain of 64 "
                         "GPUs, num_distributed_optimizer_instances across them, bf16 main gradients) with fine-grained "
                         "activation offloading of the expert MLP to the CPU (offload_modules fused_group_mlp) and the "
                         "TransformerEngine op fuser's fused grouped MLP (v0.6.0:src/megatron/bridge/perf_recipes/"
                         "nemotronh/<gpu>/nemotronh.py: nemotron_3_ultra_pretrain_256gpu_<gpu>_fp8mx_config, "
                         "common.py: _apply_nemotron_3_ultra_fsdp_hsdp), which simgpt does not model"),
    "Nemotron_3_5_Lightning": ("Nemotron 3.5 Lightning (v0.6.0:src/megatron/bridge/perf_recipes/nemotronh/gb200/"
                               "nemotronh.py: nemotron_3_5_lightning_pretrain_8gpu_gb200_fp8mx_config): Nemotron 3 "
                               "Nano's GB200 MXFP8 run (its shape, parallelism and batch) with multi-token prediction "
                               "added (mtp_num_layers 2 of one repeated *E layer, mtp_use_repeated_layer, "
                               "keep_mtp_spec_in_bf16) and the vocabulary of its own tokenizer "
                               "(nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16 at a pinned revision, not read): "
                               "kept out until that vocabulary is resolved"),
    "DeepSeekV4 Flash": ("DeepSeek-V4 Flash (src/megatron/bridge/models/deepseek/deepseek_v4_bridge.py at v0.6.0): "
                         "an architecture none of simgpt's model keys describe"),
}

# What the recipe and the performance driver set for every row of a model family (checked at v0.3.0
# and, for the presets, at every tag from v0.2.0 to v0.5.1; the row's own tag is cited in its note).
RECIPES = {
    "llama": [
        # src/megatron/bridge/recipes/llama/llama3.py (_llama3_common): DistributedDataParallelConfig
        "use_distributed_optimizer true, overlap_grad_reduce true, overlap_param_gather true "
        "(src/megatron/bridge/recipes/llama/llama3.py: _llama3_common)",
        # llama3_70b_pretrain_config / llama31_405b_pretrain_config: CommOverlapConfig(tp_comm_overlap=True)
        "tp_comm_overlap true with tp > 1 (src/megatron/bridge/recipes/llama/llama3.py: "
        "llama3_70b_pretrain_config, llama31_405b_pretrain_config; configs/llama/llama3_llm_pretrain.py sets "
        "the userbuffers config)",
        "grad_reduce_in_fp32 false, vocab 128256, seq 8192 (scripts/performance/configs/llama/llama3_llm_pretrain.py: "
        "set_llama3_common_configs)",
        "cross_entropy_fusion_impl te, apply_rope_fusion true (scripts/performance/utils/overrides.py: "
        "_set_common_perf_overrides)",
    ],
    "deepseek_v3": [
        "recompute_granularity selective, moe_router_force_load_balancing true, grad_reduce_in_fp32 false, "
        "seq 4096 (scripts/performance/configs/deepseek/deepseek_llm_pretrain.py: set_deepseek_v3_common_configs)",
        "overlap_grad_reduce true; overlap_param_gather false under fp8_mx "
        "(scripts/performance/configs/deepseek/deepseek_llm_pretrain.py: deepseek_v3_gb300_config, "
        "deepseek_v3_gb200_config)",
    ],
}

# The workload base config a runnable row's run used beyond its printed parallelism, by (model,
# system, precision, release): tag:path and what it sets that simgpt does not model. Presets read from
# scripts/performance/configs/<family>/*workload_base_configs.py at the tag (V2 variants: the
# printed global batch), v0.1.0rc4's YAML perf_matrix for 25.09.
PRESETS = {
    ("llama3_8b", "B200", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama3/llama3_8b_llm_pretrain.yaml", []),
    ("llama3_8b", "GB200", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama3/llama3_8b_llm_pretrain.yaml", []),
    ("llama3_70b", "GB200", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml", []),
    ("llama3_8b", "H100", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama3/llama3_8b_llm_pretrain.yaml",
                                     ["keep_fp8_transpose_cache_when_using_custom_fsdp (the gathered weights' "
                                      "transposes kept: memory not counted)", "nccl_ub"]),
    ("llama3_70b", "H100", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml", []),
    ("llama31_405b", "*", "25.09"): ("v0.1.0rc4:scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml", []),
    ("llama3_8b", "*", "25.11"): ("v0.2.0:scripts/performance/configs/llama3/workload_base_configs.py", []),
    ("llama3_70b", "*", "25.11"): ("v0.2.0:scripts/performance/configs/llama3/workload_base_configs.py", []),
    ("llama31_405b", "*", "25.11"): ("v0.2.0:scripts/performance/configs/llama31/workload_base_configs.py", []),
    ("deepseek_v3", "GB300", "25.11"): (
        "v0.2.0:scripts/performance/configs/deepseek/workload_base_configs.py: DEEPSEEK_V3_GB300_BASE_CONFIG",
        ["moe_flex_dispatcher_backend hybridep", "recompute_modules [moe_act]", "the preset's pp 4, vp 4, ep 64, "
         "gbs 2048 differ from the printed row's"]),
    ("deepseek_v3", "GB200", "25.11"): (
        "v0.2.0:scripts/performance/configs/deepseek/workload_base_configs.py: DEEPSEEK_V3_GB200_BASE_CONFIG",
        ["moe_flex_dispatcher_backend hybridep", "recompute_modules [mla_up_proj]", "the preset's pp 4, vp 4, "
         "ep 64, gbs 2048 differ from the printed row's where they differ"]),
}
for _release, _tag in RELEASES.items():
    if _release in ("25.09", "25.11", "26.08"):
        continue
    PRESETS[("llama3_70b", "*", _release)] = (
        f"{_tag}:scripts/performance/configs/llama/llama3_workload_base_configs.py", [])
    PRESETS[("llama31_405b", "*", _release)] = (
        f"{_tag}:scripts/performance/configs/llama/llama31_workload_base_configs.py", [])

# Qwen3's presets: the YAML perf matrix (25.09), workload_base_configs.py (25.11 to 26.06.01), the
# per-GPU perf recipes (26.08). Every one sets expert_tensor_parallel_size 1; what else a preset sets
# beyond the printed parallelism, its MoE dispatcher (the flex dispatcher's backend, moe_a2a_overlap) and
# CUDA graphs (megatron_bridge_moe_presets.csv) is not modelled.
QWEN3_UNMODELLED = ["what the preset sets beyond the printed parallelism, its MoE dispatcher and CUDA graphs"]
for _release, _tag in RELEASES.items():
    for _shape, _size in (("qwen3_30b_a3b", "30b_a3b"), ("qwen3_235b_a22b", "235b_a22b")):
        if _release == "25.09":
            _path = f"scripts/performance/configs/qwen3/qwen3_{_size}_llm_pretrain.yaml"
        elif _release == "25.11":
            _path = "scripts/performance/configs/qwen3/workload_base_configs.py"
        elif _release == "26.08":
            _path = "src/megatron/bridge/perf_recipes/qwen/<gpu>/qwen3_moe.py"
        else:
            _path = "scripts/performance/configs/qwen/qwen3_workload_base_configs.py"
        PRESETS[(_shape, "*", _release)] = (f"{_tag}:{_path}", QWEN3_UNMODELLED)

# GPT-OSS's window (keys a query sees): window_size (128, 0), 129 keys, in the provider to v0.3.1;
# (sliding_window - 1, 0), 128 keys, from v0.4.0 (gpt_oss_bridge.py).
GPT_OSS_WINDOW = {"v0.2.0": 129, "v0.3.0": 129, "v0.3.1": 129}

# GPT-OSS's presets by (release, GPU): the file, selective recompute's modules where they take
# effect (recompute_granularity selective: from v0.3.0; v0.2.0's helper set the modules only), and
# what else the preset sets that simgpt does not model (its CUDA graphs: megatron_bridge_moe_presets.csv).
# scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py (v0.3.0 to v0.5.1;
# workload_base_configs.py at v0.2.0), the per-GPU src/megatron/bridge/perf_recipes/gpt_oss/<gpu>/gpt_oss.py
# at v0.6.0.
GPT_OSS_FULL = ("the full-iteration CUDA graph's moe_expert_rank_capacity_factor 1.5 (expert inputs padded "
                "to 1.5x), the TransformerEngine op "
                "fuser's grouped MLP, fp8 dot-product attention")
GPT_OSS_PRESETS = {}
for _release, _tag in RELEASES.items():
    if _release in ("25.09",):
        continue
    if _tag == "v0.2.0":
        _path = "scripts/performance/configs/gpt_oss/workload_base_configs.py"
    elif _tag == "v0.6.0":
        _path = "src/megatron/bridge/perf_recipes/gpt_oss/<gpu>/gpt_oss.py"
    else:
        _path = "scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py"
    _selective = _tag != "v0.2.0"
    for _gpu in ("H100", "B200", "GB200", "B300", "GB300"):
        _modules, _unmodelled = None, []
        if _gpu in ("H100", "B200", "GB200") and _selective:
            _modules = "layernorm,moe_act"
        PRESETS[("gpt_oss_120b", _gpu, _release)] = (f"{_tag}:{_path.replace('<gpu>', _gpu.lower())}",
                                                     _unmodelled)
        GPT_OSS_PRESETS[(_gpu, _release, "bf16")] = _modules
    # The MXFP8 presets (v0.5.0 on, GB300 and GB200): a full-iteration CUDA graph and what comes with it
    # (v0.5.1:scripts/performance/configs/gpt_oss/gpt_oss_llm_pretrain.py, set_full_iter_cg_configs);
    # GB200's recompute_modules [] (selective of nothing).
    for _gpu in ("GB200", "GB300"):
        GPT_OSS_PRESETS[(_gpu, _release, "mxfp8")] = None
        if _tag in ("v0.5.0", "v0.5.1", "v0.6.0"):
            PRESETS[("gpt_oss_120b", _gpu + "-mxfp8", _release)] = (
                f"{_tag}:{_path.replace('<gpu>', _gpu.lower())}", [GPT_OSS_FULL])

# DeepSeek-V3's presets from 26.02 (v0.3.0 to v0.5.1: scripts/performance/configs/deepseek/
# deepseek_workload_base_configs.py; v0.6.0: the per-GPU perf recipes): the recompute modules they set,
# which simgpt does not model (their pipeline layouts: preset_layout; dispatcher and CUDA graphs:
# megatron_bridge_moe_presets.csv).
DEEPSEEK_UNMODELLED = ["the preset's recompute_modules (mla_up_proj, mlp, moe_act or layernorm)"]
# What comes with a DeepSeek-V3 preset's full-iteration CUDA graph (v0.5.0 and v0.5.1:
# scripts/performance/configs/deepseek/deepseek_llm_pretrain.py, set_full_iter_cg_configs; v0.6.0:
# src/megatron/bridge/perf_recipes/deepseek/common.py, _enable_deepseek_full_iteration_mxfp8).
DEEPSEEK_FULL = ("the full-iteration CUDA graph's moe_expert_rank_capacity_factor 1.5 (expert inputs padded to "
                 "1.5x) and paged stash (moe_paged_stash)")
for _release, _tag in RELEASES.items():
    _path = ("src/megatron/bridge/perf_recipes/deepseek/<gpu>/deepseek_v3.py" if _tag == "v0.6.0"
             else "scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml" if _tag == "v0.1.0rc4"
             else "scripts/performance/configs/deepseek/workload_base_configs.py" if _tag == "v0.2.0"
             else "scripts/performance/configs/deepseek/deepseek_workload_base_configs.py")
    for _gpu in ("H100", "B200", "GB200", "B300", "GB300"):
        PRESETS.setdefault(("deepseek_v3", _gpu, _release), (f"{_tag}:{_path.replace('<gpu>', _gpu.lower())}",
                                                             DEEPSEEK_UNMODELLED))

# Nemotron 3's presets (Nano from v0.3.1, Super from v0.4.0): the WorkloadBaseConfig of
# scripts/performance/configs/nemotronh/nemotron_3_nano_workload_base_configs.py (v0.3.1) and
# nemotron_3_workload_base_configs.py (v0.4.0 to v0.5.1, the same presets at each of those tags), the per-GPU
# perf recipes src/megatron/bridge/perf_recipes/nemotronh/<gpu>/nemotronh.py at v0.6.0 (read for GB300 and
# GB200, the GPUs its rows ran; they set what the earlier presets do). Every one: expert_tensor_parallel_size
# 1, the flex dispatcher's hybridep backend, no moe_a2a_overlap; the drivers (nemotron_3_llm_pretrain.py,
# v0.6.0 common.py) force balanced routing and keep gradients in bf16.
NEMOTRON_GRAPH_SCOPE = ["attn", "mamba", "moe_router", "moe_preprocess"]
NEMOTRON_RECIPE_TOKENS = {"BF16": "bf16", "FP8_CS": "fp8cs", "FP8_MX": "fp8mx", "NVFP4": "nvfp4"}


def nemotron_preset(shape_key, gpu, token, tag):
    """The preset of a Nemotron 3 row: {config, path, num_gpus, tp, ep, global_batch, micro_batch,
    recompute (the recompute_modules list or None), graphs (cuda_graph_scope, None: no CUDA graphs)}."""
    super_ = shape_key == "nemotron_3_super"
    name = "SUPER" if super_ else "NANO"
    if tag == "v0.6.0":
        if gpu not in ("GB300", "GB200"):
            fail(tag, f"{shape_key} {gpu}: the v0.6.0 perf recipe not read")
        path = f"src/megatron/bridge/perf_recipes/nemotronh/{gpu.lower()}/nemotronh.py"
        config = (f"nemotron_3_{name.lower()}_pretrain_{64 if super_ else 8}gpu_{gpu.lower()}_"
                  f"{NEMOTRON_RECIPE_TOKENS[token]}_config")
    elif tag == "v0.3.1" and not super_:
        path = "scripts/performance/configs/nemotronh/nemotron_3_nano_workload_base_configs.py"
        config = f"NEMOTRON_3_NANO_PRETRAIN_CONFIG_{gpu}_{token}_V1"
    elif tag in ("v0.4.0", "v0.4.2", "v0.5.0", "v0.5.1"):
        path = "scripts/performance/configs/nemotronh/nemotron_3_workload_base_configs.py"
        config = f"NEMOTRON_3_{name}_PRETRAIN_CONFIG_{gpu}_{token}_V1"
    else:
        fail(tag, f"{shape_key}: no preset recorded at this tag")
    if not super_:
        preset = {"num_gpus": 8, "tp": 1, "ep": 8, "global_batch": 512,
                  "micro_batch": 4 if gpu in ("GB300", "B300") else 2, "recompute": None, "graphs": NEMOTRON_GRAPH_SCOPE}
        if gpu == "H100":  # _NEMOTRON_3_NANO_PRETRAIN_CONFIG_H100 and its BF16 / FP8_CS variants
            preset.update(num_gpus=16, global_batch=1024, micro_batch=1)
            preset.update({"BF16": {"recompute": ["moe", "layernorm"], "graphs": ["attn", "mamba"]},
                           "FP8_CS": {"recompute": ["moe", "layernorm", "core_attn", "moe_act"],
                                      "graphs": ["mamba"]}}[token])
    else:
        preset = {"num_gpus": 64, "tp": 1, "ep": 64, "global_batch": 512, "micro_batch": 1, "recompute": None,
                  "graphs": NEMOTRON_GRAPH_SCOPE}
        if gpu == "GB200":  # BASE_NEMOTRON_3_SUPER_CONFIG_GB200
            preset["tp"] = 2
        elif gpu == "B300":  # BASE_NEMOTRON_3_SUPER_CONFIG_B300 and its BF16 variant (NVFP4's the same)
            preset["ep"] = 8
            if token in ("BF16", "NVFP4"):
                preset["recompute"] = ["moe_act", "layernorm"]
        elif gpu == "B200":  # BASE_NEMOTRON_3_SUPER_CONFIG_B200 and its variants
            preset.update(graphs=None, recompute=["moe_act", "layernorm"])
            if token == "BF16":
                preset["recompute"] = ["moe_act", "moe", "layernorm", "core_attn"]
            elif token == "NVFP4":
                preset.update(tp=2, graphs=["mamba", "attn", "moe_router", "moe_preprocess"], recompute=None)
        elif gpu != "GB300":
            fail(tag, f"{shape_key} {gpu}: no preset recorded")
    preset.update(config=config, path=path)
    return preset


# Nemotron 3 Super's NVFP4 runs: where the drivers give them more than NVFP4 (first_last_layers_bf16 with
# num_layers_at_end_in_bf16 14: set by the driver at v0.4.0, nemotron_3_super_bf16_with_nvfp4_mixed of
# src/megatron/bridge/training/mixed_precision.py from v0.4.2; the quantization recipe te_quant.cfg beside
# the driver: linear_qkv, linear_proj, *mlp.fc[12]_latent_proj and mtp.* in bf16, *mixer.out_proj in MXFP8).
NEMOTRON_SUPER_NVFP4 = {
    "v0.4.0": "scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py, te_quant.cfg",
    "v0.4.2": "scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py, te_quant.cfg",
    "v0.5.0": "scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py, te_quant.cfg",
    "v0.5.1": "scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py, te_quant.cfg",
    "v0.6.0": "src/megatron/bridge/perf_recipes/nemotronh/common.py, te_quant.cfg",
}
# Where Nemotron 3 Super's recipe sets its multi-token prediction (v0.6.0's perf recipes start from the
# 16-GPU H100 one).
NEMOTRON_SUPER_RECIPE = {"v0.6.0": "src/megatron/bridge/recipes/nemotronh/h100/nemotron_3_super.py: "
                                   "nemotron_3_super_pretrain_16gpu_h100_bf16_config"}
# The MoE presets' dispatcher backend, moe_a2a_overlap and CUDA graphs from v0.2.0 to v0.6.0
# (megatron_bridge_moe_presets.py writes the file from the repository's workload base configs).
MOE_PRESETS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "megatron_bridge_moe_presets.csv")
MOE_FAMILIES = {"deepseek_v3": "DEEPSEEK_V3", "qwen3_235b_a22b": "QWEN3_235B_A22B", "qwen3_30b_a3b": "QWEN3_30B_A3B",
                "gpt_oss_120b": "GPT_OSS_120B"}
PRECISION_TOKENS = {None: "BF16", "tensorwise": "FP8_CS", "mxfp8": "FP8_MX", "nvfp4": "NVFP4"}


def load_moe_presets():
    with open(MOE_PRESETS_FILE) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


MOE_PRESETS = load_moe_presets()


def flex_backend_applies(backend, gpu, tag):
    """Whether Megatron-Bridge's apply_flex_dispatcher_backend sets the flex dispatcher on this GPU
    (src/megatron/bridge/training/flex_dispatcher_backend.py): deepep on compute capability 8 or 9
    or a GPU named NVIDIA B200 / B300, not GB200 or GB300; hybridep on GB200 and GB300 only at
    v0.2.0, on capability 8 to 10 from v0.3.0. Otherwise it logs and skips: the providers' alltoall."""
    if backend == "deepep":
        return gpu in ("H100", "B200", "B300")
    if backend == "hybridep":
        return gpu in ("GB200", "GB300") if tag == "v0.2.0" else True
    return False


def matching_presets(shape_key, gpu, recipe, tag, run_shape):
    """(the presets of the row's family, GPU, precision and tag; those of them whose GPUs,
    parallelism and batch are the printed ones, the global batch and VP dropped from the match if
    none has them)."""
    family = MOE_FAMILIES.get(shape_key)
    token = PRECISION_TOKENS.get(recipe)
    rows = [r for r in MOE_PRESETS if r["tag"] == tag and r["config"].startswith(family + "_")
            and f"_{gpu}_" in r["config"] and f"_{token}_" in r["config"] + "_"] if family and token else []
    keys = ["num_gpus", "tp", "pp", "ep", "global_batch", "micro_batch", "vp"]
    matched = []
    for used in (keys, keys[:6], keys[:5], keys[:4]):
        matched = [r for r in rows if all(int(r[k]) == run_shape[k] for k in used)]
        if matched:
            break
    return rows, matched


def moe_preset(shape_key, gpu, recipe, tag, run_shape):
    """(dispatcher, a2a_overlap, config) of the row's preset, or (None, None, why) where the presets
    file does not say (matching_presets)."""
    family, token = MOE_FAMILIES.get(shape_key), PRECISION_TOKENS.get(recipe)
    rows, matched = matching_presets(shape_key, gpu, recipe, tag, run_shape)
    if not rows:
        return None, None, f"no {family} {gpu} {token} preset at {tag} in the presets file"
    if not matched:
        return None, None, f"no {family} {gpu} {token} preset at {tag} with the printed parallelism"
    settings = {(r["backend"], r["a2a_overlap"]) for r in matched}
    if len(settings) > 1:
        return None, None, ("the printed parallelism matches presets that differ in the dispatcher: "
                            + ", ".join(sorted(r["config"] for r in matched)))
    backend, overlap = settings.pop()
    dispatcher = backend if flex_backend_applies(backend, gpu, tag) else "alltoall"
    return dispatcher, overlap == "True", matched[0]["config"]


def preset_layout(shape_key, gpu, recipe, tag, run_shape):
    """(pipeline layout, config) of the row's preset (megatron_bridge_moe_presets.csv's pp_layout,
    the layout the preset names or the recipe's map gives it), or (None, None) where no preset
    matches or the matching ones differ."""
    _, matched = matching_presets(shape_key, gpu, recipe, tag, run_shape)
    layouts = {r["pp_layout"] for r in matched}
    if len(layouts) != 1:
        return None, None
    return layouts.pop(), matched[0]["config"]


# framework_options.compute.cuda_graphs of a run's Megatron-Core cuda_graph_impl and scope
# (megatron/core/transformer/transformer_config.py at the releases' pins): impl none, no graphs (the key
# left out); full_iteration, or local with full_iteration in the scope (cuda_graph_modules from
# Megatron-Core 0.18), one graph of every micro-batch's forward and backward ("iteration"); local or
# transformer_engine with no scope or "full", each transformer layer captured whole ("layers"); otherwise
# the scoped modules in Megatron's order (its TransformerEngine scopes), a YAML flow sequence in a string.
GRAPH_SCOPES = ["attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"]


def cuda_graphs(impl, scope, source):
    """(framework_options.compute.cuda_graphs as the set writes it, None for no graphs; the note) of
    cuda_graph_impl IMPL with the scope list SCOPE, set by SOURCE."""
    scope = [s for s in scope if s != "full"]
    setting = f"cuda_graph_impl {impl}" + (f", cuda_graph_scope {' '.join(scope)}" if scope and impl != "none"
                                           else "")
    if impl == "none":
        value = None
    elif impl == "full_iteration" or (impl == "local" and "full_iteration" in scope):
        value = "iteration"
    elif impl not in ("local", "transformer_engine") or any(s not in GRAPH_SCOPES for s in scope):
        fail("CUDA graphs", f"{setting} ({source}): no framework_options.compute.cuda_graphs for it")
    elif not scope:
        value = "layers"
    else:
        value = "[" + ", ".join(s for s in GRAPH_SCOPES if s in scope) + "]"
    note = f"CUDA graphs {value or 'none'} ({setting}; {source})"
    return (f'"{value}"' if value and value.startswith("[") else value), note


def moe_graphs(shape_key, gpu, recipe, tag, run_shape):
    """(cuda_graph_impl, scope list, the source) of the row's preset in megatron_bridge_moe_presets.csv
    (matching_presets); where none has the printed parallelism, those of the row's family, GPU, precision
    and tag if they all run the same graphs; else (None, None, why)."""
    family, token = MOE_FAMILIES.get(shape_key), PRECISION_TOKENS.get(recipe)
    rows, matched = matching_presets(shape_key, gpu, recipe, tag, run_shape)
    if not rows:
        return None, None, f"no {family} {gpu} {token} preset at {tag} in the presets file"
    settings = {(r["cuda_graph_impl"], r["cuda_graph_scope"]) for r in matched or rows}
    if len(settings) > 1:
        return None, None, ("the printed parallelism matches presets that differ in their CUDA graphs: "
                            if matched else f"no {family} {gpu} {token} preset at {tag} has the printed "
                            "parallelism, and those that do not differ in their CUDA graphs: ") + \
            ", ".join(sorted(r["config"] for r in matched or rows))
    impl, scope = settings.pop()
    source = (matched[0]["config"] if matched else
              f"every {family} {gpu} {token} preset at {tag}, none with the printed parallelism: "
              + ", ".join(sorted(r["config"] for r in rows)))
    return impl, scope.split(), source + "; megatron_bridge_moe_presets.csv"


# v0.1.0rc4's YAML presets (25.09): perf_matrix.<gpu>.num_gpus_<n> (common, then the precision's) sets
# cuda_graphs, which scripts/performance/utils/helpers.py's set_cuda_graph_overrides writes to
# enable_cuda_graph: Megatron-Core 0.14's local graphs of each layer whole. The (GPU, precision) pairs
# whose cuda_graphs is true; every other pair the rows ran is false.
V01_GRAPHS = {
    "llama3_8b": ("scripts/performance/configs/llama3/llama3_8b_llm_pretrain.yaml",
                  {("B200", "fp8_cs"), ("B200", "fp8_mx"), ("GB200", "fp8_mx")}),
    "llama3_70b": ("scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml", set()),
    "llama31_405b": ("scripts/performance/configs/llama31/llama31_405b_llm_pretrain.yaml", set()),
    "deepseek_v3": ("scripts/performance/configs/deepseek/deepseek_v3_llm_pretrain.yaml", set()),
    "qwen3_30b_a3b": ("scripts/performance/configs/qwen3/qwen3_30b_a3b_llm_pretrain.yaml",
                      {("B200", "fp8_cs"), ("B200", "fp8_mx"), ("GB200", "fp8_cs"), ("GB200", "fp8_mx")}),
    "qwen3_235b_a22b": ("scripts/performance/configs/qwen3/qwen3_235b_a22b_llm_pretrain.yaml",
                        {("GB200", "fp8_cs"), ("GB200", "fp8_mx")}),
}
V01_PRECISIONS = {"tensorwise": "fp8_cs", "mxfp8": "fp8_mx"}

# The Llama presets' CUDA graphs from v0.2.0: the preset's cuda_graph_impl / cuda_graph_scope where set,
# else the recipe's (none set to v0.3.0, impl none from v0.3.1: src/megatron/bridge/recipes/llama/llama3.py;
# Megatron-Core's default none). The rows ran <MODEL>_<GPU>_<PRECISION>_BASE_CONFIG at v0.2.0
# (scripts/performance/configs/llama3/ and llama31/workload_base_configs.py) and the V2 variant (the printed
# global batch) of <MODEL>_PRETRAIN_CONFIG_<GPU>_<PRECISION> from v0.3.0 (configs/llama/llama3_ and
# llama31_workload_base_configs.py). Read at each tag, every one of them runs none (GB200 and GB300 NVFP4
# V2 of Llama 3 70B and 3.1 405B set impl none with scope full_iteration to v0.4.2: no graph) but Llama 3
# 8B's at v0.2.0 on B200, GB200 and GB300: local with scope full_iteration (on GB300 the only presets, of
# micro batch 4 where the rows print 2).
LLAMA_FAMILIES = {"llama3_8b": "LLAMA3_8B", "llama3_70b": "LLAMA3_70B", "llama31_405b": "LLAMA31_405B"}
LLAMA_GRAPHS = {("llama3_8b", "v0.2.0", _gpu, _token): ("local", ["full_iteration"])
                for _gpu in ("B200", "GB200", "GB300") for _token in ("FP8_CS", "FP8_MX")}


def llama_graphs(shape_key, gpu, token, tag):
    """(cuda_graph_impl, scope list, config) of a Llama row's preset from v0.2.0."""
    family = LLAMA_FAMILIES[shape_key]
    if tag == "v0.2.0":
        config = f"{family}_{gpu}_{token}_BASE_CONFIG"
    elif tag in ("v0.3.0", "v0.3.1", "v0.4.0", "v0.4.2", "v0.5.0", "v0.5.1"):
        config = f"{family}_PRETRAIN_CONFIG_{gpu}_{token}_V2"
    else:
        fail(tag, f"{shape_key}: no CUDA graph settings recorded at this tag")
    impl, scope = LLAMA_GRAPHS.get((shape_key, tag, gpu, token), ("none", []))
    return impl, scope, config


def deepseek_partition(gpu, recipe, tag, run_shape, layers):
    """(decoder layers per virtual stage, layout, where it is from) of a DeepSeek-V3 run: its preset's
    layout (named, or the recipe's map's), else the recipe's own for the printed (pp, vp)
    (deepseek_v3_layout); None where neither gives one of pp x VP stages holding every layer."""
    layout, source = preset_layout("deepseek_v3", gpu, recipe, tag, run_shape)
    if layout is None:
        layout = deepseek_v3_layout(tag, gpu == "H100", run_shape["pp"], run_shape["vp"])
        source = "the recipe's map_pp_vp_to_layout / layout_map"
    stages = layout_stages(layout) if layout else []
    if len(stages) != run_shape["pp"] * run_shape["vp"] or sum(stages) != layers:
        return None
    return stages, layout, source


def layout_stages(layout):
    """Decoder layers per virtual pipeline stage of a Megatron-Core layout string
    (pipeline_model_parallel_layout: E embedding, t decoder layer, m MTP, L loss, | between stages,
    X*n and (...)*n repeated; megatron/core/transformer/pipeline_parallel_layer_layout.py)."""
    text = layout
    group = re.compile(r"\(([^()]*)\)\*(\d+)")
    while group.search(text):
        text = group.sub(lambda g: g.group(1) * int(g.group(2)), text)
    text = re.sub(r"([EtmL])\*(\d+)", lambda g: g.group(1) * int(g.group(2)), text)
    return [stage.count("t") for stage in text.split("|")]


VOCAB_DIVISIBLE_BY = 128
# Where DeepSeek-V3's recipe sets mtp_num_layers 1 (v0.6.0 moved the recipes into per-GPU folders).
DEEPSEEK_RECIPE = {"v0.6.0": "src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py"}


def fail(where, message):
    sys.exit(f"{where}: {message}")


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# The pages' footnotes by marker ([^name]: text), read by main before the rows.
FOOTNOTES = {}


def read_footnotes(path):
    """{marker: text} of a summary file's footnote definitions, markdown links reduced to their text."""
    notes = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\[\^([^\]]+)\]:\s*(.*)", line.rstrip("\n"))
            if m:
                notes[m.group(1)] = re.sub(r"\[([^\]]*)\]\(([^)]*)\)", r"\1 (\2)", m.group(2)).strip()
    return notes


def parse(path, name):
    """[(container, task, heading, row index, {header: cell})] of every table of one summary file."""
    rows, container, task, heading, header, index = [], None, None, None, None, 0
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"## (\S+) NeMo Container", line)
            if m:
                container, task, heading, header = m.group(1), None, None, None
                continue
            m = re.match(r"### (.*) Performance", line)
            if m:
                task, heading, header = m.group(1), None, None
                continue
            m = re.match(r"#### (Model|System): (.*)", line)
            if m:
                heading, header, index = (m.group(1), m.group(2).strip()), None, 0
                continue
            if not line.startswith("|") or heading is None:
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                fail(f"{name}: {container} {heading[1]}", f"row of {len(cells)} cells under {len(header)} headers")
            index += 1
            rows.append((container, task, heading, index, dict(zip(header, cells))))
    return rows


def variants(cells):
    """One run per figure in the tokens/s cell: the printed cells, then those in parentheses."""
    tokens = cells["Tokens / sec / GPU"]
    count = 2 if "(" in tokens else 1
    out = []
    for v in range(count):
        run = {}
        for key, cell in cells.items():
            m = None if key == "Model" else re.match(r"^(.*?)\s*\((.*)\)\s*$", cell)
            run[key] = (m.group(2) if v == 1 else m.group(1)).strip() if m else cell
        out.append(run)
    return out


def number(cell):
    cell = re.sub(r"\[\^.*\]$", "", cell)
    return int(cell)


def degree(run, key):
    cell = run.get(key, "1")
    return 1 if cell in ("n/a", "") else number(cell)


def precision_of(run, system, container, variant):
    """(printed precision, simgpt's fp8 recipe or None for bf16, or a refusal reason)."""
    printed = run.get("Precision")
    if printed is None:  # 25.09 prints none: its footnote gives the parenthesised runs' granularity
        printed = "FP8-MX" if variant == 1 else "FP8-CS"
        assumed = (" (25.09 prints no precision: the parenthesised figures are its footnote's MXFP8 32x32 "
                   "scaling on GB200 and B200; the others taken as the FP8 current scaling the 25.11 table "
                   "prints for the same runs)")
    else:
        assumed = ""
    if printed == "BF16":
        return printed, None, None, assumed
    if printed in ("FP8", "FP8-CS"):
        return printed, "tensorwise", None, assumed
    if printed in ("MXFP8", "FP8-MX"):
        if system == "DGX-H100":
            return printed, None, ("FP8 with 128x128 / 1x128 block scaling on H100: training.fp8_recipe "
                                   "blockwise is refused"), assumed
        return printed, "mxfp8", None, assumed
    if printed == "NVFP4":
        # src/megatron/bridge/training/mixed_precision.py: bf16_with_nvfp4_mixed (fp4 e2m1, fp4_recipe
        # nvfp4): TransformerEngine's NVFP4BlockScaling, simgpt's fp8_recipe nvfp4.
        return printed, "nvfp4", None, assumed
    fail(container, f"unknown precision {printed!r}")


def model_key(name):
    base = re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()
    if base not in MODELS:
        fail(name, "model not in MODELS")
    return base, MODELS[base]


def row_fields(name, container, heading, index, variant, run, system, gpus):
    tag = RELEASES[container]
    model_name = heading[1] if heading[0] == "Model" else run["Model"]
    base, shape_key = model_key(model_name)
    gbs, mbs, seq = number(run["GBS"]), number(run["MBS"]), number(run["Sequence Length"])
    tp, pp, cp, ep = degree(run, "TP"), degree(run, "PP"), degree(run, "CP"), degree(run, "EP")
    vp = degree(run, "VP")
    fsdp = degree(run, "FSDP") if "FSDP" in run else 0
    tokens = number(run["Tokens / sec / GPU"])
    step = gbs * seq / (tokens * gpus)
    printed, recipe, refusal, assumed = precision_of(run, system, container, variant)
    reasons, notes = [], []
    if refusal:
        reasons.append(refusal)
    # A run the page itself footnotes as a performance regression measures the bug, not the stack.
    for marker in re.findall(r"\[\^([^\]]+)\]", " ".join(run.values())):
        if "regression" in FOOTNOTES.get(marker, "").lower():
            reasons.append(f"the page footnotes this run as a known performance regression: "
                           f"{FOOTNOTES[marker]}")
    if not isinstance(shape_key, str):
        pass
    elif isinstance(MODELS[base], str) and MODELS[base] not in SHAPES:
        reasons.append(MODELS[base])
    mtp = False
    if shape_key == "deepseek_v3":
        if "w/o MTP" in model_name:
            notes.append("without multi-token prediction (the heading's \\\"w/o MTP\\\")")
        else:
            mtp = True
            notes.append(
                f"multi-token prediction: mtp_num_layers 1 "
                f"({tag}:{DEEPSEEK_RECIPE.get(tag, 'src/megatron/bridge/recipes/deepseek/deepseek_v3.py')}, the recipe's default"
                + (", the heading's \\\"w/ MTP\\\"" if "w/ MTP" in model_name else "") +
                "), its module on the last pipeline stage")
    # The MoE presets set expert_tensor_parallel_size 1 (DeepSeek-V3's, Qwen3's and Nemotron 3's):
    # with tp > 1 the experts run whole (parallelism.etp 1).
    etp_one = False
    if shape_key == "deepseek_v3" and tp > 1:
        etp_one = True
        notes.append("expert_tensor_parallel_size 1 (the presets'): experts whole beside tp")
    if isinstance(shape_key, str) and shape_key.startswith("qwen3") and tp > 1:
        etp_one = True
        notes.append("expert_tensor_parallel_size 1 (the Qwen3 presets'): experts whole beside tp")
    nemotron = None
    if isinstance(shape_key, str) and shape_key.startswith("nemotron_3"):
        nemotron = nemotron_preset(shape_key, system.replace("DGX-", ""), PRECISION_TOKENS[recipe], tag)
        if shape_key == "nemotron_3_super" and recipe == "nvfp4":
            reasons.append(f"Nemotron 3 Super's NVFP4 recipe is mixed: the last 14 layers in bf16 "
                           f"(first_last_layers_bf16, num_layers_at_end_in_bf16 14), linear_qkv, linear_proj, the "
                           f"latent projections and the MTP layers in bf16 and the Mamba out_proj in MXFP8 "
                           f"({tag}:{NEMOTRON_SUPER_NVFP4[tag]}), which training.fp8_recipe cannot express")
        if tp > 1:
            etp_one = True
            notes.append("expert_tensor_parallel_size 1 (the Nemotron 3 presets'): experts whole beside tp")
    dp = gpus // (tp * pp * cp)
    if dp * tp * pp * cp != gpus:
        fail(f"{name}: {container} {heading[1]} row {index}", "tp x pp x cp does not divide the GPUs")
    if ep > 1 and gpus % (pp * ep) != 0:
        # megatron/core/parallel_state.py (initialize_model_parallel): the expert ranks are
        # expert_tensor x expert x expert_data x pipeline, so pp x ep x etp must divide the world.
        reasons.append(f"the printed parallelism cannot run: PP {pp} x EP {ep} does not divide the {gpus} GPUs "
                       f"(Megatron-Core's expert groups, parallel_state.initialize_model_parallel)")
    fsdp_runs = False
    if fsdp:
        offload = FSDP_OFFLOAD.get((system, shape_key))
        if offload:
            fsdp_runs = True
            notes.append(f"Megatron FSDP ({fsdp}) as ZeRO-3 with the activations of {offload[0]} layers offloaded to "
                         f"the CPU (cpu_offloading_num_layers {offload[0]}: {offload[1]})")
        elif (system, container, shape_key) in FSDP_PRESETS:
            fsdp_runs = True
            notes.append(f"Megatron FSDP ({fsdp}) as ZeRO-3 ({FSDP_PRESETS[(system, container, shape_key)]})")
        else:
            reasons.append(f"the printed Megatron FSDP ({fsdp}) is not in the release's preset "
                           f"({FSDP_UNRESOLVED.get((system, container, shape_key), 'not read')})")
    shape = SHAPES.get(shape_key) if isinstance(shape_key, str) else None
    sets = [("training.global_batch", gbs), ("training.micro_batch", mbs), ("model.seq_len", seq)]
    if shape is not None and not reasons:
        padded = (shape["vocab"] + VOCAB_DIVISIBLE_BY * tp - 1) // (VOCAB_DIVISIBLE_BY * tp) * (VOCAB_DIVISIBLE_BY * tp)
        sets += [("model.layers", shape["layers"]), ("model.hidden", shape["hidden"]),
                 ("model.heads", shape["heads"]), ("model.ffn_hidden", shape["ffn_hidden"]),
                 ("model.vocab", padded)]
        # The table's workload is Llama's (kv_heads 8): a model without grouped queries (latent
        # attention's every head its own keys and values) sets as many as its heads.
        sets.append(("model.kv_heads", shape.get("kv_heads", shape["heads"])))
        sets += [(f"model.{k}", shape[k]) for k in ("head_dim", "qk_layernorm", "mlp", "activation_clamp",
                                                    "position", "bias") if k in shape]
        if shape_key == "gpt_oss_120b":
            sets += [("model.window", GPT_OSS_WINDOW.get(tag, 128)),
                     ("model.full_attention_every", shape["full_attention_every"]),
                     ("model.attention_sinks", shape["attention_sinks"])]
        if "experts" in shape:
            sets += [(f"model.{k}", shape[k]) for k in ("dense_layers", "experts", "top_k", "moe_ffn_hidden",
                                                        "shared_expert_ffn_hidden")]
            if "tokendrop" in model_name:
                # The heading's "tokendrop": scripts/performance/run_script.py (v0.1.0rc4) calls
                # apply_moe_token_drop with its defaults (src/megatron/bridge/training/utils/
                # moe_token_drop.py): capacity factor 1.0, each expert's input padded to capacity.
                sets.append(("model.capacity_factor", 1.0))
                notes.append("token dropping (the heading's \\\"tokendrop\\\"): capacity factor 1.0, padded to capacity "
                             "(v0.1.0rc4:src/megatron/bridge/training/utils/moe_token_drop.py, apply_moe_token_drop's "
                             "defaults, as scripts/performance/run_script.py calls it)")
        if "hybrid_pattern" in shape:
            sets.append(("model.hybrid_pattern", f'"{shape["hybrid_pattern"]}"'))
            sets += [(f"model.{k}", shape[k]) for k in ("mamba_heads", "mamba_head_dim", "mamba_state",
                                                        "mamba_groups", "moe_latent") if k in shape]
        if "q_lora_rank" in shape:
            sets.append(("model.latent_attention", "true"))
            sets += [(f"model.{k}", shape[k]) for k in ("q_lora_rank", "kv_lora_rank", "qk_head_dim",
                                                        "qk_pos_emb_head_dim", "v_head_dim")]
        if mtp:
            sets.append(("model.mtp_layers", 1))
        elif shape.get("mtp_layers"):
            sets.append(("model.mtp_layers", shape["mtp_layers"]))
            # mtp_use_repeated_layer: one layer's weights, run at each depth.
            sets.append(("model.mtp_shared_layer", "true"))
            recipe_path = NEMOTRON_SUPER_RECIPE.get(tag, "src/megatron/bridge/recipes/nemotronh/nemotron_3_super.py: "
                                                         "nemotron_3_super_pretrain_config")
            notes.append(f"multi-token prediction: mtp_num_layers {shape['mtp_layers']}, each depth one attention "
                         f"and one MoE layer (mtp_hybrid_override_pattern *E; {tag}:{recipe_path}), the depths "
                         f"sharing one layer (mtp_use_repeated_layer)")
        sets += [("parallelism.dp", dp), ("parallelism.tp", tp), ("parallelism.pp", pp)]
        if cp > 1:
            sets += [("parallelism.cp", cp), ("parallelism.cp_comm_type", "p2p")]
        if ep > 1:
            sets.append(("parallelism.ep", ep))
            if etp_one:
                sets.append(("parallelism.etp", 1))
        if pp > 1 and vp > 1:
            sets += [("parallelism.schedule", "interleaved"), ("parallelism.chunks", vp)]
        else:
            sets.append(("parallelism.schedule", "1f1b"))
        gpu = system.replace("DGX-", "")
        run_shape = {"num_gpus": gpus, "tp": tp, "pp": pp, "ep": ep, "global_batch": gbs, "micro_batch": mbs,
                     "vp": vp if vp > 1 else 1}
        # DeepSeek-V3's runs split their pipeline by a layout: the embedding in the first stage, the
        # MTP layer and the loss in the last (simgpt's place for them).
        layout = (deepseek_partition(gpu, recipe, tag, run_shape, shape["layers"])
                  if shape_key == "deepseek_v3" and pp > 1 else None)
        if layout:
            sets.append(("parallelism.partition", '"' + ",".join(map(str, layout[0])) + '"'))
        elif pp > 1:
            stages = pp * (vp if vp > 1 else 1)
            if shape_key in ("llama31_405b", "qwen3_235b_a22b") and (shape["layers"] + 2) % stages == 0:
                # account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split
                # (llama31_405b_pretrain_config; src/megatron/bridge/recipes/qwen/qwen3_moe.py:
                # qwen3_235b_a22b_pretrain_config): the embedding and the loss count as a layer each.
                per, extra = divmod(shape["layers"] + 2, stages)
                sizes = [per] * stages
                sizes[0] -= 1
                sizes[-1] -= 1
                sets.append(("parallelism.partition", '"' + ",".join(map(str, sizes)) + '"'))
                notes.append("the embedding and the loss counted as a layer each in the pipeline split "
                             "(account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split)")
            elif shape["layers"] % stages:
                sets.append(("parallelism.partition", "balanced"))
                notes.append(f"{shape['layers']} layers over {stages} pipeline stages: split balanced (the "
                             f"run's layout not resolved)")
        zero = (3 if fsdp_runs else 1) if dp * cp > 1 else 0
        sets.append(("parallelism.zero", zero))
        if fsdp and FSDP_OFFLOAD.get((system, shape_key)):
            sets.append(("training.cpu_offload_layers", FSDP_OFFLOAD[(system, shape_key)][0]))
        sets.append(("parallelism.sequence_parallel", "true" if tp > 1 else "false"))
        if zero == 1 and not (shape_key == "deepseek_v3" and recipe == "mxfp8"):
            sets.append(("parallelism.overlap_param_gather", "true"))
            # src/megatron/bridge/training/comm_overlap.py (v0.1.0rc4 to v0.6.0),
            # _get_optimizer_overlap_cfgs: with data_parallel_size > 1, pp > 1 and vp > 1,
            # align_param_gather True.
            if dp > 1 and pp > 1 and (vp or 1) > 1:
                sets.append(("parallelism.align_param_gather", "true"))
        sets.append(("framework_options.collectives.dp_overlap", "true"))
        # Every performance config sets grad_reduce_in_fp32 False (RECIPES; v0.1.0rc4's YAMLs, the
        # <family>_llm_pretrain.py configs from v0.2.0, v0.6.0:src/megatron/bridge/perf_recipes/_common.py):
        # Megatron-Core's DDP then keeps and reduces the gradients in the parameters' bf16
        # (megatron/core/distributed/param_and_grad_buffer.py: grad_dtype), not the megatron profile's fp32.
        sets.append(("framework_options.memory.fp32_grads_with_bf16", "false"))
        # The loss as TransformerEngine's fused cross-entropy: every tag's performance runs set
        # cross_entropy_fusion_impl "te" (v0.1.0rc4's <model>_llm_pretrain.yaml configs of each family
        # here, v0.2.0:scripts/performance/utils/helpers.py set_common_perf_overrides,
        # scripts/performance/utils/overrides.py _set_common_perf_overrides from v0.3.0), with the
        # providers' cross_entropy_loss_fusion True (src/megatron/bridge/models/gpt_provider.py and the
        # Mamba, Nemotron and hybrid providers; False only for PEFT recipes).
        sets.append(("framework_options.compute.te_cross_entropy", "true"))
        if recipe:
            sets += [("training.fp8", "e4m3" if recipe == "nvfp4" else "hybrid"), ("training.fp8_recipe", recipe)]
        if recipe in ("tensorwise", "mxfp8") and shape_key != "gpt_oss_120b":
            # Every fp8 precision config sets fp8_param_gather (src/megatron/bridge/training/
            # mixed_precision.py at each tag: bf16_with_fp8_current_scaling_mixed, bf16_with_mxfp8_mixed);
            # NVFP4's does not, nor do the GPT-OSS configs (v0.5.0 gpt_oss_llm_pretrain.py's precision
            # config, v0.6.0 perf_recipes/gpt_oss/common.py: fp8_param_gather False).
            sets.append(("training.fp8_param_gather", "true"))
        modules = GPT_OSS_PRESETS.get((system.replace("DGX-", ""), container, "mxfp8" if recipe else "bf16")) \
            if shape_key == "gpt_oss_120b" else None
        if nemotron and nemotron["recompute"]:
            modules = ",".join(nemotron["recompute"])
        if modules:  # the preset's recompute_modules under recompute_granularity selective
            sets += [("training.recompute", "selective"), ("training.recompute_modules", f'"{modules}"')]
        else:
            sets.append(("training.recompute", "none"))
        if gpus % platform_of(system, gpus)[1]:
            sets.append(("placement.gpus", gpus))
        family = "deepseek_v3" if shape_key == "deepseek_v3" else "llama"
        unmodelled = []
        if recipe == "nvfp4":
            # The NVFP4 runs turn TP communication overlap off (v0.2.0:scripts/performance/configs/
            # llama3/llama3_llm_pretrain.py: "tp_comm_overlap = False if precision == \"nvfp4\"", the
            # same in the llama configs to v0.5.1 and each v0.6.0 NVFP4 perf recipe).
            unmodelled_nvfp4 = ["fp4 primary weights and their fp4 all-gather (fp4_param_gather, from v0.4.2)",
                                "the amax all-reduce over tp before each sequence-parallel cast",
                                "TransformerEngine before 2.14's separate column-wise quantize pass (v0.2.0 to v0.3.1)"]
        else:
            unmodelled_nvfp4 = []
        if tp > 1 and family == "llama" and recipe != "nvfp4" and not nemotron:  # the recipe's CommOverlapConfig(tp_comm_overlap=True)
            sets.append(("parallelism.tp_comm_overlap", "true"))
        preset = (PRESETS.get((shape_key, gpu + "-" + (recipe or ""), container)) or PRESETS.get((shape_key, gpu, container))
                  or PRESETS.get((shape_key, "*", container)))
        if nemotron:
            nemotron_unmodelled = []
            differ = [k.replace("_", " ") for k in ("num_gpus", "tp", "ep", "global_batch", "micro_batch")
                      if nemotron[k] != run_shape[k]]
            if differ:
                nemotron_unmodelled.append(f"the preset's {', '.join(differ)} differ from the printed row's")
            if shape.get("mtp_layers") and recipe:
                nemotron_unmodelled.append("the MTP layer's bf16 under fp8 (keep_mtp_spec_in_bf16)")
            preset = (f"{tag}:{nemotron['path']}: {nemotron['config']}", nemotron_unmodelled)
        if preset is None:
            fail(f"{name}: {container} {model_name} {system}", "no preset recorded")
        unmodelled += preset[1] + unmodelled_nvfp4
        if shape_key in MOE_FAMILIES:
            dispatcher, overlap, config = moe_preset(shape_key, gpu, recipe, tag, run_shape)
            if dispatcher is None:
                unmodelled.append(f"the preset's MoE dispatcher and moe_a2a_overlap ({config}): alltoall, no overlap")
            else:
                if dispatcher != "alltoall":
                    sets.append(("parallelism.moe_dispatcher", dispatcher))
                if overlap and pp > 1 and vp <= 1:
                    unmodelled.append("moe_a2a_overlap with pp > 1 and no VP (simgpt's needs the interleaved schedule)")
                elif overlap:
                    sets.append(("parallelism.moe_a2a_overlap", "true"))
                notes.append(f"MoE dispatcher {dispatcher}" + (", moe_a2a_overlap" if overlap else "") +
                             f" ({config}; megatron_bridge_moe_presets.csv)")
        elif nemotron:  # moe_flex_dispatcher_backend hybridep, no moe_a2a_overlap
            dispatcher = "hybridep" if flex_backend_applies("hybridep", gpu, tag) else "alltoall"
            if dispatcher != "alltoall":
                sets.append(("parallelism.moe_dispatcher", dispatcher))
            notes.append(f"MoE dispatcher {dispatcher} ({nemotron['config']})")
        # The CUDA graphs the preset runs (framework_options.compute.cuda_graphs, left out for none).
        if tag == "v0.1.0rc4":
            graphs_path, graphed = V01_GRAPHS[shape_key]
            on = (gpu, V01_PRECISIONS[recipe]) in graphed
            graphs = "layers" if on else None
            setting = "cuda_graphs true: enable_cuda_graph, each layer whole" if on else "cuda_graphs false"
            graphs_note = (f"CUDA graphs {graphs or 'none'} ({setting}; {tag}:{graphs_path} perf_matrix "
                           f"{gpu.lower()} {V01_PRECISIONS[recipe]})")
        else:
            if nemotron:
                impl, scope = ("transformer_engine", nemotron["graphs"]) if nemotron["graphs"] else ("none", [])
                source = nemotron["config"]
            elif shape_key in MOE_FAMILIES:
                impl, scope, source = moe_graphs(shape_key, gpu, recipe, tag, run_shape)
            else:
                impl, scope, source = llama_graphs(shape_key, gpu, PRECISION_TOKENS[recipe], tag)
            if impl is None:
                graphs, graphs_note = None, None
                unmodelled.append(f"the preset's CUDA graphs ({source}): none here")
            else:
                graphs, graphs_note = cuda_graphs(impl, scope, source)
        if graphs:
            sets.append(("framework_options.compute.cuda_graphs", graphs))
        if graphs == "iteration" and shape_key == "deepseek_v3":
            unmodelled.append(DEEPSEEK_FULL)
        if graphs_note:
            notes.append(graphs_note)
        if family == "deepseek_v3":
            unmodelled.append("recompute_granularity selective of the modules above (simgpt's selective "
                              "recomputes the attention core only: run with none)")
            if layout:
                notes.append(f"pipeline layout {layout[1]} ({layout[2]})")
            elif pp > 1:
                unmodelled.append("the run's pipeline layout (none resolved: split balanced here)")
        unmodelled = [u for u in unmodelled if u]
        notes.append(f"{REPO} {preset[0]}")
        if unmodelled:
            notes.append("not modelled: " + "; ".join(unmodelled))
        if printed in ("FP8", "FP8-CS"):
            notes.append("FP8 as current (tensorwise) scaling (scripts/performance/utils/precision.py: fp8_cs, "
                         "bf16_with_fp8_current_scaling_mixed)")
    elif not reasons:
        fail(name, f"{model_name}: neither a shape nor a reason")
    if assumed:
        notes.append(assumed.strip())
    quoted = ", ".join(f"{k}: {v}" for k, v in run.items() if k not in ("System",))
    where = f"{name}, {container} NeMo Container, {heading[0]}: {heading[1]}, row {index}"
    if variant == 1:
        where += " (figures in parentheses)"
    ident = f"{container}-{slug(model_name)}-{slug(printed)}-r{index}" + ("-alt" if variant == 1 else "")
    fields = [("id", ident), ("row", f'"{where}"'), ("column", f'"{quoted}"'),
              ("set", "{" + ", ".join(f"{k}: {v}" for k, v in sets) + "}"),
              ("measured", f"{{step_time_s: {step:.6g}}}")]
    if reasons:
        fields.append(("flags", "[not_reproducible]"))
        text = "not reproducible: " + "; ".join(reasons)
        if notes:
            text += "; " + "; ".join(notes)
        fields.append(("note", f'"{text}"'))
    else:
        fields.append(("flags", "[]"))
        if notes:
            fields.append(("note", '"' + "; ".join(notes) + '"'))
    return ident, fields


DESCRIPTION = """\
  Megatron-Bridge's measured pre-training throughput (NVIDIA NeMo containers 25.09 to 26.08) on
  {gpus} GPUs of {system}: every pre-training row of docs/performance-summary.md and
  performance-summary-archive.md run on that system at that size; SFT and LoRA rows are out of scope
  and skipped. Step time = GBS x sequence length / (tokens/s/GPU x GPUs); the model TFLOP/s column is
  Megatron-Bridge's formula, quoted in `column`, not compared. MoE runs force-balance routing (the
  pages' footnote), as simgpt routes. Settings from Megatron-Bridge at each container's tag (25.09
  v0.1.0rc4, 25.11 v0.2.0, 26.02 v0.3.0, 26.02.01 v0.3.1, 26.04 v0.4.0, 26.04.01 v0.4.2, 26.06 v0.5.0,
  26.06.01 v0.5.1, 26.08 v0.6.0): the recipes' distributed optimizer (zero 1) with overlap_grad_reduce
  (collectives.dp_overlap) and overlap_param_gather (aligned across pipeline ranks, align_param_gather, where
  dp, pp and VP are above 1: training/comm_overlap.py), gradients kept and reduced in bf16
  (grad_reduce_in_fp32 false), sequence parallelism with tp > 1, the interleaved
  schedule with VP chunks, context parallelism's p2p ring, bf16 with TransformerEngine fp8 current
  scaling (FP8, FP8-CS), MXFP8 (MXFP8, FP8-MX) or NVFP4, no recompute unless the row's preset sets modules;
  vocabularies padded to 128 x tp; the MoE presets' expert tensor parallelism 1 (experts whole beside
  tp); each preset's CUDA graphs (compute.cuda_graphs: the whole iteration, whole layers or
  Megatron-Core's scopes). Each row's note cites the preset it ran and what simgpt does not
  model. Assumed:
  the {preset} preset{placement}. Rows simgpt cannot express (DeepSeek-V4, Muon, block-scaled fp8 on
  H100, Nemotron 3 Super's mixed NVFP4 recipe, activation offloading,
  fp8 under Megatron FSDP), a printed parallelism
  Megatron-Core cannot build, and runs the page footnotes as a known performance regression are
  kept, flagged not_reproducible with the reason."""


def table_text(system, gpus, rows):
    preset, _ = SYSTEMS[system]
    platform, per_node = platform_of(system, gpus)
    nodes = math.ceil(gpus / per_node)
    placement = (f", its first {gpus} GPUs of {nodes} rack(s) of 72 (placement.gpus)"
                 if gpus % per_node else
                 f", {per_node} GPUs of each of {nodes} racks (the launcher's Slurm segment of "
                 f"{per_node // GPUS_PER_TRAY} trays)" if per_node != SYSTEMS[system][1] else "")
    ident = f"megatron-bridge-{slug(system)}-{gpus}"
    shape = SHAPES["llama3_8b"]
    base = (f"  model: {{layers: {shape['layers']}, hidden: {shape['hidden']}, heads: {shape['heads']}, "
            f"kv_heads: {shape['kv_heads']}, ffn_hidden: {shape['ffn_hidden']}, mlp: swiglu, norm: rmsnorm, "
            f"position: rope, bias: false, tie_embeddings: false, seq_len: 8192, vocab: 128256, "
            f"attention: flash}}\n"
            f"  training: {{global_batch: {gpus * 16}, micro_batch: 1, precision: bf16, recompute: none, "
            f"optimizer: adam}}\n"
            f"  parallelism: {{dp: {gpus}, tp: 1, pp: 1, zero: 1}}\n"
            + (f"  placement: {{gpus: {gpus}}}\n" if gpus % per_node else "") +
            f"  framework: megatron\n")
    text = (f"# Written by validation/generate/megatron_bridge.py from ../shared/measured/megatron-bridge: do\n"
            f"# not edit; change the script and rerun it.\n"
            f"table: {ident}\n"
            f"source:\n"
            f"  seed: shared/measured/megatron-bridge\n"
            f"  heading: \"{REPO} 067f987df, docs/performance-summary.md and docs/performance-summary-archive.md: "
            f"pre-training rows of {system} on {gpus} GPUs\"\n"
            f"description: >-\n"
            f"{DESCRIPTION.format(gpus=gpus, system=system, preset=preset, placement=placement)}\n"
            f"platform: {platform}\n"
            # Replaying them all takes about 18 minutes on 2 cores, past the test suite's budget:
            # `simgpt validate --extended --filter megatron-bridge` replays them.
            f"tier: extended\n"
            f"workload:\n{base}"
            f"rows:\n")
    seen = set()
    for ident_row, fields in rows:
        if ident_row in seen:
            fail(ident, f"row id {ident_row} twice")
        seen.add(ident_row)
        text += table_yaml.row(fields)
    return ident, platform, text


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    tables = {}
    for name in FILES:
        FOOTNOTES.update(read_footnotes(os.path.join(source, name)))
    for name in FILES:
        for container, task, heading, index, cells in parse(os.path.join(source, name), name):
            if container not in RELEASES:
                fail(name, f"container {container} has no release")
            if task != "Pre-Training":
                continue  # SFT and LoRA: out of scope
            for variant, run in enumerate(variants(cells)):
                system = heading[1] if heading[0] == "System" else run["System"]
                if system not in SYSTEMS:
                    fail(name, f"unknown system {system}")
                gpus = number(run["#-GPUs"])
                tables.setdefault((system, gpus), []).append(
                    row_fields(name, container, heading, index, variant, run, system, gpus))
    os.makedirs(output, exist_ok=True)
    for (system, gpus) in sorted(tables):
        ident, _, text = table_text(system, gpus, tables[(system, gpus)])
        table_yaml.write_whole(os.path.join(output, ident + ".yaml"), text)


if __name__ == "__main__":
    main()
