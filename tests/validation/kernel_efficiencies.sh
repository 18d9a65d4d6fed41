#!/usr/bin/env bash
# The catalog's GEMM efficiencies of a GPU with a kernel table are what its table implies under
# simgpt's own GEMM model (validation/generate/kernel_efficiencies.py --check), and the Blackwell
# GPUs measured by none (GB200, B300, GB300) carry B200's figures, as platforms/gpus.yaml says.
# usage (from the repository root): tests/validation/kernel_efficiencies.sh
set -u
status=0
for table in platforms/kernels/*.yaml; do
  gpu=$(basename "$table" .yaml)
  validation/generate/kernel_efficiencies.py "$gpu" --check || status=1
done
python3 - <<'PY' || status=1
import sys, yaml
catalog = yaml.safe_load(open("platforms/gpus.yaml"))
b200 = catalog["B200-SXM-180GB"]
bad = 0
for gpu in ("GB200-186GB", "B300-SXM-288GB", "GB300-288GB"):
    for key in ("gemm_efficiency", "grouped_gemm_efficiency"):
        for precision in ("fp16", "bf16", "fp8", "fp4"):
            if catalog[gpu][key][precision] != b200[key][precision]:
                print(f"FAIL: platforms/gpus.yaml {gpu}.{key}.{precision} is {catalog[gpu][key][precision]}, "
                      f"B200's is {b200[key][precision]}")
                bad = 1
    if catalog[gpu].get("memory_op_efficiency") != b200["memory_op_efficiency"]:
        print(f"FAIL: platforms/gpus.yaml {gpu}.memory_op_efficiency is {catalog[gpu].get('memory_op_efficiency')}, "
              f"B200's is {b200['memory_op_efficiency']}")
        bad = 1
sys.exit(bad)
PY
exit $status
