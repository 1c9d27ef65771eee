#!/usr/bin/python3
"""Fig. 2 of INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") from the
fig2.csv that scripts/inc-figures.sh writes (one row per number of jobs and policy, means and sds over seeds):

  OUT/fig2a-reconfigurations.png (and .svg)  the chosen reconfiguration reading vs number of jobs (Fig. 2(a))
  OUT/fig2b-completion.png (and .svg)        completion time of the batch vs number of jobs (Fig. 2(b))
  OUT/fig2-claims.csv                        the paper's percentages beside odcnsim's (claim,paper_percent,
                                             odcnsim_percent,metric,combine): metric is the fig2.csv column the
                                             claim used (for the reconfiguration claim, the --reading's)
  OUT/fig2-size-classes.csv                  with per-job CSVs (--jct): mean JCT per policy and job size
                                             (workers 2, 4, 8, 16, ...) over every job of every run
                                             (policy,workers,runs,jobs,mean_jct_s)
  OUT/fig2-blocking.csv                      with the head_blocked_* columns: for each FCFS policy, the slots whose
                                             head-of-line job was blocked by busy servers or by missing ports,
                                             summed over the job counts' seed means, and their shares in percent
                                             (policy,blocked_slots_servers,blocked_slots_ports,servers_percent,
                                             ports_percent)

One line with markers per policy (INC-LJF, INC-FCFS, noINC-LJF, noINC-FCFS, INC-group); the points are the
means over seeds and the error bars one sample sd (the `*_sd` columns; none when they are empty or absent).

--reading NAME picks Fig. 2(a)'s column, NAME_mean (events, circuits_changed, job_allocations, spanning_jobs,
slots_starting_spanning_jobs, or reconfigurations; default events, read from reconfigurations_mean when a fig2.csv
of before the readings has no events_mean). The claims are taken over the numbers of jobs where both policies ran,
on the seed means:
  - "ratio of sums": 100 * (1 - sum(ours) / sum(baseline)), the sums over the job counts;
  - "max over job counts" (the paper's "up to"): the largest 100 * (1 - ours / baseline) at one job count.
odcnsim_percent is empty when a policy of the claim is missing or a baseline (sum, or any one for max) is 0.

--jct FOLDER holds <policy>-<jobs>-seed<S>.csv, each a run's ps_jobs.csv (columns workers and jct_s); only the
(policy, jobs) of fig2.csv count. Default: FIG2.csv's folder's jct/ when it exists, else no size classes.

Usage: plot_inc.py FIG2.csv [--out FOLDER] [--reading NAME] [--jct FOLDER]
       (default FOLDER: <the CSV's folder>/plots, created)
Nothing is written beside the CSV unless --out names its folder (scripts/inc-figures.sh does). Each file is
written to a temporary name in its folder and renamed into place; the paths written are printed.
Bad input: exit 2 and one line `file: field: reason` on stderr.
"""
import argparse
import csv
import io
import math
import os
import re

import odcnplot as op
from odcnplot import InputError

REQUIRED = ["jobs", "policy", "batch_completion_s_mean"]
READINGS = ["events", "circuits_changed", "job_allocations", "spanning_jobs", "slots_starting_spanning_jobs",
            "reconfigurations"]
READING_LABELS = {
    "events": "OCS reconfiguration events (at most one per slot)",
    "circuits_changed": "circuits changed (added + removed)",
    "job_allocations": "job allocations that lit circuits",
    "spanning_jobs": "jobs that needed inter-rack circuits",
    "slots_starting_spanning_jobs": "slots that started rack-spanning jobs",
    "reconfigurations": "OCS reconfigurations",
}
POLICY_LABELS = {  # in the paper's legend order
    "inc-ljf": "INC-LJF",
    "inc-fcfs": "INC-FCFS",
    "noinc-ljf": "noINC-LJF",
    "noinc-fcfs": "noINC-FCFS",
    "inc-group": "INC-group",
}
FCFS = ["inc-fcfs", "noinc-fcfs"]
PAPER = 'INC-AOI (Xie, Tang, Chen, Zhu,\n"Accelerating DML Training in OCS-based DCNs")'
RECONF = "reconfigurations"  # the CLAIMS' name for the chosen reading
RATIO, MAX = "ratio of sums", "max over job counts"

