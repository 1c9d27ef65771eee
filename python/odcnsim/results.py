"""Result folders as Python objects: a run (run.json, summary.json and every CSV), a compare (compare.csv and each
policy's run) and a sweep (sweep.csv and each point's run, loaded on demand). docs/outputs.md and
docs/workflow.md describe the files."""
import json
import os

import pandas as pd


class ResultError(ValueError):
    """A folder or file that is not the odcnsim result it should be: `path: reason`."""


def _json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ResultError(f"{path}: cannot be read ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise ResultError(f"{path}: line {e.lineno}: {e.msg}") from None


def _csv(path):
    try:
        return pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ResultError(f"{path}: cannot be read as CSV ({e})") from None


def _folder(path, marker, what):
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise ResultError(f"{path}: is not a folder")
    if not os.path.isfile(os.path.join(path, marker)):
        raise ResultError(f"{path}: holds no {marker}: not an odcnsim {what} folder")
    return path


class Run:
    """One run folder (`odcnsim run --out DIR`): `summary` and `run` (dicts of summary.json and run.json),
    `tables` (every CSV by its stem: jobs, iterations, circuits, and a policy's own, e.g. windows or stages), each
    also an attribute (`r.jobs`). trace.json is left on disk (`path`), since it can be large."""

    def __init__(self, path):
        self.path = _folder(path, "summary.json", "run")
        self.summary = _json(os.path.join(self.path, "summary.json"))
        run_json = os.path.join(self.path, "run.json")
        self.run = _json(run_json) if os.path.isfile(run_json) else {}
        self.tables = {}
        for name in sorted(os.listdir(self.path)):
            if name.endswith(".csv"):
                self.tables[name[:-4]] = _csv(os.path.join(self.path, name))

    def __getattr__(self, name):
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(f"{self.__dict__.get('path', 'run')}: no {name}.csv (tables: {', '.join(tables)})")

    @property
    def policy(self):
        return self.run.get("policy")

    def __repr__(self):
        return f"Run({self.path!r}, policy={self.policy!r}, tables={list(self.tables)})"


class Compare:
    """A compare folder (`odcnsim compare --out DIR`): `table` (compare.csv: a row per policy, every metric and its
    ratio to the baseline), `info` (compare.json) and `runs` (policy -> Run of runs/POLICY)."""

    def __init__(self, path):
        self.path = _folder(path, "compare.csv", "compare")
        self.table = _csv(os.path.join(self.path, "compare.csv"))
        info = os.path.join(self.path, "compare.json")
        self.info = _json(info) if os.path.isfile(info) else {}
        runs = os.path.join(self.path, "runs")
        self.runs = {}
        if os.path.isdir(runs):
            for name in sorted(os.listdir(runs)):
                if os.path.isfile(os.path.join(runs, name, "summary.json")):
                    self.runs[name] = Run(os.path.join(runs, name))

    def __repr__(self):
        return f"Compare({self.path!r}, policies={list(self.table['policy'])})"


class Sweep:
    """A sweep folder (`odcnsim sweep GRID --out DIR`): `table` (sweep.csv: a row per point, its values and
    metrics), `grid` (sweep.json) and point(ID) -> Run of points/ID, loaded when asked for."""

    def __init__(self, path):
        self.path = _folder(path, "sweep.csv", "sweep")
        self.table = _csv(os.path.join(self.path, "sweep.csv"))
        grid = os.path.join(self.path, "sweep.json")
        self.grid = _json(grid) if os.path.isfile(grid) else {}

    def point(self, point_id):
        if point_id not in set(self.table["point"]):
            raise ResultError(f"{self.path}: no point {point_id!r} in sweep.csv")
        return Run(os.path.join(self.path, "points", point_id))

    def runs(self):
        """Every point's Run, in sweep.csv's order."""
        return [self.point(p) for p in self.table["point"]]

    def __repr__(self):
        return f"Sweep({self.path!r}, points={len(self.table)})"


def load_run(path):
    return Run(path)


def load_compare(path):
    return Compare(path)


def load_sweep(path):
    return Sweep(path)
