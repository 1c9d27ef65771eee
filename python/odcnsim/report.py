"""`odcnsim report DIR [--out FILE] [--force]`: one self-contained HTML page of a run folder (`odcnsim run --out
DIR`) or a compare folder (`odcnsim compare --out DIR`), written to DIR/report.html by default.

    PYTHONPATH=python /usr/bin/python3 -m odcnsim.report out/tdm4

A run's page: what ran (policy, platform, workload, odcnsim version and commit, command), summary.json's
metrics with their labels and units, the inputs (run.json: files and fingerprints, overrides, seed, iterations,
the jobs as deployed), jobs.csv with each job's time split, a per-job Gantt chart (plot_run.py) or, for a
workload of job graphs traced in full, a per-rank timeline (plot_ranks.py), the circuits over time
(plot_circuits.py), the CDFs of job completion time and slowdown over the jobs (plot_cdf.py) and, for the TDM
policies, the first round's stage breakdown and stages.csv. A compare folder's page: the comparison table
(compare.json), the inputs, the CDFs per policy, and a section per policy with its runs' figures. A section that
does not apply (no circuits, no stages, no trace) is left out with one line saying why.

Figures are PNG data URIs; there is no script, no link and no font from elsewhere. The same folder gives the
same bytes. Bad input: exit 2 and one line `file: field: reason`; an output that cannot be written: exit 1.
"""
import os
import sys
import tempfile

from . import plots
from . import report_page as P
from .report_compare import CompareFolder, compare_sections
from .report_sections import RunFolder, run_sections

REPORT = "report.html"


def _op():
    return plots._tool("odcnplot")


def kind_of(d):
    """'run' or 'compare'; InputError for anything else."""
    op = _op()
    if not os.path.exists(d):
        raise op.InputError(d, "(folder)", "does not exist")
    if not os.path.isdir(d):
        raise op.InputError(d, "(folder)", "is not a folder")

    def has(name):
        return os.path.isfile(os.path.join(d, name))

    if has("compare.json") and has("compare.csv"):
        return "compare"
    if has("summary.json"):
        return "run"
    if has("sweep.json") or has("sweep.csv"):
        raise op.InputError(d, "(folder)", "is a sweep folder; report one of its points: odcnsim report DIR/points/ID")
    raise op.InputError(d, "(folder)", "holds no summary.json (odcnsim run --out) and no compare.json (odcnsim "
                                       "compare --out): not an odcnsim result folder")


def is_report(path):
    """True when `path` is a page this command wrote (its generator meta tag is in the first 1 KiB)."""
    try:
        with open(path, "rb") as f:
            return f'<meta name="generator" content="{P.GENERATOR}">'.encode() in f.read(1024)
    except OSError:
        return False


def output_path(d, out, force):
    """Where the page goes: --out, else DIR/report.html. Refuses a folder, a missing folder, and a file that is
    not a page odcnsim report wrote (unless --force)."""
    op = _op()
    path = out if out else os.path.join(d, REPORT)
    if os.path.isdir(path):
        raise op.InputError(path, "--out", "is a folder; name the page's file")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise op.InputError(path, "--out", f"folder '{parent}' does not exist")
    if os.path.lexists(path) and not force and not is_report(path):
        raise op.InputError(path, "--out", "exists and is not a page odcnsim report wrote; choose another name, or "
                                           "pass --force to replace it")
    return path


def folder_files(d):
    """Every file under `d` but the report itself: what the page must never replace."""
    out = []
    for root, _, names in os.walk(d):
        out += [os.path.join(root, n) for n in names if n != REPORT or root != d]
    return out


def build(d, kind, tmp):
    """(title, sections) of the page; `tmp` holds the figures while they are read in."""
    if kind == "run":
        run = RunFolder(d, tmp, "run")
        return f"odcnsim report — {run.describe()}", run_sections(run)
    compare = CompareFolder(d, tmp)
    return f"odcnsim report — compare {compare.describe()}", compare_sections(compare)


def main(argv=None):
    op = _op()
    p = op.ArgumentParser(prog="odcnsim report", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="a folder written by odcnsim run --out or odcnsim compare --out")
    p.add_argument("--out", metavar="FILE", help=f"the page (default: DIR/{REPORT})")
    p.add_argument("--force", action="store_true", help="replace a file at --out that is not an earlier report")
    a = p.parse_args(argv)
    kind = kind_of(a.dir)
    out = output_path(a.dir, a.out, a.force)
    with tempfile.TemporaryDirectory(prefix="odcnsim-report-") as tmp:
        title, sections = build(a.dir, kind, tmp)
    op.write_text(out, P.page(title, sections), folder_files(a.dir))
    print(out)


def cli(argv=None):
    """main() with the error convention: bad input exits 2, an unwritable output 1, each with one line."""
    op = _op()
    try:
        main(argv)
    except (op.InputError, ValueError) as e:  # ValueError: an analysis tool's one line (odcnsim.plots)
        op.one_line(str(e))
        sys.exit(2)
    except op.WriteError as e:
        op.one_line(str(e))
        sys.exit(1)


if __name__ == "__main__":
    cli()
