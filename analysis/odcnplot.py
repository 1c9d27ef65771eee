"""Shared helpers of the odcnsim plotting tools (plot_sweep.py, plot_compare.py, plot_run.py, ...).

Not a command. It holds: the error convention (exit 2 and one line `file: field: reason` on bad input,
exit 1 and `path: (write): reason` when an output cannot be written), CSV and JSON readers that check what
they read, the metric → label table, the colour-blind-safe palette (Okabe & Ito), the default output folder
(PLOTS, a `plots/` subfolder of the folder that holds the input data, which odcnsim keeps when it resumes a
sweep or re-runs into a result folder), and writers that produce byte-identical PNG and SVG files run after
run, write every file through a temporary file in the same folder renamed into place, and never replace an
input file.
"""
import argparse
import csv
import io
import json
import math
import os
import sys
import tempfile

import matplotlib
import matplotlib.transforms

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import odcnlabels  # noqa: E402

# Okabe & Ito's palette, ordered for lines and bars (yellow last: it is hard to see on white).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]

# The four parts of a job's time, in the order they are stacked and drawn, with their colours.
CATEGORIES = [
    ("compute", "compute", "#0072B2"),
    ("communication", "communication", "#E69F00"),
    ("stall", "reconfiguration stall", "#CC79A7"),
    ("waiting", "waiting", "#BBBBBB"),
]
CATEGORY_COLOUR = {key: colour for key, _, colour in CATEGORIES}
CATEGORY_LABEL = {key: label for key, label, _ in CATEGORIES}

# The comparable metrics in the order odcnsim writes them, with their labels (as in sim/app/metrics.cpp).
METRIC_LABELS = odcnlabels.METRICS
SHARE_COLUMNS = ["share_compute", "share_communication", "share_reconfiguration_stall", "share_waiting"]
SHARE_CATEGORY = dict(zip(SHARE_COLUMNS, ["compute", "communication", "stall", "waiting"]))

# The subfolder of the input data's folder that the tools write into by default (odcnsim keeps it in run,
# compare and sweep folders).
PLOTS = "plots"

class InputError(Exception):
    """Bad input: reported as `file: field: reason` with exit status 2."""

    def __init__(self, file, field, reason):
        super().__init__(f"{file}: {field}: {reason}")
        self.file, self.field, self.reason = file, field, reason


class WriteError(Exception):
    """An output could not be written: reported as `path: (write): reason` with exit status 1."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a command-line error is one line `command line: (arguments): reason` and exit 2."""

    def error(self, message):
        one_line(f"command line: (arguments): {message}; see '{self.prog} --help'")
        sys.exit(2)


def one_line(text):
    sys.stderr.write(" ".join(str(text).split()) + "\n")


def run_main(main):
    """Calls main(); turns InputError into exit 2 and WriteError into exit 1, each with one line on stderr."""
    try:
        main()
    except InputError as e:
        one_line(str(e))
        sys.exit(2)
    except WriteError as e:
        one_line(str(e))
        sys.exit(1)
    sys.exit(0)


def setup_style():
    """Readable fonts and settings that make the SVG output identical run to run."""
    plt.rcdefaults()
    plt.rcParams.update({
        "svg.hashsalt": "odcnsim",
        "svg.fonttype": "path",
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 9,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.axisbelow": True,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        # Every figure is laid out so that nothing falls off the canvas (titles, labels, legends).
        "figure.constrained_layout.use": True,
    })


# ---------------------------------------------------------------------------------------------- labels

def metric_label(column):
    """Human label of a metric column or a swept key, with its unit (odcnlabels.label)."""
    return odcnlabels.label(column)


def metric_name(column):
    """The label without its unit: `makespan (s)` → `makespan`, for titles (odcnlabels.name)."""
    return odcnlabels.name(column)


def setting(key, value):
    """A key's value for a legend, `OCS ports per pod = 8` (odcnlabels.setting)."""
    return odcnlabels.setting(key, value)


def suptitle(fig, text):
    """The figure's title, broken into lines that fit its width (about 11 characters of 11 pt per inch)."""
    return fig.suptitle(title_text(text, max(30, min(100, int(fig.get_size_inches()[0] * 11)))))


def title_text(text, width=80):
    """A title broken into lines of at most `width` characters."""
    return odcnlabels.wrap(text, width)


def stem(path):
    """`platforms/clos-8pod.yaml` → `clos-8pod`; '' for an empty or missing path."""
    if not isinstance(path, str) or not path:
        return ""
    base = os.path.basename(path.rstrip("/"))
    root, ext = os.path.splitext(base)
    return root if root else base


def stems_text(values, what):
    """The distinct file stems of a column, for a title: one stem, `a / b / c`, or `N <what>s`."""
    seen = []
    for v in values:
        s = stem(v)
        if s and s not in seen:
            seen.append(s)
    if len(seen) <= 3:
        return " / ".join(seen)
    return f"{len(seen)} {what}s"


def format_value(v):
    """A swept value for a legend: integers without `.0`, other floats at full (shortest) precision."""
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(v)


# ---------------------------------------------------------------------------------------------- reading

