#!/usr/bin/python3
"""Fig. 2 of INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") from the
fig2.csv that scripts/inc-figures.sh writes (one row per number of jobs and policy, means and sds over seeds):

  OUT/fig2a-reconfigurations.png (and .svg)  OCS reconfigurations vs number of jobs (Fig. 2(a))
  OUT/fig2b-completion.png (and .svg)        completion time of the batch vs number of jobs (Fig. 2(b))
  OUT/fig2-claims.csv                        the paper's percentages beside odcnsim's (claim,paper_percent,
                                             odcnsim_percent)

One line with markers per policy (INC-LJF, INC-FCFS, noINC-LJF, noINC-FCFS, INC-group); the points are the
means over seeds and the error bars one sample sd (the `*_sd` columns; none when they are empty or absent).

A reduction is 100 * (baseline - ours) / baseline on the seed means at one number of jobs; the claims take it
averaged over the numbers of jobs where both policies ran, or its maximum over them, as the claim says.
odcnsim_percent is empty when a policy of the claim is missing or its baseline is 0.

Usage: plot_inc.py FIG2.csv [--out FOLDER]     (default FOLDER: <the CSV's folder>/plots, created)
Nothing is written beside the CSV unless --out names its folder (scripts/inc-figures.sh does). Each file is
written to a temporary name in its folder and renamed into place; the paths written are printed.
Bad input: exit 2 and one line `file: field: reason` on stderr.
"""
import argparse
import csv
import io
import math
import os

import odcnplot as op
from odcnplot import InputError

REQUIRED = ["jobs", "policy", "reconfigurations_mean", "batch_completion_s_mean"]
POLICY_LABELS = {  # in the paper's legend order
    "inc-ljf": "INC-LJF",
    "inc-fcfs": "INC-FCFS",
    "noinc-ljf": "noINC-LJF",
    "noinc-fcfs": "noINC-FCFS",
    "inc-group": "INC-group",
}
PAPER = 'INC-AOI (Xie, Tang, Chen, Zhu,\n"Accelerating DML Training in OCS-based DCNs")'

# claim, paper %, metric, baseline policy, our policy, how the per-job-count reductions are combined
CLAIMS = [
    ("INC-LJF vs noINC-FCFS: reconfigurations, mean over job counts", 96.4, "reconfigurations",
     "noinc-fcfs", "inc-ljf", "mean"),
    ("INC-LJF vs noINC-FCFS: completion time, mean over job counts", 93.2, "batch_completion_s",
     "noinc-fcfs", "inc-ljf", "mean"),
    ("INC vs noINC under FCFS: completion time, max over job counts", 49.4, "batch_completion_s",
     "noinc-fcfs", "inc-fcfs", "max"),
    ("INC vs noINC under LJF: completion time, max over job counts", 46.8, "batch_completion_s",
     "noinc-ljf", "inc-ljf", "max"),
    ("LJF vs FCFS without INC: completion time, mean over job counts", 87.3, "batch_completion_s",
     "noinc-fcfs", "noinc-ljf", "mean"),
    ("LJF vs FCFS with INC: completion time, mean over job counts", 86.3, "batch_completion_s",
     "inc-fcfs", "inc-ljf", "mean"),
]


def load(path):
    """fig2.csv → {policy: {jobs: {metric: (mean, sd)}}} (sd NaN when empty or absent) and the policy order."""
    df = op.read_csv(path, REQUIRED)
    if len(df) == 0:
        raise InputError(path, "(file)", "has a header but no rows")
    jobs = op.numbers(df, "jobs", path, allow_empty=False)
    values = {}
    for metric in ("reconfigurations", "batch_completion_s"):
        mean = op.numbers(df, metric + "_mean", path, allow_empty=False)
        sd_col = metric + "_sd"
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
    return data, known + [p for p in order if p not in POLICY_LABELS]


def reduction(baseline, ours):
    """100 * (baseline - ours) / baseline; None when the baseline is 0."""
    if baseline == 0:
        return None
    return 100.0 * (baseline - ours) / baseline


def claims(data):
    """[(claim, paper %, odcnsim % or None)] for the CLAIMS."""
    out = []
    for claim, paper, metric, base, ours, how in CLAIMS:
        value = None
        if base in data and ours in data:
            counts = sorted(set(data[base]) & set(data[ours]))
            r = [reduction(data[base][n][metric][0], data[ours][n][metric][0]) for n in counts]
            if r and all(x is not None for x in r):
                value = math.fsum(r) / len(r) if how == "mean" else max(r)
        out.append((claim, paper, value))
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


def main():
    parser = op.ArgumentParser(prog="plot_inc.py", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="fig2.csv written by scripts/inc-figures.sh")
    parser.add_argument("--out", help="output folder (default: <the CSV's folder>/plots)")
    args = parser.parse_args()
    op.setup_style()
    path = args.csv
    data, order = load(path)
    folder = args.out if args.out is not None else op.plots_folder(os.path.dirname(path) or ".")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(folder, "--out", "is a file, not a folder")
    draw(data, order, "reconfigurations", "OCS reconfigurations", "a",
         os.path.join(folder, "fig2a-reconfigurations"), [path])
    draw(data, order, "batch_completion_s", "completion time of all jobs (s)", "b",
         os.path.join(folder, "fig2b-completion"), [path])

    rows = claims(data)
    claims_path = os.path.join(folder, "fig2-claims.csv")
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(["claim", "paper_percent", "odcnsim_percent"])
    for claim, paper, value in rows:
        w.writerow([claim, f"{paper:.1f}", format_percent(value)])
    op.write_text(claims_path, text.getvalue(), [path])
    print(claims_path)
    width = max(len(c) for c, _, _ in rows)
    print(f"{'claim':<{width}}  {'paper %':>8}  {'odcnsim %':>9}")
    for claim, paper, value in rows:
        print(f"{claim:<{width}}  {paper:>8.1f}  {format_percent(value) or '-':>9}")


if __name__ == "__main__":
    op.run_main(main)
