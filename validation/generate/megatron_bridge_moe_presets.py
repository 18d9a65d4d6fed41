#!/usr/bin/env python3
"""Writes megatron_bridge_moe_presets.csv: the MoE settings of Megatron-Bridge's performance presets
(scripts/performance/configs/<family>/*workload_base_configs.py, each a WorkloadBaseConfig of
scripts/performance/utils/utils.py, v0.2.0 to v0.5.1; from v0.6.0 the per-GPU recipe functions of
src/megatron/bridge/perf_recipes/<family>/<gpu>/*.py) at the releases whose containers the measured
rows ran: per preset its GPUs, parallelism and batch, the flex dispatcher's backend
(moe_flex_dispatcher_backend; none: the providers' alltoall) and moe_a2a_overlap.
megatron_bridge.py reads the file to set each MoE row's parallelism.moe_dispatcher and
parallelism.moe_a2a_overlap.

    python3 megatron_bridge_moe_presets.py PATH/TO/Megatron-Bridge.git [OUTPUT.csv]

The repository is read with `git show TAG:PATH` (a bare clone will do); the presets are evaluated
with a stand-in for the headnode's utils.utils module, whose WorkloadBaseConfig is the release's own
dataclass. The v0.6.0 recipe functions import all of Megatron-Bridge and Megatron-Core, so they are
read, not run: recipe_state.py follows their assignments to the config (recipe_state.py says how).
The output is sorted and deterministic."""
import ast
import csv
import os
import re
import subprocess
import sys
import types

import recipe_state

TAGS = ["v0.2.0", "v0.3.0", "v0.3.1", "v0.4.0", "v0.4.2", "v0.5.0", "v0.5.1"]
RECIPE_TAGS = ["v0.6.0"]
FAMILIES = ("deepseek", "qwen", "gpt_oss")
FIELDS = ["tag", "config", "num_gpus", "tp", "pp", "vp", "ep", "global_batch", "micro_batch", "backend", "a2a_overlap",
          "pp_layout"]

# DeepSeek-V3's pipeline layout when a preset names none: the recipe's map from (pp, vp)
# (src/megatron/bridge/recipes/deepseek/deepseek_v3.py, map_pp_vp_to_layout at v0.1.0rc4,
# set_deepseek_v3_pipeline_model_parallel_layout's layout_map from v0.3.0, the same entries at every
# tag to v0.6.0), written in Megatron-Core's layout notation (E embedding, t decoder layer, m the
# multi-token-prediction layers, L the loss, | between virtual stages; pipeline_model_parallel_layout).
# Other (pp, vp) have no layout: Megatron-Core's even split.
DEEPSEEK_V3_LAYOUTS = {
    (4, 1): "Et*16|t*16|t*16|t*13mL",
    (8, 1): "Et*8|(t*8|)*6t*5mL", (4, 2): "Et*8|(t*8|)*6t*5mL",
    (16, 1): "Et*4|(t*4|)*14tmL", (8, 2): "Et*4|(t*4|)*14tmL", (4, 4): "Et*4|(t*4|)*14tmL",
}
# v0.1.0rc4 (scripts/performance/run_script.py) and v0.2.0 (scripts/performance/configs/deepseek/
# deepseek_llm_pretrain.py, deepseek_v3_h100_config) pass H100's own layout to the recipe.
DEEPSEEK_V3_H100_LAYOUT = "Et|(tt|)*30mL"


def deepseek_v3_layout(tag, h100, pp, vp):
    """The pipeline layout DeepSeek-V3's recipe gives a run that names none: H100's own at v0.1.0rc4
    and v0.2.0, else the map's entry for (pp, vp) ("" where it has none)."""
    if h100 and tag in ("v0.1.0rc4", "v0.2.0"):
        return DEEPSEEK_V3_H100_LAYOUT
    return DEEPSEEK_V3_LAYOUTS.get((pp, vp), "")


def show(repo, tag, path):
    return subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def base_config_class(repo, tag):
    src = show(repo, tag, "scripts/performance/utils/utils.py")
    tree = ast.parse(src)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "WorkloadBaseConfig")
    ns = {}
    exec("from dataclasses import dataclass, field\nfrom typing import *\n@dataclass\n" +
         ast.get_source_segment(src, cls), ns)
    return ns["WorkloadBaseConfig"]


