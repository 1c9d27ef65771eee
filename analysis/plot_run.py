#!/usr/bin/python3
"""Draws one `odcnsim run` result folder: a per-job timeline and a breakdown of where the time went.

    /usr/bin/python3 analysis/plot_run.py DIR [--out PREFIX] [--max-jobs N]

(a) PREFIX-timeline.{png,svg}: a Gantt chart, one row per job (the first N jobs by id, default 40; the title
    says so when there are more), coloured by what the job is doing: compute, communication, reconfiguration
    stall, waiting. From DIR/trace.json when it holds job task slices (events with ph "X" and cat "compute"
    or "comm"; the job is args.job, else the thread id; a comm slice's first args.stall_s seconds are
    reconfiguration stall). Otherwise (no trace.json, or one written with --trace summary) from
    DIR/iterations.csv: each iteration fills start_s..end_s with compute, communication, stall and waiting
    segments in that order, in proportion to compute_s, communication_s, reconfiguration_stall_s and
    waiting_s (output schema 2; an iterations.csv of schema 1, with comm_s, reconfig_stall_s and wait_s, is
    converted: communication is comm_s − reconfig_stall_s); the title then says "(iteration shares, not order)". Waiting is also every part of the job's
    life, arrival_s to done_s (DIR/jobs.csv), covered by no slice. Where slices of one job overlap, the later
    category in the order compute, communication, stall is drawn on top; stall slices are drawn at least a
    hairline wide so that short ones stay visible.

(b) A breakdown. For TDM runs (DIR/stages.csv present), PREFIX-stages.{png,svg}: one stacked bar per stage
    of the first round, "stage 1 (A)" ... "stage 4 (B)" (k = 0 is group A), split into the reconfiguration
    delay δ (reconfig_s, at the stage's start), communication (from the end of δ to the stage's last byte,
    comm_s after the start), and the rest of the stage (compute / idle). Other runs,
    PREFIX-jobs.{png,svg}: one stacked horizontal bar per job (the same first N jobs) of compute_s,
    communication_s, reconfiguration_stall_s and waiting_s from DIR/jobs.csv.

Titles name the policy (summary.json, else run.json) and the platform and workload file stems (run.json).
The default PREFIX is DIR/plots/<DIR's name>, so the files are written into a `plots/` subfolder of the run
folder (created; DIR/plots/<DIR's name>-timeline.png, ...), which odcnsim keeps when it runs into the folder
again; nothing else is added to DIR. --out naming an existing folder writes <folder>/<DIR's name>-timeline.png
etc. Each file is written to a temporary name in its folder and renamed into place. The paths written are
printed. Bad input: exit 2 and one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_run.py out/tdm4 --max-jobs 20
"""
import math
import os

import odcnplot as op

JOB_COLUMNS = ["job", "arrival_s", "done_s", "compute_s", "communication_s", "reconfiguration_stall_s",
               "waiting_s"]
ITERATION_COLUMNS = ["job", "start_s", "end_s", "compute_s", "communication_s", "reconfiguration_stall_s", "waiting_s"]
# The same columns in output schema 1 (odcnsim before schema_version 2), converted when read.
ITERATION_COLUMNS_V1 = ["job", "start_s", "end_s", "compute_s", "comm_s", "reconfig_stall_s", "wait_s"]
STAGE_COLUMNS = ["round", "stage", "k", "start_s", "end_s", "duration_s", "comm_s", "reconfig_s"]
IDLE_COLOUR = "#56B4E9"


# ---------------------------------------------------------------------------------------------- intervals

def merge(intervals):
    """Union of (start, end) intervals, sorted, overlapping and touching ones merged, empty ones dropped."""
    out = []
    for s, e in sorted((s, e) for s, e in intervals if e > s):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def waiting_intervals(arrival, done, busy):
    """The parts of [arrival, done] that none of the `busy` (start, end) intervals covers."""
    gaps, t = [], arrival
    for s, e in merge((max(s, arrival), min(e, done)) for s, e in busy):
        if s > t:
            gaps.append((t, s))
        t = max(t, e)
    if done > t:
        gaps.append((t, done))
    return gaps


