#!/usr/bin/env python3
"""Times on this machine's GPU the kernel shapes a simulated job needs and writes them as a kernel
table (platforms/kernels/README.md) that simgpt reads from a `--data DIR` folder.

    simgpt kernels --platform P --workload W --format json > shapes.json
    bench/device/measure_kernels.py shapes.json [more.json ...] --out DIR [--timer torch|standin]
                                    [--only-missing] [--reps N] [--warmup N]
                                    [--timing isolated|back_to_back]
    simgpt --data DIR ...        # DIR/platforms/kernels/<gpu>.yaml now times those kernels

Input: one or more JSON documents as `simgpt kernels --format json` prints them: `gpu` (the
catalog's GPU name, which names the table), `table` (the table in use, or empty) and `kernels`,
whose lists `gemm`, `grouped_gemm`, `attention` and `memory` hold one object per shape: the
table's keys for that kind (README, "Format"; a memory row's `pass` may be left out, meaning
forward) and `calls`, `source` (table, interpolated or fallback), `us` (simgpt's time) and, for a
norm, `width` (its rows' length, the hidden size: how to lay out the measurement), which are not
part of the shape. The shapes of all the files, which must name one GPU, are measured
once each. `--only-missing` leaves out shapes whose `source` is `table` in every file (the table
in use has their time already). A table written to a `--data` folder is layered over the built-in
table of that GPU (its rows win where both time a shape), so `--only-missing` adds to it.

Output: DIR/platforms/kernels/<gpu>.yaml (DIR and its folders are made when missing), written
whole (to a temporary file in that folder, then renamed over it) or not at all; its rows sorted by
their keys in the README's order, one flow mapping a line, `us` with two decimals. Its path is
printed on stdout; progress (shape i of n) goes to stderr. Bad input (a missing or unreadable
file, not JSON, a missing or unknown key, an unknown precision, layout or other word, a dimension
that is not a whole number of at least 1, files naming different GPUs) is refused before anything
is measured with one line on stderr naming the file and the key, and exit status 2.

--timer torch (the default) runs each shape on the CUDA GPU torch sees first, in the row's
precision, with operands laid out as the training framework's kernels take them:

  gemm       C[m,n] (k the reduction, `batch` > 1: torch.bmm over [batch, ...] operands).
             TN, a linear layer's forward y = x W^T: torch.mm(x[m,k], w[n,k].t()).
             NN, its input gradient dx = dy W: torch.mm(dy[m,k], w[k,n]) (W [out=k, in=n]).
             NT, its weight gradient dW = dy^T x: torch.mm(dy[k,m].t(), x[k,n]) (k tokens).
             out fp32 with bf16/fp16 operands (Megatron-LM's gradient-accumulation fusion into an
             fp32 main_grad): TransformerEngine's general_gemm accumulating into an fp32 output when
             TE imports; else torch.mm(..., out_dtype=torch.float32) where this torch has it
             (written, not accumulated); else the GEMM with a bf16/fp16 output, said in `method`.
             fp8: torch._scaled_mm on e4m3 operands with per-tensor scales (1.0), A row-major and
             B column-major (the TN form cuBLASLt takes on Hopper); for NN and NT the transposed
             copies are made before timing. Fast accumulation for TN (TE's forward), split for NN
             and NT (TE's backward GEMMs). No batched fp8 GEMM.
  grouped    `groups` GEMMs of one shape (m the rows of one group for TN and NN, k for NT).
             torch._grouped_mm with equal offsets (bf16 in and out, compute capability 9.0/10.0,
             where torch runs its CUTLASS kernel and not its own loop); else TransformerEngine's
             general_grouped_gemm (GroupedLinear's, what Megatron-LM's TEGroupedMLP runs); else a
             loop of `groups` single GEMMs as above between one pair of events.
  attention  TransformerEngine's DotProductAttention (Megatron-LM's core attention) when TE imports,
             [s, b, h, d] tensors; else torch's scaled_dot_product_attention restricted to the
             cuDNN, then the flash backend (memory-efficient for fp32, which those two refuse),
             [b, h, s, d] views of [b, s, h, d] memory, enable_gqa when kv_heads < heads (else the
             key and value heads repeated before timing), the smaller of qk_dim and v_dim
             zero-padded to the larger where the backend refuses them unequal. `strided`: q, k
             and v are views into one [.., heads*qk + kv*qk + kv*v] buffer, as the QKV projection
             writes them; `contiguous`: tensors of their own. Backward: the forward runs before
             the flush, outside the events; torch.autograd.grad of the output with respect to
             q, k and v with a random output gradient is what is timed. No fp8 attention.
  memory     torch.nn.functional.layer_norm / rms_norm (weight, and bias for layernorm) over a
             [elements / h, h] tensor, h the row's `width` (the model's hidden size, which simgpt
             kernels gives; the first file's where several give the shape), else the divisor of
             `elements` nearest 8192. Backward: the
             gradient of the output with respect to the input and the weight (and bias),
             the forward outside the events.

  Timing: --warmup (5) calls, then --reps (20) calls each between two CUDA events; the median, in
  microseconds. `timing: isolated`. Before each call, outside the events: a 256 MiB buffer written
  and then read (the L2 left holding its clean lines, so the call neither finds its operands there
  nor pays for writing back the lines a write-only flush leaves dirty: up to the L2's 50 MB on
  H100/H200, about 12 us at 4 TB/s), then a spin kernel of SLEEP_CYCLES (torch.cuda._sleep) that
  keeps the GPU busy while the host issues the call, so the events time the GPU's work and not
  the host's (a backward through torch.autograd.grad takes the host 50-100 us to issue; the
  spin's cycles are about 0.5 ms at the H200's clocks). --timing back_to_back times GEMMs and grouped GEMMs as a framework's step
  issues them, one after another: --reps calls enqueued between one pair of events with no flush,
  the mean (the kernel and the gap to the next; operands the previous call left in the L2 stay
  there). Attention and norms stay isolated (a backward needs its own forward before each call),
  and the table says so: `timing: {gemm: back_to_back, grouped_gemm: back_to_back, attention:
  isolated, memory: isolated}`. TF32 is off. TE's general_gemm and general_grouped_gemm and
  torch._grouped_mm are checked once against torch.mm on the row's operands (TE's
  DotProductAttention by its output's shape) before they are timed, and passed over when they
  disagree. `method` records the GPU, nvidia-smi's driver, clocks and power limit, the torch,
  CUDA, cuDNN and TE versions, the date, these settings and each kind's implementations. A shape
  no implementation runs (or that runs out of memory) is left out of the table and named on stderr
  and in `method`; the other rows are written.

--timer standin (no GPU, tests): no measurement, a fixed formula, `method` says so:

  gemm, grouped  us = 2 + 2 * count * m * n * k / rate, count `batch` or `groups`, rate in FLOP
                 per us: 5e8 (500 TFLOP/s) for bf16 and fp16, 1e9 for fp8, 5e7 for fp32.
  attention      us = 5 + 2 * batch * seq^2 * heads * (qk_dim + v_dim) * f / 4e8 (400 TFLOP/s),
                 f = 2.5 for backward (1 forward), x 0.5 when causal.
  memory         us = 2 + elements * 4 / 2e6 (4 bytes an element at 2 TB/s), twice the bytes for
                 backward.
"""
import argparse
import collections
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table_file import write_whole  # noqa: E402

