#!/usr/bin/python3
"""Draws bar charts of an `odcnsim compare` result (compare.csv): one panel per metric, one bar per policy.

    /usr/bin/python3 analysis/plot_compare.py COMPARE.csv [--metrics m1,m2,...] [--out PREFIX] [--title TITLE]

Policies are on the x axis in the order of the CSV, each in its own colour in every panel. The baseline's
bar is hatched and its name labelled "(baseline)". Above each bar is its ratio to the baseline, "×1.23",
taken from the `<metric>_ratio` column (computed from the baseline's row when that column is missing;
nothing is printed where the ratio is empty). A policy without a value gets no bar and "n/a".

The pseudo-metric `shares` is a panel of stacked bars of the four shares of job time (share_compute,
share_communication, share_reconfiguration_stall, share_waiting).

Default --metrics: makespan_s, job_completion_mean_s, mean_iteration_s, slowdown_mean, reconfigurations,
shares; of these, the ones the CSV lacks or leaves empty on every row are skipped. A metric named in
--metrics must be in the CSV and have at least one value.

Writes PREFIX.png and PREFIX.svg and prints their paths. Default PREFIX: `<csv folder>/plots/<csv stem>-bars`:
a `plots/` subfolder (created) of the compare folder, which odcnsim keeps when it runs the compare again;
nothing is written beside the CSV. --out naming an existing folder puts that default name in it. Each file is
written to a temporary name in its folder and renamed into place.
Bad input: exit 2 and one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_compare.py out/compare/compare.csv --metrics makespan_s,slowdown_p95,shares
"""
import math
import os

import matplotlib.ticker

import odcnplot as op

DEFAULT = ["makespan_s", "job_completion_mean_s", "mean_iteration_s", "slowdown_mean", "reconfigurations", "shares"]


def load(path):
    """Returns (DataFrame of strings, metric columns, baseline name)."""
    df = op.read_csv(path, required=["policy", "baseline"])
    if df.empty:
        raise op.InputError(path, "(file)", "has no rows")
    cols = list(df.columns)
    metrics = [c for c in cols if c not in ("policy", "baseline", "platform", "workload")
               and not (c.endswith("_ratio") and c[: -len("_ratio")] in cols)]
    baselines = list(dict.fromkeys(df["baseline"]))
    if len(baselines) != 1:
        first = df["baseline"].iloc[0]
        line = next(i + 2 for i, v in enumerate(df["baseline"]) if v != first)
        raise op.InputError(path, "baseline", f"line {line}: '{df['baseline'].iloc[line - 2]}' differs from "
                                              f"line 2: '{first}' (one baseline per file)")
    if baselines[0] == "":
        raise op.InputError(path, "baseline", "line 2: empty")
    policies = df["policy"].tolist()
    for i, pol in enumerate(policies):
        if pol == "":
            raise op.InputError(path, "policy", f"line {i + 2}: empty")
        if pol in policies[:i]:
            raise op.InputError(path, "policy", f"line {i + 2}: '{pol}' appears twice")
    return df, metrics, baselines[0]


def ratio_text(r):
    if r is None or math.isnan(r):
        return ""
    if 0.01 <= abs(r) < 1000 or r == 0:
        return f"×{r:.2f}"
    return f"×{r:.3g}"


def ratios(df, metric, values, baseline, path):
    """The ratio of each row to the baseline: the `<metric>_ratio` column, else computed."""
    column = metric + "_ratio"
    if column in df.columns:
        return op.numbers(df, column, path).tolist()
    base = [v for p, v in zip(df["policy"], values) if p == baseline]
    if not base or math.isnan(base[0]) or base[0] == 0:
        return [math.nan] * len(values)
    return [v / base[0] for v in values]