def job_segments(arrival, done, slices):
    """What one job's row of the timeline shows: {category: merged intervals} for compute, communication,
    stall and waiting. Waiting is the slices' own waiting (iterations.csv) plus every part of
    [arrival, done] that no compute, communication or stall slice covers."""
    busy = [iv for cat in ("compute", "communication", "stall") for iv in slices.get(cat, [])]
    out = {cat: merge(slices.get(cat, [])) for cat in ("compute", "communication", "stall")}
    out["waiting"] = merge(list(slices.get("waiting", [])) + waiting_intervals(arrival, done, busy))
    return out


# ---------------------------------------------------------------------------------------------- reading

def read_jobs(path):
    df = op.read_csv(path, required=JOB_COLUMNS)
    if df.empty:
        raise op.InputError(path, "(file)", "has no rows")
    ids = op.numbers(df, "job", path, allow_empty=False)
    jobs = {}
    cols = {c: op.numbers(df, c, path) for c in JOB_COLUMNS[1:]}
    for i, j in enumerate(ids):
        if not j.is_integer() or j < 0:
            raise op.InputError(path, "job", f"line {i + 2}: '{df['job'].iloc[i]}' is not a job id")
        j = int(j)
        if j in jobs:
            raise op.InputError(path, "job", f"line {i + 2}: job {j} appears twice")
        row = {c: cols[c].iloc[i] for c in cols}
        for c in ("arrival_s", "done_s"):
            if math.isnan(row[c]):
                raise op.InputError(path, c, f"line {i + 2}: empty")
        if row["done_s"] < row["arrival_s"]:
            raise op.InputError(path, "done_s", f"line {i + 2}: before arrival_s")
        name = df["job_name"].iloc[i] if "job_name" in df.columns else ""
        row["name"] = name
        jobs[j] = row
    return jobs


def check_folder(d):
    """`d`, or InputError when it is not an existing folder."""
    if not os.path.exists(d):
        raise op.InputError(d, "(folder)", "does not exist")
    if not os.path.isdir(d):
        raise op.InputError(d, "(folder)", "is not a folder")
    return d


def read_titles(d):
    """(summary.json, run.json, their paths) of a run folder; {} for a file that is not there."""
    paths = [os.path.join(d, "summary.json"), os.path.join(d, "run.json")]
    summary, run = (op.read_json(f) if os.path.exists(f) else {} for f in paths)
    return summary, run, paths