def presets(repo, tag):
    config = base_config_class(repo, tag)
    utils = types.ModuleType("utils.utils")
    utils.WorkloadBaseConfig = config
    package = types.ModuleType("utils")
    package.utils, package.__path__ = utils, []
    sys.modules["utils"], sys.modules["utils.utils"] = package, utils
    files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", tag, "scripts/performance/configs"],
                           capture_output=True, text=True, check=True).stdout.split()
    for path in sorted(files):
        if not path.endswith("workload_base_configs.py") or not any(f"/{f}/" in path or f"/{f}3/" in path
                                                                     for f in FAMILIES):
            continue
        scope = {}
        exec(show(repo, tag, path), scope)
        for name, value in sorted(scope.items()):
            if isinstance(value, config) and not name.startswith("BASE"):
                pp, vp = value.pipeline_model_parallel_size, value.virtual_pipeline_model_parallel_size or 1
                layout = (getattr(value, "pp_layout", None) or deepseek_v3_layout(tag, "_H100_" in name, pp, vp)
                          if name.startswith("DEEPSEEK_V3") else "")
                yield {"tag": tag, "config": name, "num_gpus": value.num_gpus,
                       "tp": value.tensor_model_parallel_size, "pp": pp, "vp": vp,
                       "ep": value.expert_model_parallel_size, "global_batch": value.global_batch_size,
                       "micro_batch": value.micro_batch_size,
                       "backend": value.moe_flex_dispatcher_backend or "none",
                       "a2a_overlap": bool(getattr(value, "moe_a2a_overlap", False)),
                       "pp_layout": layout}


# A v0.6.0 recipe function's name: <model>_pretrain_<N>gpu_<gpu>_<precision>[_<variant>]_config.
RECIPE_NAME = re.compile(r"^(?P<model>[a-z0-9_]+)_pretrain_(?P<gpus>[0-9]+)gpu_(?P<gpu>[a-z0-9]+)_"
                         r"(?P<precision>bf16|fp8cs|fp8mx|fp8sc|nvfp4)(?P<variant>_[a-z0-9_]+)?_config$")
# The presets file's precision tokens (the v0.2.0 to v0.5.1 configs' names: ..._FP8_CS_..., ...).
PRECISION_NAMES = {"bf16": "BF16", "fp8cs": "FP8_CS", "fp8mx": "FP8_MX", "fp8sc": "FP8_SC", "nvfp4": "NVFP4"}


def recipe_presets(repo, tag):
    """The per-GPU recipe functions of src/megatron/bridge/perf_recipes/<family>/<gpu>/ at TAG, one row
    each, named as the earlier presets are (QWEN3_30B_A3B_PRETRAIN_8GPU_GB200_FP8_MX_CONFIG)."""
    def set_layout(args, kwargs):
        # set_deepseek_v3_pipeline_model_parallel_layout(model_cfg, layout=None): the layout given,
        # else the map's entry for the pp and vp the config holds when it is called.
        if not args or not isinstance(args[0], recipe_state.SectionRef):
            return
        model = args[0].config.section(args[0].name)
        given = args[1] if len(args) > 1 else kwargs.get("layout")
        pp = model.get("pipeline_model_parallel_size")
        vp = model.get("virtual_pipeline_model_parallel_size") or 1
        model["pipeline_model_parallel_layout"] = (given if isinstance(given, str) else
                                                   deepseek_v3_layout(tag, False, pp, vp))

    reader = recipe_state.Reader(lambda path: show(repo, tag, path),
                                 {"set_deepseek_v3_pipeline_model_parallel_layout": set_layout})
    files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", tag,
                            "src/megatron/bridge/perf_recipes"], capture_output=True, text=True,
                           check=True).stdout.split()
    for path in sorted(files):
        parts = path.split("/")
        if len(parts) != 7 or parts[4] not in FAMILIES or parts[6] == "__init__.py":
            continue
        for name in reader.functions(path):
            match = RECIPE_NAME.match(name)
            if not match or match["variant"]:  # development variants (_dev, _large_scale) ran no row
                continue
            state = reader.call(path, name)
            model, train, overlap = state.section("model"), state.section("train"), state.section("comm_overlap")
            flex = model.get("moe_token_dispatcher_type") == "flex"
            label = name.upper().replace(match["precision"].upper(), PRECISION_NAMES[match["precision"]], 1)
            yield {"tag": tag, "config": label, "num_gpus": int(match["gpus"]),
                   "tp": model["tensor_model_parallel_size"], "pp": model["pipeline_model_parallel_size"],
                   "vp": model.get("virtual_pipeline_model_parallel_size") or 1,
                   "ep": model["expert_model_parallel_size"], "global_batch": train["global_batch_size"],
                   "micro_batch": train["micro_batch_size"],
                   "backend": (model.get("moe_flex_dispatcher_backend") or "none") if flex else "none",
                   "a2a_overlap": bool(overlap.get("overlap_moe_expert_parallel_comm", False)),
                   "pp_layout": (model.get("pipeline_model_parallel_layout") or "")
                   if name.startswith("deepseek_v3") else ""}


def main():
    repo = sys.argv[1]
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "megatron_bridge_moe_presets.csv")
    rows = [row for tag in TAGS for row in presets(repo, tag)]
    rows += [row for tag in RECIPE_TAGS for row in recipe_presets(repo, tag)]
    temporary = output + ".tmp"
    with open(temporary, "w", newline="") as f:
        f.write("# Written by validation/generate/megatron_bridge_moe_presets.py from NVIDIA-NeMo/Megatron-Bridge's\n"
                "# scripts/performance/configs/*/*workload_base_configs.py at each tag: do not edit.\n")
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, output)


if __name__ == "__main__":
    main()
