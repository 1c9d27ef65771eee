#!/usr/bin/python3
"""Plots how much each policy of an `odcnsim sweep` improves on a baseline policy, and writes the same as a table.

    /usr/bin/python3 analysis/plot_improvement.py SWEEP.csv (--x KEY | --x-metric METRIC) [--metric METRIC]
                                                  [--baseline POLICY] [--out PREFIX] [--logx] [--title TITLE]

Every row is paired with the baseline's row of the same point: the same platform, workload, swept values and
seed. The improvement of a row is 1 − value / baseline for a time (lower is better) and value / baseline − 1
for a throughput (a metric whose name contains "throughput"), in per cent: above 0 means better than the
baseline. Rows with the same policy and x are averaged (mean ± one sample standard deviation over the seeds).

The x axis is a swept key (--x), or a metric of the baseline's row (--x-metric), e.g. training_to_comm_ratio,
the longest training time over the communication of every job at once, which odcnsim writes for the TDM
policies: the x of a point is then the mean of that metric over its seeds. One line per policy other than the
baseline (its improvement is 0 by definition).

Writes PREFIX.md (the table: x, and per policy the mean improvement ± sd and the mean metric), PREFIX.png and
PREFIX.svg, and prints their paths. Default PREFIX:
`<csv folder>/plots/<csv stem>-improvement-<metric>-vs-<x>`: a `plots/` subfolder (created) of the sweep
folder, which odcnsim keeps when it resumes the sweep; nothing is written beside the CSV. --out naming an
existing folder puts that default name in it. Each file is written to a temporary name in its folder and
renamed into place. Bad input: exit 2 and one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_improvement.py out/regime/sweep.csv --x-metric training_to_comm_ratio \\
        --metric round_time_s --baseline aggregate --logx
"""
import math
import os

import matplotlib.ticker

import odcnplot as op
import plot_sweep


def improvement(value, base, higher_is_better):
    return 100.0 * ((value / base - 1.0) if higher_is_better else (1.0 - value / base))


def mean_sd(values):
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.nan
    return mean, sd


def table(df, path, keys, x, x_metric, metric, baseline):
    """Rows: {policy: {x: ([improvements], [values])}} and the x values in order."""
    point_keys = ["platform", "workload"] + keys + ["seed"]
    base_rows = df[df["policy"] == baseline]
    if base_rows.empty:
        raise op.InputError(path, "policy", f"no row of the baseline policy '{baseline}' (--baseline)")
    base = {}
    for _, r in base_rows.iterrows():
        if not math.isnan(r[metric]) and r[metric] > 0:
            base[tuple(r[k] for k in point_keys)] = r
    higher = "throughput" in metric
    cells = {}
    xs_of_group = {}
    for _, r in df.iterrows():
        key = tuple(r[k] for k in point_keys)
        b = base.get(key)
        if b is None or math.isnan(r[metric]):
            continue
        group = tuple(r[k] for k in keys if k != x) if x_metric else tuple(r[k] for k in keys if k != x) + (r[x],)
        if x_metric:
            if math.isnan(b[x_metric]):
                continue
            xs_of_group.setdefault(group, {})[r["seed"]] = b[x_metric]
        cell = cells.setdefault(r["policy"], {}).setdefault(group, ([], []))
        cell[0].append(improvement(r[metric], b[metric], higher))
        cell[1].append(r[metric])
    if not cells:
        raise op.InputError(path, metric, f"no point has both a value and a baseline ({baseline}) value")
    # The x of each group: the swept value, or the mean of the baseline's metric over the seeds.
    x_of = {}
    for policy_cells in cells.values():
        for group in policy_cells:
            if x_metric:
                x_of[group] = math.fsum(xs_of_group[group].values()) / len(xs_of_group[group])
            else:
                x_of[group] = group[-1]
    return cells, x_of