PROG = "measure_kernels.py"
KINDS = ("gemm", "grouped_gemm", "attention", "memory")
PRECISIONS = ("fp32", "fp16", "bf16", "fp8")
OUTPUTS = ("fp32", "fp16", "bf16")
LAYOUTS = ("TN", "NN", "NT")
PASSES = ("forward", "backward")
QKV = ("contiguous", "strided")
OPS = ("layernorm", "rmsnorm")
SOURCES = ("table", "interpolated", "fallback")
DIM = "dimension"
BOOL = "boolean"
MAX_DIM = 1e15  # the table reader's bound on a dimension

# Each kind's shape keys, in the order the table's rows give them, with what each holds.
FIELDS = {
    "gemm": (("precision", PRECISIONS), ("layout", LAYOUTS), ("out", OUTPUTS), ("batch", DIM),
             ("m", DIM), ("n", DIM), ("k", DIM)),
    "grouped_gemm": (("precision", PRECISIONS), ("layout", LAYOUTS), ("out", OUTPUTS), ("groups", DIM),
                     ("m", DIM), ("n", DIM), ("k", DIM)),
    "attention": (("precision", PRECISIONS), ("pass", PASSES), ("causal", BOOL), ("qkv", QKV),
                  ("batch", DIM), ("seq", DIM), ("heads", DIM), ("kv_heads", DIM), ("qk_dim", DIM),
                  ("v_dim", DIM)),
    "memory": (("op", OPS), ("precision", PRECISIONS), ("pass", PASSES), ("elements", DIM)),
}
DEFAULTS = {("memory", "pass"): "forward"}  # keys an input row may leave out
INFO_KEYS = ("calls", "source", "us", "width")  # keys of an input row that are not the shape's
GPU_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")  # a catalog name that is a safe file name

FLUSH_BYTES = 256 * 1024 * 1024
SLEEP_CYCLES = 1_000_000  # torch.cuda._sleep's spin before each timed call: longer than the host takes to issue it


class InputError(Exception):
    """Bad input: one line, exit status 2."""


class Unsupported(Exception):
    """A shape this timer cannot run: left out of the table."""


