#!/usr/bin/env python3
"""Times NCCL's collectives over this node's GPUs through torch.distributed and writes them as the
measured lines of a kernel table (platforms/kernels/README.md, "collectives") that simgpt reads
from a `--data DIR` folder.

    torchrun --nproc_per_node N bench/device/measure_collectives.py --gpu GPU --out DIR
             [--ops all_gather,reduce_scatter,all_reduce,all_to_all] [--from 1MiB] [--to 1GiB]
             [--warmup 5] [--reps 20]
    bench/device/measure_collectives.py --gpu GPU --out DIR --timer standin --ranks N   (no GPU: tests)
    simgpt --data KERNELS_DIR --data DIR ...   # DIR's lines price collectives over N of GPU on one node

GPU is the catalog's name of the node's GPUs (platforms/gpus.yaml), which names the table. DIR is a
folder of its own: the table written there holds collectives only, and a table of kernel rows
(bench/device/measure_kernels.py's) lives in another `--data` folder, both layered over the
built-in one. A run at N GPUs adds or replaces the rows of N ranks in DIR's table and keeps those
of other rank counts, so one folder can hold the lines of 2, 4 and 8 GPUs.

--timer torch (the default; under torchrun, N processes on one node, one GPU each): each op, in
bf16, at every power of two from --from to --to bytes of buffer (the all-gather's output, the
reduce-scatter's input, the all-reduce's and all-to-all's buffer): --warmup calls, then --reps
calls each between two CUDA events after a barrier, the median per rank, the slowest rank's
median the size's time. The calls go through torch.distributed (all_gather_into_tensor,
reduce_scatter_tensor, all_reduce, all_to_all_single) as a framework makes them, so each time
includes what a call costs the host.

--timer standin (no GPU, tests): no measurement, a fixed formula, `method` says so:
    us = 20 + steps x 5 + carried bytes / 5e5 (500 GB/s), steps and carried bytes a ring's.

Each op's times are fitted with a straight line against the bytes each rank's link carries (a
ring's: (n - 1) / n of the buffer, twice for all-reduce), least squares over the sizes: the slope
gives `bus_GBps`; the intercept, spread over the ring's steps (n - 1, twice for all-reduce), gives
`step_us` (0 where the fit's intercept is negative), and `call_us` is 0 (the calls were timed
through torch.distributed, so the intercept holds the call). `from_bytes` is --from: simgpt uses
a row for buffers at least that large. Output: DIR/platforms/kernels/<GPU>.yaml, written whole
(a temporary file renamed over it) or not at all, its path on stdout, progress on stderr. Bad
input (a GPU name that is not a plain file name, sizes out of order, fewer than 3 sizes, an
unknown op, a table in DIR with kernel rows or not of this script's form) is refused before
anything is measured, with one line on stderr and exit status 2.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table_file import write_whole  # noqa: E402

PROG = "measure_collectives.py"
OPS = ("all_gather", "reduce_scatter", "all_reduce", "all_to_all")
GPU_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
ROW = re.compile(r"^  - \{op: (\w+), fabric: nvlink, ranks: (\d+), bus_GBps: ([0-9.e+-]+), step_us: ([0-9.e+-]+), "
                 r"call_us: ([0-9.e+-]+), from_bytes: (\d+)\}$")
UNITS = {"": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


class InputError(Exception):
    """Bad input: one line, exit status 2."""


def say(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stderr.flush()


def steps_and_carried(op, n):
    """A ring's steps and the fraction of the buffer each rank's link carries."""
    twice = 2 if op == "all_reduce" else 1
    return twice * (n - 1), twice * (n - 1) / n


def fit_line(points):
    """Least squares t = a + b x over (x, t): (intercept, slope)."""
    xs, ts = [p[0] for p in points], [p[1] for p in points]
    mx, mt = statistics.fmean(xs), statistics.fmean(ts)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (t - mt) for x, t in zip(xs, ts)) / sxx
    return mt - slope * mx, slope


def line_row(op, n, sizes, times_us, from_bytes):
    steps, carried = steps_and_carried(op, n)
    intercept, slope = fit_line([(carried * s, t) for s, t in zip(sizes, times_us)])
    if not slope > 0:
        raise RuntimeError("%s over %d GPUs: the times do not grow with the size (slope %g us a byte)" % (op, n, slope))
    return {"op": op, "fabric": "nvlink", "ranks": n, "bus_GBps": round(1e-3 / slope, 2),
            "step_us": round(max(intercept, 0.0) / steps, 4), "call_us": 0.0, "from_bytes": from_bytes}


def row_text(r):
    return ("  - {op: %s, fabric: nvlink, ranks: %d, bus_GBps: %s, step_us: %s, call_us: %s, from_bytes: %d}\n"
            % (r["op"], r["ranks"], r["bus_GBps"], r["step_us"], r["call_us"], r["from_bytes"]))


def read_earlier(path, gpu):
    """The collectives rows and the method of an earlier run's table at `path` (none when missing)."""
    if not os.path.exists(path):
        return {}, ""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("%s: cannot read it (%s)" % (path, getattr(e, "strerror", None) or e.__class__.__name__))
    rows, in_rows, method = {}, False, ""
    for i, line in enumerate(lines, 1):
        if line.startswith("method: ") and not in_rows:
            try:
                method = json.loads(line[len("method: "):])
            except ValueError:
                raise InputError("%s:%d: not a table of collectives this script wrote" % (path, i))
        if line == "collectives:":
            in_rows = True
            continue
        match = ROW.match(line) if in_rows else None
        if match:
            op, ranks, bus, step, call, start = match.groups()
            rows[(op, int(ranks))] = {"op": op, "fabric": "nvlink", "ranks": int(ranks), "bus_GBps": float(bus),
                                      "step_us": float(step), "call_us": float(call), "from_bytes": int(start)}
        elif not (line.startswith(("gpu: ", "source: ", "method: ", "timing: ")) and not in_rows):
            raise InputError("%s:%d: not a table of collectives this script wrote (a table of kernel rows belongs "
                             "in a --data folder of its own)" % (path, i))
    if not any(line == "gpu: %s" % gpu for line in lines):
        raise InputError("%s: not a table of %s" % (path, gpu))
    return rows, method if isinstance(method, str) else ""


