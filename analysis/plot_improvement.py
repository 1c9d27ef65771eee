#!/usr/bin/python3
"""Plots how much each policy of an `odcnsim sweep` improves on a baseline policy, and writes the same as a table.

    /usr/bin/python3 analysis/plot_improvement.py SWEEP.csv (--x KEY | --x-metric METRIC) [--metric METRIC]
                                                  [--baseline POLICY] [--out PREFIX] [--logx] [--title TITLE]

Every row is paired with the baseline's row of the same point: the same platform, workload, swept values and
seed. The improvement of a row is 1 − value / baseline for a time (lower is better) and value / baseline − 1
for a throughput (a metric whose name contains "throughput"), in per cent: above 0 means better than the
baseline. Rows with the same policy and x are averaged (mean ± one sample standard deviation over the seeds):
the mean of ratios. Beside it, dashed, the ratio of means: the improvement of the policy's mean over the
baseline's mean on the same rows, which a seed with a small baseline value cannot dominate the way it can
dominate the mean of ratios.

The x axis is a swept key (--x), or a metric of the baseline's row (--x-metric), e.g. training_to_comm_ratio,
the longest training time over the communication of every job at once, which odcnsim writes for the TDM
policies: the x of a point is then the mean of that metric over its seeds. Two lines per policy other than the
baseline (its improvement is 0 by definition); with a single x, two bars per policy with their values instead.
On a log axis (--logx) of a swept key, a tick at each swept value.

Writes PREFIX.md (the table: x, per policy the mean improvement ± sd and the mean metric, then per policy the
ratio of means), PREFIX.png and
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

import odcndraw
import odcnplot as op
import plot_sweep


def improvement(value, base, higher_is_better):
    return 100.0 * ((value / base - 1.0) if higher_is_better else (1.0 - value / base))


mean_sd = odcndraw.mean_sd


def ratio_of_means(cell, higher_is_better):
    """The improvement of the policy's mean over the baseline's mean (over the same paired rows), beside the
    mean of the rows' improvements: one run much worse than its baseline weighs in the mean of ratios as much
    as it does in the sum of times only when the runs are equally long."""
    _, values, base = cell
    return improvement(math.fsum(values) / len(values), math.fsum(base) / len(base), higher_is_better)


def table(df, path, keys, x, x_metric, metric, baseline):
    """Rows: {policy: {group: ([improvements], [values], [the baseline's values])}}, paired row by row, and the
    x of each group."""
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
        cell = cells.setdefault(r["policy"], {}).setdefault(group, ([], [], []))
        cell[0].append(improvement(r[metric], b[metric], higher))
        cell[1].append(r[metric])
        cell[2].append(b[metric])
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


def style(i):
    return dict(color=op.PALETTE[i % len(op.PALETTE)], marker=op.MARKERS[i % len(op.MARKERS)], markersize=5)


def draw_lines(ax, policies, groups, cells, x_of, higher):
    """A line per policy: the mean of the rows' improvements ± one sd (solid), and the improvement of the
    mean (the ratio of means; dashed, hollow markers, the same colour)."""
    handles = []
    for i, policy in enumerate(policies):
        mine = [grp for grp in groups if grp in cells[policy]]
        xs = [x_of[grp] for grp in mine]
        stats = [mean_sd(cells[policy][grp][0]) for grp in mine]
        sds = [0.0 if math.isnan(sd) else sd for _, sd in stats]
        handles.append(ax.errorbar(xs, [m for m, _ in stats], yerr=sds, capsize=3, elinewidth=1, linewidth=1.6,
                                   label=f"{policy}: mean of ratios ± sd", **style(i)))
        handles.append(ax.plot(xs, [ratio_of_means(cells[policy][grp], higher) for grp in mine], linestyle="--",
                               linewidth=1.2, markerfacecolor="white", label=f"{policy}: ratio of means",
                               **style(i))[0])
    return handles


def draw_bars(ax, policies, groups, cells, x_of, higher):
    """One x only (a line would be a dot): per policy a bar of the mean of ratios ± sd and a hatched bar of
    the ratio of means, each with its value written."""
    handles = []
    grp = groups[0]
    for i, policy in enumerate(policies):
        if grp not in cells[policy]:
            continue
        m, sd = mean_sd(cells[policy][grp][0])
        r = ratio_of_means(cells[policy][grp], higher)
        colour = op.PALETTE[i % len(op.PALETTE)]
        a = ax.bar([i - 0.2], [m], width=0.4, yerr=[0.0 if math.isnan(sd) else sd], capsize=3, color=colour,
                   label=f"{policy}: mean of ratios ± sd")
        b = ax.bar([i + 0.2], [r], width=0.4, color="white", edgecolor=colour, hatch="//",
                   label=f"{policy}: ratio of means")
        err = 0.0 if math.isnan(sd) else sd
        for x, v, at in ((i - 0.2, m, m + (err if m >= 0 else -err)), (i + 0.2, r, r)):
            ax.annotate(f"{v:.1f} %", (x, at), xytext=(0, 3 if v >= 0 else -3), textcoords="offset points",
                        ha="center", va="bottom" if v >= 0 else "top", fontsize=8)
        handles += [a, b]
    ax.set_xticks(range(len(policies)))
    ax.set_xticklabels(policies)
    ax.set_xlim(-0.8, len(policies) - 0.2)
    ax.margins(y=0.15)
    ax.grid(False, axis="x")
    return handles


def table_lines(a, x_label, policies, groups, cells, x_of, higher):
    """The markdown table: per policy the mean improvement ± sd (its mean metric in brackets), then per policy
    the improvement of the means (the ratio of means)."""
    md = [f"Improvement over `{a.baseline}` in {op.metric_name(a.metric)} (`{a.metric}`), per cent: the mean over "
          f"the seeds of each seed's improvement ± sd, the policy's mean {a.metric} in brackets; then the "
          f"improvement of the policy's mean over the baseline's mean (ratio of means).", "",
          "| " + " | ".join([x_label] + policies + [f"{q}, ratio of means" for q in policies]) + " |",
          "|" + "---:|" * (2 * len(policies) + 1)]
    for grp in groups:
        row = [f"{x_of[grp]:.3g}" if a.x_metric else op.format_value(x_of[grp])]
        for policy in policies:
            if grp not in cells[policy]:
                row.append("")
                continue
            m, s = mean_sd(cells[policy][grp][0])
            v, _ = mean_sd(cells[policy][grp][1])
            row.append(f"{m:.2f} %" + ("" if math.isnan(s) else f" ± {s:.2f}") + f" ({v:.4g})")
        for policy in policies:
            row.append(f"{ratio_of_means(cells[policy][grp], higher):.2f} %" if grp in cells[policy] else "")
        md.append("| " + " | ".join(row) + " |")
    return md


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
    higher = "throughput" in a.metric

    op.setup_style()
    fig, ax = op.plt.subplots(figsize=(7.5, 4.2))
    draw = draw_bars if len(groups) == 1 else draw_lines
    handles = draw(ax, policies, groups, cells, x_of, higher)
    ax.axhline(0.0, color="#777777", linewidth=0.8)
    ax.set_ylabel(f"improvement over {a.baseline} (%)\n" + op.title_text(f"in {op.metric_name(a.metric)}", 40))
    if len(groups) == 1:
        value = op.format_value(x_of[groups[0]]) if not a.x_metric else f"{x_of[groups[0]]:.3g}"
        ax.set_xlabel(f"at {op.setting(x_label, value)}")
    else:
        ax.set_xlabel(op.metric_label(x_label))
        if a.logx:
            ax.set_xscale("log")
        if not a.x_metric and (a.logx or len(groups) <= odcndraw.MAX_TICKS):
            odcndraw.ticks_at(ax.xaxis, [x_of[g] for g in groups], a.logx)  # a tick at each swept value
        elif a.logx:
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    seeds = max(len(v[0]) for c in cells.values() for v in c.values())
    where = ", ".join(s for s in (op.stems_text(df["platform"], "platform"), op.stems_text(df["workload"], "workload")) if s)
    versus = "at one" if len(groups) == 1 else "vs"
    title = a.title or (f"{op.metric_name(a.metric)}: improvement over {a.baseline} {versus} {op.metric_name(x_label)}"
                        + (f" — {where}" if where else "") + (f" (over {seeds} seeds)" if seeds > 1 else ""))
    op.suptitle(fig, title)
    op.legend_below(fig, handles, [h.get_label() for h in handles])

    # The table first, so that a figure is never left without it.
    md = table_lines(a, x_label, policies, groups, cells, x_of, higher)
    table_path = prefix + ".md"
    op.check_outputs([table_path, prefix + ".png", prefix + ".svg"], [path])
    op.write_text(table_path, "\n".join(md) + "\n", [path])
    print(table_path)
    op.save_figure(fig, prefix, [path])


if __name__ == "__main__":
    op.run_main(main)