def check_file(path):
    """Raises InputError unless `path` is a readable regular file."""
    if not os.path.exists(path):
        raise InputError(path, "(file)", "does not exist")
    if os.path.isdir(path):
        raise InputError(path, "(file)", "is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise InputError(path, "(file)", "cannot be read (permission denied)")


def read_csv(path, required=()):
    """Reads a CSV into a DataFrame of strings ('' for empty fields). Checks the header (no column named twice)
    and the `required` columns."""
    check_file(path)
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, "(file)", f"is not UTF-8 text (byte {e.start})")
    except OSError as e:
        raise InputError(path, "(file)", f"cannot be read ({e.strerror or e})")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        header = next(csv.reader(io.StringIO(text)), None)
    except csv.Error as e:
        raise InputError(path, "(csv)", f"line 1: cannot be parsed ({e})")
    if not header:
        raise InputError(path, "(file)", "is empty, not a CSV with a header line")
    seen = set()
    for c in header:
        if c in seen:
            raise InputError(path, c, "the header names this column twice")
        seen.add(c)
    try:
        df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    except pd.errors.EmptyDataError:
        raise InputError(path, "(file)", "is empty, not a CSV with a header line")
    except pd.errors.ParserError as e:
        raise InputError(path, "(csv)", f"cannot be parsed ({str(e).strip()})")
    df.columns = header
    for c in required:
        if c not in df.columns:
            raise InputError(path, c, "missing column")
    return df


def numbers(df, column, path, allow_empty=True):
    """Column → float Series (NaN for empty fields). InputError naming the line of the first bad value."""
    out = []
    for i, v in enumerate(df[column].tolist()):
        v = v.strip() if isinstance(v, str) else v
        if v == "" or v is None:
            if not allow_empty:
                raise InputError(path, column, f"line {i + 2}: empty")
            out.append(math.nan)
            continue
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise InputError(path, column, f"line {i + 2}: '{v}' is not a number")
        if math.isinf(x):
            raise InputError(path, column, f"line {i + 2}: '{v}' is not finite")
        out.append(x)
    return pd.Series(out, index=df.index, dtype="float64")


def is_numeric_column(df, column):
    """True when every non-empty field of the column reads as a finite number (and at least one is there)."""
    any_value = False
    for v in df[column].tolist():
        v = v.strip()
        if v == "":
            continue
        try:
            if not math.isfinite(float(v)):
                return False
        except ValueError:
            return False
        any_value = True
    return any_value


def read_json(path):
    check_file(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(path, "(file)", f"is not UTF-8 text (byte {e.start})")
    except json.JSONDecodeError as e:
        raise InputError(path, "(json)", f"line {e.lineno} column {e.colno}: {e.msg}")
    except OSError as e:
        raise InputError(path, "(file)", f"cannot be read ({e.strerror or e})")


# ---------------------------------------------------------------------------------------------- writing

def check_outputs(paths, inputs):
    """InputError if an output path is one of the inputs or a folder."""
    protected = {os.path.realpath(p) for p in inputs}
    for p in paths:
        if os.path.realpath(p) in protected:
            raise InputError(p, "--out", "would replace an input file; choose another prefix")
        if os.path.isdir(p):
            raise InputError(p, "--out", "is a folder")


def _write_atomic(path, write, folder):
    """Calls write(binary file) on a temporary file in `folder` and renames it to `path`; removes the temporary
    file if anything goes wrong (also on Ctrl-C), so `path` is either complete or untouched."""
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise WriteError(f"{path}: (write): {e.strerror or e}")
        raise


def _make_folder(path):
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise WriteError(f"{folder}: (write): {e.strerror or e}")
    return folder


def write_text(path, text, inputs):
    """Writes `text` (UTF-8) to `path` atomically, creating its folder. Refuses (InputError) to replace any of
    `inputs`. Does not print the path."""
    check_outputs([path], inputs)
    folder = _make_folder(path)
    _write_atomic(path, lambda f: f.write(text.encode("utf-8")), folder)
    return path


def write_table(folder, stem, csv_lines, md_lines, inputs, tool):
    """FOLDER/STEM.csv and FOLDER/STEM.md from their lines (write_text each, so never over `inputs`), printing
    `tool: wrote PATH` for each."""
    for name, lines in ((stem + ".csv", csv_lines), (stem + ".md", md_lines)):
        target = write_text(os.path.join(folder, name), "\n".join(lines) + "\n", inputs)
        print(f"{tool}: wrote {target}")


def save_figure(fig, prefix, inputs):
    """Writes PREFIX.png and PREFIX.svg (each atomically, through a temporary file in the same folder), prints
    their paths, and returns them. Refuses (InputError) to replace any of `inputs`."""
    paths = [prefix + ".png", prefix + ".svg"]
    check_outputs(paths, inputs)
    folder = _make_folder(paths[0])
    for p in paths:
        fmt = p.rsplit(".", 1)[1]
        metadata = {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
        _write_atomic(p, lambda f: fig.savefig(f, format=fmt, metadata=metadata), folder)
        print(p)
    plt.close(fig)
    return paths


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def legend_below(fig, handles, labels, ncol=None, ax=None):
    """A legend centred under `ax` (default: the lowest axes of the figure), below its tick labels and x label;
    the constrained layout makes room for it."""
    if not handles:
        return None
    if ax is None:
        ax = min((a for a in fig.axes if a.get_visible()), key=lambda a: a.get_position().y0)
    if ncol is None:
        ncol = 2 if len(labels) > 3 and max(len(s) for s in labels) <= 45 else 1
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()  # lays the figure out, so that the tick labels' height is known
    below = ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0
    anchor = matplotlib.transforms.offset_copy(ax.transAxes, fig=fig, y=-(below * 72.0 / fig.dpi + 4.0),
                                               units="points")
    return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
                     ncol=ncol, frameon=False)


def plots_folder(data_folder):
    """The default output folder of a tool whose input data is in `data_folder`: `<data_folder>/plots`."""
    return os.path.join(data_folder, PLOTS)


def output_prefix(out, name, data_folder):
    """The output prefix: --out as given; --out naming an existing folder (or ending in '/'): `<out>/<name>`;
    no --out: `<data_folder>/plots/<name>` (the folder is created when the files are written)."""
    if out is None:
        return os.path.join(plots_folder(data_folder), name)
    if out.endswith(("/", os.sep)) or os.path.isdir(out):
        return os.path.join(out, name)
    return out