def trace_slices(path, data, by_rank=False):
    """Job task slices of a Chrome trace: {job: {"compute": [...], "communication": [...], "stall": [...]}},
    intervals in seconds; by_rank: keyed by (job, rank) instead, for the slices with an integer args.rank
    (rank-level jobs; the others are left out). Everything that is not an "X" event of category compute or
    comm is ignored."""
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise op.InputError(path, "traceEvents", "missing, or not a list")
    out = {}
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in ("compute", "comm"):
            continue
        where = f"traceEvents[{i}]"
        ts, dur = e.get("ts"), e.get("dur")
        for name, v in (("ts", ts), ("dur", dur)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise op.InputError(path, f"{where}.{name}", "missing, or not a number")
        if dur < 0:
            raise op.InputError(path, f"{where}.dur", "negative")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        job = args.get("job", e.get("tid"))
        if isinstance(job, bool) or not isinstance(job, (int, float)) or not float(job).is_integer():
            raise op.InputError(path, f"{where}.args.job", "missing, or not an integer (and no integer tid)")
        start, end = ts / 1e6, (ts + dur) / 1e6
        key = int(job)
        if by_rank:
            rank = args.get("rank")
            if isinstance(rank, bool) or not isinstance(rank, int):
                continue
            key = (key, rank)
        slot = out.setdefault(key, {"compute": [], "communication": [], "stall": []})
        if e["cat"] == "compute":
            slot["compute"].append((start, end))
            continue
        stall = args.get("stall_s", 0.0)
        if isinstance(stall, bool) or not isinstance(stall, (int, float)) or not math.isfinite(stall) or stall < 0:
            raise op.InputError(path, f"{where}.args.stall_s", "not a number of seconds ≥ 0")
        split = min(end, start + stall)
        if split > start:
            slot["stall"].append((start, split))
        slot["communication"].append((split, end))
    return out


def iteration_slices(path):
    """The iterations.csv fallback: each iteration's span cut into the four parts in proportion."""
    df = op.read_csv(path, required=["job", "start_s", "end_s", "compute_s"])
    if "comm_s" in df.columns and "communication_s" not in df.columns:  # schema 1
        df = op.read_csv(path, required=ITERATION_COLUMNS_V1)
        cols = {c: op.numbers(df, c, path) for c in ITERATION_COLUMNS_V1}
        cols["communication_s"] = (cols["comm_s"] - cols["reconfig_stall_s"]).clip(lower=0)
        cols["reconfiguration_stall_s"], cols["waiting_s"] = cols["reconfig_stall_s"], cols["wait_s"]
    else:
        df = op.read_csv(path, required=ITERATION_COLUMNS)
        cols = {c: op.numbers(df, c, path) for c in ITERATION_COLUMNS}
    out = {}
    for i in range(len(df)):
        job = cols["job"].iloc[i]
        if math.isnan(job) or not job.is_integer():
            raise op.InputError(path, "job", f"line {i + 2}: '{df['job'].iloc[i]}' is not a job id")
        start, end = cols["start_s"].iloc[i], cols["end_s"].iloc[i]
        if math.isnan(start) or math.isnan(end) or end < start:
            raise op.InputError(path, "end_s", f"line {i + 2}: the iteration's start_s..end_s is not an interval")
        v = {c: (0.0 if math.isnan(cols[c].iloc[i]) else cols[c].iloc[i])
             for c in ("compute_s", "communication_s", "reconfiguration_stall_s", "waiting_s")}
        parts = [("compute", v["compute_s"]), ("communication", v["communication_s"]),
                 ("stall", v["reconfiguration_stall_s"]), ("waiting", v["waiting_s"])]
        total = sum(max(0.0, x) for _, x in parts)
        slot = out.setdefault(int(job), {"compute": [], "communication": [], "stall": [], "waiting": []})
        if total <= 0:
            continue
        t = start
        for cat, x in parts:
            length = (end - start) * max(0.0, x) / total
            if length > 0:
                slot[cat].append((t, t + length))
            t += length
    return out


# ---------------------------------------------------------------------------------------------- drawing

def fmt_seconds(s):
    if s == 0:
        return "0 s"
    if abs(s) < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if abs(s) < 1:
        return f"{s * 1e3:.3g} ms"
    if abs(s) < 100:
        return f"{s:.3g} s"
    return f"{s:.0f} s"


def describe(summary, run):
    """'tdm4, clos-8pod, small-mix' from summary.json and run.json (what of it is there)."""
    policy = summary.get("policy") if isinstance(summary, dict) else None
    if not isinstance(policy, str) and isinstance(run, dict):
        policy = run.get("policy") if isinstance(run.get("policy"), str) else None
    parts = [policy or "unknown policy"]
    if isinstance(run, dict):
        for key in ("platform", "workload"):
            f = run.get(key, {}).get("file") if isinstance(run.get(key), dict) else None
            if isinstance(f, str) and f:
                parts.append(op.stem(f))
    return ", ".join(parts)


def draw_timeline(jobs, shown, slices, from_iterations, where, n_total, prefix, inputs):
    rows = len(shown)
    fig, ax = op.plt.subplots(figsize=(10.0, 1.8 + 0.26 * rows))
    for y, j in enumerate(shown):
        segments = job_segments(jobs[j]["arrival_s"], jobs[j]["done_s"], slices.get(j, {}))
        for cat in ("waiting", "compute", "communication", "stall"):
            ivs = segments[cat]
            if not ivs:
                continue
            colour = op.CATEGORY_COLOUR[cat]
            ax.broken_barh([(a, b - a) for a, b in ivs], (y - 0.4, 0.8), facecolors=colour,
                           edgecolors=colour if cat == "stall" else "none", linewidth=0.4 if cat == "stall" else 0)
    ax.set_yticks(range(rows))
    ax.set_yticklabels([f"{j} {jobs[j]['name']}".strip() for j in shown], fontsize=8 if rows > 20 else 9)
    ax.set_ylim(rows - 0.5, -0.5)
    lo = min(jobs[j]["arrival_s"] for j in shown)
    hi = max(jobs[j]["done_s"] for j in shown)
    ax.set_xlim(lo, hi if hi > lo else lo + 1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("job")
    ax.grid(False, axis="y")
    title = f"per-job timeline — {where}"
    notes = []
    if rows < n_total:
        notes.append(f"first {rows} of {n_total} jobs by id")
    if from_iterations:
        notes.append("iteration shares, not order")
    if notes:
        title += "\n(" + "; ".join(notes) + ")"
    ax.set_title(title)
    handles = [op.plt.Rectangle((0, 0), 1, 1, color=op.CATEGORY_COLOUR[c]) for c, _, _ in op.CATEGORIES]
    op.legend_below(fig, handles, [label for _, label, _ in op.CATEGORIES], ncol=4)
    op.save_figure(fig, prefix + "-timeline", inputs)


def stage_bars(path, df):
    """The first round's stages as bars: (round, labels, δ, communication, rest, notes)."""
    cols = {c: op.numbers(df, c, path) for c in STAGE_COLUMNS}
    rounds = sorted({int(r) for r in cols["round"] if not math.isnan(r)})
    if not rounds:
        raise op.InputError(path, "round", "no stage has a round")
    first = rounds[0]
    idx = [i for i in range(len(df)) if cols["round"].iloc[i] == first]
    idx.sort(key=lambda i: cols["stage"].iloc[i])
    labels, delta, comm, rest, notes = [], [], [], [], []
    for i in idx:
        k = cols["k"].iloc[i]
        group = {0.0: "A", 1.0: "B"}.get(k, op.format_value(k) or "?")
        labels.append(f"stage {op.format_value(cols['stage'].iloc[i])} ({group})")
        d = cols["duration_s"].iloc[i]
        if math.isnan(d):
            d = cols["end_s"].iloc[i] - cols["start_s"].iloc[i]
        if math.isnan(d) or d < 0:
            raise op.InputError(path, "duration_s", f"line {i + 2}: empty or negative")
        r = 0.0 if math.isnan(cols["reconfig_s"].iloc[i]) else min(cols["reconfig_s"].iloc[i], d)
        c = 0.0 if math.isnan(cols["comm_s"].iloc[i]) else min(cols["comm_s"].iloc[i], d)
        delta.append(r)
        comm.append(max(0.0, c - r))
        rest.append(max(0.0, d - max(c, r)))
        note = fmt_seconds(d)
        if r > 0:
            note += f"\nδ = {fmt_seconds(r)}"
        if "bound" in df.columns and df["bound"].iloc[i]:
            note += f"\nbound: {df['bound'].iloc[i]}"
        notes.append(note)
    return first, labels, delta, comm, rest, notes


def draw_stages(bars, where, prefix, inputs):
    first, labels, delta, comm, rest, notes = bars
    n = len(labels)
    fig, ax = op.plt.subplots(figsize=(max(5.0, 1.3 * n + 2.0), 4.6))
    xs = list(range(n))
    bottom = [0.0] * n
    for values, label, colour in ((delta, "reconfiguration δ", op.CATEGORY_COLOUR["stall"]),
                                  (comm, "communication", op.CATEGORY_COLOUR["communication"]),
                                  (rest, "compute / idle", IDLE_COLOUR)):
        ax.bar(xs, values, bottom=bottom, color=colour, edgecolor="black", linewidth=0.6, width=0.65, label=label)
        bottom = [b + v for b, v in zip(bottom, values)]
    top = max(bottom + [0.0]) or 1.0
    for x, b, note in zip(xs, bottom, notes):
        ax.text(x, b + 0.02 * top, note, ha="center", va="bottom", fontsize=8)
    ax.set_ylim(0, top * 1.3)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)
    ax.set_ylabel("time (s)")
    ax.grid(False, axis="x")
    ax.set_title(f"round {first} stages — {where}")
    handles, names = ax.get_legend_handles_labels()
    op.legend_below(fig, handles, names, ncol=3)
    return op.save_figure(fig, prefix + "-stages", inputs)


def draw_job_bars(jobs, shown, where, n_total, prefix, inputs):
    rows = len(shown)
    fig, ax = op.plt.subplots(figsize=(8.0, 1.8 + 0.26 * rows))
    ys = list(range(rows))
    left = [0.0] * rows
    for key, column in (("compute", "compute_s"), ("communication", "communication_s"),
                        ("stall", "reconfiguration_stall_s"), ("waiting", "waiting_s")):
        v = [0.0 if math.isnan(jobs[j][column]) else jobs[j][column] for j in shown]
        ax.barh(ys, v, left=left, color=op.CATEGORY_COLOUR[key], height=0.75, label=op.CATEGORY_LABEL[key])
        left = [a + b for a, b in zip(left, v)]
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{j} {jobs[j]['name']}".strip() for j in shown], fontsize=8 if rows > 20 else 9)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("job")
    ax.grid(False, axis="y")
    title = f"time per job — {where}"
    if rows < n_total:
        title += f"\n(first {rows} of {n_total} jobs by id)"
    ax.set_title(title)
    handles, names = ax.get_legend_handles_labels()
    op.legend_below(fig, handles, names, ncol=4)
    return op.save_figure(fig, prefix + "-jobs", inputs)


def main(argv=None):
    p = op.ArgumentParser(prog="plot_run.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="a folder written by odcnsim run --out DIR")
    p.add_argument("--out", metavar="PREFIX", help="output path prefix, or an existing folder to write "
                   "<folder>/<DIR name>-timeline.png etc. into (default: DIR/plots/<DIR name>)")
    p.add_argument("--max-jobs", type=int, default=40, metavar="N", help="jobs drawn, lowest ids first (default 40)")
    a = p.parse_args(argv)
    if a.max_jobs < 1:
        raise op.InputError("command line", "--max-jobs", f"{a.max_jobs}: must be at least 1")
    d = check_folder(a.dir)

    def f(name):
        return os.path.join(d, name)

    inputs = [f("jobs.csv")]
    jobs = read_jobs(f("jobs.csv"))
    summary, run, more = read_titles(d)
    inputs += more
    where = describe(summary, run)

    slices, from_iterations = {}, False
    if os.path.exists(f("trace.json")):
        inputs.append(f("trace.json"))
        slices = trace_slices(f("trace.json"), op.read_json(f("trace.json")))
    if not slices:
        inputs.append(f("iterations.csv"))
        slices, from_iterations = iteration_slices(f("iterations.csv")), True
    stages = None
    if os.path.exists(f("stages.csv")):
        inputs.append(f("stages.csv"))
        df = op.read_csv(f("stages.csv"), required=STAGE_COLUMNS)
        if not df.empty:
            stages = stage_bars(f("stages.csv"), df)

    shown = sorted(jobs)[: a.max_jobs]
    full = os.path.normpath(os.path.abspath(d))
    prefix = op.output_prefix(a.out, os.path.basename(full) or "run", full)
    second = "-stages" if stages is not None else "-jobs"
    op.check_outputs([prefix + part + ext for part in ("-timeline", second) for ext in (".png", ".svg")], inputs)
    op.setup_style()
    draw_timeline(jobs, shown, slices, from_iterations, where, len(jobs), prefix, inputs)
    if stages is not None:
        draw_stages(stages, where, prefix, inputs)
    else:
        draw_job_bars(jobs, shown, where, len(jobs), prefix, inputs)


if __name__ == "__main__":
    op.run_main(main)
