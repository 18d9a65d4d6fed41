#!/usr/bin/env python3
"""Writes validation/tables/ds3lab-*.yaml from the DS3Lab testbed's results pages.

    validation/generate/ds3lab.py [PAGES_DIR [OUTPUT_DIR]]

PAGES_DIR defaults to ../shared/measured/ds3lab beside this checkout: the results/ pages of
DS3Lab/Decentralized_FM_alpha at commit cb03043b4d56c236476a375756a5ff2c4cfca685 (2023-03-08).
OUTPUT_DIR defaults to validation/tables in this checkout. The script reads each table from its
page (found by its heading path and its place under that heading) and keeps every figure as the
page prints it; what it adds is each run's configuration, taken from the repository's scripts of
the date the table was written (named in each table's description). The output is deterministic;
ctest (`ds3lab_tables`) checks that the committed tables are what this script writes.
"""
import os
import re
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PAGES = os.path.join(ROOT, "..", "shared", "measured", "ds3lab")
OUTPUT = os.path.join(ROOT, "validation", "tables")
COMMIT = "cb03043b4d56c236476a375756a5ff2c4cfca685"


# --- reading the pages ------------------------------------------------------------------------

def cells(line):
    parts = line.strip().split("|")
    return [c.strip() for c in parts[1:-1]] if line.strip().endswith("|") else [c.strip() for c in parts[1:]]


def read_tables(path):
    """[(heading path, index under it, header cells, [row cells])] in page order."""
    tables, stack, count = [], [], {}
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(#+)\s+(.*?)\s*$", line)
        if m:
            level = len(m.group(1))
            stack = [s for s in stack if s[0] < level] + [(level, m.group(2))]
            i += 1
            continue
        if line.strip().startswith("|"):
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i])
                i += 1
            heading = " / ".join(s[1] for s in stack)
            index = count.get(heading, 0)
            count[heading] = index + 1
            header = cells(block[0])
            rows = [cells(b) for b in block[2:]]
            tables.append((heading, index, header, rows))
            continue
        i += 1
    return tables


def find_table(tables, heading, index, page):
    for h, k, header, rows in tables:
        if h == heading and k == index:
            return header, rows
    sys.exit(f"{page}: no table {index} under the heading '{heading}'")


def parse_cell(text):
    """('time', token, questionable) | ('oom', text) | ('other', text) | None (no measurement)."""
    t = text.strip()
    if t in ("", "-", "s"):
        return None
    m = re.match(r"^(\d+(?:\.\d+)?)\s*s?\s*(\?\?)?$", t)
    if m:
        return ("time", m.group(1), m.group(2) is not None)
    if t in ("Fail(OOM)", "Fail"):
        return ("oom", t)
    return ("other", t)


# --- configurations ----------------------------------------------------------------------------

NETWORK = {
    "default (about 0.1ms; up to 10Gbps)": ("default", {}),
    "delay 1ms  bandwidth 5Gbps": ("delay1ms-bw5gbps", {"network.delay": "1ms", "network.bandwidth": "5Gbps"}),
    "delay 5ms  bandwidth 2Gbps": ("delay5ms-bw2gbps", {"network.delay": "5ms", "network.bandwidth": "2Gbps"}),
    "delay 10ms  bandwidth 1Gbps": ("delay10ms-bw1gbps", {"network.delay": "10ms", "network.bandwidth": "1Gbps"}),
    "delay 50ms  bandwidth 1Gbps": ("delay50ms-bw1gbps", {"network.delay": "50ms", "network.bandwidth": "1Gbps"}),
    "delay 50ms bandwidth 1Gbps": ("delay50ms-bw1gbps", {"network.delay": "50ms", "network.bandwidth": "1Gbps"}),
}


def network(label):
    if label not in NETWORK:
        sys.exit(f"unknown network setting '{label}'")
    return NETWORK[label]


def megatron_split(label):
    """A Megatron column label -> (id, tp, pp, dp or None)."""
    m = re.match(r"^P-(\d+) T-(\d+) D-(\d+)$", label)
    if m:
        pp, tp, dp = (int(g) for g in m.groups())
        return f"p{pp}t{tp}d{dp}", tp, pp, dp
    m = re.match(r"^P-(\d+) T-(\d+)$", label)
    if m:
        pp, tp = (int(g) for g in m.groups())
        return f"p{pp}t{tp}", tp, pp, None
    m = re.match(r"^T-(\d+) P-(\d+)$", label)
    if m:
        tp, pp = (int(g) for g in m.groups())
        return f"t{tp}p{pp}", tp, pp, None
    m = re.match(r"^Megatron-P(\d+)(?:T(\d+))?$", label)
    if m:
        pp, tp = int(m.group(1)), int(m.group(2) or 1)
        return f"p{pp}t{tp}", tp, pp, None
    if label in ("Tensor(T)-8", "Megatron-T8"):
        return "t8", 8, 1, None
    if label == "Pipe(P)-8":
        return "p8", 1, 8, None
    sys.exit(f"unknown Megatron split '{label}'")


def row(ident, rlabel, clabel, sets, cell, flags=(), note=None, page_note=None):
    return {"id": ident, "row": rlabel, "column": clabel, "set": sets, "cell": cell, "flags": list(flags),
            "note": note}


def flow(d):
    return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_row(r):
    cell = r["cell"]
    flags = list(r["flags"])
    notes = []
    if cell[0] == "time":
        measured = f"{{step_time_s: {cell[1]}}}"
        if cell[2]:
            flags.append("questionable")
            notes.append("marked ?? on the page (\"Not sure what happens for config ?? Run this twice with the "
                         "same result.\")")
    elif cell[0] == "oom":
        measured = "{oom: true}"
        notes.append(f"{cell[1]} on the page" + ("" if cell[1] == "Fail(OOM)" else ", read as out of memory"))
    else:
        sys.exit(f"cannot transcribe the cell '{cell[1]}' of row {r['id']}")
    if r["note"]:
        notes.append(r["note"])
    fields = [("id", r["id"]), ("row", quote(r["row"])), ("column", quote(r["column"])), ("set", flow(r["set"])),
              ("measured", measured), ("flags", f"[{', '.join(dict.fromkeys(flags))}]")]
    if notes:
        fields.append(("note", quote("; ".join(notes))))
    return table_yaml.row(fields)


