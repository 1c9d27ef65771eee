#!/usr/bin/python3
"""Draws TDM-4's figures from analysis/out/tdm4_sweep.csv: round time of tdm4 vs aggregate against the
number of jobs and against the context length (mean over seeds, with min-max bars), and writes a markdown
table with the relative improvement of tdm4.

    /usr/bin/python3 analysis/plot_tdm4.py [--out analysis/out]
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def summarise(df, sweep, x):
    d = df[df.sweep == sweep]
    g = d.groupby([x, "policy"]).round_time_s.agg(["mean", "min", "max"]).unstack("policy")
    return g


def plot(g, x, xlabel, title, path, log_x):
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(6, 6), gridspec_kw={"height_ratios": [3, 2]})
    for policy, style in (("aggregate", "s--"), ("tdm4", "o-")):
        mean, lo, hi = g["mean"][policy], g["min"][policy], g["max"][policy]
        ax.errorbar(mean.index, mean.values, yerr=[mean - lo, hi - mean], fmt=style, capsize=3,
                    label={"tdm4": "TDM four-stage (tdm4)", "aggregate": "non-TDM (aggregate)"}[policy])
    gain = 100 * (g["mean"]["aggregate"] - g["mean"]["tdm4"]) / g["mean"]["aggregate"]
    bx.bar(range(len(gain)), gain.values, color="tab:orange")
    bx.set_xticks(range(len(gain)))
    bx.set_xticklabels([str(v) for v in g.index])
    ax.set_xscale("linear")
    ax.set_xticks(list(g.index))
    if log_x:
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(g.index))
        ax.set_xticklabels([str(v) for v in g.index])
    ax.set_ylabel("round time (s)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    bx.set_xlabel(xlabel)
    bx.set_ylabel("tdm4 improvement (%)")
    bx.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def table(g, x, header):
    lines = [f"| {header} | aggregate round (s) | tdm4 round (s) | improvement |", "|---:|---:|---:|---:|"]
    for v in g.index:
        a, t = g["mean"]["aggregate"][v], g["mean"]["tdm4"][v]
        lines.append(f"| {v} | {a:.2f} | {t:.2f} | {100 * (a - t) / a:.2f} % |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "analysis", "out"))
    a = ap.parse_args()
    df = pd.read_csv(os.path.join(a.out, "tdm4_sweep.csv"))
    seeds = df.seed.nunique()
    gj = summarise(df, "jobs", "jobs")
    gc = summarise(df, "context", "context")
    ctx_jobs = int(df[df.sweep == "context"].jobs.iloc[0])
    plot(gj, "jobs", "number of jobs", "clos-256pod, 8k context", os.path.join(a.out, "round_vs_jobs.png"), True)
    plot(gc, "context", "context length (tokens)", f"clos-256pod, {ctx_jobs} jobs",
         os.path.join(a.out, "round_vs_context.png"), True)
    md = ["# TDM four-stage scheduling vs non-TDM (TDM-4 §IV.C)", "",
          f"Round time on clos-256pod, mean over {seeds} generator seeds; one round = one PS iteration and two",
          "RAR/AllToAll iterations. Improvement = (aggregate − tdm4) / aggregate.", "",
          "## Against the number of jobs (8k context)", "", table(gj, "jobs", "jobs"), "",
          f"## Against the context length ({ctx_jobs} jobs)", "", table(gc, "context", "context"), ""]
    with open(os.path.join(a.out, "tdm4_improvement.md"), "w") as f:
        f.write("\n".join(md))
    print("plot_tdm4: wrote round_vs_jobs.png, round_vs_context.png, tdm4_improvement.md in " + a.out)


if __name__ == "__main__":
    main()
