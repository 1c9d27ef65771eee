#!/usr/bin/python3
"""Plots metrics of an `odcnsim sweep` result (sweep.csv) against one swept key.

    /usr/bin/python3 analysis/plot_sweep.py SWEEP.csv --x KEY --y METRIC [--y METRIC2 ...]
                                            [--out PREFIX] [--logx] [--title TITLE]

One panel per --y metric, stacked, sharing the x axis. One line per policy; when other swept keys (or the
platform or workload file) vary too, one line per policy and combination of their values, named in the
legend. Colour tells the policy, marker and dash the other values. Rows of the same line and x (different
seeds) are averaged: the point is their mean and the error bar one sample standard deviation (n − 1), and
the legend says "(mean ± sd over N seeds)". With one row per point there are no error bars and no such
phrase. Empty metric fields are left out of the mean (N counts the values present).

The swept keys are the columns between `seed` and `jobs`; the metrics are the columns after `iterations`.
A numeric key is drawn to scale (--logx: on a log scale) with a tick at each swept value (every k-th when
there are more than 12); any other key is drawn as evenly spaced categories in the order they first appear.
Keys and metrics are labelled in words with their units ("OCS reconfiguration delay δ (µs)" for
ocs.reconfig_delay_us; analysis/odcnlabels.py).

Writes PREFIX.png and PREFIX.svg and prints their paths. Default PREFIX:
`<csv folder>/plots/<csv stem>-<metric>[-<metric>...]-vs-<key>`: a `plots/` subfolder (created) of the sweep
folder, which odcnsim keeps when it resumes the sweep; nothing is written beside the CSV. --out naming an
existing folder puts the default name in it. Each file is written to a temporary name in its folder and
renamed into place. Bad input: exit 2 and one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_sweep.py out/sweep/sweep.csv --x ocs.reconfig_delay_us --y makespan_s --logx
"""
import math
import os
import re

import pandas as pd

import odcndraw
import odcnplot as op

HEAD = ["point", "platform", "workload", "policy", "seed"]
MIDDLE = ["jobs", "iterations"]


def load(path):
    """Reads a sweep CSV. Returns (DataFrame of strings, swept keys, metric columns)."""
    df = op.read_csv(path, required=HEAD + MIDDLE)
    cols = list(df.columns)
    if cols[: len(HEAD)] != HEAD:
        raise op.InputError(path, cols[0] if cols else "(header)",
                            "the header must begin with " + ",".join(HEAD))
    i_jobs = cols.index("jobs")
    if cols[i_jobs + 1: i_jobs + 2] != ["iterations"]:
        raise op.InputError(path, "iterations", "must follow the column jobs")
    keys = cols[len(HEAD): i_jobs]
    metrics = cols[i_jobs + 2:]
    if df.empty:
        raise op.InputError(path, "(file)", "has no rows")
    return df, keys, metrics


def aggregate(df, x, metric, group_keys):
    """Means over rows with the same group (the values of `group_keys`) and the same `x`.

    `df[x]` holds numbers or strings, `df[metric]` floats (NaN = missing: left out). Returns a DataFrame with
    columns group_keys + [x, 'n', 'mean', 'sd', 'min', 'max'], one row per (group, x) with at least one
    value: groups in the order they first appear, x ascending when numeric, else in order of appearance.
    `sd` is the sample standard deviation (n − 1), NaN when n = 1.
    """
    cells = {}
    for row in df[group_keys + [x, metric]].itertuples(index=False, name=None):
        value = row[-1]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        cells.setdefault(row[:-2], {}).setdefault(row[-2], []).append(float(value))
    numeric = pd.api.types.is_numeric_dtype(df[x])
    out = []
    for group, by_x in cells.items():
        xs = sorted(by_x) if numeric else list(by_x)
        for xv in xs:
            v = by_x[xv]
            n = len(v)
            mean = math.fsum(v) / n
            sd = math.sqrt(math.fsum((a - mean) ** 2 for a in v) / (n - 1)) if n > 1 else math.nan
            out.append(list(group) + [xv, n, mean, sd, min(v), max(v)])
    return pd.DataFrame(out, columns=group_keys + [x, "n", "mean", "sd", "min", "max"])


def seeds_phrase(ns, unit):
    """'(mean ± sd over 3 seeds)', '(mean ± sd over 2–3 seeds)', or '' when every point is one row."""
    lo, hi = min(ns), max(ns)
    if hi <= 1:
        return ""
    count = f"{lo}–{hi}" if lo != hi else f"{hi}"
    return f"(mean ± sd over {count} {unit})"


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9._+=-]+", "_", text)


