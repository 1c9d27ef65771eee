#!/usr/bin/python3
"""Draws a per-rank Gantt chart of one `odcnsim run` of job graphs, from DIR/trace.json.

    /usr/bin/python3 analysis/plot_ranks.py DIR [--out PREFIX] [--max-rows N] [--job ID]

One row per rank of each rank-level job (a workload of job graphs: job-graph files, `generate torchtitan`,
`generate dlrm`, imported profiles; docs/outputs.md, trace.json), labelled "<job name> · rank R", the rows of
a job together, jobs in id order: compute (blue), communication (orange) and reconfiguration stall (reddish
purple: a comm slice's first args.stall_s seconds). A transfer or collective is drawn on the row of every
rank it involves, as the trace holds it. Blank is idle. Only events with ph "X", cat "compute" or "comm" and
an integer args.rank count; a trace written with --trace summary or none has none of them, and a run of
pod-level jobs (TDM-4's, INC-AOI's) has no ranks: plot_run.py draws those per job.

--job ID draws one job only; at most --max-rows rows are drawn (default 64; the title then says how many of
how many). Job names come from run.json. Writes PREFIX.png and PREFIX.svg and prints their paths. Default
PREFIX: DIR/plots/<DIR's name>-ranks; --out naming an existing folder writes <folder>/<DIR's name>-ranks. Bad
input: exit 2 and one line `file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_ranks.py out/graphs --max-rows 16
"""
import os

import odcnplot as op
import plot_run

CATEGORIES = ("compute", "communication", "stall")


def job_names(run):
    """{job id: name} from run.json's jobs list (what of it is there)."""
    jobs = run.get("jobs") if isinstance(run, dict) else None
    out = {}
    for j in jobs if isinstance(jobs, list) else []:
        if isinstance(j, dict) and isinstance(j.get("id"), int) and isinstance(j.get("name"), str):
            out[j["id"]] = j["name"]
    return out


def rows_of(slices, job=None):
    """The rows drawn, in order: (job, rank) keys, jobs by id then ranks ascending; one job when `job` is set."""
    return sorted(k for k in slices if job is None or k[0] == job)


def draw(rows, slices, names, n_total, where, prefix, inputs):
    fig, ax = op.plt.subplots(figsize=(10.0, 1.8 + 0.24 * len(rows)))
    for y, key in enumerate(rows):
        for cat in CATEGORIES:
            ivs = plot_run.merge(slices[key].get(cat, []))
            if ivs:
                colour = op.CATEGORY_COLOUR[cat]
                ax.broken_barh([(s, e - s) for s, e in ivs], (y - 0.4, 0.8), facecolors=colour,
                               edgecolors=colour if cat == "stall" else "none", linewidth=0.4 if cat == "stall" else 0)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{names.get(j, f'job {j}')} · rank {r}" for j, r in rows],
                       fontsize=7 if len(rows) > 24 else 9)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    lo = min(s for k in rows for c in CATEGORIES for s, _ in slices[k].get(c, []))
    hi = max(e for k in rows for c in CATEGORIES for _, e in slices[k].get(c, []))
    ax.set_xlim(lo, hi if hi > lo else lo + 1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("rank")
    ax.grid(False, axis="y")
    title = f"per-rank timeline — {where}"
    if len(rows) < n_total:
        title += f"\n(first {len(rows)} of {n_total} ranks)"
    ax.set_title(op.title_text(title, 90))
    handles = [op.plt.Rectangle((0, 0), 1, 1, color=op.CATEGORY_COLOUR[c]) for c in CATEGORIES]
    op.legend_below(fig, handles, [op.CATEGORY_LABEL[c] for c in CATEGORIES], ncol=3)
    return op.save_figure(fig, prefix, inputs)


def main(argv=None):
    p = op.ArgumentParser(prog="plot_ranks.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="a folder written by odcnsim run --out DIR (with trace.json)")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder "
                   "(default: DIR/plots/<DIR name>-ranks)")
    p.add_argument("--max-rows", type=int, default=64, metavar="N", help="ranks drawn at most (default 64)")
    p.add_argument("--job", type=int, metavar="ID", help="draw this job's ranks only")
    a = p.parse_args(argv)
    if a.max_rows < 1:
        raise op.InputError("command line", "--max-rows", f"{a.max_rows}: must be at least 1")
    d = plot_run.check_folder(a.dir)
    path = os.path.join(d, "trace.json")
    slices = plot_run.trace_slices(path, op.read_json(path), by_rank=True)
    if not slices:
        raise op.InputError(path, "traceEvents", "no compute or comm slice with args.rank (rank-level jobs of a job-"
                                                 "graph workload, --trace full); plot_run.py draws pod-level jobs")
    summary, run, inputs = plot_run.read_titles(d)
    every = rows_of(slices, a.job)
    if not every:
        raise op.InputError(path, "args.job", f"no slice of job {a.job} (--job)")
    name = os.path.basename(os.path.normpath(os.path.abspath(d))) or "run"
    prefix = op.output_prefix(a.out, name + "-ranks", os.path.abspath(d))
    op.setup_style()
    draw(every[: a.max_rows], slices, job_names(run), len(every), plot_run.describe(summary, run), prefix,
         inputs + [path])


if __name__ == "__main__":
    op.run_main(main)