def say(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stderr.flush()


def echo(value, limit=60):
    """A value as it appears in a message: JSON, on one line, cut short."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ----------------------------------------------------------------------------------------------
# Input


def load_json(path):
    def no_constant(name):
        raise ValueError("%s is not a JSON number" % name)

    def unique_keys(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise ValueError("the key %s appears twice in one object" % echo(key))
            seen[key] = value
        return seen

    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise InputError("%s: no such file" % path)
    except IsADirectoryError:
        raise InputError("%s: is a folder, not a file" % path)
    except OSError as e:
        raise InputError("%s: cannot be read (%s)" % (path, e.strerror or e.__class__.__name__))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("%s: not JSON (not UTF-8 text)" % path)
    try:
        return json.loads(text, parse_constant=no_constant, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        raise InputError("%s: not JSON (%s at line %d, column %d)" % (path, e.msg, e.lineno, e.colno))
    except ValueError as e:  # NaN or Infinity, or a key given twice in one object
        raise InputError("%s: %s" % (path, e))
    except RecursionError:
        raise InputError("%s: not JSON (nested too deeply)" % path)


def read_dimension(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError("%s: %s is not a number" % (where, echo(value)))
    if isinstance(value, float):
        if not math.isfinite(value) or value != math.floor(value):
            raise InputError("%s: %s is not a whole number (a table row's dimensions are whole)" % (where, echo(value)))
        value = int(value)
    if value < 1 or value > MAX_DIM:
        raise InputError("%s: %s is out of range [1, %g]" % (where, echo(value), MAX_DIM))
    return value


def read_row(kind, row, where):
    """A row's shape: a tuple of its values in FIELDS order, and its source."""
    if not isinstance(row, dict):
        raise InputError("%s: expected an object, not %s" % (where, echo(row)))
    names = [name for name, _ in FIELDS[kind]]
    for key in row:
        if key not in names and key not in INFO_KEYS:
            raise InputError("%s: unknown key %s (a %s row has %s)"
                             % (where, echo(key), kind, ", ".join(names + list(INFO_KEYS))))
    values = []
    for name, what in FIELDS[kind]:
        at = "%s.%s" % (where, name)
        if name not in row:
            if (kind, name) in DEFAULTS:
                values.append(DEFAULTS[(kind, name)])
                continue
            raise InputError("%s: missing" % at)
        value = row[name]
        if what == DIM:
            values.append(read_dimension(value, at))
        elif what == BOOL:
            if not isinstance(value, bool):
                raise InputError("%s: %s is not true or false" % (at, echo(value)))
            values.append(value)
        else:
            if not isinstance(value, str) or value not in what:
                raise InputError("%s: unknown %s %s (expected one of %s)" % (at, name, echo(value), ", ".join(what)))
            values.append(value)
    shape = dict(zip(names, values))
    if kind == "attention" and shape["heads"] % shape["kv_heads"] != 0:
        raise InputError("%s.kv_heads: %d does not divide heads (%d)" % (where, shape["kv_heads"], shape["heads"]))
    source = row.get("source")
    if source is not None and (not isinstance(source, str) or source not in SOURCES):
        raise InputError("%s.source: unknown source %s (expected one of %s)" % (where, echo(source), ", ".join(SOURCES)))
    if "calls" in row and (isinstance(row["calls"], bool) or not isinstance(row["calls"], (int, float))):
        raise InputError("%s.calls: %s is not a number" % (where, echo(row["calls"])))
    if "us" in row and (isinstance(row["us"], bool) or not isinstance(row["us"], (int, float))):
        raise InputError("%s.us: %s is not a number" % (where, echo(row["us"])))
    width = None
    if "width" in row:
        if kind != "memory":
            raise InputError("%s.width: only a memory row (a norm) has a width" % where)
        width = read_dimension(row["width"], where + ".width")
        if shape["elements"] % width != 0:
            raise InputError("%s.width: %d does not divide elements (%d)" % (where, width, shape["elements"]))
    return tuple(values), source, width


def read_inputs(paths):
    """(gpu, shapes, widths): shapes maps (kind, values) to the set of sources the files give it,
    widths a norm's shape to the row width the first file that gives one gives it."""
    gpu, gpu_file = None, None
    shapes = collections.OrderedDict()
    widths = {}
    for path in paths:
        doc = load_json(path)
        if not isinstance(doc, dict):
            raise InputError("%s: expected a JSON object (simgpt kernels --format json), not %s" % (path, echo(doc, 20)))
        if "gpu" not in doc:
            raise InputError("%s: gpu: missing (the catalog's GPU name, which names the table)" % path)
        name = doc["gpu"]
        if not isinstance(name, str) or not GPU_NAME.match(name):
            raise InputError("%s: gpu: %s is not a GPU name (letters, digits, '.', '_', '+', '-')" % (path, echo(name)))
        if gpu is None:
            gpu, gpu_file = name, path
        elif name != gpu:
            raise InputError("%s: gpu: %s is not the GPU of %s (%s): one table is one GPU's"
                             % (path, echo(name), gpu_file, echo(gpu)))
        if "table" in doc and not isinstance(doc["table"], str):
            raise InputError("%s: table: %s is not a path" % (path, echo(doc["table"])))
        if "kernels" not in doc:
            raise InputError("%s: kernels: missing" % path)
        kernels = doc["kernels"]
        if not isinstance(kernels, dict):
            raise InputError("%s: kernels: expected an object of lists, not %s" % (path, echo(kernels)))
        for kind in kernels:
            if kind not in KINDS:
                raise InputError("%s: kernels.%s: unknown kind (expected %s)" % (path, kind, ", ".join(KINDS)))
        for kind in KINDS:
            rows = kernels.get(kind, [])
            if rows is None:
                rows = []
            if not isinstance(rows, list):
                raise InputError("%s: kernels.%s: expected a list, not %s" % (path, kind, echo(rows)))
            for i, row in enumerate(rows):
                values, source, width = read_row(kind, row, "%s: kernels.%s[%d]" % (path, kind, i))
                shapes.setdefault((kind, values), set()).add(source)
                if width is not None:
                    widths.setdefault((kind, values), width)
    return gpu, shapes, widths


def sort_key(shape):
    kind, values = shape
    return (KINDS.index(kind), tuple((1 if v else 0) if isinstance(v, bool) else v for v in values))


def describe(shape):
    kind, values = shape
    parts = []
    for (name, what), v in zip(FIELDS[kind], values):
        if what == DIM:
            parts.append("%s %d" % (name, v))
        elif what == BOOL:
            parts.append(name if v else "not " + name)
        else:
            parts.append(v)
    return kind + " " + " ".join(parts)


# ----------------------------------------------------------------------------------------------
# Output


def format_us(us):
    if not (isinstance(us, float) or isinstance(us, int)) or not math.isfinite(us) or us <= 0:
        raise ValueError("not a positive time: %r" % (us,))
    text = "%.2f" % us
    return text if float(text) > 0 else "0.01"


def yaml_row(kind, values, us):
    items = []
    for (name, what), v in zip(FIELDS[kind], values):
        if what == BOOL:
            items.append("%s: %s" % (name, "true" if v else "false"))
        else:
            items.append("%s: %s" % (name, v))
    items.append("us: %s" % format_us(us))
    return "  - {" + ", ".join(items) + "}\n"


BACK_TO_BACK_KINDS = ("gemm", "grouped_gemm")  # --timing back_to_back: the kinds timed so


def timing_line(timing):
    if timing == "isolated":
        return "timing: isolated\n"
    return "timing: {%s}\n" % ", ".join("%s: %s" % (kind, "back_to_back" if kind in BACK_TO_BACK_KINDS else "isolated")
                                        for kind in KINDS)


def table_text(gpu, source, method, rows, timing="isolated"):
    """rows: {(kind, values): us}."""
    out = ["gpu: %s\n" % gpu,
           "source: %s\n" % json.dumps(source, ensure_ascii=True),
           "method: %s\n" % json.dumps(method, ensure_ascii=True),
           timing_line(timing)]
    for kind in KINDS:
        mine = sorted((s for s in rows if s[0] == kind), key=sort_key)
        if not mine:
            out.append("%s: []\n" % kind)
            continue
        out.append("%s:\n" % kind)
        for shape in mine:
            out.append(yaml_row(kind, shape[1], rows[shape]))
    return "".join(out)


# ----------------------------------------------------------------------------------------------
# Stand-in timer

STANDIN_RATE = {"fp32": 5e7, "fp16": 5e8, "bf16": 5e8, "fp8": 1e9}  # FLOP per microsecond


class StandinTimer:
    source = "stand-in timer of bench/device/measure_kernels.py, not a measurement"
    method = ("stand-in timer: not a measurement. A fixed formula (bench/device/measure_kernels.py): "
              "gemm and grouped_gemm us = 2 + 2 * count * m * n * k / rate (count batch or groups; rate "
              "5e8 FLOP/us for bf16 and fp16, 1e9 for fp8, 5e7 for fp32); attention us = 5 + 2 * batch * "
              "seq^2 * heads * (qk_dim + v_dim) * (2.5 backward, 1 forward) * (0.5 causal, 1 not) / 4e8; "
              "memory us = 2 + elements * (4 forward, 8 backward) / 2e6")

    def time(self, kind, s):
        if kind in ("gemm", "grouped_gemm"):
            count = s["batch"] if kind == "gemm" else s["groups"]
            return 2.0 + 2.0 * count * s["m"] * s["n"] * s["k"] / STANDIN_RATE[s["precision"]]
        if kind == "attention":
            flops = 2.0 * s["batch"] * s["seq"] ** 2 * s["heads"] * (s["qk_dim"] + s["v_dim"])
            flops *= 2.5 if s["pass"] == "backward" else 1.0
            flops *= 0.5 if s["causal"] else 1.0
            return 5.0 + flops / 4e8
        return 2.0 + s["elements"] * (8.0 if s["pass"] == "backward" else 4.0) / 2e6

    def finish(self, skipped):
        return self.source, self.method


# ----------------------------------------------------------------------------------------------
# Torch timer


def nvidia_smi(index_uuid):
    """The GPU's driver, clocks and power limit as nvidia-smi reports them, or why not."""
    fields = "uuid,name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, universal_newlines=True)
    except Exception as e:  # noqa: BLE001 - absent, hung or refused: the table says so
        return "nvidia-smi not available (%s)" % e.__class__.__name__
    if out.returncode != 0:
        return "nvidia-smi failed (exit status %d)" % out.returncode
    lines = [l.split(", ") for l in out.stdout.strip().splitlines() if l.strip()]
    lines = [l for l in lines if len(l) == 8]
    if not lines:
        return "nvidia-smi gave nothing"
    mine = [l for l in lines if index_uuid and l[0].lower().endswith(index_uuid.lower())]
    which = ""
    if not mine:
        mine = lines
        which = " (the first GPU it lists; this one's UUID was not found)" if len(lines) > 1 else ""
    u, name, driver, sm, sm_max, mem, mem_max, power = mine[0]
    return ("nvidia-smi%s: driver %s, SM clock %s (max %s), memory clock %s (max %s), power limit %s"
            % (which, driver, sm, sm_max, mem, mem_max, power))


def nearest_divisor(n, target):
    """The divisor of n nearest target in ratio (the smaller on a tie)."""
    best = None
    d = 1
    while d * d <= n:
        if n % d == 0:
            for c in (d, n // d):
                key = (abs(math.log(c / target)), c)
                if best is None or key < best:
                    best = key
        d += 1
    return best[1]


class TorchTimer:
    def __init__(self, warmup, reps, timing="isolated"):
        try:
            import torch
        except Exception as e:  # noqa: BLE001
            raise InputError("--timer torch needs PyTorch (import torch failed: %s); --timer standin "
                             "needs nothing" % e.__class__.__name__)
        if not torch.cuda.is_available():
            raise InputError("--timer torch needs a CUDA GPU (torch.cuda.is_available() is False)")
        self.torch = torch
        self.F = torch.nn.functional
        self.warmup, self.reps, self.timing = warmup, reps, timing
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.dev = torch.device("cuda")
        self.props = torch.cuda.get_device_properties(self.dev)
        self.cc = (self.props.major, self.props.minor)
        self.dtypes = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
        self.te, self.te_version, self.te_error = None, None, None
        try:
            import transformer_engine
            import transformer_engine.pytorch as te
            self.te = te
            self.te_version = getattr(transformer_engine, "__version__", "unknown version")
        except Exception as e:  # noqa: BLE001 - not installed, or installed but broken
            self.te_error = e.__class__.__name__
        self.flush_buffer = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=self.dev)
        self.sleep = getattr(torch.cuda, "_sleep", None)
        self.used = {kind: collections.Counter() for kind in KINDS}
        self.notes = collections.OrderedDict()  # what a reader of `method` must know, once each
        self.probed = {}
        self.started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        uuid = str(getattr(self.props, "uuid", "") or "")
        self.smi = nvidia_smi(uuid)
        say("timing on %s (compute capability %d.%d, %d SMs), torch %s, TransformerEngine %s"
            % (self.props.name, self.cc[0], self.cc[1], self.props.multi_processor_count, torch.__version__,
               self.te_version or "not importable"))

    # -- helpers

    def note(self, text):
        self.notes[text] = True

    def randn(self, shape, precision):
        return self.torch.randn(*shape, device=self.dev, dtype=self.dtypes[precision])

    def time_us(self, run, prepare=None, back_to_back=False):
        """Median time in us of `run(prepare())` between two CUDA events, the L2 flushed before each
        (after `prepare`, outside the events); back_to_back (no `prepare`): the mean of --reps calls
        enqueued between one pair of events, no flush."""
        torch = self.torch
        for _ in range(self.warmup):
            run(prepare() if prepare else None)
        torch.cuda.synchronize()
        if back_to_back:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(self.reps):
                run(None)
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end) * 1000.0 / self.reps
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        for i in range(self.reps):
            state = prepare() if prepare else None
            self.flush_l2()
            if self.sleep is not None:
                self.sleep(SLEEP_CYCLES)
            starts[i].record()
            run(state)
            ends[i].record()
            del state
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1000.0

    def flush_l2(self):
        """Evicts what the L2 holds and leaves it clean: a write of the buffer, then a read."""
        self.flush_buffer.zero_()
        self.flush_buffer.sum(dtype=self.torch.int64)

    def agrees(self, got, ref):
        got, ref = got.float(), ref.float()
        if tuple(got.shape) != tuple(ref.shape):
            return False
        scale = ref.abs().max().item() or 1.0
        return (got - ref).abs().max().item() <= 0.02 * scale

    def probe(self, name, fn):
        """Whether `fn` runs on this torch (cached): for keyword arguments older versions lack."""
        if name not in self.probed:
            try:
                fn()
                self.probed[name] = True
            except (TypeError, RuntimeError, AttributeError, NotImplementedError):
                self.probed[name] = False
        return self.probed[name]

    # -- GEMM

    def raw_operands(self, layout, batch, m, n, k, precision):
        """(p, q) as the framework holds them; the product is op(p) @ op(q) = C[m, n] (`ops`)."""
        lead = (batch,) if batch > 1 else ()
        if layout == "TN":    # x [m, k] (tokens, in), w [n, k] (out, in)
            return self.randn(lead + (m, k), precision), self.randn(lead + (n, k), precision)
        if layout == "NN":    # dy [m, k] (tokens, out), w [k, n] (out, in)
            return self.randn(lead + (m, k), precision), self.randn(lead + (k, n), precision)
        # NT: dy [k, m] (tokens, out), x [k, n] (tokens, in)
        return self.randn(lead + (k, m), precision), self.randn(lead + (k, n), precision)

    @staticmethod
    def ops(layout, p, q):
        if layout == "TN":
            return p, q.transpose(-2, -1)
        if layout == "NN":
            return p, q
        return p.transpose(-2, -1), q

    def build_gemm(self, precision, layout, out, batch, m, n, k, check=True):
        """(run, implementation): run() launches the GEMM once on operands made here."""
        torch = self.torch
        if precision == "fp8":
            return self.build_fp8_gemm(layout, out, batch, m, n, k)
        if out != precision and not (out == "fp32" and precision in ("bf16", "fp16")):
            raise Unsupported("%s operands with a %s output" % (precision, out))
        p, q = self.raw_operands(layout, batch, m, n, k, precision)
        a, b = self.ops(layout, p, q)
        mm = torch.bmm if batch > 1 else torch.mm
        lead = (batch,) if batch > 1 else ()
        if out == precision:
            c = torch.empty(*(lead + (m, n)), device=self.dev, dtype=self.dtypes[out])
            return (lambda _: mm(a, b, out=c)), "torch.%s" % mm.__name__
        # fp32 output of bf16/fp16 operands: the weight gradient into an fp32 main_grad.
        c32 = torch.zeros(*(lead + (m, n)), device=self.dev, dtype=torch.float32)
        if self.te is not None and batch == 1:
            run = self.te_gemm_accumulate(layout, p, q, c32, a, b, check)
            if run is not None:
                return run, "TransformerEngine general_gemm accumulating into fp32"
        if self.probe("%s out_dtype" % mm.__name__, lambda: mm(a[..., :8, :8], b[..., :8, :8], out_dtype=torch.float32)):
            self.note("out fp32 without TransformerEngine: torch.%s(..., out_dtype=torch.float32) writes the fp32 "
                      "result (no accumulation into it)" % mm.__name__)
            return (lambda _: mm(a, b, out_dtype=torch.float32)), "torch.%s out_dtype=float32" % mm.__name__
        self.note("out fp32 timed with a %s output: neither TransformerEngine nor torch's out_dtype is available"
                  % precision)
        c = torch.empty(*(lead + (m, n)), device=self.dev, dtype=self.dtypes[precision])
        return (lambda _: mm(a, b, out=c)), "torch.%s with a %s output (fp32 output unavailable)" % (mm.__name__, precision)

    def te_gemm_accumulate(self, layout, p, q, c32, a, b, check):
        """TE's general_gemm(A, B, layout) computes op(B) op(A): A is q, B is p (TE's Linear passes
        (weight, input) TN, (weight, grad_output) NN, (input, grad_output) NT)."""
        try:
            from transformer_engine.pytorch.cpp_extensions import general_gemm
            from transformer_engine.pytorch.module.base import get_workspace
            workspace = get_workspace()

            def call(accumulate):
                return general_gemm(q, p, workspace, out_dtype=self.torch.float32, accumulate=accumulate,
                                    layout=layout, out=c32, grad=layout != "TN")

            if check:
                c32.zero_()
                call(False)
                if not self.agrees(c32, self.torch.mm(a, b).float()):
                    self.note("TransformerEngine's general_gemm disagreed with torch.mm on a %s GEMM and was passed "
                              "over" % layout)
                    return None
                c32.zero_()
            return lambda _: call(True)
        except Exception as e:  # noqa: BLE001 - an API this TE lacks: the next implementation
            self.note("TransformerEngine's general_gemm failed (%s); torch was used" % e.__class__.__name__)
            return None

    def build_fp8_gemm(self, layout, out, batch, m, n, k):
        torch = self.torch
        if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            raise Unsupported("this torch has no torch._scaled_mm / float8_e4m3fn")
        if batch > 1:
            raise Unsupported("batched fp8 GEMM")
        p, q = self.raw_operands(layout, 1, m, n, k, "bf16")
        a, b = self.ops(layout, p, q)
        e4m3 = torch.float8_e4m3fn
        # A row-major, B column-major: copies made here, before timing (TE keeps transposed copies).
        a8 = a.to(e4m3)
        a8 = a8 if a8.stride(-1) == 1 else a8.contiguous()
        b8 = b.to(e4m3)
        b8 = b8 if b8.stride(-2) == 1 else b8.transpose(-2, -1).contiguous().transpose(-2, -1)
        del p, q, a, b
        one = torch.tensor(1.0, device=self.dev, dtype=torch.float32)
        fast = layout == "TN"  # TE: split accumulation for dgrad and wgrad, fast for fprop
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[out]

        def run(_):
            r = torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=dtype, use_fast_accum=fast)
            return r[0] if isinstance(r, tuple) else r

        try:
            run(None)
        except Exception as e:  # noqa: BLE001
            raise Unsupported("torch._scaled_mm refused it (%s: %s)"
                              % (e.__class__.__name__, str(e).split("\n")[0][:120])) from None
        if layout != "TN":
            self.note("fp8 NN/NT: operands copied to the TN form (A row-major, B column-major) before timing")
        return run, "torch._scaled_mm (e4m3, per-tensor scales, %s accumulation)" % ("fast" if fast else "split")

    def build_grouped(self, precision, layout, out, groups, m, n, k):
        torch = self.torch
        if (precision == "bf16" and out == "bf16" and hasattr(torch, "_grouped_mm")
                and self.cc in ((9, 0), (10, 0))):
            run = self.grouped_mm(layout, groups, m, n, k)
            if run is not None:
                return run, "torch._grouped_mm"
        if self.te is not None and precision in ("bf16", "fp16"):
            run = self.te_grouped(precision, layout, out, groups, m, n, k)
            if run is not None:
                return run, "TransformerEngine general_grouped_gemm"
        runs = [self.build_gemm(precision, layout, out, 1, m, n, k, check=(g == 0)) for g in range(groups)]
        calls = [r for r, _ in runs]

        def loop(_):
            for r in calls:
                r(None)

        return loop, "a loop of single GEMMs (%s)" % runs[0][1]

    def grouped_mm(self, layout, groups, m, n, k):
        torch = self.torch
        try:
            if layout == "TN":    # x [g*m, k] @ w[g, n, k]^T
                rows = m
                a = self.randn((groups * m, k), "bf16")
                w = self.randn((groups, n, k), "bf16")
                b = w.transpose(-2, -1)
                ref = lambda: torch.mm(a[:m], b[0])
            elif layout == "NN":  # dy [g*m, k] @ w[g, k, n]
                rows = m
                a = self.randn((groups * m, k), "bf16")
                b = self.randn((groups, k, n), "bf16")
                ref = lambda: torch.mm(a[:m], b[0])
            else:                 # dw[g] = dy_g^T [m, k] @ x_g [k, n], the offsets along k
                rows = k
                dy = self.randn((groups * k, m), "bf16")
                a = dy.t()
                b = self.randn((groups * k, n), "bf16")
                ref = lambda: torch.mm(a[:, :k], b[:k])
            offs = torch.arange(1, groups + 1, device=self.dev, dtype=torch.int32) * rows

            def run(_):
                return torch._grouped_mm(a, b, offs=offs)

            got = run(None)
            first = got[:m] if layout != "NT" else got[0]
            if not self.agrees(first, ref()):
                self.note("torch._grouped_mm disagreed with torch.mm on a %s grouped GEMM and was passed over" % layout)
                return None
            return run
        except Exception as e:  # noqa: BLE001 - strides or sizes it refuses: the next implementation
            self.note("torch._grouped_mm refused a %s shape (%s); the next implementation was used"
                      % (layout, e.__class__.__name__))
            return None

    def te_grouped(self, precision, layout, out, groups, m, n, k):
        torch = self.torch
        try:
            from transformer_engine.pytorch.cpp_extensions import general_grouped_gemm
            from transformer_engine.pytorch.module.base import get_multi_stream_cublas_workspace
            workspace = get_multi_stream_cublas_workspace()
            # As GroupedLinear passes them: TN (weights, inputs), NN (weights, grad outputs),
            # NT (inputs, grad outputs), each a list of one tensor a group; outputs one a group.
            pairs = [self.raw_operands(layout, 1, m, n, k, precision) for _ in range(groups)]
            A = [q for _, q in pairs]
            B = [p for p, _ in pairs]
            splits = [m if layout != "NT" else k] * groups
            dtype = self.dtypes[out]
            outs = [torch.zeros(m, n, device=self.dev, dtype=dtype) for _ in range(groups)]
            accumulate = out == "fp32" and precision != "fp32"

            def call(acc):
                general_grouped_gemm(A, B, outs, dtype, workspace, layout=layout, m_splits=splits,
                                     grad=layout != "TN", accumulate=acc)

            call(False)
            ref = torch.mm(*self.ops(layout, pairs[0][0], pairs[0][1])).float()
            if not self.agrees(outs[0], ref):
                self.note("TransformerEngine's general_grouped_gemm disagreed with torch.mm and was passed over")
                return None
            return lambda _: call(accumulate)
        except Exception as e:  # noqa: BLE001
            self.note("TransformerEngine's general_grouped_gemm failed (%s); a loop was used" % e.__class__.__name__)
            return None

    # -- attention

    def qkv_tensors(self, layout_sbhd, qkv, precision, batch, seq, heads, kv, qk, v):
        """q, k, v as [s, b, h, d] (TE's sbhd) or [b, h, s, d] views of [b, s, h, d] memory (SDPA),
        made leaves that autograd differentiates: views of one buffer when `strided`."""
        outer = (seq, batch) if layout_sbhd else (batch, seq)
        widths = (heads * qk, kv * qk, kv * v)
        if qkv == "strided":
            buf = self.randn(outer + (sum(widths),), precision).requires_grad_(True)
            parts = buf.split(widths, dim=-1)
        else:
            buf = None
            parts = [self.randn(outer + (w,), precision).requires_grad_(True) for w in widths]
        q = parts[0].view(outer + (heads, qk))
        k = parts[1].view(outer + (kv, qk))
        vv = parts[2].view(outer + (kv, v))
        if not layout_sbhd:
            q, k, vv = (t.transpose(1, 2) for t in (q, k, vv))
        return buf, parts, q, k, vv

    def build_attention(self, s):
        precision = s["precision"]
        if precision == "fp8":
            raise Unsupported("fp8 attention")
        backward = s["pass"] == "backward"
        if self.te is not None and precision in ("bf16", "fp16"):
            built = self.te_attention(s, backward)
            if built is not None:
                return built
        return self.sdpa_attention(s, backward)

    def te_attention(self, s, backward):
        torch = self.torch
        b, seq, h, kv, qk, v = s["batch"], s["seq"], s["heads"], s["kv_heads"], s["qk_dim"], s["v_dim"]
        try:
            dpa = self.te.DotProductAttention(
                num_attention_heads=h, kv_channels=qk if qk == v else (qk, v), num_gqa_groups=kv,
                attention_dropout=0.0, qkv_format="sbhd", attn_mask_type="causal" if s["causal"] else "no_mask")
            _, _, q, k, vv = self.qkv_tensors(True, s["qkv"], s["precision"], b, seq, h, kv, qk, v)
            o = dpa(q, k, vv)
            if tuple(o.shape) != (seq, b, h * v):
                self.note("TransformerEngine's DotProductAttention gave an output of another shape and was passed over")
                return None
            g = torch.randn_like(o)
            if backward:
                torch.autograd.grad(o, (q, k, vv), g)
            del o

            if backward:
                def prepare():
                    return dpa(q, k, vv)

                def run(out):
                    torch.autograd.grad(out, (q, k, vv), g)
                return run, prepare, "TransformerEngine DotProductAttention"
            return (lambda _: dpa(q, k, vv)), None, "TransformerEngine DotProductAttention"
        except Exception as e:  # noqa: BLE001
            self.note("TransformerEngine's DotProductAttention failed on a shape (%s); torch SDPA was used"
                      % e.__class__.__name__)
            return None

    def sdpa_attention(self, s, backward):
        torch, F = self.torch, self.F
        try:
            from torch.nn.attention import sdpa_kernel, SDPBackend
        except ImportError:
            raise Unsupported("this torch has no torch.nn.attention.sdpa_kernel")
        b, seq, h, kv, qk, v = s["batch"], s["seq"], s["heads"], s["kv_heads"], s["qk_dim"], s["v_dim"]
        if s["precision"] == "fp32":
            backends = [("memory-efficient", getattr(SDPBackend, "EFFICIENT_ATTENTION", None))]
            self.note("fp32 attention: SDPA's memory-efficient backend (flash and cuDNN take fp16/bf16 only)")
        else:
            backends = [("cuDNN", getattr(SDPBackend, "CUDNN_ATTENTION", None)),
                        ("flash", getattr(SDPBackend, "FLASH_ATTENTION", None))]
        backends = [(name, be) for name, be in backends if be is not None]
        _, _, q0, k0, v0 = self.qkv_tensors(False, s["qkv"], s["precision"], b, seq, h, kv, qk, v)
        scale = 1.0 / math.sqrt(qk)
        causal = s["causal"]
        errors = []
        # Ways to present the inputs, tried in order: as they are (GQA by enable_gqa), key and
        # value heads repeated, the head dimensions padded to equal.
        forms = [("", False, False), ("kv heads repeated", True, False), ("head dims padded", False, True),
                 ("kv heads repeated, head dims padded", True, True)]
        if kv == h:
            forms = [f for f in forms if not f[1]]
        if qk == v:
            forms = [f for f in forms if not f[2]]
        for name, backend in backends:
            for form, repeat, pad in forms:
                def inputs(repeat=repeat, pad=pad):
                    q, k, vv = q0, k0, v0
                    if repeat:
                        k, vv = (t.repeat_interleave(h // kv, dim=1) for t in (k, vv))
                    if pad:
                        width = max(qk, v)
                        q, k, vv = (F.pad(t, (0, width - t.shape[-1])) if t.shape[-1] < width else t
                                    for t in (q, k, vv))
                    return q, k, vv

                gqa = kv < h and not repeat

                def forward(q, k, vv, backend=backend, gqa=gqa):
                    extra = {"enable_gqa": True} if gqa else {}
                    with sdpa_kernel([backend]):
                        return F.scaled_dot_product_attention(q, k, vv, is_causal=causal, scale=scale, **extra)

                try:
                    q, k, vv = inputs()
                    o = forward(q, k, vv)
                    g = torch.randn_like(o)
                    if backward:
                        torch.autograd.grad(o, (q, k, vv), g)
                    del o
                except Exception as e:  # noqa: BLE001 - this backend or form refuses it: the next
                    errors.append("%s%s: %s" % (name, " (" + form + ")" if form else "", e.__class__.__name__))
                    continue
                impl = "torch SDPA %s backend%s" % (name, ", " + form if form else "")
                if form:
                    self.note("attention: %s where the backend refused the shape as it is (before timing, "
                              "outside the events)" % form)
                if backward:
                    def prepare(q=q, k=k, vv=vv, forward=forward):
                        return forward(q, k, vv)

                    def run(o, q=q, k=k, vv=vv, g=g):
                        torch.autograd.grad(o, (q, k, vv), g)
                    return run, prepare, impl
                return (lambda _, q=q, k=k, vv=vv, forward=forward: forward(q, k, vv)), None, impl
        raise Unsupported("no SDPA backend ran it (%s)" % "; ".join(errors[-4:]))

    # -- memory

    def build_memory(self, s):
        torch, F = self.torch, self.F
        precision = s["precision"]
        if precision == "fp8":
            raise Unsupported("an fp8 norm")
        elements = s["elements"]
        if "width" in s:
            hidden = s["width"]
        else:
            hidden = nearest_divisor(elements, 8192)
            self.note("memory: a row without a width: a [elements / h, h] tensor with h the divisor of elements "
                      "nearest 8192")
        rows = elements // hidden
        backward = s["pass"] == "backward"
        x = self.randn((rows, hidden), precision).requires_grad_(backward)
        w = torch.ones(hidden, device=self.dev, dtype=self.dtypes[precision], requires_grad=backward)
        if s["op"] == "layernorm":
            bias = torch.zeros(hidden, device=self.dev, dtype=self.dtypes[precision], requires_grad=backward)
            params = (x, w, bias)
            norm = lambda: F.layer_norm(x, (hidden,), w, bias, 1e-5)
            impl = "torch.nn.functional.layer_norm"
        else:
            if not hasattr(F, "rms_norm"):
                raise Unsupported("this torch has no torch.nn.functional.rms_norm")
            params = (x, w)
            norm = lambda: F.rms_norm(x, (hidden,), w, 1e-5)
            impl = "torch.nn.functional.rms_norm"
        if backward:
            y = norm()
            g = torch.randn_like(y)
            del y

            def run(out):
                torch.autograd.grad(out, params, g)
            return run, (lambda: norm()), impl + " backward"

        def forward(_):
            with torch.no_grad():
                norm()
        return forward, None, impl

    # -- one shape

    def time(self, kind, s):
        torch = self.torch
        try:
            prepare = None
            if kind == "gemm":
                run, impl = self.build_gemm(s["precision"], s["layout"], s["out"], s["batch"], s["m"], s["n"], s["k"])
            elif kind == "grouped_gemm":
                run, impl = self.build_grouped(s["precision"], s["layout"], s["out"], s["groups"], s["m"], s["n"], s["k"])
            elif kind == "attention":
                run, prepare, impl = self.build_attention(s)
            else:
                run, prepare, impl = self.build_memory(s)
            us = self.time_us(run, prepare, self.timing == "back_to_back" and kind in BACK_TO_BACK_KINDS)
            self.used[kind][impl] += 1
            return us
        except Unsupported:
            raise
        except Exception as e:  # noqa: BLE001 - out of memory or a kernel's refusal: leave the shape out
            oom = getattr(torch.cuda, "OutOfMemoryError", None)
            if oom is not None and isinstance(e, oom):
                raise Unsupported("out of GPU memory") from None
            raise Unsupported("%s: %s" % (e.__class__.__name__, str(e).split("\n")[0][:160])) from None
        finally:
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception:  # noqa: BLE001 - a failed kernel's error surfaces again here; reported above
                pass

    def finish(self, skipped):
        torch = self.torch
        p = self.props
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        settings = ("CUDA events around each call; %d warm-up calls, then the median of %d timed calls, each after "
                    "a %d MiB buffer is written and then read to flush the L2 and %s (outside the events); TF32 off; "
                    "operands randn; attention dropout 0"
                    % (self.warmup, self.reps, FLUSH_BYTES >> 20,
                       "a torch.cuda._sleep(%d) spin keeps the GPU busy while the host issues the call" % SLEEP_CYCLES
                       if self.sleep is not None else "no spin (this torch has no torch.cuda._sleep: the host's time "
                       "to issue a call may be timed too)"))
        if self.timing == "back_to_back":
            settings = ("GEMMs and grouped GEMMs back to back: %d warm-up calls, then %d calls enqueued between one "
                        "pair of CUDA events with no L2 flush, the mean a call; attention and norms: %s"
                        % (self.warmup, self.reps, settings))
        env = ("%s, compute capability %d.%d, %d SMs, %d MiB; %s; torch %s (CUDA %s, cuDNN %s); TransformerEngine %s; "
               "Python %s; started %s"
               % (p.name, p.major, p.minor, p.multi_processor_count, p.total_memory >> 20, self.smi,
                  torch.__version__, torch.version.cuda, cudnn,
                  self.te_version or ("not importable (%s)" % self.te_error), sys.version.split()[0], self.started))
        used = []
        for kind in KINDS:
            if self.used[kind]:
                used.append("%s: %s" % (kind, ", ".join("%s (%d)" % (impl, n) for impl, n in sorted(self.used[kind].items()))))
        text = "bench/device/measure_kernels.py --timer torch on %s. %s. Implementations (rows): %s." % (
            env, settings, "; ".join(used) if used else "none")
        if self.notes:
            text += " Notes: " + "; ".join(self.notes) + "."
        if skipped:
            text += " Not measured (left out of the table): " + "; ".join(skipped) + "."
        return "measured by bench/device/measure_kernels.py on %s" % p.name, text


# ----------------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit status 2, as for bad input
        say("%s (see --help)" % message.replace("\n", " "))
        sys.exit(2)


def positive_int(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%s is not a whole number" % echo(text))
        if value < minimum:
            raise argparse.ArgumentTypeError("%d is below %d" % (value, minimum))
        return value
    return parse


def main(argv):
    parser = Parser(prog=PROG, description="Time the kernel shapes `simgpt kernels --format json` lists and write "
                    "DIR/platforms/kernels/<gpu>.yaml.", epilog="See the top of this file for what each timer does.")
    parser.add_argument("shapes", nargs="+", metavar="SHAPES.json", help="JSON from simgpt kernels --format json")
    parser.add_argument("--out", required=True, metavar="DIR", help="the data folder the table is written under")
    parser.add_argument("--timer", choices=("torch", "standin"), default="torch",
                        help="torch: time on the CUDA GPU (default); standin: a fixed formula, not a measurement")
    parser.add_argument("--only-missing", action="store_true", help="skip shapes whose source is table")
    parser.add_argument("--reps", type=positive_int(1), default=20, help="timed calls a shape (default 20)")
    parser.add_argument("--warmup", type=positive_int(0), default=5, help="warm-up calls a shape (default 5)")
    parser.add_argument("--timing", choices=("isolated", "back_to_back"), default="isolated",
                        help="isolated: each call alone, the L2 flushed (default); back_to_back: GEMMs and grouped "
                        "GEMMs as calls one after another, the mean")
    args = parser.parse_args(argv)

    gpu, shapes, widths = read_inputs(args.shapes)
    order = sorted(shapes, key=sort_key)
    wanted = [s for s in order if not (args.only_missing and shapes[s] == {"table"})]
    if args.only_missing:
        say("%d of %d shapes come from a table and are skipped (--only-missing)" % (len(order) - len(wanted), len(order)))
    if not wanted:
        say("nothing to measure: no file written")
        return 0

    timer = StandinTimer() if args.timer == "standin" else TorchTimer(args.warmup, args.reps, args.timing)
    folder = os.path.join(args.out, "platforms", "kernels")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise InputError("--out %s: cannot make %s (%s)" % (args.out, folder, e.strerror or e.__class__.__name__))
    if not os.access(folder, os.W_OK):
        raise InputError("--out %s: %s is not writable" % (args.out, folder))
    path = os.path.join(folder, gpu + ".yaml")

    rows, skipped = {}, []
    for i, shape in enumerate(wanted, 1):
        kind, values = shape
        named = dict(zip([name for name, _ in FIELDS[kind]], values))
        if shape in widths:
            named["width"] = widths[shape]
        try:
            us = timer.time(kind, named)
            format_us(us)
        except Unsupported as e:
            skipped.append("%s (%s)" % (describe(shape), e))
            say("shape %d of %d: %s: not measured (%s)" % (i, len(wanted), describe(shape), e))
            continue
        rows[shape] = us
        say("shape %d of %d: %s: %s us" % (i, len(wanted), describe(shape), format_us(us)))
    if not rows:
        say("no shape could be measured: no file written")
        return 1
    source, method = timer.finish(skipped)
    write_whole(path, table_text(gpu, source, method, rows, args.timing))
    say("wrote %s: %d rows%s" % (path, len(rows), ", %d shapes not measured" % len(skipped) if skipped else ""))
    print(path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        say(str(e))
        sys.exit(2)
    except KeyboardInterrupt:
        say("interrupted: no file written")
        sys.exit(130)
