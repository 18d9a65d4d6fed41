#!/usr/bin/env python3
"""Writes megatron_bridge_moe_presets.csv: the MoE settings of Megatron-Bridge's performance presets
(scripts/performance/configs/<family>/*workload_base_configs.py, each a WorkloadBaseConfig of
scripts/performance/utils/utils.py) at the releases whose containers the measured rows ran (v0.2.0
to v0.5.1): per preset its GPUs, parallelism and batch, the flex dispatcher's backend
(moe_flex_dispatcher_backend; none: the providers' alltoall) and moe_a2a_overlap.
megatron_bridge.py reads the file to set each MoE row's parallelism.moe_dispatcher and
parallelism.moe_a2a_overlap.

    python3 megatron_bridge_moe_presets.py PATH/TO/Megatron-Bridge.git [OUTPUT.csv]

The repository is read with `git show TAG:PATH` (a bare clone will do); the presets are evaluated
with a stand-in for the headnode's utils.utils module, whose WorkloadBaseConfig is the release's own
dataclass. The output is sorted and deterministic."""
import ast
import csv
import os
import subprocess
import sys
import types

TAGS = ["v0.2.0", "v0.3.0", "v0.3.1", "v0.4.0", "v0.4.2", "v0.5.0", "v0.5.1"]
FAMILIES = ("deepseek", "qwen", "gpt_oss")
FIELDS = ["tag", "config", "num_gpus", "tp", "pp", "vp", "ep", "global_batch", "micro_batch", "backend", "a2a_overlap"]


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
                yield {"tag": tag, "config": name, "num_gpus": value.num_gpus,
                       "tp": value.tensor_model_parallel_size, "pp": value.pipeline_model_parallel_size,
                       "vp": value.virtual_pipeline_model_parallel_size or 1,
                       "ep": value.expert_model_parallel_size, "global_batch": value.global_batch_size,
                       "micro_batch": value.micro_batch_size,
                       "backend": value.moe_flex_dispatcher_backend or "none",
                       "a2a_overlap": bool(getattr(value, "moe_a2a_overlap", False))}


def main():
    repo = sys.argv[1]
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "megatron_bridge_moe_presets.csv")
    rows = [row for tag in TAGS for row in presets(repo, tag)]
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
