#!/usr/bin/python3
"""Draws the CDFs of job completion time and slowdown per policy of an `odcnsim compare` folder, from each
policy's runs/POLICY/jobs.csv (with --seeds, the jobs of every runs/POLICY/seed-K together).

    /usr/bin/python3 analysis/plot_cdf.py COMPARE_DIR [--out PREFIX] [--title TITLE]

Left panel: the fraction of jobs whose completion time (completion_s: end − arrival) is at most x, one step
line per policy in the order of compare.csv, in the same colours as plot_compare.py. Right panel: the same
for the slowdown (completion over the time alone); it is left out when no policy has slowdowns (compare
--no-slowdown). A panel whose values span more than two decades has a log x axis; jobs with a value of 0
(which a log axis cannot show) then get a bin of their own at the axis' left, labelled "0", with the share
written beside it. The legend gives each policy's number of jobs and median.

Writes PREFIX.png and PREFIX.svg and prints their paths. Default PREFIX: COMPARE_DIR/plots/compare-cdf;
--out naming an existing folder writes <folder>/compare-cdf. Bad input: exit 2 and one line
`file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_cdf.py out/cmp
"""
import os
import statistics

import odcndraw
import odcnplot as op
import plot_compare

PANELS = ["completion_s", "slowdown"]


def read_policies(folder):
    """(compare.csv path, policies in its order, baseline, platform/workload stems text)."""
    path = os.path.join(folder, "compare.csv")
    df, _, baseline = plot_compare.load(path)
    where = ", ".join(s for s in (op.stems_text(df["platform"], "platform") if "platform" in df.columns else "",
                                  op.stems_text(df["workload"], "workload") if "workload" in df.columns else "") if s)
    return path, df["policy"].tolist(), baseline, where


def run_folders(folder, policy):
    """The run folders of one policy: runs/POLICY, or its runs/POLICY/seed-K folders (compare --seeds), by K."""
    base = os.path.join(folder, "runs", policy)
    seeds = sorted((n for n in (os.listdir(base) if os.path.isdir(base) else []) if n.startswith("seed-")
                    and n[5:].isdigit()), key=lambda n: int(n[5:]))
    return [os.path.join(base, n) for n in seeds] or [base]


def read_values(folder, policies):
    """{column: {policy: [values]}} of each policy's runs/POLICY/jobs.csv (with --seeds: the jobs of every seed
    together; empty fields left out), and the files read."""
    out = {c: {} for c in PANELS}
    paths = []
    for policy in policies:
        for run in run_folders(folder, policy):
            path = os.path.join(run, "jobs.csv")
            df = op.read_csv(path, required=["completion_s"])
            paths.append(path)
            for c in PANELS:
                if c in df.columns:
                    out[c].setdefault(policy, []).extend(v for v in op.numbers(df, c, path).tolist() if v == v)
    return out, paths


def draw(values, order, title, prefix, inputs):
    """The CDF panels (completion_s, and slowdown when any series has one) of `values` ({column: {series:
    [values]}}), a line per series in `order`, saved as PREFIX.png and PREFIX.svg; returns their paths."""
    panels = [c for c in PANELS if any(values[c].get(q) for q in order)]
    if not panels:
        raise op.InputError(inputs[0], "completion_s", "no job has a completion time")
    op.setup_style()
    fig, axes = op.plt.subplots(1, len(panels), figsize=(5.0 * len(panels) + 0.5, 4.0), squeeze=False)
    for ax, column in zip(axes[0], panels):
        series = [(f"{q} ({len(values[column][q])} jobs, median {odcndraw.value_text(statistics.median(values[column][q]))})",
                   values[column][q], {"color": op.PALETTE[i % len(op.PALETTE)],
                                       "linestyle": op.LINESTYLES[i % len(op.LINESTYLES)], "linewidth": 1.6})
                  for i, q in enumerate(order) if values[column].get(q)]
        every = [v for _, vs, _ in series for v in vs]
        odcndraw.cdf_panel(ax, series, zero_label="0", log=odcndraw.wants_log(every))
        ax.set_xlabel(op.metric_label(column))
        ax.set_title(op.metric_name(column))
        ax.legend(loc="lower right", fontsize=7)
    op.suptitle(fig, title)
    return op.save_figure(fig, prefix, inputs)


def main(argv=None):
    p = op.ArgumentParser(prog="plot_cdf.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", metavar="COMPARE_DIR", help="a folder written by odcnsim compare --out DIR")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder "
                   "(default: COMPARE_DIR/plots/compare-cdf)")
    p.add_argument("--title", help="title instead of the one made from the data")
    a = p.parse_args(argv)
    folder = a.folder
    csv_path, policies, baseline, where = read_policies(folder)
    values, inputs = read_values(folder, policies)
    title = a.title or (f"jobs per policy (baseline {baseline})" + (f" — {where}" if where else ""))
    prefix = op.output_prefix(a.out, "compare-cdf", os.path.abspath(folder))
    draw(values, policies, title, prefix, [csv_path] + inputs)


if __name__ == "__main__":
    op.run_main(main)
