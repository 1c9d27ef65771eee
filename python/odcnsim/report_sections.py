"""The sections of `odcnsim report`'s page (odcnsim/report.py), each (id, title, HTML). The figures are drawn by
the analysis/ tools (odcnsim.plots: plot_run, plot_ranks, plot_circuits, plot_cdf) into a temporary folder and
read back as data URIs; labels and units come from analysis/odcnlabels.py."""
import contextlib
import io
import os

from . import plots
from . import report_page as P

TABLE_ROWS = 200  # rows of jobs.csv and stages.csv shown at most


def _tool(name):
    return plots._tool(name)


class RunFolder:
    """A run folder: summary.json and run.json read, its figures drawn into `tmp` under the name `tag`."""

    def __init__(self, path, tmp, tag):
        self.path, self.prefix = path, os.path.join(tmp, tag)
        self.summary = self.json("summary.json")
        self.run = self.json("run.json") if self.has("run.json") else {}
        self._figures = None

    def file(self, name):
        return os.path.join(self.path, name)

    def has(self, name):
        return os.path.isfile(self.file(name))

    def json(self, name):
        op = _tool("odcnplot")
        data = op.read_json(self.file(name))
        if not isinstance(data, dict):
            raise op.InputError(self.file(name), "(json)", "is not a JSON object")
        return data

    def rows(self, name):
        """A CSV as a DataFrame of strings; None when the file is not there."""
        return _tool("odcnplot").read_csv(self.file(name)) if self.has(name) else None

    def describe(self):
        return _tool("plot_run").describe(self.summary, self.run)

    @property
    def policy(self):
        return self.summary.get("policy") or self.run.get("policy") or "unknown policy"

    def figures(self):
        """plot_run.py's PNGs by part: {"timeline": path, "stages" or "jobs": path}."""
        if self._figures is None:
            paths = plots.run(self.path, out=self.prefix)
            self._figures = {p[: -len(".png")].rsplit("-", 1)[1]: p for p in paths if p.endswith(".png")}
        return self._figures

    def has_rank_slices(self):
        if not self.has("trace.json"):
            return False
        path = self.file("trace.json")
        return bool(_tool("plot_run").trace_slices(path, _tool("odcnplot").read_json(path), by_rank=True))


def _get(d, *keys):
    for k in keys:
        d = d.get(k) if isinstance(d, dict) else None
    return d


def _csv_cell(text):
    """A CSV field shown as a number when it reads as one."""
    try:
        return float(text)
    except ValueError:
        return text


def _csv_table(df, what):
    body = P.table(list(df.columns), [[_csv_cell(v) for v in row] for row in df.head(TABLE_ROWS).values.tolist()])
    if len(df) > TABLE_ROWS:
        body += P.note(f"first {TABLE_ROWS} of {len(df)} rows of {what}")
    return body


def _png(path, alt, caption, fig_id):
    return P.figure(path, alt, caption, fig_id)


# ---------------------------------------------------------------------------------------------- a run

def summary_items(summary):
    """summary.json's values as (key, value): the comparable metrics in odcnsim's order, then the others by name;
    an object's values as key.field; lists (TDM stages) are left to their own section."""
    order = list(_tool("odcnlabels").METRICS)
    keys = [k for k in order if k in summary] + sorted(k for k in summary if k not in order)
    items = []
    for k in keys:
        v = summary[k]
        if isinstance(v, dict):
            items += [(f"{k}.{f}", x) for f, x in sorted(v.items()) if not isinstance(x, (dict, list))]
        elif not isinstance(v, list):
            items.append((k, v))
    return items


def header(run, pre="", level=2):
    plat, r = run.run.get("platform"), run.run
    kind = _get(plat, "kind") or _get(plat, "spec", "kind") or run.summary.get("platform_kind")
    rows = [["policy", run.policy], ["platform", f"{_get(plat, 'file') or 'n/a'} ({kind or 'kind unknown'})"],
            ["workload", _get(r, "workload", "file")], ["odcnsim", f"{r.get('odcnsim_version', 'n/a')} (commit "
                                                                   f"{r.get('odcnsim_commit', 'unknown')})"],
            ["SimGrid", r.get("simgrid_version")], ["command", r.get("command")]]
    return pre + "header", "Run", P.section(pre + "header", "Run", P.table(None, rows), level)


def summary(run, pre="", level=2):
    labels = _tool("odcnlabels")
    items = summary_items(run.summary)
    body = P.table(["metric", "key", "value"], [[labels.label(k), k, v] for k, v in items], pre + "summary-table",
                   [k for k, _ in items])
    body += P.note("summary.json (docs/outputs.md); n/a: null, e.g. no slowdown without its baseline run")
    return pre + "summary", "Summary", P.section(pre + "summary", "Summary", body, level)