def table_text(gpu, method, rows):
    out = ["gpu: %s\n" % gpu,
           "source: %s\n" % json.dumps("bench/device/measure_collectives.py on this node", ensure_ascii=True),
           "method: %s\n" % json.dumps(method, ensure_ascii=True),
           "timing: isolated\n",
           "collectives:\n"]
    for key in sorted(rows, key=lambda k: (OPS.index(k[0]), k[1])):
        out.append(row_text(rows[key]))
    return "".join(out)


class StandinTimer:
    def __init__(self, ranks):
        self.ranks, self.rank = ranks, 0

    def time_us(self, op, size):
        steps, carried = steps_and_carried(op, self.ranks)
        return 20 + steps * 5 + carried * size / 5e5

    def method(self, args):
        return ("%d GPUs, stand-in timer: not a measurement. A fixed formula (bench/device/measure_collectives.py): "
                "us = 20 + steps x 5 + carried bytes / 5e5, fitted as a measurement would be" % self.ranks)

    def finish(self):
        pass


class TorchTimer:
    def __init__(self, warmup, reps):
        try:
            import torch
            import torch.distributed as dist
        except ImportError as e:
            raise InputError("--timer torch needs PyTorch (import failed: %s); --timer standin runs without it" % e)
        if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
            raise InputError("--timer torch runs under torchrun (no RANK / WORLD_SIZE in the environment): "
                             "torchrun --nproc_per_node N %s ..." % PROG)
        self.torch, self.dist, self.warmup, self.reps = torch, dist, warmup, reps
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group("nccl")
        self.ranks, self.rank = dist.get_world_size(), dist.get_rank()

    def time_us(self, op, size):
        torch, dist, n = self.torch, self.dist, self.ranks
        elements = max(n, size // 2 // n * n)  # bf16, a whole number of shards
        big = torch.randn(elements, device="cuda", dtype=torch.bfloat16)
        small = torch.randn(elements // n, device="cuda", dtype=torch.bfloat16)
        out = torch.empty_like(big)
        call = {"all_gather": lambda: dist.all_gather_into_tensor(big, small),
                "reduce_scatter": lambda: dist.reduce_scatter_tensor(small, big),
                "all_reduce": lambda: dist.all_reduce(big),
                "all_to_all": lambda: dist.all_to_all_single(out, big)}[op]
        for _ in range(self.warmup):
            call()
        times = []
        for _ in range(self.reps):
            dist.barrier()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        slowest = torch.tensor([statistics.median(times)], device="cuda", dtype=torch.float64)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        return slowest.item()

    def method(self, args):
        torch = self.torch
        return ("%d %s through torch.distributed (NCCL %s), torch %s, CUDA %s, %s: bf16 buffers, each size %d "
                "warm-up calls then %d calls each between two CUDA events after a barrier, the slowest rank's "
                "median; a line fitted to each op's times against the bytes a rank's link carries (slope: the bus "
                "bandwidth; intercept: the ring's steps); call_us 0, the calls timed through torch.distributed"
                % (self.ranks, torch.cuda.get_device_name(), self.nccl_version(),
                   torch.__version__, torch.version.cuda, datetime.date.today().isoformat(), args.warmup, args.reps))

    def nccl_version(self):
        version = self.torch.cuda.nccl.version()  # a tuple in recent torch, an int (2.18.3: 21803) before
        return ".".join(map(str, version)) if isinstance(version, tuple) else str(version)

    def finish(self):
        self.dist.destroy_process_group()


def byte_size(text):
    match = re.fullmatch(r"(\d+)(KiB|MiB|GiB|)", text)
    if not match:
        raise argparse.ArgumentTypeError("%s is not a size such as 1MiB or 1048576" % json.dumps(text))
    return int(match.group(1)) * UNITS[match.group(2)]


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%s is not a whole number" % json.dumps(text))
    if value < 1:
        raise argparse.ArgumentTypeError("%d is below 1" % value)
    return value


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit status 2, as for bad input
        say("%s (see --help)" % message.replace("\n", " "))
        sys.exit(2)


def main(argv):
    parser = Parser(prog=PROG, description="Time NCCL's collectives over this node's GPUs and write them as the "
                    "lines of DIR/platforms/kernels/<GPU>.yaml.", epilog="See the top of this file.")
    parser.add_argument("--gpu", required=True, help="the catalog's name of the GPUs (platforms/gpus.yaml)")
    parser.add_argument("--out", required=True, metavar="DIR", help="a data folder of its own for the table")
    parser.add_argument("--ops", default=",".join(OPS), help="the collectives to time (default: all four)")
    parser.add_argument("--from", dest="start", type=byte_size, default=1 << 20, help="smallest buffer (1MiB)")
    parser.add_argument("--to", dest="stop", type=byte_size, default=1 << 30, help="largest buffer (1GiB)")
    parser.add_argument("--warmup", type=positive_int, default=5, help="warm-up calls a size (default 5)")
    parser.add_argument("--reps", type=positive_int, default=20, help="timed calls a size (default 20)")
    parser.add_argument("--timer", choices=("torch", "standin"), default="torch")
    parser.add_argument("--ranks", type=positive_int, help="GPUs the stand-in timer takes part (standin only)")
    args = parser.parse_args(argv)

    if not GPU_NAME.match(args.gpu):
        raise InputError("--gpu %s: not a catalog name (letters, digits, '.', '_', '+', '-')" % json.dumps(args.gpu))
    catalog = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "platforms", "gpus.yaml")
    if os.path.isfile(catalog):  # the repository's catalog, where the script runs from a checkout
        with open(catalog, encoding="utf-8") as f:
            names = [line[:-1].rstrip(":") for line in f.read().splitlines(True)
                     if re.match(r"^[A-Za-z0-9][A-Za-z0-9._+-]*:\s*$", line)]
        if args.gpu not in names:
            raise InputError("--gpu %s: not in platforms/gpus.yaml (it has: %s)" % (json.dumps(args.gpu), ", ".join(names)))
    ops = args.ops.split(",")
    for op in ops:
        if op not in OPS:
            raise InputError("--ops: %s is not one of %s" % (json.dumps(op), ", ".join(OPS)))
    sizes = []
    size = args.start
    while size <= args.stop:
        sizes.append(size)
        size *= 2
    if len(sizes) < 3:
        raise InputError("--from %d --to %d: fewer than 3 sizes (powers of two between them) to fit a line"
                         % (args.start, args.stop))
    if (args.timer == "standin") != (args.ranks is not None):
        raise InputError("--ranks is the stand-in timer's, and it needs it (torchrun gives the real timer its GPUs)")
    if args.timer == "standin" and args.ranks < 2:
        raise InputError("--ranks %d: a collective needs at least 2 GPUs" % args.ranks)
    folder = os.path.join(args.out, "platforms", "kernels")
    path = os.path.join(folder, args.gpu + ".yaml")
    rows, earlier_method = read_earlier(path, args.gpu)

    timer = StandinTimer(args.ranks) if args.timer == "standin" else TorchTimer(args.warmup, args.reps)
    n = timer.ranks
    if n < 2:
        raise InputError("a collective needs at least 2 GPUs: torchrun --nproc_per_node N with N of 2 or more")
    for op in ops:
        times = []
        for i, s in enumerate(sizes, 1):
            times.append(timer.time_us(op, s))
            if timer.rank == 0:
                say("%s over %d GPUs: size %d of %d (%d bytes): %.2f us" % (op, n, i, len(sizes), s, times[-1]))
        if timer.rank == 0:
            rows[(op, n)] = line_row(op, n, sizes, times, args.start)
    method = timer.method(args)
    # The rows of other rank counts kept from earlier runs keep their method beside this one's.
    if earlier_method and earlier_method != method and any(k[1] != n for k in rows):
        method = earlier_method + " Then: " + method
    timer.finish()
    if timer.rank != 0:
        return 0
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise InputError("--out %s: cannot make %s (%s)" % (args.out, folder, e.strerror or e.__class__.__name__))
    write_whole(path, table_text(args.gpu, method, rows))
    say("wrote %s: %d lines" % (path, len(rows)))
    print(path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        say(str(e))
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