# claim, paper %, metric, baseline policy, our policy, how the per-job-count values are combined
CLAIMS = [
    ("INC-LJF vs noINC-FCFS: reconfigurations", 96.4, RECONF, "noinc-fcfs", "inc-ljf", RATIO),
    ("INC-LJF vs noINC-FCFS: completion time", 93.2, "batch_completion_s", "noinc-fcfs", "inc-ljf", RATIO),
    ("INC vs noINC under FCFS: completion time (up to)", 49.4, "batch_completion_s", "noinc-fcfs", "inc-fcfs", MAX),
    ("INC vs noINC under LJF: completion time (up to)", 46.8, "batch_completion_s", "noinc-ljf", "inc-ljf", MAX),
    ("LJF vs FCFS without INC: completion time (on average)", 87.3, "batch_completion_s", "noinc-fcfs", "noinc-ljf",
     RATIO),
    ("LJF vs FCFS with INC: completion time (on average)", 86.3, "batch_completion_s", "inc-fcfs", "inc-ljf", RATIO),
]


def reading_column(df, reading):
    """The fig2.csv column prefix Fig. 2(a) uses for `reading`: `reading`, or reconfigurations for events in a
    fig2.csv of before the readings (where reconfigurations counted the events)."""
    if reading + "_mean" in df.columns:
        return reading
    if reading == "events" and "reconfigurations_mean" in df.columns:
        return "reconfigurations"
    return reading


def load(path, reading="events"):
    """fig2.csv → {policy: {jobs: {metric: (mean, sd)}}} (sd NaN when empty or absent), the policy order and the
    column used for the reading. data[policy][jobs] has "reconfigurations" (the reading's values),
    "batch_completion_s" and, when present, "head_blocked_servers" and "head_blocked_ports"."""
    df = op.read_csv(path, REQUIRED)
    column = reading_column(df, reading)
    op.read_csv(path, REQUIRED + [column + "_mean"])  # the one-line error for a missing reading column
    if len(df) == 0:
        raise InputError(path, "(file)", "has a header but no rows")
    jobs = op.numbers(df, "jobs", path, allow_empty=False)
    values = {}
    sources = {RECONF: column, "batch_completion_s": "batch_completion_s"}
    for extra in ("head_blocked_servers", "head_blocked_ports"):
        if extra + "_mean" in df.columns:
            sources[extra] = extra
    for metric, src in sources.items():
        mean = op.numbers(df, src + "_mean", path, allow_empty=False)
        sd_col = src + "_sd"
        sd = op.numbers(df, sd_col, path) if sd_col in df.columns else None
        values[metric] = (mean, sd)
    data, order = {}, []
    for i, policy in enumerate(df["policy"].tolist()):
        policy = policy.strip()
        if policy == "":
            raise InputError(path, "policy", f"line {i + 2}: empty")
        n = jobs.iloc[i]
        if not n.is_integer() or n <= 0:
            raise InputError(path, "jobs", f"line {i + 2}: '{df['jobs'].iloc[i]}' is not a positive integer")
        n = int(n)
        if policy not in data:
            data[policy] = {}
            order.append(policy)
        if n in data[policy]:
            raise InputError(path, "policy", f"line {i + 2}: {policy} at {n} jobs appears twice")
        data[policy][n] = {m: (mean.iloc[i], sd.iloc[i] if sd is not None else math.nan)
                           for m, (mean, sd) in values.items()}
    known = [p for p in POLICY_LABELS if p in data]
    return data, known + [p for p in order if p not in POLICY_LABELS], column


def reduction(baseline, ours):
    """100 * (baseline - ours) / baseline; None when the baseline is 0."""
    if baseline == 0:
        return None
    return 100.0 * (baseline - ours) / baseline


def combine(base, ours, how):
    """The claim's reduction from the per-job-count values (same order): 100 * (1 - sum ours / sum base) for
    RATIO, the largest per-count reduction for MAX; None when a baseline (its sum for RATIO) is 0 or no counts."""
    if not base:
        return None
    if how == RATIO:
        return reduction(math.fsum(base), math.fsum(ours))
    r = [reduction(b, o) for b, o in zip(base, ours)]
    return None if any(x is None for x in r) else max(r)