def inputs(run, pre="", level=2, intro=""):
    r, sid = run.run, pre + "inputs"
    if not r:
        return sid, "Inputs", P.left_out(sid, "Inputs", "no run.json in the folder: the inputs are unknown", level)
    overrides = "; ".join(f"{o.get('path')}={o.get('value')} ({o.get('file')})" for o in r.get("overrides") or []
                          if isinstance(o, dict)) or "none"
    rows = [["command", r.get("command")], ["platform file", _get(r, "platform", "file")],
            ["platform fingerprint", _get(r, "platform", "hash")], ["workload file", _get(r, "workload", "file")],
            ["workload fingerprint", _get(r, "workload", "hash")], ["policy", r.get("policy")],
            ["seed", r.get("seed")], ["iterations", r.get("iterations")], ["overrides (--set)", overrides],
            ["schema version", r.get("schema_version")]]
    body = (P.note(intro) if intro else "") + P.table(["input", "value"], rows, sid + "-table")
    jobs = [j for j in r.get("jobs") or [] if isinstance(j, dict)]
    if jobs:
        cols = []
        for j in jobs:
            cols += [k for k, v in j.items() if k not in cols and not isinstance(v, (dict, list))]
        body += f"<h{level + 1}>Jobs as deployed (run.json)</h{level + 1}>\n"
        body += P.table(cols, [[j.get(c) for c in cols] for j in jobs[:TABLE_ROWS]], sid + "-jobs")
    return sid, "Inputs", P.section(sid, "Inputs", body, level)


def jobs(run, pre="", level=2):
    sid, df = pre + "jobs", run.rows("jobs.csv")
    if df is None or df.empty:
        return sid, "Jobs", P.left_out(sid, "Jobs", "jobs.csv is missing or has no rows", level)
    body = _csv_table(df, "jobs.csv")
    if "jobs" in run.figures():
        body += _png(run.figures()["jobs"], "time per job", "time per job: compute, communication, reconfiguration "
                     "stall, waiting (plot_run.py)", sid + "-figure")
    return sid, "Jobs", P.section(sid, "Jobs", body, level)


def timeline(run, pre="", level=2):
    sid = pre + "timeline"
    if run.has_rank_slices():
        png = [p for p in plots.ranks(run.path, out=run.prefix + "-ranks") if p.endswith(".png")][0]
        body = _png(png, "per-rank timeline", "per-rank timeline from trace.json: compute, communication, "
                    "reconfiguration stall; blank is idle (plot_ranks.py, at most 64 ranks)", sid + "-figure")
        return sid, "Per-rank timeline", P.section(sid, "Per-rank timeline", body, level)
    body = _png(run.figures()["timeline"], "per-job timeline", "per-job Gantt chart: compute, communication, "
                "reconfiguration stall, waiting (plot_run.py; from trace.json, else iterations.csv)", sid + "-figure")
    return sid, "Per-job timeline", P.section(sid, "Per-job timeline", body, level)


def circuits(run, pre="", level=2):
    sid, title, df = pre + "circuits", "Circuits over time", run.rows("circuits.csv")
    if df is None or df.empty:
        why = ("no circuits.csv in the folder" if df is None else
               f"circuits.csv has no rows: no circuit was set up ({run.summary.get('platform_kind') or 'this'} fabric)")
        return sid, title, P.left_out(sid, title, why, level)
    png = [p for p in plots.circuits(run.path, out=run.prefix + "-circuits") if p.endswith(".png")][0]
    body = _png(png, "circuits over time", "circuits lit and reconfigurations so far (plot_circuits.py, from "
                "circuits.csv)", sid + "-figure")
    return sid, title, P.section(sid, title, body, level)


def cdf(run, pre="", level=2):
    sid, title = pre + "cdf", "Job completion time and slowdown (CDF)"
    op, plot_cdf = _tool("odcnplot"), _tool("plot_cdf")
    df = run.rows("jobs.csv")
    values = {c: {run.policy: [v for v in op.numbers(df, c, run.file("jobs.csv")).tolist() if v == v]}
              for c in plot_cdf.PANELS if df is not None and c in df.columns}
    if not values.get("completion_s", {}).get(run.policy):
        return sid, title, P.left_out(sid, title, "no job has a completion time in jobs.csv", level)
    values.setdefault("slowdown", {})
    with contextlib.redirect_stdout(io.StringIO()):  # the tool prints the paths it wrote
        png = plot_cdf.draw(values, [run.policy], f"jobs of one run — {run.describe()}", run.prefix + "-cdf",
                            [run.file("jobs.csv")])[0]
    body = _png(png, "CDFs of job completion time and slowdown", "fraction of jobs at most x (plot_cdf.py, over "
                "jobs.csv)", sid + "-figure")
    if not values["slowdown"].get(run.policy):
        body += P.note("no slowdown panel: the run has no slowdowns (run with --no-slowdown)")
    return sid, title, P.section(sid, title, body, level)


def stages(run, pre="", level=2):
    sid, title, df = pre + "stages", "TDM stage breakdown", run.rows("stages.csv")
    if df is None or df.empty:
        why = f"policy {run.policy} runs no TDM stages (no stages.csv); the stage breakdown is for the TDM policies"
        return sid, title, P.left_out(sid, title, why, level)
    body = _png(run.figures()["stages"], "stage breakdown", "the first round's stages: reconfiguration δ, "
                "communication, compute / idle (plot_run.py)", sid + "-figure")
    body += _csv_table(df, "stages.csv")
    return sid, title, P.section(sid, title, body, level)


def run_sections(run):
    return [f(run) for f in (header, summary, inputs, jobs, timeline, circuits, cdf, stages)]
