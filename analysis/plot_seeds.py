#!/usr/bin/python3
"""Draws bars per policy with error bars over seeds: from one `odcnsim compare --seeds` folder, from several
`odcnsim compare` folders (one per seed), or from one `odcnsim sweep` over seeds.

    /usr/bin/python3 analysis/plot_seeds.py INPUT [INPUT ...] [--metrics m1,m2,...] [--error sd|ci95]
                                            [--fix KEY=VALUE ...] [--out PREFIX] [--title TITLE]

INPUT is a compare folder over seeds (`odcnsim compare --seeds 1-5 --out DIR`: its compare-seeds.csv, a row per
policy and seed), or a compare folder (or its compare.csv) given once per seed (`odcnsim compare --seed S --out
DIR`), or a single sweep folder (or its sweep.csv) with a `seeds:` list. One panel per metric (three to a row), one bar
per policy in the order the policies first appear, in plot_compare.py's colours: the bar is the mean over the
seeds, the error bar one sample standard deviation (n − 1; --error sd, the default) or the half-width of
Student's t 95 % confidence interval of the mean (t(0.975, n − 1) × sd / √n; --error ci95); each seed's value
is a dot, and the mean is written above the bar. A policy with one value has no error bar.

A sweep must leave one value of every swept key (and one platform and workload) once --fix KEY=VALUE (repeat
for more keys) has chosen its rows: the seeds are then the only thing that differs between a policy's rows.
Default --metrics: makespan_s, job_completion_mean_s, mean_iteration_s, slowdown_mean, reconfigurations, the
ones with values; a metric named must exist and have a value.

Writes PREFIX.md (the table: per policy and metric, mean, error and n), PREFIX.png and PREFIX.svg, and prints
their paths. Default PREFIX: <first input's folder>/plots/<compare|sweep stem>-seeds. Bad input: exit 2 and
one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_seeds.py out/cmp-seeds --error ci95
    /usr/bin/python3 analysis/plot_seeds.py out/cmp-1 out/cmp-2 out/cmp-3 --error ci95
    /usr/bin/python3 analysis/plot_seeds.py out/delay --fix ocs.reconfig_delay_us=1000 --metrics makespan_s
"""
import math
import os

import odcndraw
import odcnplot as op
import plot_compare
import plot_sweep

DEFAULT = ["makespan_s", "job_completion_mean_s", "mean_iteration_s", "slowdown_mean", "reconfigurations"]


def input_csv(path):
    """(the CSV of an input, its kind: "sweep", "seeds" or "compare"): a folder's sweep.csv, compare-seeds.csv or
    compare.csv, or the file itself, told by its header."""
    if os.path.isdir(path):
        for name, kind in (("sweep.csv", "sweep"), ("compare-seeds.csv", "seeds"), ("compare.csv", "compare")):
            if os.path.exists(os.path.join(path, name)):
                return os.path.join(path, name), kind
        return os.path.join(path, "compare.csv"), "compare"  # (read_csv names the missing file)
    columns = list(op.read_csv(path).columns)
    if columns[: len(plot_sweep.HEAD)] == plot_sweep.HEAD:
        return path, "sweep"
    return path, "seeds" if columns[:2] == ["policy", "seed"] else "compare"


def from_compare_seeds(path):
    """The same from compare --seeds' compare-seeds.csv: an entry per policy and seed."""
    df = op.read_csv(path, required=["policy", "seed"])
    if df.empty:
        raise op.InputError(path, "(file)", "has no rows")
    numbers = {m: op.numbers(df, m, path) for m in df.columns[2:] if op.is_numeric_column(df, m)}
    return [(policy, {m: numbers[m].iloc[i] for m in numbers}) for i, policy in enumerate(df["policy"])], [path]


def from_compares(paths):
    """[(policy, {metric: value})] with one entry per policy and folder, and the files read."""
    records, files = [], []
    for path in paths:
        df, metrics, _ = plot_compare.load(path)
        files.append(path)
        values = {m: op.numbers(df, m, path) for m in metrics}
        for i, policy in enumerate(df["policy"]):
            records.append((policy, {m: values[m].iloc[i] for m in metrics}))
    return records, files


def from_sweep(path, fixes):
    """The same from a sweep.csv, after --fix; InputError when anything but the seed still varies."""
    df, keys, metrics = plot_sweep.load(path)
    for text in fixes:
        key, sep, value = text.partition("=")
        if not sep or key not in keys:
            raise op.InputError("command line", "--fix", f"'{text}': not KEY=VALUE of a swept key; swept keys: "
                                + (", ".join(keys) or "none"))
        df = df[df[key] == value]
        if df.empty:
            raise op.InputError(path, key, f"no row has the value '{value}' (--fix)")
    for key in ["platform", "workload"] + keys:
        values = list(dict.fromkeys(df[key]))
        if len(values) > 1:
            raise op.InputError(path, key, f"takes {len(values)} values ({', '.join(values[:4])}{', ...' if len(values) > 4 else ''}); choose one "
                                           f"with --fix {key}=VALUE")
    numbers = {m: op.numbers(df, m, path) for m in metrics if op.is_numeric_column(df, m)}
    records = [(policy, {m: numbers[m].iloc[i] for m in numbers}) for i, policy in enumerate(df["policy"])]
    return records, [path]


def stats(records, metric, error):
    """{policy: (mean, error half-width, n, [values])} over the records with a value, policies in order."""
    by = {}
    for policy, values in records:
        v = values.get(metric, math.nan)
        by.setdefault(policy, [])
        if not math.isnan(v):
            by[policy].append(v)
    return {q: odcndraw.mean_error(v, error) + (v,) for q, v in by.items() if v}