def claims(data):
    """[(claim, paper %, odcnsim % or None)] for the CLAIMS."""
    out = []
    for claim, paper, metric, base, ours, how in CLAIMS:
        value = None
        if base in data and ours in data:
            counts = sorted(set(data[base]) & set(data[ours]))
            value = combine([data[base][n][metric][0] for n in counts], [data[ours][n][metric][0] for n in counts],
                            how)
        out.append((claim, paper, value))
    return out


JCT_NAME = re.compile(r"^(?P<policy>.+)-(?P<jobs>[1-9][0-9]*)-seed(?P<seed>[0-9]+)\.csv$")


def size_classes(folder, data, order):
    """[(policy, workers, runs, jobs, mean JCT)] over the per-job CSVs in `folder` whose (policy, jobs) is in
    `data`, in the policy order then by workers."""
    acc = {}  # (policy, workers) -> [sum, count, runs]
    for name in sorted(os.listdir(folder)):
        m = JCT_NAME.match(name)
        if not m or m["policy"] not in data or int(m["jobs"]) not in data[m["policy"]]:
            continue
        path = os.path.join(folder, name)
        df = op.read_csv(path, ["workers", "jct_s"])
        workers = op.numbers(df, "workers", path, allow_empty=False)
        jct = op.numbers(df, "jct_s", path)
        seen = set()
        for w, t in zip(workers, jct):
            if math.isnan(t):
                continue
            if not w.is_integer() or w <= 0:
                raise InputError(path, "workers", f"'{w}' is not a positive integer")
            a = acc.setdefault((m["policy"], int(w)), [[], 0, 0])
            a[0].append(t)
            a[1] += 1
            if int(w) not in seen:
                a[2] += 1
                seen.add(int(w))
    rank = {p: i for i, p in enumerate(order)}
    return [(p, w, a[2], a[1], math.fsum(a[0]) / a[1]) for (p, w), a in sorted(acc.items(),
                                                                                  key=lambda kv: (rank[kv[0][0]],
                                                                                                  kv[0][1]))]


def blocking(data):
    """[(policy, servers, ports, servers %, ports %)] for the FCFS policies present, summed over job counts."""
    out = []
    for p in FCFS:
        if p not in data or any("head_blocked_servers" not in v or "head_blocked_ports" not in v
                                for v in data[p].values()):
            continue
        servers = math.fsum(v["head_blocked_servers"][0] for v in data[p].values())
        ports = math.fsum(v["head_blocked_ports"][0] for v in data[p].values())
        total = servers + ports
        out.append((p, servers, ports, None if total == 0 else 100.0 * servers / total,
                    None if total == 0 else 100.0 * ports / total))
    return out


