#!/usr/bin/env python3
"""Writes megatron_bridge_moe_presets.csv: the MoE settings of Megatron-Bridge's performance presets
(scripts/performance/configs/<family>/*workload_base_configs.py, each a WorkloadBaseConfig of
scripts/performance/utils/utils.py, v0.2.0 to v0.5.1; from v0.6.0 the per-GPU recipe functions of
src/megatron/bridge/perf_recipes/<family>/<gpu>/*.py) at the releases whose containers the measured
rows ran: per preset its GPUs, parallelism and batch, the flex dispatcher's backend
(moe_flex_dispatcher_backend; none: the providers' alltoall), moe_a2a_overlap, DeepSeek-V3's pipeline
layout, and the CUDA graphs it runs (cuda_graph_impl, cuda_graph_scope).
megatron_bridge.py reads the file to set each MoE row's parallelism.moe_dispatcher,
parallelism.moe_a2a_overlap, pipeline partition and framework_options.compute.cuda_graphs.

    python3 megatron_bridge_moe_presets.py PATH/TO/Megatron-Bridge.git [OUTPUT.csv]

The repository is read with `git show TAG:PATH` (a bare clone will do); the presets are evaluated
with a stand-in for the headnode's utils.utils module, whose WorkloadBaseConfig is the release's own
dataclass. The v0.6.0 recipe functions import all of Megatron-Bridge and Megatron-Core, so they are
read, not run: recipe_state.py follows their assignments to the config (recipe_state.py says how).

The CUDA graph columns are the values the run's model config holds once the driver has built it:
cuda_graph_impl (none, local, transformer_engine, full_iteration) and cuda_graph_scope, the scope list
space-separated ("attn moe_router moe_preprocess"; "full" and "" both mean the whole layer, "" where
nothing sets one: Megatron-Core's default; from Megatron-Core 0.18 the field is cuda_graph_modules, whose
value the column holds where a preset sets that). To v0.5.1 they are the model recipe's values
(src/megatron/bridge/recipes/..., the function the family's scripts/performance/configs/<family>/
*_llm_pretrain.py imports, read with recipe_state.py: nothing set to v0.3.0, cuda_graph_impl "none" and
scope "full" from v0.3.1; unset, Megatron-Core's impl "none") overridden by the preset's
cuda_graph_impl / cuda_graph_scope where not None (scripts/performance/utils/overrides.py,
_set_cuda_graph_overrides; helpers.py's set_cuda_graph_overrides at v0.2.0), the scope cleared where
the impl is "none" from v0.5.0 (the same function). Where the preset's builder in *_llm_pretrain.py
(<model>_pretrain_config_<gpu>) itself assigns a CUDA graph field (GPT-OSS 20B's, v0.5.0 and v0.5.1)
the builder is followed instead, with precision and config_variant bound to the preset's and the
preset applied where it calls set_workload_base_configs; any other function there assigning one is an
error. At v0.6.0 they are what the recipe function leaves (its _benchmark_common clearing the scope of
impl "none"; set_full_iteration_cuda_graph of src/megatron/bridge/utils/cuda_graph.py taken on its
Megatron-Core 0.18 branch, cuda_graph_modules, which v0.6.0's Megatron-LM has: impl full_iteration).
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
          "pp_layout", "cuda_graph_impl", "cuda_graph_scope"]
# The model config's CUDA graph fields (cuda_graph_modules: Megatron-Core 0.18's name for the scope).
GRAPH_FIELDS = ("cuda_graph_impl", "cuda_graph_scope", "cuda_graph_modules")
# The tags whose _set_cuda_graph_overrides (scripts/performance/utils/overrides.py) clears the scope of
# a config whose impl is "none".
CLEARS_SCOPE = ("v0.5.0", "v0.5.1")
# GPU tokens of the presets' names (v0.2.0's <MODEL>_<GPU>_<PRECISION>_BASE_CONFIG).
GPUS = ("H100", "B200", "B300", "GB200", "GB300", "VR200", "R100")

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


SOURCES = {}


def show(repo, tag, path):
    if (repo, tag, path) not in SOURCES:
        SOURCES[(repo, tag, path)] = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"],
                                                    capture_output=True, text=True, check=True).stdout
    return SOURCES[(repo, tag, path)]


def graph_columns(model, where):
    """(cuda_graph_impl, cuda_graph_scope) columns of a model config section (recipe_state's dict):
    the impl ("none" where unset: Megatron-Core's default), the scope (cuda_graph_modules where set)
    space-separated."""
    impl = model.get("cuda_graph_impl", "none")
    scope = model.get("cuda_graph_modules")
    if scope is None:
        scope = model.get("cuda_graph_scope")
    if isinstance(scope, str):
        scope = [scope] if scope else []
    if scope is None:
        scope = []
    if not isinstance(impl, str) or not isinstance(scope, list) or not all(isinstance(s, str) for s in scope):
        sys.exit(f"{where}: CUDA graph settings not resolved ({impl!r}, {scope!r})")
    return impl, " ".join(scope)


def apply_preset_graphs(model, preset, tag):
    """_set_cuda_graph_overrides (scripts/performance/utils/overrides.py; v0.2.0's
    utils/helpers.py set_cuda_graph_overrides): the preset's impl and scope where not None, a scope
    string as a list of one; from v0.5.0 the scope cleared where the impl is "none"."""
    scope = preset.cuda_graph_scope
    if isinstance(scope, str):
        scope = [scope]
    if preset.cuda_graph_impl is not None:
        model["cuda_graph_impl"] = preset.cuda_graph_impl
    if scope is not None:
        model["cuda_graph_scope"] = list(scope)
    if tag in CLEARS_SCOPE and model.get("cuda_graph_impl", "none") == "none":
        model["cuda_graph_scope"] = []


class Drivers:
    """The preset builders of one family at one tag: scripts/performance/configs/<family>/*_llm_pretrain.py
    beside its workload base configs, the recipe functions they import, and the builders that assign a
    CUDA graph field themselves."""

    def __init__(self, repo, tag, directory):
        self.repo, self.tag = repo, tag
        files = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", tag, directory + "/"],
                               capture_output=True, text=True, check=True).stdout.split()
        self.paths = sorted(f for f in files if f.endswith("_llm_pretrain.py"))
        self.recipes = {}  # a recipe function's name -> (driver path, its name there)
        self.builders = {}  # a builder assigning a CUDA graph field -> its driver path
        for path in self.paths:
            tree = ast.parse(show(repo, tag, path))
            for n in tree.body:
                if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("megatron.bridge.recipes"):
                    for alias in n.names:
                        self.recipes.setdefault(alias.name, (path, alias.asname or alias.name))
                if isinstance(n, ast.FunctionDef) and recipe_state.assigns_field(n, GRAPH_FIELDS):
                    if not re.fullmatch(r"[a-z0-9_]+_pretrain_config_[a-z0-9]+", n.name):
                        sys.exit(f"{tag}:{path}: {n.name} assigns a CUDA graph field and is no preset's builder")
                    self.builders[n.name] = path
        self.defaults = {}

    def reader(self, handlers=None):
        return recipe_state.Reader(lambda path: show(self.repo, self.tag, path), handlers, fields=GRAPH_FIELDS)

    def recipe_graphs(self, model_name):
        """The CUDA graph fields MODEL_NAME's recipe function (the one the drivers import whose name is
        <model_name>_pretrain...) sets on the model config."""
        if model_name not in self.defaults:
            names = sorted(n for n in self.recipes if n.startswith(model_name + "_pretrain"))
            if len(names) != 1:
                sys.exit(f"{self.tag}: {model_name}: the drivers import {names or 'no'} recipe function(s)")
            path, local = self.recipes[names[0]]
            state = self.reader().call(path, local)
            if not isinstance(state, recipe_state.Config):
                sys.exit(f"{self.tag}: {names[0]}: no config followed")
            model = state.section("model")
            self.defaults[model_name] = {k: model[k] for k in GRAPH_FIELDS if k in model}
        return dict(self.defaults[model_name])

    def graphs(self, name, preset):
        """(cuda_graph_impl, cuda_graph_scope) columns of the preset NAME."""
        m = (re.fullmatch(r"(?P<model>[A-Z0-9_]+?)_PRETRAIN_CONFIG_(?P<gpu>[A-Z0-9]+)(?:_(?P<precision>"
                          + "|".join(PRECISION_NAMES.values()) + r"))?(?:_(?P<variant>[A-Z0-9_]+))?", name) or
             re.fullmatch(r"(?P<model>[A-Z0-9_]+?)_(?P<gpu>" + "|".join(GPUS) + r")_(?:[A-Z0-9_]+_)?BASE_CONFIG",
                          name))
        if not m:
            sys.exit(f"{self.tag}: {name}: not a preset name")
        model_name = m["model"].lower()
        builder = f"{model_name}_pretrain_config_{m['gpu'].lower()}"
        if builder in self.builders:
            if not m.groupdict().get("precision"):
                sys.exit(f"{self.tag}: {name}: no precision to follow {builder} with")
            def set_workload_base_configs(args, kwargs):
                if args and isinstance(args[0], recipe_state.Config):
                    apply_preset_graphs(args[0].section("model"), preset, self.tag)
            reader = self.reader({"set_workload_base_configs": set_workload_base_configs,
                                  "get_workload_base_config": lambda args, kwargs: None})
            state = reader.call(self.builders[builder], builder,
                                kwargs={"precision": m["precision"].lower(),
                                        "config_variant": (m["variant"] or "v1").lower()})
            if not isinstance(state, recipe_state.Config):
                sys.exit(f"{self.tag}: {builder}: no config followed")
            return graph_columns(state.section("model"), f"{self.tag} {name}")
        model = self.recipe_graphs(model_name)
        apply_preset_graphs(model, preset, self.tag)
        return graph_columns(model, f"{self.tag} {name}")


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
        drivers = Drivers(repo, tag, os.path.dirname(path))
        for name, value in sorted(scope.items()):
            if isinstance(value, config) and not name.startswith("BASE"):
                pp, vp = value.pipeline_model_parallel_size, value.virtual_pipeline_model_parallel_size or 1
                layout = (getattr(value, "pp_layout", None) or deepseek_v3_layout(tag, "_H100_" in name, pp, vp)
                          if name.startswith("DEEPSEEK_V3") else "")
                row = {"tag": tag, "config": name, "num_gpus": value.num_gpus,
                       "tp": value.tensor_model_parallel_size, "pp": pp, "vp": vp,
                       "ep": value.expert_model_parallel_size, "global_batch": value.global_batch_size,
                       "micro_batch": value.micro_batch_size,
                       "backend": value.moe_flex_dispatcher_backend or "none",
                       "a2a_overlap": bool(getattr(value, "moe_a2a_overlap", False)),
                       "pp_layout": layout}
                row["cuda_graph_impl"], row["cuda_graph_scope"] = drivers.graphs(name, value)
                yield row


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

    def set_full_iteration(args, kwargs):
        # set_full_iteration_cuda_graph(config) (src/megatron/bridge/utils/cuda_graph.py) on Megatron-Core
        # 0.18's API, which v0.6.0's Megatron-LM has: impl full_iteration, no modules.
        if args and isinstance(args[0], recipe_state.SectionRef):
            model = args[0].config.section(args[0].name)
            model.update(cuda_graph_impl="full_iteration", cuda_graph_modules=[], cuda_graph_scope=None)

    reader = recipe_state.Reader(lambda path: show(repo, tag, path),
                                 {"set_deepseek_v3_pipeline_model_parallel_layout": set_layout,
                                  "set_full_iteration_cuda_graph": set_full_iteration})
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
            impl, scope = graph_columns(model, f"{tag} {name}")
            yield {"tag": tag, "config": label, "num_gpus": int(match["gpus"]),
                   "tp": model["tensor_model_parallel_size"], "pp": model["pipeline_model_parallel_size"],
                   "vp": model.get("virtual_pipeline_model_parallel_size") or 1,
                   "ep": model["expert_model_parallel_size"], "global_batch": train["global_batch_size"],
                   "micro_batch": train["micro_batch_size"],
                   "backend": (model.get("moe_flex_dispatcher_backend") or "none") if flex else "none",
                   "a2a_overlap": bool(overlap.get("overlap_moe_expert_parallel_comm", False)),
                   "pp_layout": (model.get("pipeline_model_parallel_layout") or "")
                   if name.startswith("deepseek_v3") else "",
                   "cuda_graph_impl": impl, "cuda_graph_scope": scope}


def main():
    repo = sys.argv[1]
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "megatron_bridge_moe_presets.csv")
    rows = [row for tag in TAGS for row in presets(repo, tag)]
    rows += [row for tag in RECIPE_TAGS for row in recipe_presets(repo, tag)]
    temporary = output + ".tmp"
    with open(temporary, "w", newline="") as f:
        f.write("# Written by validation/generate/megatron_bridge_moe_presets.py from NVIDIA-NeMo/Megatron-Bridge's\n"
                "# scripts/performance/configs/*/*workload_base_configs.py (with the recipes and builders they are\n"
                "# applied to) to v0.5.1 and src/megatron/bridge/perf_recipes/*/*/*.py at v0.6.0: do not edit.\n")
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, output)


if __name__ == "__main__":
    main()
