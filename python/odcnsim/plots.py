"""The figures of the repository's analysis/ tools as functions. Each calls the tool in this process with the
arguments its command line takes (see `/usr/bin/python3 analysis/TOOL.py --help`) and returns the paths it wrote;
bad input raises ValueError with the tool's one-line message (`file: field: reason`)."""
import contextlib
import io
import os
import sys

from .runner import REPOSITORY

ANALYSIS = os.path.join(REPOSITORY, "analysis")


def _tool(name):
    if ANALYSIS not in sys.path:
        sys.path.insert(0, ANALYSIS)
    return __import__(name)


def _call(name, argv):
    tool = _tool(name)
    odcnplot = _tool("odcnplot")
    printed, errors = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            tool.main([str(a) for a in argv])
    except (odcnplot.InputError, odcnplot.WriteError) as e:
        raise ValueError(" ".join(str(e).split())) from None
    except SystemExit as e:  # argparse: a bad argument
        if e.code:
            raise ValueError(" ".join(errors.getvalue().split()) or f"{name}: exit status {e.code}") from None
    return [line for line in printed.getvalue().splitlines() if os.path.isfile(line)]


def _options(options):
    """Keyword arguments as the tool's options: max_jobs=10 -> --max-jobs 10, logx=True -> --logx, a list -> the
    option once per item; None and False are left out."""
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [flag, v]
        else:
            argv += [flag, value]
    return argv


def sweep(sweep_csv, x, y, **options):
    """plot_sweep.py: metrics `y` (a name or a list) against swept key `x`, a line per policy; options: out, logx,
    title."""
    return _call("plot_sweep", [sweep_csv] + _options({"x": x, "y": [y] if isinstance(y, str) else list(y), **options}))


def compare(compare_csv, **options):
    """plot_compare.py: bars per policy with their ratios to the baseline; options: metrics ("m1,m2"), out, title."""
    return _call("plot_compare", [compare_csv] + _options(options))


def run(run_folder, **options):
    """plot_run.py: one run's per-job timeline and its stage or per-job breakdown; options: out, max_jobs."""
    return _call("plot_run", [run_folder] + _options(options))


def improvement(sweep_csv, **options):
    """plot_improvement.py: each policy's improvement over a baseline; options: x or x_metric, metric, baseline,
    out, logx, title."""
    return _call("plot_improvement", [sweep_csv] + _options(options))


def opus(folder, **options):
    """plot_opus.py: Opus's Fig. 8, the window CDF, rail 0's windows and the technologies, from
    scripts/opus-figures.sh's folder; options: out."""
    return _call("plot_opus", [folder] + _options(options))


def inc(fig2_csv, **options):
    """plot_inc.py: INC-AOI's Fig. 2 and the paper's claims; options: out, reading, jct."""
    return _call("plot_inc", [fig2_csv] + _options(options))


def circuits(run_folder, **options):
    """plot_circuits.py: one run's circuits lit and reconfigurations over time (circuits.csv); options: out."""
    return _call("plot_circuits", [run_folder] + _options(options))


def ranks(run_folder, **options):
    """plot_ranks.py: per-rank Gantt chart of a job-graph run (trace.json); options: out, max_rows, job."""
    return _call("plot_ranks", [run_folder] + _options(options))


def cdf(compare_folder, **options):
    """plot_cdf.py: CDFs of job completion time and slowdown per policy (runs/POLICY/jobs.csv); options: out,
    title."""
    return _call("plot_cdf", [compare_folder] + _options(options))


def seeds(*inputs, **options):
    """plot_seeds.py: bars per policy with error bars over seeds, from compare folders (one per seed) or one
    sweep; options: metrics ("m1,m2"), error ("sd" or "ci95"), fix (["KEY=VALUE", ...]), out, title."""
    return _call("plot_seeds", list(inputs) + _options(options))
