"""The sections of `odcnsim report`'s page for a compare folder: what was compared, the comparison table
(compare.json), the inputs, the CDFs per policy (plot_cdf.py) and a section per policy with its run's figures
(the first seed's with --seeds)."""
import os

from . import plots
from . import report_page as P
from . import report_sections as S


class CompareFolder:
    """compare.json and compare.csv read, and each policy's (first) run folder."""

    def __init__(self, path, tmp):
        op, plot_cdf = S._tool("odcnplot"), S._tool("plot_cdf")
        self.path, self.tmp = path, tmp
        self.info = op.read_json(os.path.join(path, "compare.json"))
        entries = self.info.get("policies") if isinstance(self.info, dict) else None
        if not isinstance(entries, list) or not all(isinstance(e, dict) and "policy" in e for e in entries):
            raise op.InputError(os.path.join(path, "compare.json"), "policies", "missing, or not a list of policies")
        self.entries = entries
        self.policies = [e["policy"] for e in entries]
        self.seeds = self.info.get("seeds") or []
        self.folders = {q: plot_cdf.run_folders(path, q) for q in self.policies}
        self.runs = {q: S.RunFolder(self.folders[q][0], tmp, f"p{i}") for i, q in enumerate(self.policies)}

    def describe(self):
        op = S._tool("odcnplot")
        return ", ".join(s for s in (" / ".join(self.policies), op.stem(self.info.get("platform")),
                                     op.stem(self.info.get("workload"))) if s)


def columns(seeded):
    """The table's columns per policy: (heading, the entry's field, the metric's field)."""
    if seeded:
        return [("mean", "statistics", "mean"), ("± 95 % CI", "statistics", "ci95"),
                ("ratio of means", "statistics", "ratio_of_means")]
    return [("value", "metrics", None), ("ratio", "ratio_to_baseline", None)]


def cell(entry, field, sub, key):
    v = entry.get(field, {}).get(key) if isinstance(entry.get(field), dict) else None
    return v.get(sub) if sub and isinstance(v, dict) else v


def header(c):
    i = c.info
    overrides = "; ".join(f"{o.get('path')}={o.get('value')}" for o in i.get("overrides") or [] if isinstance(o, dict))
    rows = [["policies", ", ".join(c.policies)], ["baseline", i.get("baseline")], ["platform", i.get("platform")],
            ["workload", i.get("workload")], ["seeds", ", ".join(str(s) for s in c.seeds) or "one run per policy"],
            ["overrides (--set)", overrides or "none"], ["odcnsim", i.get("odcnsim_version")]]
    return "header", "Compare", P.section("header", "Compare", P.table(None, rows))


def summary(c):
    labels = S._tool("odcnlabels")
    cols = columns(bool(c.seeds))
    field = cols[0][1]
    keys = list(c.entries[0].get(field) or {})
    head = ["metric"] + [f"{q}: {h}" for q in c.policies for h, _, _ in cols]
    rows = [[labels.label(k)] + [(cell(e, f, sub, k), {"data-policy": e["policy"], "data-col": h})
                                 for e in c.entries for h, f, sub in cols] for k in keys]
    body = P.table(head, rows, "summary-table", keys)
    body += P.note(f"compare.json; ratios to the baseline, {c.info.get('baseline')}; n/a: null (a ratio to 0, or no "
                   "slowdown)" + ("; over seeds: mean, the 95 % confidence interval's half-width" if c.seeds else ""))
    return "summary", "Comparison", P.section("summary", "Comparison", body)


def inputs(c):
    base = c.info.get("baseline") if c.info.get("baseline") in c.runs else c.policies[0]
    return S.inputs(c.runs[base], intro=f"as the run of {base} recorded them (runs/{base}, run.json)")


def cdf(c):
    sid, title = "cdf", "Job completion time and slowdown (CDF)"
    png = [p for p in plots.cdf(c.path, out=os.path.join(c.tmp, "compare-cdf")) if p.endswith(".png")][0]
    caption = "fraction of jobs at most x, per policy (plot_cdf.py" + (", every seed's jobs together)" if c.seeds
                                                                         else ")")
    return sid, title, P.section(sid, title, P.figure(png, "CDFs per policy", caption, "cdf-figure"))


def policy(c, q):
    run, pre = c.runs[q], f"policy-{q}-"
    where = os.path.relpath(run.path, c.path)
    parts = [P.note(f"{where}: {run.describe()}" + (f" (the first of {len(c.folders[q])} seeds)" if c.seeds else ""))]
    parts += [f(run, pre, 3)[2] for f in (S.timeline, S.circuits, S.stages)]
    return f"policy-{q}", f"Policy {q}", P.section(f"policy-{q}", f"Policy {q}", "\n".join(parts))


def compare_sections(c):
    return [header(c), summary(c), inputs(c), cdf(c)] + [policy(c, q) for q in c.policies]