def draw_panel(ax, metric, table, colours):
    policies = list(table)
    xs = range(len(policies))
    means = [table[q][0] for q in policies]
    errs = [0.0 if math.isnan(table[q][1]) else table[q][1] for q in policies]
    ax.bar(xs, means, yerr=errs, capsize=4, color=[colours[q] for q in policies], edgecolor="black",
           linewidth=0.6, width=0.7, error_kw={"elinewidth": 1.2})
    for x, q in zip(xs, policies):
        ax.plot([x] * len(table[q][3]), table[q][3], linestyle="none", marker="o", markersize=3, color="black")
        top = max([table[q][0] + errs[x]] + table[q][3])
        ax.annotate(odcndraw.value_text(table[q][0]), (x, top), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    rotate = len(policies) > 4 or max(len(q) for q in policies) > 10
    ax.set_xticklabels(policies, rotation=30 if rotate else 0, ha="right" if rotate else "center")
    ax.margins(y=0.12)
    ax.grid(False, axis="x")
    ax.set_ylabel(op.metric_label(metric))
    ax.set_title(op.metric_name(metric))


def main(argv=None):
    p = op.ArgumentParser(prog="plot_seeds.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="compare folders (one per seed), or one sweep folder")
    p.add_argument("--metrics", metavar="M1,M2,...", help="metrics, comma-separated (default: "
                   + ",".join(DEFAULT) + ", those with values)")
    p.add_argument("--error", choices=sorted(odcndraw.ERRORS), default="sd",
                   help="error bar: sample sd (default) or Student's t 95 %% confidence interval of the mean")
    p.add_argument("--fix", action="append", default=[], metavar="KEY=VALUE", help="a sweep's rows with this value")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder")
    p.add_argument("--title", help="title instead of the one made from the data")
    a = p.parse_args(argv)
    inputs = [input_csv(i) for i in a.inputs]
    kinds = [kind for _, kind in inputs]
    one = next((k for k in kinds if k != "compare"), None)  # a sweep, or a compare over seeds: alone
    if one and len(inputs) > 1:
        raise op.InputError("command line", "INPUT", "one sweep, one compare over seeds, or several compare folders")
    if a.fix and one != "sweep":
        raise op.InputError("command line", "--fix", "chooses rows of a sweep; the inputs are compare folders")
    paths = [path for path, _ in inputs]
    if one == "sweep":
        records, files = from_sweep(paths[0], a.fix)
    else:
        records, files = from_compare_seeds(paths[0]) if one == "seeds" else from_compares(paths)
    known = list(dict.fromkeys(m for _, v in records for m in v))
    wanted = [m.strip() for m in a.metrics.split(",") if m.strip()] if a.metrics else DEFAULT
    tables = {}
    for m in wanted:
        if a.metrics and m not in known:
            raise op.InputError(files[0], m, "not a metric (--metrics); metrics: " + ", ".join(known))
        table = stats(records, m, a.error) if m in known else {}
        if table:
            tables[m] = table
        elif a.metrics:
            raise op.InputError(files[0], m, "the column is empty: no policy has a value")
    if not tables:
        raise op.InputError(files[0], "(metrics)", "none of the metrics has a value; name some with --metrics")

    policies = list(dict.fromkeys(q for q, _ in records))
    colours = {q: op.PALETTE[i % len(op.PALETTE)] for i, q in enumerate(policies)}
    runs = max(t[2] for table in tables.values() for t in table.values())
    op.setup_style()
    ncols = min(3, len(tables))
    nrows = math.ceil(len(tables) / ncols)
    width = max(3.2, 0.55 * len(policies) + 1.6)
    fig, axes = op.plt.subplots(nrows, ncols, figsize=(width * ncols, 3.4 * nrows + 0.8), squeeze=False)
    for ax, (m, table) in zip(axes.ravel(), tables.items()):
        draw_panel(ax, m, table, colours)
    for ax in axes.ravel()[len(tables):]:
        ax.set_visible(False)
    folder = op.stem(os.path.dirname(os.path.abspath(files[0])))
    what = {"sweep": f"sweep {folder}", "seeds": f"compare {folder}"}.get(one, f"{len(files)} compare folders")
    op.suptitle(fig, a.title or f"policies: mean {odcndraw.ERRORS[a.error]} over {runs} seeds ({what}); dots: each seed")

    stem = "sweep-seeds" if one == "sweep" else "compare-seeds"
    prefix = op.output_prefix(a.out, stem, os.path.dirname(os.path.abspath(files[0])))
    md = [f"Mean {odcndraw.ERRORS[a.error]} over the seeds (n), per policy.", "",
          "| policy | " + " | ".join(tables) + " |", "|---|" + "---:|" * len(tables)]
    for q in policies:
        cells = [(f"{t[q][0]:.6g}" + ("" if math.isnan(t[q][1]) else f" ± {t[q][1]:.4g}") + f" ({t[q][2]})")
                 if q in t else "" for t in tables.values()]
        md.append(f"| {q} | " + " | ".join(cells) + " |")
    op.check_outputs([prefix + ext for ext in (".md", ".png", ".svg")], files)
    print(op.write_text(prefix + ".md", "\n".join(md) + "\n", files))
    op.save_figure(fig, prefix, files)


if __name__ == "__main__":
    op.run_main(main)