def main(argv=None):
    p = op.ArgumentParser(prog="plot_sweep.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", metavar="SWEEP.csv", help="sweep.csv written by odcnsim sweep")
    p.add_argument("--x", required=True, metavar="KEY",
                   help="swept key for the x axis (a column between seed and jobs)")
    p.add_argument("--y", required=True, action="append", metavar="METRIC",
                   help="metric column for the y axis; repeat for more panels")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder to write the default names into "
                        "(default: <csv folder>/plots/<default name>)")
    p.add_argument("--logx", action="store_true", help="log scale on the x axis (the key's values must be > 0)")
    p.add_argument("--title", help="title instead of the one made from the data")
    a = p.parse_args(argv)
    path = a.csv

    df, keys, metrics = load(path)
    if a.x not in keys:
        raise op.InputError(path, a.x, "not a swept key (--x); swept keys: " + (", ".join(keys) or "none"))
    ys = list(dict.fromkeys(a.y))
    for y in ys:
        if y not in metrics:
            raise op.InputError(path, y, "not a metric (--y); metrics: " + (", ".join(metrics) or "none"))
    for y in ys:
        df[y] = op.numbers(df, y, path)
        if df[y].isna().all():
            raise op.InputError(path, y, "the column is empty: no point has a value")

    numeric_x = op.is_numeric_column(df, a.x)
    df = df[df[a.x].str.strip() != ""].copy()
    if df.empty:
        raise op.InputError(path, a.x, "the column is empty: no point has a value")
    if numeric_x:
        df[a.x] = op.numbers(df, a.x, path)
        if a.logx and (df[a.x] <= 0).any():
            raise op.InputError(path, a.x, "--logx needs values > 0; the column has "
                                + op.format_value(float(df[a.x].min())))
    elif a.logx:
        raise op.InputError(path, a.x, "--logx needs numbers; the column holds text")

    # The line keys: the policy, then whatever else varies.
    df["platform_stem"] = df["platform"].map(op.stem)
    df["workload_stem"] = df["workload"].map(op.stem)
    others = [c for c in ["platform_stem", "workload_stem"] + [k for k in keys if k != a.x]
              if df[c].nunique() > 1]
    group_keys = ["policy"] + others
    policies = list(dict.fromkeys(df["policy"]))
    combos = list(dict.fromkeys(tuple(r) for r in df[others].itertuples(index=False, name=None)))

    x_values = sorted(df[a.x].unique()) if numeric_x else list(dict.fromkeys(df[a.x]))
    position = {v: (v if numeric_x else i) for i, v in enumerate(x_values)}

    platform = op.stems_text(df["platform"], "platform")
    workload = op.stems_text(df["workload"], "workload")
    where = ", ".join(s for s in (platform, workload) if s)
    title = a.title or (" and ".join(op.metric_name(y) for y in ys) + f" vs {op.metric_name(a.x)}"
                        + (f" — {where}" if where else ""))

    op.setup_style()
    fig, axes = op.plt.subplots(len(ys), 1, sharex=True, figsize=(7.5, 1.0 + 3.0 * len(ys)), squeeze=False)
    axes = axes[:, 0]
    legends = []
    for ax, y in zip(axes, ys):
        agg = aggregate(df, a.x, y, group_keys)
        handles = []
        by = group_keys if len(group_keys) > 1 else group_keys[0]  # (pandas warns about a one-item list)
        for group, rows in agg.groupby(by, sort=False):
            group = group if isinstance(group, tuple) else (group,)
            policy, rest = group[0], tuple(group[1:])
            pi, ci = policies.index(policy), combos.index(rest) if others else 0
            seeded = df[(df["policy"] == policy)]
            for k, v in zip(others, rest):
                seeded = seeded[seeded[k] == v]
            unit = "seeds" if (seeded["seed"].str.strip() != "").any() else "runs"
            phrase = seeds_phrase(rows["n"].tolist(), unit)
            label = ", ".join([str(policy)] + [(v if k.endswith("_stem") else op.setting(k, op.format_value(v)))
                                               for k, v in zip(others, rest)])
            label = f"{label} {phrase}" if phrase else label
            xs = [position[v] for v in rows[a.x]]
            style = dict(color=op.PALETTE[pi % len(op.PALETTE)],
                         marker=op.MARKERS[(ci if others else pi) % len(op.MARKERS)],
                         linestyle=op.LINESTYLES[ci % len(op.LINESTYLES)], linewidth=1.6, markersize=5,
                         label=label)
            if phrase:
                h = ax.errorbar(xs, rows["mean"], yerr=rows["sd"].fillna(0.0), capsize=3, elinewidth=1, **style)
            else:
                h = ax.plot(xs, rows["mean"], **style)[0]
            handles.append(h)
        ax.set_ylabel(op.metric_label(y))
        legends.append((handles, [h.get_label() for h in handles]))
    n_lines = max(len(h) for h, _ in legends)
    fig.set_size_inches(7.5, 1.0 + 3.0 * len(ys) + 0.22 * n_lines)
    last = axes[-1]
    last.set_xlabel(op.metric_label(a.x))
    if a.logx:
        last.set_xscale("log")
    if not numeric_x:
        last.set_xticks(range(len(x_values)))
        last.set_xticklabels([str(v) for v in x_values], rotation=30 if max(len(str(v)) for v in x_values) > 8 else 0)
    elif a.logx or len(x_values) <= odcndraw.MAX_TICKS:
        odcndraw.ticks_at(last.xaxis, x_values, a.logx)  # a tick at each swept value (every k-th beyond 12)
    op.suptitle(fig, title)  # the constrained layout makes room for it
    if all(labels == legends[0][1] for _, labels in legends):
        # One legend for all panels, under them.
        handles, labels = legends[0]
        op.legend_below(fig, handles, labels)
    else:
        for ax, (handles, labels) in zip(axes, legends):
            if handles:
                ax.legend(handles, labels, loc="best")

    stem = os.path.splitext(os.path.basename(path))[0]
    prefix = op.output_prefix(a.out, safe_name(f"{stem}-{'-'.join(ys)}-vs-{a.x}"),
                              os.path.dirname(os.path.abspath(path)))
    op.save_figure(fig, prefix, [path])


if __name__ == "__main__":
    op.run_main(main)
