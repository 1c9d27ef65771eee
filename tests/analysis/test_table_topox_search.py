#!/usr/bin/python3
"""Tests of analysis/table_topox_search.py (Table III with the parallelisation searched, scripts/topox-search.sh).

    /usr/bin/python3 tests/analysis/test_table_topox_search.py     (from anywhere)

Builds the folder the script writes for row 5 (a table3-runs.csv beside it, three search reports, three runs) with
round numbers, runs the tool as a subprocess and checks the speedups worked out by hand, which bound the paper's
TOPO-X time is compared with, the one-line errors (exit 2) and byte-identical output run to run.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "analysis", "table_topox_search.py")


def report(hybrid_ms, searched_ms):
    return ("odcnsim generate: dlrm-table2-2-searched ...\n"
            f"  cost              hybrid {hybrid_ms:.3f} ms -> searched {searched_ms:.3f} ms (5000 steps, 10 strategies "
            "evaluated, best at step 3, 1.0 s)\n")


class TableTopoxSearch(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.dir = os.path.join(self.top, "search")
        os.makedirs(os.path.join(self.dir, "inputs"))
        with open(os.path.join(self.top, "table3-runs.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["row", "policy", "iteration_s", "lower_bound_s", "flexnet_estimate_s"])
            w.writerow([5, "topoopt", 0.150, "", 0.190])
            w.writerow([5, "topox", 0.120, 0.130, ""])
            w.writerow([5, "topox-nodelay", 0.100, 0.125, ""])
        for name, (h, s) in {"topoopt": (195.0, 160.0), "topox-free": (125.0, 40.0),
                             "topox-delay": (130.0, 45.0)}.items():
            with open(os.path.join(self.dir, "inputs", f"row5-{name}.txt"), "w") as f:
                f.write(report(h, s))
        self.summary("topoopt", {"mean_iteration_s": 0.160, "topoopt": {"flexnet_estimate_s": 0.161}})
        self.summary("topox", {"mean_iteration_s": 0.080, "topox": {"lower_bound_s": 0.045}})
        self.summary("topox-nodelay", {"mean_iteration_s": 0.064, "topox": {"lower_bound_s": 0.041}})

    def tearDown(self):
        shutil.rmtree(self.top)

    def summary(self, name, data):
        d = os.path.join(self.dir, "runs", f"row5-{name}")
        os.makedirs(d)
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(data, f)

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def test_speedups_by_hand(self):
        r = self.run_tool(self.dir, "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "search.csv")) as f:
            row = next(csv.DictReader(f))
        self.assertEqual(row["hybrid_speedup"], "1.250")     # 150 / 120
        self.assertEqual(row["searched_speedup"], "2.000")   # 160 / 80
        self.assertEqual(row["cheapest_bound_ms"], "40.000")  # the search's cheapest at δ = 0, not the run's bound
        self.assertEqual(row["hybrid_topoopt_flexnet_ms"], "195.000")  # the search's own hybrid estimate
        self.assertEqual(row["paper_topox_below_cheapest_bound"], "yes")  # 32.226 < 40
        with open(os.path.join(self.dir, "search.md")) as f:
            md = f.read()
        self.assertIn("| 5 | 16 | 4 | 10 | 196.0 | 32.2 | 150.0 → 160.0 | 195.0 → 160.0 | 100.0 → 64.0 | "
                      "120.0 → 80.0 | 125.0 → 40.0 | 1.25x → 2.00x | yes |", md)
        self.assertIn("hybrid mean 1.25x", md)
        first = md
        self.assertEqual(self.run_tool(self.dir, "5").returncode, 0)
        with open(os.path.join(self.dir, "search.md")) as f:
            self.assertEqual(f.read(), first)

    def test_refusals_are_one_line(self):
        os.remove(os.path.join(self.dir, "inputs", "row5-topox-free.txt"))
        with open(os.path.join(self.dir, "inputs", "row5-topoopt.txt"), "w") as f:
            f.write("not a report\n")
        cases = [((self.dir, "5"), "row5-topoopt.txt: cost: no line"),
                 ((self.dir,), "command line: (arguments): expected FOLDER and ROWS"),
                 ((self.dir, "6"), "table3-runs.csv: row: row 6 has no topoopt run")]
        for args, expect in cases:
            r = self.run_tool(*args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(expect, r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "search.csv")))


if __name__ == "__main__":
    unittest.main()