def main(argv=None):
    p = op.ArgumentParser(prog="plot_improvement.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", metavar="SWEEP.csv", help="sweep.csv written by odcnsim sweep")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--x", metavar="KEY", help="swept key for the x axis")
    g.add_argument("--x-metric", metavar="METRIC", help="metric of the baseline's rows for the x axis")
    p.add_argument("--metric", default="mean_iteration_s", help="the metric compared (default: mean_iteration_s)")
    p.add_argument("--baseline", default="aggregate", help="the policy improved on (default: aggregate)")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder to write "
                   "the default names into (default: <csv folder>/plots/<default name>)")
    p.add_argument("--logx", action="store_true", help="log scale on the x axis")
    p.add_argument("--title", help="title instead of the one made from the data")
    a = p.parse_args(argv)
    path = a.csv

    df, keys, metrics = plot_sweep.load(path)
    if a.x is not None and a.x not in keys:
        raise op.InputError(path, a.x, "not a swept key (--x); swept keys: " + (", ".join(keys) or "none"))
    for m, flag in ((a.metric, "--metric"), (a.x_metric, "--x-metric")):
        if m is not None and m not in metrics:
            raise op.InputError(path, m, f"not a metric ({flag}); metrics: " + ", ".join(metrics))
    df[a.metric] = op.numbers(df, a.metric, path)
    if a.x_metric:
        df[a.x_metric] = op.numbers(df, a.x_metric, path)
    elif op.is_numeric_column(df, a.x):
        df[a.x] = op.numbers(df, a.x, path)
    else:
        raise op.InputError(path, a.x, "--x needs numbers; the column holds text")
    x = a.x
    cells, x_of = table(df, path, keys, x, a.x_metric, a.metric, a.baseline)
    if a.logx and any(v <= 0 for v in x_of.values()):
        raise op.InputError(path, a.x_metric or a.x, "--logx needs values > 0")

    x_label = a.x_metric or a.x
    groups = sorted(x_of, key=lambda grp: x_of[grp])
    policies = [q for q in dict.fromkeys(df["policy"]) if q != a.baseline and q in cells]
    name = f"{plot_sweep.safe_name(op.stem(path))}-improvement-{a.metric}-vs-{plot_sweep.safe_name(x_label)}"
    prefix = op.output_prefix(a.out, name, os.path.dirname(os.path.abspath(path)))

    op.setup_style()
    fig, ax = op.plt.subplots(figsize=(7.5, 4.2))
    handles = []
    for i, policy in enumerate(policies):
        rows = [(x_of[grp], mean_sd(cells[policy][grp][0])) for grp in groups if grp in cells[policy]]
        xs = [r[0] for r in rows]
        means = [r[1][0] for r in rows]
        sds = [0.0 if math.isnan(r[1][1]) else r[1][1] for r in rows]
        style = dict(color=op.PALETTE[i % len(op.PALETTE)], marker=op.MARKERS[i % len(op.MARKERS)],
                     linestyle=op.LINESTYLES[i % len(op.LINESTYLES)], linewidth=1.6, markersize=5, label=policy)
        handles.append(ax.errorbar(xs, means, yerr=sds, capsize=3, elinewidth=1, **style))
    ax.axhline(0.0, color="#777777", linewidth=0.8)
    ax.set_xlabel(x_label)
    ax.set_ylabel(f"improvement over {a.baseline} (%)\nin {op.metric_name(a.metric)}")
    if a.logx:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    seeds = max(len(v[0]) for c in cells.values() for v in c.values())
    where = ", ".join(s for s in (op.stems_text(df["platform"], "platform"), op.stems_text(df["workload"], "workload")) if s)
    title = a.title or (f"{op.metric_name(a.metric)}: improvement over {a.baseline} vs {x_label}"
                        + (f" — {where}" if where else "") + (f" (mean ± sd over {seeds} seeds)" if seeds > 1 else ""))
    fig.suptitle(op.title_text(title))
    op.legend_below(fig, handles, [h.get_label() for h in handles])

    # The table first, so that a figure is never left without it.
    md = [f"Improvement over `{a.baseline}` in {op.metric_name(a.metric)} (`{a.metric}`), per cent, mean ± sd "
          f"over the seeds; the policy's mean {a.metric} in brackets.", "",
          "| " + " | ".join([x_label] + policies) + " |", "|" + "---:|" * (len(policies) + 1)]
    for grp in groups:
        row = [f"{x_of[grp]:.3g}" if a.x_metric else op.format_value(x_of[grp])]
        for policy in policies:
            if grp not in cells[policy]:
                row.append("")
                continue
            m, s = mean_sd(cells[policy][grp][0])
            v, _ = mean_sd(cells[policy][grp][1])
            row.append(f"{m:.2f} %" + ("" if math.isnan(s) else f" ± {s:.2f}") + f" ({v:.4g})")
        md.append("| " + " | ".join(row) + " |")
    table_path = prefix + ".md"
    op.check_outputs([table_path, prefix + ".png", prefix + ".svg"], [path])
    op.write_text(table_path, "\n".join(md) + "\n", [path])
    print(table_path)
    op.save_figure(fig, prefix, [path])


if __name__ == "__main__":
    op.run_main(main)