def fold(text, width=100):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w) if line else w
    lines.append(line)
    return "\n".join("  " + l for l in lines)


def emit_table(t, rows, page_dir):
    parts = "; ".join(f"{h} (table {k + 1} under it)" for (_, h, k) in t["parts"])
    pages = sorted({p for (p, _, _) in t["parts"]})
    text = (f"# Written by validation/generate/ds3lab.py from ../shared/measured/ds3lab/{', '.join(pages)}:\n"
            f"# do not edit; change the script and rerun it.\n"
            f"table: {t['id']}\n"
            f"source:\n"
            f"  seed: {', '.join('shared/measured/ds3lab/' + p for p in pages)}\n"
            f"  heading: {quote('DS3Lab/Decentralized_FM_alpha ' + COMMIT + ', results/' + pages[0] + ': ' + parts)}\n"
            f"description: >-\n{fold(t['description'])}\n"
            f"platform: {t['platform']}\n"
            f"workload:\n{t['workload'].rstrip()}\n"
            f"rows:\n")
    return text + "".join(emit_row(r) for r in rows)


# --- the tables --------------------------------------------------------------------------------

DTFM_XL = "  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 28996, head: classifier}\n"
DTFM_SMALL = "  model: {layers: 12, hidden: 768, heads: 12, seq_len: 2048, vocab: 28996, head: classifier}\n"
MEGATRON_XL = "  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 28996, head: classifier}\n"
MEGATRON_OPTS = ("  framework: megatron\n"
                 "  # The script passes --no-bias-dropout-fusion: bias, dropout and residual add run as three kernels.\n"
                 "  framework_options: {compute.fused_elementwise: false}\n")

DTFM_COMMON = ("DT-FM's dist_runner.py trains the QQP classification task (2 classes) with BERT's cased WordPiece "
               "vocabulary of 28996 (task_datasets / glue_dataset bert-large-cased-vocab.txt; the page's own figures "
               "agree: the first stage holds 226 MB more parameters than the others, 28996 x 2048 fp32 words), "
               "torch.optim.SGD (--fp16: Megatron-style fp16 optimizer keeping an fp32 master copy, constant loss "
               "scale 64), every attention and MLP block checkpointed (GPTTransformerLayer use_checkpoint=True), "
               "activations sent with NCCL through cupy. The tc netem settings are scripts/tc_scripts/"
               "both_delay_bandwidth.sh: 'tc qdisc add dev ens3 root netem delay D ms rate R Gbit' on every node. "
               "The time is the rank-0 node's.")

MEGATRON_COMMON = ("Megatron-LM's QQP classification script (dist_megatron_train_qqp.py: --optimizer sgd at "
                   "Megatron's default momentum 0.9, BERT cased WordPiece vocabulary of 28996, "
                   "--no-bias-dropout-fusion, --DDP-impl local), as seed 001's Megatron tables.")


