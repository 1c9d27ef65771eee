#!/usr/bin/python3
"""The odcnsim Python package (python/odcnsim): results loaded from real run, compare and sweep folders made by the
binary, its errors, the plotting functions, and the example notebook, whose numbers must be the README's."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))

import odcnsim  # noqa: E402
import run_notebook  # noqa: E402

TMP = tempfile.mkdtemp(prefix="odcnsim-python-")
MIX = dict(platform="platforms/clos-8pod.yaml", workload="workloads/small-mix.yaml")


def setUpModule():
    os.chdir(ROOT)


class RunTest(unittest.TestCase):
    def test_a_run_is_its_files(self):
        r = odcnsim.run(policy="static", iterations=2, out=os.path.join(TMP, "mix"), **MIX)
        # small-mix has 3 jobs; 2 iterations each: 3 rows in jobs.csv, 6 in iterations.csv.
        self.assertEqual(len(r.jobs), 3)
        self.assertEqual(len(r.iterations), 6)
        self.assertEqual(set(r.tables), {n[:-4] for n in os.listdir(r.path) if n.endswith(".csv")})
        self.assertEqual(r.policy, "static")
        self.assertEqual(r.run["policy"], "static")
        # The makespan is the last iteration's end.
        self.assertAlmostEqual(r.summary["makespan_s"], r.iterations.end_s.max(), places=9)
        self.assertEqual(odcnsim.load_run(r.path).summary, r.summary)
        with self.assertRaises(AttributeError):
            r.stages  # static writes no stages.csv

    def test_refusals_are_the_binary_s_one_line(self):
        with self.assertRaises(odcnsim.RunError) as e:
            odcnsim.run(policy="nope", out=os.path.join(TMP, "nope"), **MIX)
        self.assertEqual(e.exception.status, 2)
        self.assertTrue(str(e.exception).startswith("command line: --policy: unknown policy 'nope'"), str(e.exception))
        self.assertFalse(os.path.exists(os.path.join(TMP, "nope")))
        with self.assertRaises(odcnsim.RunError) as e:
            odcnsim.run(policy="static", sets={"ocs.no_such_key": 1}, out=os.path.join(TMP, "bad"), **MIX)
        self.assertEqual(e.exception.status, 2)
        self.assertIn("no_such_key", str(e.exception))

    def test_sets_are_spelled_as_the_files_spell_them(self):
        from odcnsim.runner import _sets
        self.assertEqual(_sets({"nic.rings": "one-way", "job_graphs.0.replicate": True, "ocs.ports": 4}),
                         ["--set", "nic.rings=one-way", "--set", "job_graphs.0.replicate=true", "--set", "ocs.ports=4"])
        self.assertEqual(_sets(["a.b=1"]), ["--set", "a.b=1"])
        self.assertEqual(_sets(None), [])

    def test_a_folder_that_is_no_result_is_refused(self):
        empty = tempfile.mkdtemp(dir=TMP)
        for load in (odcnsim.load_run, odcnsim.load_compare, odcnsim.load_sweep):
            with self.assertRaises(odcnsim.ResultError):
                load(empty)
        with self.assertRaises(odcnsim.ResultError):
            odcnsim.load_run(os.path.join(TMP, "missing"))


def binary(*args):
    done = subprocess.run([odcnsim.binary(), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(done.stderr)


class CompareAndSweepTest(unittest.TestCase):
    def test_compare(self):
        out = os.path.join(TMP, "cmp")
        binary("compare", "--platform", MIX["platform"], "--workload", MIX["workload"], "--policies",
               "static,aggregate", "--baseline", "static", "--iterations", "2", "--out", out)
        c = odcnsim.load_compare(out)
        self.assertEqual(sorted(c.table.policy), ["aggregate", "static"])
        self.assertEqual(sorted(c.runs), ["aggregate", "static"])
        for policy, run in c.runs.items():
            row = c.table[c.table.policy == policy].iloc[0]
            self.assertAlmostEqual(row.makespan_s, run.summary["makespan_s"], places=6)
        static = c.table[c.table.policy == "static"].iloc[0]
        self.assertAlmostEqual(static.makespan_s_ratio, 1.0)

    def test_sweep(self):
        grid = os.path.join(TMP, "grid.yaml")
        with open(grid, "w") as f:
            f.write(f"platform: {ROOT}/platforms/clos-8pod.yaml\nworkload: {ROOT}/workloads/small-mix.yaml\n"
                    "policies: [static]\niterations: 1\nset:\n  ocs.reconfig_delay_us: [10, 1000]\n")
        out = os.path.join(TMP, "sweep")
        binary("sweep", grid, "--out", out, "-j", "2")
        s = odcnsim.load_sweep(out)
        self.assertEqual(len(s.table), 2)
        self.assertEqual(sorted(s.table["ocs.reconfig_delay_us"]), [10, 1000])
        runs = s.runs()
        for (_, row), run in zip(s.table.iterrows(), runs):
            self.assertAlmostEqual(row.makespan_s, run.summary["makespan_s"], places=6)
        with self.assertRaises(odcnsim.ResultError):
            s.point("no-such-point")
        # The plotting functions: the files they wrote, in the sweep's plots/ folder; bad input as ValueError.
        paths = odcnsim.plots.sweep(os.path.join(out, "sweep.csv"), x="ocs.reconfig_delay_us", y="makespan_s")
        self.assertEqual(len(paths), 2)
        for p in paths:
            self.assertTrue(os.path.isfile(p))
            self.assertEqual(os.path.dirname(p), os.path.join(out, "plots"))
        with self.assertRaises(ValueError) as e:
            odcnsim.plots.sweep(os.path.join(out, "sweep.csv"), x="nope", y="makespan_s")
        self.assertIn("nope", str(e.exception))


class NotebookTest(unittest.TestCase):
    """python/examples/opus-table.ipynb: its code cells run, and the table it prints is the README's."""

    def test_the_notebook_reproduces_the_readme_row(self):
        namespace = run_notebook.run(os.path.join(ROOT, "python", "examples", "opus-table.ipynb"))
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            rows = [line.split("|")[1:3] for line in f if line.startswith("| ")]
        for key, value in namespace["table"].items():
            found = [cells for cells in rows if cells[0].strip().startswith(key)]
            self.assertEqual(len(found), 1, key)
            self.assertTrue(found[0][1].strip().startswith(value), f"{key}: README {found[0][1]!r}, notebook {value!r}")
        # The saved outputs are the same numbers (the notebook as committed shows what it computes).
        with open(os.path.join(ROOT, "python", "examples", "opus-table.ipynb"), encoding="utf-8") as f:
            saved = "".join("".join(o.get("text", [])) for c in json.load(f)["cells"] if c["cell_type"] == "code"
                            for o in c["outputs"])
        for value in namespace["table"].values():
            self.assertIn(value, saved)


if __name__ == "__main__":
    unittest.main()
