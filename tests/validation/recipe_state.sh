#!/usr/bin/env bash
# validation/generate/recipe_state.py reads a Megatron-Bridge recipe function's settings from its
# source: assignments in order, helpers followed (in the module and imported from megatron.bridge),
# a section rebuilt from keywords, apply_flex_dispatcher_backend, and an error (never a guess) for a
# conditional assignment to a field its caller reads; and megatron_bridge.py's reading of the
# pipeline layouts the recipes name. Stand-in sources, no repository needed.
# usage (from the repository root): tests/validation/recipe_state.sh
set -eu
cd validation/generate
python3 - <<'PY'
import sys
import recipe_state

SOURCES = {
    "src/megatron/bridge/perf_recipes/x/gb200/m.py": '''
from megatron.bridge.perf_recipes.x.common import CommOverlapConfig, base_config, _overlap, _with_gbs

def m_pretrain_8gpu_gb200_fp8mx_config():
    cfg = base_config()
    cfg.model.expert_model_parallel_size = 8
    cfg.model.moe_flex_dispatcher_backend = "hybridep"
    cfg.model.moe_token_dispatcher_type = "flex"
    cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=True)
    _overlap(cfg, on=True)
    return cfg

def m_pretrain_32gpu_gb200_fp8mx_config():
    cfg = _with_gbs(m_pretrain_8gpu_gb200_fp8mx_config(), 2048)
    cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=True)
    return cfg

def layout_config():
    cfg = base_config()
    cfg.model.pipeline_model_parallel_size = 16
    set_layout(cfg.model)
    return cfg

def conditional_config(flag=True):
    cfg = base_config()
    if flag:
        cfg.model.expert_model_parallel_size = 4
    return cfg
''',
    "src/megatron/bridge/perf_recipes/x/common.py": '''
from megatron.bridge.recipes.x.base import base_config
from megatron.bridge.training.comm_overlap import CommOverlapConfig

def _overlap(cfg, *, on=False):
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = on

def _with_gbs(cfg, n):
    cfg.train.global_batch_size = n
    return cfg
''',
    "src/megatron/bridge/recipes/x/base.py": '''
from megatron.bridge.training.flex_dispatcher_backend import apply_flex_dispatcher_backend

def base_config():
    cfg = ConfigContainer(model=None)
    cfg.model.moe_token_dispatcher_type = "alltoall"
    cfg.model.moe_flex_dispatcher_backend = "deepep"
    cfg.train.global_batch_size = 512
    apply_flex_dispatcher_backend(cfg.model, cfg.model.moe_flex_dispatcher_backend)
    return cfg
''',
    "src/megatron/bridge/training/comm_overlap.py": "class CommOverlapConfig:\n    pass\n",
    "src/megatron/bridge/training/flex_dispatcher_backend.py": "def apply_flex_dispatcher_backend(c, b):\n    pass\n",
}


def show(path):
    if path not in SOURCES:
        raise FileNotFoundError(path)
    return SOURCES[path]


failures = []


def check(what, got, expected):
    if got != expected:
        failures.append(f"FAIL: {what}: {got!r}, expected {expected!r}")


reader = recipe_state.Reader(show)
path = "src/megatron/bridge/perf_recipes/x/gb200/m.py"
base = reader.call("src/megatron/bridge/recipes/x/base.py", "base_config")
check("base dispatcher after apply_flex_dispatcher_backend", base.section("model")["moe_token_dispatcher_type"], "flex")
check("base backend", base.section("model")["moe_flex_dispatcher_backend"], "deepep")
eight = reader.call(path, "m_pretrain_8gpu_gb200_fp8mx_config")
check("recipe's own backend over the base's", eight.section("model")["moe_flex_dispatcher_backend"], "hybridep")
check("ep", eight.section("model")["expert_model_parallel_size"], 8)
check("base's global batch kept", eight.section("train")["global_batch_size"], 512)
check("helper's keyword-only argument", eight.section("comm_overlap").get("overlap_moe_expert_parallel_comm"), True)
check("section rebuilt from keywords", eight.section("comm_overlap").get("tp_comm_overlap"), True)
thirty_two = reader.call(path, "m_pretrain_32gpu_gb200_fp8mx_config")
check("nested recipe's global batch", thirty_two.section("train")["global_batch_size"], 2048)
check("rebuilt section drops the earlier overlap", thirty_two.section("comm_overlap").get("overlap_moe_expert_parallel_comm"), None)
# A function the caller handles gets its evaluated arguments instead of being followed.
seen = []
handled = recipe_state.Reader(show, {"set_layout": lambda args, kwargs: seen.append(
    args[0].config.section(args[0].name).get("pipeline_model_parallel_size"))})
handled.call(path, "layout_config")
check("handler's argument: the model section as the call found it", seen, [16])
try:
    reader.call(path, "conditional_config")
    failures.append("FAIL: a conditional assignment to expert_model_parallel_size was read without an error")
except ValueError as e:
    check("the error names the file and line", "m.py:" in str(e), True)
# megatron_bridge.py's reading of a Megatron-Core pipeline layout: decoder layers per virtual stage.
import megatron_bridge
check("layout Et*4|(t*4|)*14tmL", megatron_bridge.layout_stages("Et*4|(t*4|)*14tmL"), [4] * 15 + [1])
check("layout Et|(tt|)*30mL", megatron_bridge.layout_stages("Et|(tt|)*30mL"), [1] + [2] * 30 + [0])
check("layout Et*8|(t*8|)*6t*5mL", megatron_bridge.layout_stages("Et*8|(t*8|)*6t*5mL"), [8] * 7 + [5])
print("\n".join(failures) or "recipe_state: all checks passed")
sys.exit(1 if failures else 0)
PY