def draw(data, order, metric, ylabel, panel, prefix, inputs):
    fig, ax = op.plt.subplots(figsize=(6.0, 4.2))
    handles, labels = [], []
    for i, policy in enumerate(order):
        points = data[policy]
        xs = sorted(points)
        ys = [points[n][metric][0] for n in xs]
        sds = [points[n][metric][1] for n in xs]
        style = dict(marker=op.MARKERS[i % len(op.MARKERS)], color=op.PALETTE[i % len(op.PALETTE)],
                     linestyle=op.LINESTYLES[(i // len(op.PALETTE)) % len(op.LINESTYLES)], markersize=5)
        if any(not math.isnan(s) for s in sds):
            h = ax.errorbar(xs, ys, yerr=[0.0 if math.isnan(s) else s for s in sds], capsize=3, elinewidth=1,
                            **style)
        else:
            h, = ax.plot(xs, ys, **style)
        handles.append(h)
        labels.append(POLICY_LABELS.get(policy, policy))
    all_x = sorted({n for p in order for n in data[p]})
    ax.set_xticks(all_x)
    ax.set_xticklabels([str(n) for n in all_x])
    ax.set_xlabel("number of jobs")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(f"{PAPER}, Fig. 2({panel}): odcnsim")
    op.legend_below(fig, handles, labels, ncol=3)
    op.save_figure(fig, prefix, inputs)


def format_percent(x):
    return "" if x is None else f"{x:.2f}"


def csv_text(header, rows):
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return text.getvalue()


def main(argv=None):
    parser = op.ArgumentParser(prog="plot_inc.py", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="fig2.csv written by scripts/inc-figures.sh")
    parser.add_argument("--out", help="output folder (default: <the CSV's folder>/plots)")
    parser.add_argument("--reading", default="events", choices=READINGS,
                        help="the reconfiguration reading of Fig. 2(a) and its claim (default events)")
    parser.add_argument("--jct", help="folder of per-job CSVs <policy>-<jobs>-seed<S>.csv (default: <the CSV's "
                                      "folder>/jct when it exists)")
    args = parser.parse_args(argv)
    op.setup_style()
    path = args.csv
    data, order, column = load(path, args.reading)
    here = os.path.dirname(path) or "."
    jct = args.jct
    if jct is None and os.path.isdir(os.path.join(here, "jct")):
        jct = os.path.join(here, "jct")
    if jct is not None and not os.path.isdir(jct):
        raise InputError(jct, "--jct", "is not a folder")
    folder = args.out if args.out is not None else op.plots_folder(here)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(folder, "--out", "is a file, not a folder")
    classes = size_classes(jct, data, order) if jct is not None else None

    draw(data, order, RECONF, READING_LABELS[args.reading], "a",
         os.path.join(folder, "fig2a-reconfigurations"), [path])
    draw(data, order, "batch_completion_s", "completion time of all jobs (s)", "b",
         os.path.join(folder, "fig2b-completion"), [path])

    rows = claims(data)
    claims_path = os.path.join(folder, "fig2-claims.csv")
    op.write_text(claims_path, csv_text(
        ["claim", "paper_percent", "odcnsim_percent", "metric", "combine"],
        [[claim, f"{paper:.1f}", format_percent(value), (column if metric == RECONF else metric) + "_mean", how]
         for (claim, paper, value), (_, _, metric, _, _, how) in zip(rows, CLAIMS)]), [path])
    print(claims_path)
    written = []
    if classes is not None:
        p = os.path.join(folder, "fig2-size-classes.csv")
        op.write_text(p, csv_text(["policy", "workers", "runs", "jobs", "mean_jct_s"],
                                  [[pol, w, r, n, repr(m)] for pol, w, r, n, m in classes]), [path])
        written.append(p)
    blocked = blocking(data)
    if blocked:
        p = os.path.join(folder, "fig2-blocking.csv")
        op.write_text(p, csv_text(["policy", "blocked_slots_servers", "blocked_slots_ports", "servers_percent",
                                   "ports_percent"],
                                  [[pol, repr(s), repr(q), format_percent(a), format_percent(b)]
                                   for pol, s, q, a, b in blocked]), [path])
        written.append(p)
    for p in written:
        print(p)

    width = max(len(c) for c, _, _ in rows)
    print(f"reading for Fig. 2(a) and its claim: {column}_mean")
    print(f"{'claim':<{width}}  {'paper %':>8}  {'odcnsim %':>9}")
    for claim, paper, value in rows:
        print(f"{claim:<{width}}  {paper:>8.1f}  {format_percent(value) or '-':>9}")
    if classes:
        sizes = sorted({w for _, w, _, _, _ in classes})
        means = {(p, w): m for p, w, _, _, m in classes}
        print(f"{'mean JCT (s) by workers':<24}" + "  ".join(f"{w:>8}" for w in sizes))
        for p in [p for p in order if any(q == p for q, *_ in classes)]:
            cells = [f"{means[(p, w)]:>8.1f}" if (p, w) in means else f"{'-':>8}" for w in sizes]
            print(f"  {p:<22}" + "  ".join(cells))
    for p, s, q, a, b in blocked:
        print(f"{p}: head-of-line blocked slots: servers {s:.1f} ({format_percent(a) or '-'} %), "
              f"ports {q:.1f} ({format_percent(b) or '-'} %)")


if __name__ == "__main__":
    op.run_main(main)
