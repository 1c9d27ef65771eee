#!/usr/bin/python3
"""Tests of analysis/table_topox.py (TOPO-X's Table III beside odcnsim's, from scripts/topox-table3.sh's runs).

    /usr/bin/python3 tests/analysis/test_table_topox.py     (from anywhere; finds analysis/ from its own path)

Builds a table3-runs.csv for rows 1 and 5 with round iteration times, runs the tool as a subprocess, and checks
the speedups and the ring all-reduce bounds against values worked out by hand, the rows whose paper time lies
below the bound, the one-line errors (exit 2), and byte-identical output run to run.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # leave no __pycache__ in analysis/
HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "analysis", "table_topox.py")
HEADER = ["row", "policy", "servers", "ports", "gbps", "iteration_s", "plan_wall_s", "simulate_wall_s", "run_wall_s",
          "mip_status", "planned_s", "lower_bound_s", "flexnet_estimate_s"]


class TableTopox(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_runs(self, rows):
        with open(os.path.join(self.dir, "table3-runs.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(HEADER)
            for r in rows:
                w.writerow(r)

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)

    def table(self):
        with open(os.path.join(self.dir, "table3.csv")) as f:
            return {int(r["row"]): r for r in csv.DictReader(f)}

    def test_speedups_and_bounds_by_hand(self):
        self.write_runs([
            [1, "topoopt", 128, 4, 40, 0.200, 0, 0, 0, "", "", ""],
            [1, "topox", 128, 4, 40, 0.100, 0, 0, 0, "not run: 5 columns, above the limit of 1 (heuristic plan)", "",
             ""],
            [5, "topoopt", 16, 4, 10, 0.150, 0, 0, 0, "", "", "", 0.196],
            [5, "topox", 16, 4, 10, 0.120, 0, 0, 0, "optimal", "", 0.050],
            [5, "topox-nodelay", 16, 4, 10, 0.060, 0, 0, 0, "optimal", "", 0.040],
            [5, "topox-paper", 16, 4, 10, 0.240, 0, 0, 0, "optimal", 0.030, 0.050],
            [5, "topox-aligned", 16, 4, 10, 0.130, 0, 0, 0, "optimal", "", 0.050],
            [5, "topox-eq8", 16, 4, 10, 0.300, 0, 0, 0, "optimal", "", 0.090],
        ])
        r = self.run_tool(self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.table()
        self.assertEqual(sorted(t), [1, 5])
        self.assertEqual(t[1]["odcnsim_speedup"], "2.000")  # 200 / 100 ms
        self.assertEqual(t[5]["odcnsim_speedup"], "1.250")  # 150 / 120 ms
        self.assertEqual(t[5]["odcnsim_nodelay_speedup"], "2.500")  # 150 / 60 ms
        self.assertEqual(t[1]["odcnsim_topox_nodelay_ms"], "")
        # Ring bound 2(N-1)/N·S/(d·B): row 1, S = 306,264,065·4 B, N = 128, d = 4, B = 5e9 B/s:
        # 1.984375·1,225,056,260 = 2,430,971,015.9 B / 2e10 B/s = 121.5486 ms. Row 5: S = 76,585,985·4 B, N = 16, d = 4, B = 1.25e9 B/s:
        # 1.875·306,343,940 = 574,394,887.5 B / 5e9 B/s = 114.8790 ms.
        self.assertEqual(t[1]["ring_bound_ms"], "121.549")
        self.assertEqual(t[5]["ring_bound_ms"], "114.879")
        # The paper's TOPO-X: 150.864 ms (row 1) is above its bound, 32.226 ms (row 5) below.
        self.assertEqual(t[1]["paper_topox_below_ring_bound"], "no")
        self.assertEqual(t[5]["paper_topox_below_ring_bound"], "yes")
        self.assertEqual(t[5]["mip_status"], "optimal")
        with open(os.path.join(self.dir, "table3.md")) as f:
            md = f.read()
        self.assertIn("paper mean 4.04x (min 2.01x, max 6.08x)", md)  # (2.01 + 6.08) / 2
        self.assertIn("odcnsim mean 1.62x (min 1.25x, max 2.00x)", md)  # (2 + 1.25) / 2 = 1.625
        self.assertIn("in rows 5.", md)
        # topox:paper on row 5: planned 30 ms (below the 114.879 ms bound), executed 240 ms; its plan against
        # odcnsim's TopoOpt 150 / 30 = 5.00x, against the paper's 195.958 / 30 = 6.53x.
        self.assertEqual(t[5]["topox_paper_planned_ms"], "30.000")
        self.assertEqual(t[5]["topox_paper_executed_ms"], "240.000")
        self.assertEqual(t[1]["topox_paper_planned_ms"], "")
        # planned, executed, δ = 0 and its bound (the topox-nodelay run's), δ = 1 ms and its bound (the topox run's),
        # the speedup, topox:aligned, topox:eq8, the ring bound.
        self.assertIn("| 30.0 (below bound) | 240.0 | 60.0 | 40.0 | 120.0 | 50.0 | 1.25x | 130.0 | 300.0 | 114.9 |", md)
        self.assertEqual(t[5]["lower_bound_nodelay_ms"], "40.000")
        self.assertEqual(t[5]["topox_eq8_ms"], "300.000")
        self.assertIn("topox:eq8 (Eq. 8's count, δ = 1 ms) mean 0.50x", md)  # 150 / 300
        # FlexNet's estimate of TopoOpt on row 5, 196 ms, against the paper's 195.958 ms.
        self.assertEqual(t[5]["topoopt_flexnet_ms"], "196.000")
        self.assertEqual(t[1]["topoopt_flexnet_ms"], "")
        self.assertIn("| 150.0 | 196.0 | 30.0 (below bound) |", md)
        self.assertIn("FlexNet's estimate of TopoOpt over the paper's TopoOpt time: mean 1.00 (min 1.00, max 1.00).", md)
        # and over topox:paper's plan, 196 / 30:
        self.assertIn("FlexNet's estimate of TopoOpt over topox:paper's plan: mean 6.53x (min 6.53x, max 6.53x).", md)
        self.assertEqual(t[5]["topox_aligned_ms"], "130.000")
        self.assertIn("topox:aligned (slot-aligned starts only, δ = 1 ms) mean 1.15x", md)  # 150 / 130
        self.assertEqual(t[5]["lower_bound_ms"], "50.000")  # the topox run's lower_bound_s
        self.assertEqual(t[1]["lower_bound_ms"], "")
        self.assertIn("against odcnsim's TopoOpt mean 5.00x (min 5.00x, max 5.00x), against the paper's TopoOpt "
                      "mean 6.53x", md)
        first = open(os.path.join(self.dir, "table3.csv"), "rb").read()
        self.assertEqual(self.run_tool(self.dir).returncode, 0)
        self.assertEqual(open(os.path.join(self.dir, "table3.csv"), "rb").read(), first)

    def test_errors_are_one_line(self):
        r = self.run_tool(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1)
        self.assertIn("table3-runs.csv: (file): does not exist", r.stderr)
        self.write_runs([[1, "ring", 128, 4, 40, 0.2, 0, 0, 0, "", "", ""]])
        r = self.run_tool(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("policy (line 2): must be one of topoopt, topox, topox-nodelay, topox-paper, topox-aligned, topox-eq8 "
                      "(got 'ring')", r.stderr)
        self.write_runs([[1, "topox-paper", 128, 4, 40, 0.2, 0, 0, 0, "", "", ""]])
        r = self.run_tool(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("planned_s (line 2): a topox-paper run needs its planned time > 0", r.stderr)
        self.write_runs([[1, "topoopt", 128, 4, 40, 0.2, 0, 0, 0, "", "", ""]])
        r = self.run_tool(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no Table III row has both a topoopt and a topox run", r.stderr)
        self.write_runs([[1, "topoopt", 128, 4, 40, -1, 0, 0, 0, "", "", ""]])
        self.assertEqual(self.run_tool(self.dir).returncode, 2)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "table3.csv")))


if __name__ == "__main__":
    unittest.main()