def main(argv=None):
    p = op.ArgumentParser(prog="plot_compare.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", metavar="COMPARE.csv", help="compare.csv written by odcnsim compare")
    p.add_argument("--metrics", metavar="M1,M2,...", help="metric columns, comma-separated; 'shares' for the "
                                                           "stacked shares panel (default: " + ",".join(DEFAULT) + ")")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder to write the default names into "
                        "(default: <csv folder>/plots/<csv stem>-bars)")
    p.add_argument("--title", help="title instead of the one made from the data")
    a = p.parse_args(argv)
    path = a.csv

    df, metrics, baseline = load(path)
    explicit = a.metrics is not None
    wanted = [m.strip() for m in a.metrics.split(",")] if explicit else DEFAULT
    wanted = list(dict.fromkeys(m for m in wanted if m))
    if not wanted:
        raise op.InputError("command line", "--metrics", "names no metric")
    values = {}
    panels = []
    for m in wanted:
        if m == "shares":
            present = [c for c in op.SHARE_COLUMNS if c in df.columns]
            if explicit and len(present) < len(op.SHARE_COLUMNS):
                missing = [c for c in op.SHARE_COLUMNS if c not in df.columns]
                raise op.InputError(path, missing[0], "missing column (needed by the shares panel)")
            for c in present:
                values[c] = op.numbers(df, c, path)
            if not present or all(values[c].isna().all() for c in present):
                if explicit:
                    raise op.InputError(path, "share_compute", "the share columns are empty: no policy has a value")
                continue
            panels.append(m)
            continue
        if m not in metrics:
            if explicit:
                raise op.InputError(path, m, "not a metric (--metrics); metrics: "
                                    + ", ".join(metrics + ["shares"]))
            continue
        values[m] = op.numbers(df, m, path)
        if values[m].isna().all():
            if explicit:
                raise op.InputError(path, m, "the column is empty: no policy has a value")
            continue
        panels.append(m)
    if not panels:
        raise op.InputError(path, "(metrics)", "none of the default metrics has a value; name some with --metrics")

    policies = df["policy"].tolist()
    colours = [op.PALETTE[i % len(op.PALETTE)] for i in range(len(policies))]
    is_base = [pol == baseline for pol in policies]
    ticks = [f"{pol}\n(baseline)" if b else pol for pol, b in zip(policies, is_base)]
    rotate = len(policies) > 4 or max(len(s) for s in policies) > 10

    op.setup_style()
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    width = max(3.2, 0.55 * len(policies) + 1.6)
    fig, axes = op.plt.subplots(nrows, ncols, figsize=(width * ncols, 3.4 * nrows + 0.8), squeeze=False)
    flat = axes.ravel()
    xs = list(range(len(policies)))
    for ax, m in zip(flat, panels):
        ax.grid(True, axis="y")
        ax.grid(False, axis="x")
        if m == "shares":
            bottom = [0.0] * len(policies)
            for c in op.SHARE_COLUMNS:
                v = values.get(c)
                v = [0.0] * len(policies) if v is None else [0.0 if math.isnan(x) else x for x in v]
                cat = op.SHARE_CATEGORY[c]
                ax.bar(xs, v, bottom=bottom, color=op.CATEGORY_COLOUR[cat], edgecolor="black", linewidth=0.6,
                       label=op.CATEGORY_LABEL[cat], hatch=None, width=0.7)
                bottom = [b + x for b, x in zip(bottom, v)]
            for i, b in enumerate(is_base):
                if b:  # hatch over the whole stack of the baseline
                    ax.bar([i], [bottom[i]], fill=False, hatch="//", edgecolor="black", linewidth=0.6, width=0.7)
            for i in xs:
                if all(values.get(c) is None or math.isnan(values[c].iloc[i]) for c in op.SHARE_COLUMNS):
                    ax.text(i, 0.02, "n/a", ha="center", va="bottom", fontsize=8)
            ax.set_ylim(0, max(1.0, max(bottom)) * 1.02)
            ax.set_ylabel("share of job time")
            ax.set_title("shares of job time")
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18 if not rotate else -0.3), ncol=2,
                      frameon=False, fontsize=8)
        else:
            v = values[m].tolist()
            r = ratios(df, m, v, baseline, path)
            heights = [0.0 if math.isnan(x) else x for x in v]
            bars = ax.bar(xs, heights, color=colours, edgecolor="black", linewidth=0.6, width=0.7,
                          hatch=None)
            for bar, b in zip(bars, is_base):
                if b:
                    bar.set_hatch("//")
            top = max([x for x in v if not math.isnan(x)] + [0.0])
            bottom_ = min([x for x in v if not math.isnan(x)] + [0.0])
            span = (top - bottom_) or 1.0
            for i, (x, rr) in enumerate(zip(v, r)):
                if math.isnan(x):
                    ax.text(i, 0, "n/a", ha="center", va="bottom", fontsize=8)
                    continue
                text = ratio_text(rr) or ("0" if x == 0 else "")
                if text:
                    ax.text(i, x + 0.02 * span if x >= 0 else x - 0.02 * span, text, ha="center",
                            va="bottom" if x >= 0 else "top", fontsize=8)
            ax.set_ylim(bottom_ - (0.12 * span if bottom_ < 0 else 0), top + 0.15 * span)
            ax.set_ylabel(op.metric_label(m))
            ax.set_title(op.metric_name(m))
            if "(" not in op.metric_label(m) and all(x.is_integer() for x in v if not math.isnan(x)):
                ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, rotation=30 if rotate else 0, ha="right" if rotate else "center")
    for ax in flat[len(panels):]:
        ax.set_visible(False)

    where = ", ".join(s for s in (op.stems_text(df["platform"], "platform") if "platform" in df.columns else "",
                                  op.stems_text(df["workload"], "workload") if "workload" in df.columns else "") if s)
    title = a.title or (f"policies compared with the baseline {baseline}" + (f" — {where}" if where else ""))
    op.suptitle(fig, title)  # the constrained layout makes room for it

    stem = os.path.splitext(os.path.basename(path))[0]
    prefix = op.output_prefix(a.out, f"{stem}-bars", os.path.dirname(os.path.abspath(path)))
    op.save_figure(fig, prefix, [path])


if __name__ == "__main__":
    op.run_main(main)