def t_xl_gpipe_fp16(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        out.append(row(nid, r[0], header[1], sets, parse_cell(r[1])))
    return out


def t_xl_gpipe_dp(tabs):
    out = []
    for (header, rows), prec in zip(tabs, ("fp32", "fp16")):
        for r in rows:
            nid, sets = network(r[0])
            if prec == "fp32" and nid != "delay50ms-bw1gbps":
                continue  # seed001-gpipe-dp holds the other eight cells: the same runs
            s = dict(sets)
            if prec == "fp32":
                s["training.precision"] = "fp32"
            out.append(row(f"{prec}-dp4-{nid}", r[0], f"{prec}: {header[2]}", s, parse_cell(r[2]),
                           note=CENTRAL_PS_NOTE +
                           ("; the other cells of this fp32 table are seed001-gpipe-dp's rows (the same runs), which "
                            "that table compares as a sharded parameter server" if prec == "fp32" else "")))
    return out


CENTRAL_PS_NOTE = ("--dp-mode central_ps (data_parallel/dist_dp_central_ps.py): an NCCL reduce of the flattened "
                   "gradients to data-parallel rank 0 and an NCCL broadcast back, then every rank's SGD step: "
                   "dp_algorithm central_ps")
ALLREDUCE_NOTE = ("--dp-mode allreduce (data_parallel/dist_dp_allreduce.py at DS3Lab/Decentralized_FM_alpha "
                  "0f6450f, the commit of the 2022-04-11 scripts, the day after these runs): AllReduceDP loops over "
                  "the stage's module.parameters() and all-reduces each gradient with its own NCCL call on the "
                  "data-parallel stream; the flattened single call came later: framework_options "
                  "collectives.dp_per_tensor")
OFFLOAD_NOTE = ("--use-offload defaults to True from 2022-04-22 (utils/dist_args_utils.py; the page: 'Include fp32 "
                "model offload'): the fp32 master copy and its SGD step live in CPU memory, with gradients and "
                "parameters copied over PCIe each step (optimizer/optimizer.py): framework_options "
                "optimizer.offload")


def t_xl_fp16_pp8_dp(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            if col == "Single Pipeline":
                out.append(row(f"single-{nid}", r[0], col, dict(sets, **{"parallelism.dp": 1, "training.global_batch": 96,
                                                                       "placement.gpus": 8}), parse_cell(cell)))
                continue
            m = re.match(r"^(Sharded|Central) PS DP-(\d+)$", col)
            kind, dp = m.group(1), int(m.group(2))
            s = dict(sets, **{"parallelism.dp": dp, "training.global_batch": 96 * dp})
            if dp != 8:
                s["placement.gpus"] = 8 * dp
            if kind == "Sharded":
                out.append(row(f"sharded-dp{dp}-{nid}", r[0], col, s, parse_cell(cell),
                               note="--dp-mode sharded_ps (data_parallel/dist_dp_sharded_ps.py): dp_algorithm "
                                    "parameter_server"))
            else:
                s["parallelism.dp_algorithm"] = "central_ps"
                out.append(row(f"central-dp{dp}-{nid}", r[0], col, s, parse_cell(cell), note=CENTRAL_PS_NOTE))
    return out


def t_xl_fp16_pp8_batch(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            b = int(re.match(r"^Batch-size (\d+)$", col).group(1))
            out.append(row(f"b{b}-{nid}", r[0], col, dict(sets, **{"training.global_batch": b}), parse_cell(cell),
                           note=OFFLOAD_NOTE))
    return out


def t_xl_fp16_pp8_layers(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            per = int(re.match(r"^(\d+) Layer$", col).group(1))
            out.append(row(f"l{per * 8}-{nid}", r[0], col, dict(sets, **{"model.layers": per * 8}), parse_cell(cell),
                           note=OFFLOAD_NOTE))
    return out


def t_xl_fp16_pp8_dp8(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            per = int(re.match(r"^(\d+) layer$", col).group(1))
            s = dict(sets, **{"model.layers": per * 8})
            extra = ""
            if per == 5:
                s["training.global_batch"] = 63 * 2 * 8
                extra = ("; for 5 layers per node the script of that date (gpt3_xxl_pp8_dp8.sh) says --batch-size 63, "
                         "not 64: 2 x 63 x 8 = 1008 samples a step")
            out.append(row(f"l{per * 8}-{nid}", r[0], col, s, parse_cell(cell),
                           note=OFFLOAD_NOTE + "; --gradient-accumulate-step 2 runs two GPipe rounds of 64 "
                                "micro-batches (two pipeline flushes) per step: parallelism.pipeline_flushes 2; "
                                "--dp-mode central_ps (dp_algorithm central_ps)" + extra))
    return out


def t_small_gpipe(tabs):
    out = []
    for (header, rows), prec in zip(tabs[:2], ("fp32", "fp16")):
        for r in rows:
            nid, sets = network(r[0])
            out.append(row(f"{prec}-{nid}", r[0], f"{prec}: {header[1]}", dict(sets, **{"training.precision": prec}),
                           parse_cell(r[1])))
    header, rows = tabs[2]
    for r in rows:
        for col, cell in zip(header[1:], r[1:]):
            mb = int(re.match(r"^Micro batch size: (\d+)$", col).group(1))
            out.append(row(f"real-run-mb{mb}", r[0], col, {"training.micro_batch": mb}, parse_cell(cell),
                           flags=["not_reproducible"],
                           note="not reproducible: the three nodes ran in three AWS regions (Oregon, Virginia, Ohio); "
                                "the page gives neither the links' delay and bandwidth nor the run's precision"))
    return out


def t_small_1f1b(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            mb = int(re.match(r"^Micro batch size: (\d+)$", col).group(1))
            out.append(row(f"mb{mb}-{nid}", r[0], col, dict(sets, **{"training.micro_batch": mb}), parse_cell(cell)))
    return out


def t_small_dp(tabs):
    out = []
    for (header, rows), (prec, mode) in zip(tabs, (("fp32", "central"), ("fp16", "allreduce"), ("fp16", "central"))):
        for r in rows:
            nid, sets = network(r[0])
            for col, cell in zip(header[1:], r[1:]):
                dp = int(re.match(r"^DP Degree: (\d+)$", col).group(1))
                if dp == 1:
                    continue  # the GPipe table's run (ds3lab-small-gpipe), the same values
                s = dict(sets, **{"training.precision": prec, "parallelism.dp": dp, "training.global_batch": 64 * dp})
                if dp != 16:
                    s["placement.gpus"] = 3 * dp
                label = f"{prec}, {'AllReduce' if mode == 'allreduce' else 'Centralized PS'}: {col}"
                if mode == "allreduce":
                    s["parallelism.dp_algorithm"] = "allreduce"
                    s["framework_options.collectives.dp_per_tensor"] = "true"
                    out.append(row(f"{prec}-{mode}-dp{dp}-{nid}", r[0], label, s, parse_cell(cell),
                                   note=ALLREDUCE_NOTE))
                else:
                    s["parallelism.dp_algorithm"] = "central_ps"
                    out.append(row(f"{prec}-{mode}-dp{dp}-{nid}", r[0], label, s, parse_cell(cell),
                                   note=CENTRAL_PS_NOTE))
    return out


def t_small_zero3(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            b = int(re.match(r"^batch size: (\d+)$", col).group(1))
            out.append(row(f"b{b}-{nid}", r[0], col, dict(sets, **{"training.micro_batch": b,
                                                                  "training.global_batch": 12 * b}),
                           parse_cell(cell), flags=["not_reproducible"],
                           note="not reproducible: dist_fairscale_zero_s3.py wraps the whole FSDP model in one "
                                "fairscale checkpoint_wrapper(offload_to_cpu=True): one checkpoint for all 12 layers "
                                "whose input is kept in CPU memory; simgpt checkpoints per layer and has no "
                                "activation offload"))
    return out


def t_megatron_b64(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        mb = int(r[0])
        for col, cell in zip(header[1:], r[1:]):
            sid, tp, pp, _ = megatron_split(col)
            out.append(row(f"mb{mb}-{sid}", r[0], col, {"training.micro_batch": mb, "parallelism.tp": tp,
                                                        "parallelism.pp": pp}, parse_cell(cell)))
    return out


def t_megatron_x48(tabs):
    header, rows = tabs[0]
    out = []
    opts = {"fp32 & re": ("fp32", "full"), "fp16 & re": ("fp16", "full"), "fp16 & no re": ("fp16", "none")}
    for r in rows:
        nid, sets = network(r[0])
        for col, cell in zip(header[1:], r[1:]):
            c = parse_cell(cell)
            if c is None:
                continue
            prec, rec = opts[col]
            out.append(row(f"{prec}-{'recompute' if rec == 'full' else 'norecompute'}-{nid}", r[0], col,
                           dict(sets, **{"training.precision": prec, "training.recompute": rec}), c))
    return out


def t_megatron_x8(tabs):
    """The 2022/04/26 tables (24, 32, 40 layers) and the one cell of the 2022/04/27 table that differs."""
    out = []
    for (header, rows), layers in zip(tabs[:3], (24, 32, 40)):
        for r in rows:
            mb = int(re.match(r"^Micro-batch (\d+)$", r[0]).group(1))
            for col, cell in zip(header[1:], r[1:]):
                if col == "Best PFlops":
                    continue
                c = parse_cell(cell)
                if c is None:
                    continue
                sid, tp, pp, dp = megatron_split(col)
                dp = 8 if dp is None else dp
                out.append(row(f"l{layers}-mb{mb}-p{pp}t{tp}d{dp}", r[0], f"{layers} layers: {col}",
                               {"model.layers": layers, "training.micro_batch": mb, "parallelism.tp": tp,
                                "parallelism.pp": pp, "parallelism.dp": dp}, c))
    header, rows = tabs[3]
    r = rows[0]
    assert r[0] == "8 p3.16xlarge" and header[1] == "P-8 T-1 D-8"
    out.append(row("l24-mb1-p8t1d8-0427", r[0], "GPT-XL standard: P-8 T-1 D-8",
                   {"model.layers": 24, "training.micro_batch": 1, "parallelism.tp": 1, "parallelism.pp": 8,
                    "parallelism.dp": 8}, parse_cell(r[1]),
                   note="the 2022/04/27 table ('Megatron in Slow network') prints 24.34 s for the cell the "
                        "2022/04/26 table prints 16.91 s (row l24-mb1-p8t1d8); its other 8 p3.16xlarge cells repeat "
                        "the 2022/04/26 values and are not repeated here"))
    return out


def t_megatron_x64(tabs):
    out = []
    for (header, rows), layers in zip(tabs, (24, 32, 40)):
        for r in rows:
            if r[0] == "8 p3.16xlarge":
                continue  # in ds3lab-megatron-p3-16xlarge-x8
            if r[0] == "64 p3.2xlarge":
                nid, sets = "default", {}
            else:
                nid, sets = network(r[0])
            for col, cell in zip(header[1:], r[1:]):
                if col == "Best PFlops":
                    continue
                c = parse_cell(cell)
                if c is None:
                    continue
                sid, tp, pp, dp = megatron_split(col)
                out.append(row(f"l{layers}-{sid}-{nid}", r[0], f"{layers} layers: {col}",
                               dict(sets, **{"model.layers": layers, "parallelism.tp": tp, "parallelism.pp": pp,
                                             "parallelism.dp": dp}), c))
    return out


def t_megatron_39b(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        mb = int(re.match(r"^Micro-batch (\d+)$", r[0]).group(1))
        for col, cell in zip(header[1:], r[1:]):
            if col == "Best PFlops":
                continue
            sid, tp, pp, _ = megatron_split(col)
            out.append(row(f"mb{mb}-{sid}", r[0], col, {"training.micro_batch": mb, "parallelism.tp": tp,
                                                        "parallelism.pp": pp}, parse_cell(cell)))
    return out


# Cells of the NeurIPS case-1 table that the 2022/04/26 Megatron table (ds3lab-megatron-p3-16xlarge-x8) or the
# 2022/04/27 one already holds with the same value: the same runs, not repeated.
NEURIPS_SAME = {("L24 B1024", "Megatron-P8"): "l24-mb1-p8t1d8-0427", ("L24 B1024", "Megatron-T8"): "l24-mb1-p1t8d8",
                ("L24 B1024", "Megatron-P2T4"): "l24-mb1-p2t4d8", ("L24 B1024", "Megatron-P4T2"): "l24-mb1-p4t2d8",
                ("L32 B1024", "Megatron-T8"): "l32-mb1-p1t8d8", ("L32 B1024", "Megatron-P2T4"): "l32-mb1-p2t4d8",
                ("L32 B1024", "Megatron-P4T2"): "l32-mb1-p4t2d8", ("L40 B1024", "Megatron-T8"): "l40-mb1-p1t8d8",
                ("L40 B1024", "Megatron-P2T4"): "l40-mb1-p2t4d8", ("L40 B1024", "Megatron-P4T2"): "l40-mb1-p4t2d8"}


def t_neurips_case1(tabs):
    header, rows = tabs[0]
    seeds = rows[0]
    assert seeds[0] == "Seed"
    names, last = [], None
    for h in header:
        last = h if h else last
        names.append(last)
    out = []
    for r in rows[1:]:
        m = re.match(r"^L(\d+) B(\d+)$", r[0])
        layers, batch = int(m.group(1)), int(m.group(2))
        for k in range(1, len(r)):
            name, seed, cell = names[k], seeds[k], r[k]
            c = parse_cell(cell)
            if c is None:
                continue
            column = name if seed == "-" else f"{name}, seed {seed}"
            sfx = "" if seed == "-" else f"-seed{seed}"
            base = {"model.layers": layers, "training.global_batch": batch}
            if name.startswith("Megatron"):
                if k == 4 and seed == "2022":
                    pass
                key = (r[0], name)
                if key in NEURIPS_SAME and seed in ("-", "2022"):
                    continue
                sid, tp, pp, _ = megatron_split(name)
                note = None
                if name == "Megatron-P8" and batch == 1024:
                    other = {32: "26.40", 40: "28.02"}.get(layers)
                    if other:
                        note = (f"the 2022/04/26 Megatron table (ds3lab-megatron-p3-16xlarge-x8, row "
                                f"l{layers}-mb1-p8t1d8) prints {other} s for this configuration")
                out.append(row(f"l{layers}-b{batch}-megatron-{sid}{sfx}", r[0], column,
                               dict(base, **{"parallelism.tp": tp, "parallelism.pp": pp}), c, note=note))
                continue
            if name == "Ours w scheduler":
                why = ("not reproducible: DT-FM placed by its scheduler (scheduler/, aws_run_gpt3_Ngpu_training.sh): "
                       "the assignment of stages and data-parallel groups to GPUs it chose is not recorded")
                ident = "dtfm-scheduled"
            elif name == "Ours wo Scheduler":
                why = ("not reproducible: DT-FM without its scheduler (aws_run_gpt3_scheduled_Ngpu_training.sh) runs "
                       "ranks under a fixed random rank_map listed in the script, which simgpt's placement.order "
                       "cannot express; its per-node script's flags are not in the repository at that date")
                ident = "dtfm-random"
            elif name == "ZeRO S3":
                why = ("not reproducible: the DeepSpeed config of these runs is not in the repository at that date "
                       "(ZeRO_benchmark/zero_dp_s3_config.json is a GPT-3 small config of batch 8, micro-batch 4): "
                       "precision, micro-batch and accumulation are unknown")
                ident = "zero3"
            elif name == "Deepspeed PP":
                why = ("not reproducible: the DeepSpeed pipeline script and config of these runs are not in the "
                       "repository at that date (dist_deepspeed_pipeline.py arrives in August 2022)")
                ident = "deepspeed-pp"
            else:
                sys.exit(f"unknown NeurIPS column '{name}'")
            out.append(row(f"l{layers}-b{batch}-{ident}{sfx}", r[0], column, base, c, flags=["not_reproducible"],
                           note=why))
    return out


def t_fairscale(tabs):
    header, rows = tabs[0]
    out = []
    for r in rows:
        mb = int(r[0])
        c = parse_cell(r[1])
        if c is None or c[0] == "other":
            continue  # micro-batch 1: 'Fail(Dead Lock?)', not a measurement (validation/README.md)
        out.append(row(f"mb{mb}", r[0], header[1], {"training.micro_batch": mb}, c,
                       note="batch 16 per machine as the page's text says ('batch size of 96 (16 * 6)'); the "
                            "command printed under it still says --batch-size 42, copied from the earlier version "
                            "of the page (seed001-fsdp)"))
    return out


TABLES = [
    {"id": "ds3lab-xl-gpipe-fp16", "fn": t_xl_gpipe_fp16,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Pipeline Alone / Gpipe based pipeline parallel", 1)],
     "platform": "p3_2xlarge_x12.xml",
     "description": "GPT-3 XL (24 layers, 2 per node) pipelined with DT-FM's GPipe over 12 p3.2xlarge (1 V100-16GB "
                    "each), fp16 (table of 2022/04/10), micro-batch 1, batch 64, under tc netem delay and rate limits. "
                    "Flags: scripts/local_scripts/gpt3_xl_pp12.sh at 2022-04-11 (--fp16 --pp-mode gpipe "
                    "--pipeline-group-size 12 --data-group-size 1 --embedding-dim 2048 --num-heads 16 --num-layers 2 "
                    "--batch-size 64 --micro-batch-size 1). " + DTFM_COMMON + " The page's fp32 table above it is "
                    "seed001-gpipe (the same runs).",
     "workload": DTFM_XL + "  training: {global_batch: 64, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 1, tp: 1, pp: 12, schedule: gpipe}\n  framework: ds3-gpipe\n"},
    {"id": "ds3lab-xl-gpipe-dp", "fn": t_xl_gpipe_dp,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Ours Pipeline + Data Parallel", 0),
               ("gpt3_xl.md", "Result of GPT-3 XL / Ours Pipeline + Data Parallel", 1)],
     "platform": "p3_2xlarge_x48.xml",
     "description": "DT-FM's GPipe (12 p3.2xlarge per pipeline, batch 64 per pipeline) with the centralized "
                    "parameter server over 4 pipelines = 48 p3.2xlarge, global batch 256, fp32 (2022/02/14) and fp16 "
                    "(2022/04/11), under tc netem delay and rate limits. Flags: scripts/local_scripts/"
                    "gpt3_xl_pp12_dp4.sh at 2022-04-11 (--fp16 --pp-mode gpipe --dp-mode central_ps "
                    "--pipeline-group-size 12 --data-group-size 4 --num-layers 2 --batch-size 64 "
                    "--micro-batch-size 1). " + DTFM_COMMON + " Only the cells that are not already validation "
                    "rows: DP degree 1 repeats the GPipe tables' runs (seed001-gpipe, ds3lab-xl-gpipe-fp16) and the "
                    "fp32 DP-4 cells but the last are seed001-gpipe-dp's.",
     "workload": DTFM_XL + "  training: {global_batch: 256, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 4, tp: 1, pp: 12, schedule: gpipe, dp_algorithm: "
                 "central_ps}\n  framework: ds3-gpipe\n"},
    {"id": "ds3lab-xl-fp16-pp8-dp", "fn": t_xl_fp16_pp8_dp,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of 2022/04/20", 0)],
     "platform": "p3_2xlarge_x64.xml",
     "description": "GPT-3 XL (24 layers, 3 per node) pipelined with DT-FM's GPipe over 8 p3.2xlarge, fp16, "
                    "micro-batch 1, batch 96 per pipeline, alone and with 2, 4 or 8 pipelines (16 to 64 p3.2xlarge, "
                    "batch 96 x DP) synchronised by the sharded or the central parameter server, under tc netem "
                    "delay and rate limits (table of 2022/04/20, written 2022-04-21). Flags: scripts/local_scripts/"
                    "gpt3_xl_pp8.sh and gpt3_xl_pp8_dp{2,4,8}.sh of 2022-04-20/21 (--fp16 --pp-mode gpipe --dp-mode "
                    "sharded_ps or central_ps --pipeline-group-size 8 --data-group-size DP --embedding-dim 2048 "
                    "--num-heads 16 --num-layers 3 --batch-size 96 --micro-batch-size 1; no gradient accumulation "
                    "and no offload yet, both arrive on 2022-04-22). " + DTFM_COMMON + " Fewer than 64 nodes use "
                    "the first 8 x DP hosts.",
     "workload": DTFM_XL + "  training: {global_batch: 768, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 8, tp: 1, pp: 8, schedule: gpipe, dp_algorithm: "
                 "parameter_server}\n  framework: ds3-gpipe\n"},
    {"id": "ds3lab-xl-fp16-pp8-batch", "fn": t_xl_fp16_pp8_batch,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of 2022/04/23", 0)],
     "platform": "p3_2xlarge_x64.xml",
     "description": "The 8-node batch sweep: GPT-3 XL (3 layers per node) on one DT-FM GPipe pipeline of 8 "
                    "p3.2xlarge, fp16, micro-batch 1, batch 108, 96, 64 and 32, with the fp32 model offloaded to CPU, "
                    "under tc netem delay and rate limits (2022/04/23). Flags: scripts/local_scripts/gpt3_xl_pp8.sh "
                    "of 2022-04-23 (--fp16 --pp-mode gpipe --pipeline-group-size 8 --data-group-size 1 "
                    "--num-layers 3 --micro-batch-size 1, --use-offload at its default True). " + DTFM_COMMON,
     "workload": DTFM_XL + "  training: {global_batch: 96, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 1, tp: 1, pp: 8, schedule: gpipe}\n  placement: {gpus: 8}\n"
                 "  framework: ds3-gpipe\n  framework_options: {optimizer.offload: true}\n"},
    {"id": "ds3lab-xl-fp16-pp8-layers", "fn": t_xl_fp16_pp8_layers,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of 2022/04/23", 1)],
     "platform": "p3_2xlarge_x64.xml",
     "description": "GPT-3 XL widened to 3, 4 and 5 layers per node (24, 32, 40 layers) on one DT-FM GPipe "
                    "pipeline of 8 p3.2xlarge, fp16, micro-batch 1, batch 64, with the fp32 model offloaded to CPU, "
                    "under tc netem delay and rate limits (2022/04/23). Flags: scripts/local_scripts/gpt3_xl_pp8.sh "
                    "of 2022-04-23 (--num-layers 5 --batch-size 64 --micro-batch-size 1 in the committed version, "
                    "--use-offload at its default True). " + DTFM_COMMON,
     "workload": DTFM_XL + "  training: {global_batch: 64, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 1, tp: 1, pp: 8, schedule: gpipe}\n  placement: {gpus: 8}\n"
                 "  framework: ds3-gpipe\n  framework_options: {optimizer.offload: true}\n"},
    {"id": "ds3lab-xl-fp16-pp8-dp8", "fn": t_xl_fp16_pp8_dp8,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Latest result (2022/04/27)", 0)],
     "platform": "p3_2xlarge_x64.xml",
     "description": "GPT-3 XL and widened versions (3, 4, 5 layers per node) on 8 DT-FM GPipe pipelines of 8 "
                    "p3.2xlarge (64 nodes), fp16, micro-batch 1, global batch 1024, under tc netem delay and rate "
                    "limits (2022/04/27). Flags: scripts/local_scripts/gpt3_xl_pp8_dp8.sh and gpt3_xxl_pp8_dp8.sh "
                    "of 2022-04-27 (--fp16 --pp-mode gpipe --dp-mode central_ps --gradient-accumulate-step 2 "
                    "--pipeline-group-size 8 --data-group-size 8 --batch-size 64 --micro-batch-size 1, --use-offload "
                    "at its default True). " + DTFM_COMMON,
     "workload": DTFM_XL + "  training: {global_batch: 1024, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 8, tp: 1, pp: 8, schedule: gpipe, dp_algorithm: "
                 "central_ps, pipeline_flushes: 2}\n  framework: ds3-gpipe\n"
                 "  framework_options: {optimizer.offload: true}\n"},
    {"id": "ds3lab-small-gpipe", "fn": t_small_gpipe,
     "parts": [("gpt3_small.md", "Result of GPT-3 Small / Pipeline Alone / Gpipe based pipeline parallel", 0),
               ("gpt3_small.md", "Result of GPT-3 Small / Pipeline Alone / Gpipe based pipeline parallel", 1),
               ("gpt3_small.md", "Result of GPT-3 Small / Pipeline Alone / Gpipe based pipeline parallel", 2)],
     "platform": "p3_2xlarge_x12.xml",
     "description": "GPT-3 small (12 layers, 4 per node, hidden 768, 12 heads, seq 2048) pipelined with DT-FM's "
                    "GPipe over 3 p3.2xlarge (the first 3 hosts), micro-batch 1, batch 64, fp32 (2022/02/14) and "
                    "fp16 (2022/04/07), under tc netem delay and rate limits. Flags: scripts/local_scripts/"
                    "gpt3_small_pp3.sh (--pp-mode gpipe --pipeline-group-size 3 --data-group-size 1 "
                    "--embedding-dim 768 --num-heads 12 --num-layers 4 --batch-size 64 --micro-batch-size 1; "
                    "--fp16 from 2022-04). " + DTFM_COMMON + " The 'Real Run' rows ran across three AWS regions.",
     "workload": DTFM_SMALL + "  training: {global_batch: 64, micro_batch: 1, precision: fp32, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 1, tp: 1, pp: 3, schedule: gpipe}\n  placement: {gpus: 3}\n"
                 "  framework: ds3-gpipe\n"},
    {"id": "ds3lab-small-1f1b", "fn": t_small_1f1b,
     "parts": [("gpt3_small.md", "Result of GPT-3 Small / Pipeline Alone / 1F1B based pipeline parallel", 0)],
     "platform": "p3_2xlarge_x12.xml",
     "description": "GPT-3 small (12 layers, 4 per node) pipelined with DT-FM's 1F1B over 3 p3.2xlarge (the first "
                    "3 hosts), fp32, batch 64, micro-batch 1, 2 and 4, under tc netem delay and rate limits (written "
                    "2022-02-01/02, before DT-FM had --fp16). Flags: dist_pipeline_runner.py --mode 1f1b of that date "
                    "(pipeline/dist_1f1b_pipeline_async.py, torch.optim.SGD, QQP classification). " + DTFM_COMMON,
     "workload": DTFM_SMALL + "  training: {global_batch: 64, micro_batch: 1, precision: fp32, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 1, tp: 1, pp: 3, schedule: 1f1b}\n  placement: {gpus: 3}\n"
                 "  framework: ds3-gpipe\n"},
    {"id": "ds3lab-small-dp", "fn": t_small_dp,
     "parts": [("gpt3_small.md", "Result of GPT-3 Small / Pipeline + Data Parallel", k) for k in range(3)],
     "platform": "p3_2xlarge_x48.xml",
     "description": "GPT-3 small on DT-FM GPipe pipelines of 3 p3.2xlarge (batch 64 each) with 4 or 16 pipelines "
                    "(12 or 48 nodes, batch 64 x DP), synchronised by the centralized parameter server (fp32, "
                    "2022/02/14; fp16) or NCCL all-reduce (fp16, 2022/04/10), under tc netem delay and rate limits. "
                    "Flags: scripts/local_scripts/gpt3_small_pp3_dp4.sh and gpt3_small_pp3_dp16.sh (--pp-mode gpipe "
                    "--dp-mode central_ps or allreduce --pipeline-group-size 3 --data-group-size 4 or 16 "
                    "--embedding-dim 768 --num-heads 12 --num-layers 4 --batch-size 64 --micro-batch-size 1). " +
                    DTFM_COMMON + " DP degree 1 is the GPipe table's run (ds3lab-small-gpipe); the sharded-PS table "
                    "has only those cells.",
     "workload": DTFM_SMALL + "  training: {global_batch: 256, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 4, tp: 1, pp: 3, schedule: gpipe, dp_algorithm: allreduce}\n"
                 "  framework: ds3-gpipe\n"},
    {"id": "ds3lab-small-zero3", "fn": t_small_zero3,
     "parts": [("gpt3_small.md", "Result of GPT-3 Small / ZeRO-S3", 0)],
     "platform": "p3_2xlarge_x12.xml",
     "description": "GPT-3 small trained with Fairscale FSDP (ZeRO-3) over 12 p3.2xlarge, batch 1 or 2 per node "
                    "(12 or 24 in all), under tc netem delay and rate limits (2022/02/16). Flags: scripts/"
                    "local_scripts/gpt3_small_fsdp12.sh (dist_fairscale_zero_s3.py --dist-backend nccl "
                    "--embedding-dim 768 --num-heads 12 --num-layers 12 --batch-size 1 or 2), torch.optim.SGD, "
                    "fp32, the model wrapped in checkpoint_wrapper(offload_to_cpu=True). Every row is not "
                    "reproducible.",
     "workload": DTFM_SMALL + "  training: {global_batch: 12, micro_batch: 1, precision: fp32, recompute: full, "
                 "optimizer: sgd}\n  parallelism: {dp: 12, tp: 1, pp: 1, schedule: gpipe, zero: 3}\n"
                 "  framework: fsdp\n"},
    {"id": "ds3lab-xl-megatron-b64-fp16-recompute", "fn": t_megatron_b64,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Pipeline Alone / Megatron Tensor/Pipeline/Data Baseline", 1)],
     "platform": "p3_16xlarge.xml",
     "description": MEGATRON_COMMON + " On one p3.16xlarge (8 V100-16GB), batch 64, fp16, activation recompute, "
                    "by micro-batch and tensor x pipeline split (2022-03-29). Flags: the page's command (sh "
                    "./scripts/local_scripts/multi_GPU_megatron_gpt3_xl.sh MICRO_BATCH PP TP 1 0) with --fp16 "
                    "--checkpoint-activations.",
     "workload": MEGATRON_XL + "  training: {global_batch: 64, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 1, tp: 8, pp: 1, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-xl-megatron-b64-fp16", "fn": t_megatron_b64,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Pipeline Alone / Megatron Tensor/Pipeline/Data Baseline", 2)],
     "platform": "p3_16xlarge.xml",
     "description": MEGATRON_COMMON + " On one p3.16xlarge (8 V100-16GB), batch 64, fp16, no activation recompute, "
                    "by micro-batch and tensor x pipeline split (2022-03-29). Flags: the page's command (sh "
                    "./scripts/local_scripts/multi_GPU_megatron_gpt3_xl.sh MICRO_BATCH PP TP 1 0) with --fp16.",
     "workload": MEGATRON_XL + "  training: {global_batch: 64, micro_batch: 1, precision: fp16, recompute: none, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 1, tp: 8, pp: 1, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-xl-megatron-p3-2xlarge-x48", "fn": t_megatron_x48,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Pipeline Alone / Megatron Tensor/Pipeline/Data Baseline", 6)],
     "platform": "p3_2xlarge_x48.xml",
     "description": MEGATRON_COMMON + " On 48 p3.2xlarge (one V100-16GB each), tensor 4 x pipeline 2 x data 6, "
                    "micro-batch 1, batch 252, fp32 or fp16 with or without activation recompute, under tc netem "
                    "delay and rate limits (2022/04/11-13). Flags: scripts/local_scripts/megatron_gpt3_xl_mp8_dp6.sh "
                    "of 2022-04-11 (GPUS_PER_NODE=1, --global-batch-size 252 --tensor-model-parallel-size 4 "
                    "--pipeline-model-parallel-size 2, OPTION_ARGS --checkpoint-activations with or without --fp16).",
     "workload": MEGATRON_XL + "  training: {global_batch: 252, micro_batch: 1, precision: fp16, recompute: none, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 6, tp: 4, pp: 2, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-megatron-p3-16xlarge-x8", "fn": t_megatron_x8,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of Megatron (2022/04/26) / 8 P3.16xlarge for GPT-XL", 0),
               ("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of Megatron (2022/04/26) / Extend GPT3-XL to 32/40 layer", 0),
               ("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of Megatron (2022/04/26) / Extend GPT3-XL to 32/40 layer", 1),
               ("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Megatron in Slow network  (2022/04/27)", 0)],
     "platform": "p3_16xlarge_x8.xml",
     "description": MEGATRON_COMMON + " GPT-3 XL (24 layers) and its 32- and 40-layer versions on 8 p3.16xlarge "
                    "(64 V100-16GB, 25 Gbps between instances), global batch 1024, seq 2048, fp16, activation "
                    "recompute, by micro-batch and pipeline x tensor x data split (2022/04/26, 32-layer table "
                    "rewritten 2022-05-02). Flags: scripts/local_scripts/megatron_gpt3_xl_mp8_dp8.sh and "
                    "megatron_gpt3_xxl_mp8_dp8.sh of 2022-04-26 (--global-batch-size 1024 --seq-length 2048 "
                    "--optimizer sgd --fp16 --checkpoint-activations, GPUS_PER_NODE 8, NNODES 8).",
     "workload": MEGATRON_XL + "  training: {global_batch: 1024, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 8, tp: 1, pp: 8, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-megatron-p3-2xlarge-x64", "fn": t_megatron_x64,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Megatron in Slow network  (2022/04/27)", k)
               for k in range(3)],
     "platform": "p3_2xlarge_x64.xml",
     "description": MEGATRON_COMMON + " GPT-3 XL (24 layers) and its 32- and 40-layer versions on 64 p3.2xlarge "
                    "(one V100-16GB each), global batch 1024, seq 2048, micro-batch 1, fp16, activation recompute, "
                    "by pipeline x tensor x data split, and P-8 under tc netem delay and rate limits (2022/04/27, "
                    "64-node rows of 24 layers rewritten 2022-05-03). Flags: scripts/local_scripts/"
                    "megatron_gpt3_xl_mp8_dp8.sh and megatron_gpt3_xxl_mp8_dp8.sh of 2022-04-27 with GPUS_PER_NODE "
                    "1 and NNODES 64 (--global-batch-size 1024 --optimizer sgd --fp16 --checkpoint-activations). The "
                    "tables' 8 p3.16xlarge rows are in ds3lab-megatron-p3-16xlarge-x8.",
     "workload": MEGATRON_XL + "  training: {global_batch: 1024, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 8, tp: 1, pp: 8, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-megatron-39b", "fn": t_megatron_39b,
     "parts": [("gpt3_xl_fp16.md", "Result of GPT-3 XL  In FP16 / Result of Megatron (2022/04/26) / 8 P3.16xlarge for GPT-39B", 0)],
     "platform": "p3_16xlarge_x8.xml",
     "description": MEGATRON_COMMON + " GPT-3 39B (48 layers, hidden 8192, 64 heads, seq 1024) on 8 p3.16xlarge "
                    "(64 V100-16GB), global batch 1024, data parallel 1, fp16, activation recompute, by micro-batch "
                    "and pipeline x tensor split (2022/04/26). Flags: scripts/local_scripts/megatron_gpt3_39b_mp8_dp8.sh "
                    "of 2022-04-26/27 (--num-layers 48 --hidden-size 8192 --num-attention-heads 64 --seq-length 1024 "
                    "--global-batch-size 1024 --optimizer sgd --fp16 --checkpoint-activations).",
     "workload": "  model: {layers: 48, hidden: 8192, heads: 64, seq_len: 1024, vocab: 28996, head: classifier}\n"
                 "  training: {global_batch: 1024, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 1, tp: 8, pp: 8, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-neurips-case1", "fn": t_neurips_case1,
     "parts": [("NeurIPS2022_submission.md", "The Experiments for NeurIPS 2022 Submission / Case 1 Data Center on Demand", 0)],
     "platform": "p3_16xlarge_x8.xml",
     "description": "The NeurIPS 2022 submission's case 1 ('data center on demand'): 8 p3.16xlarge (64 V100-16GB, "
                    "25 Gbps between instances), GPT-3 XL and its 32- and 40-layer versions, global batch 1024, 2048 "
                    "and 4096, seq 2048, micro-batch 1, fp16, one step's time in seconds (written 2022-05). Megatron "
                    "columns: scripts/aws_run_megatron_training.sh of 2022-05 (" + MEGATRON_COMMON + " with --fp16 "
                    "--checkpoint-activations, data parallel 64 / (tensor x pipeline)), by pipeline x tensor split. "
                    "DT-FM (with and without its scheduler), ZeRO S3 and DeepSpeed PP columns are kept as measured "
                    "but not reproducible. Cells equal to the 2022/04/26-27 Megatron tables' (the same runs) are "
                    "left to ds3lab-megatron-p3-16xlarge-x8.",
     "workload": MEGATRON_XL + "  training: {global_batch: 1024, micro_batch: 1, precision: fp16, recompute: full, "
                 "optimizer: sgd_momentum}\n  parallelism: {dp: 8, tp: 1, pp: 8, schedule: 1f1b}\n" + MEGATRON_OPTS},
    {"id": "ds3lab-xl-fairscale-pipe-fsdp", "fn": t_fairscale,
     "parts": [("gpt3_xl.md", "Result of GPT-3 XL / Pipeline Alone / PyTorch Pipe + Fairscale FSDP", 0)],
     "platform": "p3_16xlarge_x6.xml",
     "description": "PyTorch Pipe over the 8 GPUs of each of 6 p3.16xlarge with Fairscale FSDP (ZeRO-3) across the "
                    "6 machines, batch 16 per machine (96 in all), fp32, checkpointed layers, SGD, QQP "
                    "classification head (dist_fairscale_pipe_fsdp.py --world-size 6 --cuda-num 8 --num-layers 24 "
                    "--seq-length 2048 --embedding-dim 2048). The micro-batch 1 cell ('Fail(Dead Lock?)') is not a "
                    "measurement and is left out.",
     "workload": "  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 28996, head: classifier}\n"
                 "  training: {global_batch: 96, micro_batch: 1, precision: fp32, recompute: full, optimizer: sgd}\n"
                 "  parallelism: {dp: 6, tp: 1, pp: 8, schedule: gpipe, zero: 3}\n  framework: torch-pipe\n"},
]


def main():
    pages = sys.argv[1] if len(sys.argv) > 1 else PAGES
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    parsed = {}
    for t in TABLES:
        tabs = []
        for page, heading, index in t["parts"]:
            if page not in parsed:
                parsed[page] = read_tables(os.path.join(pages, page))
            tabs.append(find_table(parsed[page], heading, index, page))
        rows = t["fn"](tabs)
        ids = [r["id"] for r in rows]
        if len(ids) != len(set(ids)):
            sys.exit(f"{t['id']}: duplicate row ids")
        table_yaml.write_whole(os.path.join(output, t["id"] + ".yaml"), emit_table(t, rows, pages))


if __name__ == "__main__":
    main()
