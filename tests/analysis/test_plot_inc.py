#!/usr/bin/python3
"""Tests of analysis/plot_inc.py (INC-AOI's Fig. 2 from the fig2.csv of scripts/inc-figures.sh).

    /usr/bin/python3 tests/analysis/test_plot_inc.py        (from anywhere; finds analysis/ from its own path)

Builds a small synthetic fig2.csv (800 and 900 jobs, the five policies) whose claims are computed by hand, runs
the tool as a subprocess, and checks the claims CSV value by value, the two figures (PNG and SVG, with the
policies' labels and the paper's title), the one-line errors (exit 2), and byte-identical output run to run.
"""
import csv
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # leave no __pycache__ in analysis/
HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "analysis")
sys.path.insert(0, ANALYSIS)

import plot_inc  # noqa: E402
import test_plots  # noqa: E402  (the shared helpers of the analysis tests)
from test_plots import read_bytes, svg_text, write_csv  # noqa: E402

HEADER = ["jobs", "policy", "seeds", "reconfigurations_mean", "reconfigurations_sd", "batch_completion_s_mean",
          "batch_completion_s_sd", "mean_jct_s_mean", "mean_jct_s_sd"]
# (jobs, policy): (reconfigurations mean, batch completion mean). The sds are 1 (reconfigurations) and 2 (s).
VALUES = {
    (800, "inc-ljf"): (1, 20), (800, "inc-fcfs"): (4, 50), (800, "noinc-ljf"): (6, 50),
    (800, "noinc-fcfs"): (10, 100), (800, "inc-group"): (3, 25),
    (900, "inc-ljf"): (4, 80), (900, "inc-fcfs"): (5, 160), (900, "noinc-ljf"): (7, 100),
    (900, "noinc-fcfs"): (20, 200), (900, "inc-group"): (4, 90),
}
# The claims by hand, in plot_inc.CLAIMS's order (reductions: 100 * (baseline - ours) / baseline):
EXPECTED = [
    ("96.4", "85.00"),  # reconfigurations noINC-FCFS → INC-LJF: 800: (10-1)/10 = 90, 900: (20-4)/20 = 80; mean 85
    ("93.2", "70.00"),  # completion noINC-FCFS → INC-LJF: 800: (100-20)/100 = 80, 900: (200-80)/200 = 60; mean 70
    ("49.4", "50.00"),  # FCFS, noINC → INC: 800: (100-50)/100 = 50, 900: (200-160)/200 = 20; max 50
    ("46.8", "60.00"),  # LJF, noINC → INC: 800: (50-20)/50 = 60, 900: (100-80)/100 = 20; max 60
    ("87.3", "50.00"),  # noINC, FCFS → LJF: 800: (100-50)/100 = 50, 900: (200-100)/200 = 50; mean 50
    ("86.3", "55.00"),  # INC, FCFS → LJF: 800: (50-20)/50 = 60, 900: (160-80)/160 = 50; mean 55
]
TMP = None


def fig2_rows(drop=(), policies=None):
    rows = []
    for (jobs, policy), (rec, bct) in VALUES.items():
        if policies is not None and policy not in policies:
            continue
        row = dict(zip(HEADER, [jobs, policy, 3, float(rec), 1.0, float(bct), 2.0, bct / 4, 0.5]))
        rows.append([row[c] for c in HEADER if c not in drop])
    return [c for c in HEADER if c not in drop], rows


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="odcnsim-plot-inc-")
    write_csv(os.path.join(TMP, "fig2.csv"), *fig2_rows())


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def tool(*args):
    return test_plots.tool("plot_inc.py", *args)


def read_claims(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


class PlotIncTest(test_plots.Base):
    def run_ok(self, csv_path, out):
        proc = tool(csv_path, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        return proc

    def test_claims_by_hand(self):
        out = os.path.join(TMP, "claims")
        proc = self.run_ok(os.path.join(TMP, "fig2.csv"), out)
        path = os.path.join(out, "fig2-claims.csv")
        self.assertIn(path, proc.stdout.splitlines())
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.readline(), "claim,paper_percent,odcnsim_percent\n")
        rows = read_claims(path)
        self.assertEqual([r["claim"] for r in rows], [c[0] for c in plot_inc.CLAIMS])
        self.assertEqual([(r["paper_percent"], r["odcnsim_percent"]) for r in rows], EXPECTED)

    def test_claims_helpers(self):
        data, order = plot_inc.load(os.path.join(TMP, "fig2.csv"))
        self.assertEqual(order, ["inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"])
        self.assertEqual(data["noinc-fcfs"][900]["batch_completion_s"], (200.0, 2.0))
        self.assertEqual(plot_inc.reduction(10.0, 1.0), 90.0)
        self.assertIsNone(plot_inc.reduction(0.0, 1.0))
        values = [v for _, _, v in plot_inc.claims(data)]
        self.assertEqual(values, [85.0, 70.0, 50.0, 60.0, 50.0, 55.0])

    def test_missing_policy_leaves_claims_empty(self):
        csv_path = write_csv(os.path.join(TMP, "no-noinc-fcfs.csv"),
                             *fig2_rows(policies={"inc-ljf", "inc-fcfs", "noinc-ljf", "inc-group"}))
        out = os.path.join(TMP, "partial")
        self.run_ok(csv_path, out)
        rows = read_claims(os.path.join(out, "fig2-claims.csv"))
        self.assertEqual([r["odcnsim_percent"] for r in rows], ["", "", "", "60.00", "", "55.00"])

    def test_figures_written(self):
        out = os.path.join(TMP, "figures")
        proc = self.run_ok(os.path.join(TMP, "fig2.csv"), out)
        for name, panel in (("fig2a-reconfigurations", "Fig. 2(a)"), ("fig2b-completion", "Fig. 2(b)")):
            png, svg = os.path.join(out, name + ".png"), os.path.join(out, name + ".svg")
            self.assertIn(png, proc.stdout.splitlines())
            self.assertTrue(read_bytes(png).startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertGreater(os.path.getsize(png), 10000)
            text = svg_text(svg)
            for word in (panel, "Accelerating DML Training in OCS-based DCNs", "INC-LJF", "INC-FCFS", "noINC-LJF",
                         "noINC-FCFS", "INC-group", "number of jobs"):
                self.assertIn(word, text)

    def test_default_out_is_plots_in_the_csv_folder(self):
        folder = os.path.join(TMP, "default")
        os.makedirs(folder)
        shutil.copy(os.path.join(TMP, "fig2.csv"), folder)
        proc = tool(os.path.join(folder, "fig2.csv"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        written = ["fig2a-reconfigurations.png", "fig2a-reconfigurations.svg", "fig2b-completion.png",
                   "fig2b-completion.svg", "fig2-claims.csv"]
        for name in written:
            self.assertIn(os.path.join(folder, "plots", name), proc.stdout.splitlines())
        # Nothing new beside the CSV; plots/ holds exactly the outputs (no temporary files left over).
        self.assertEqual(sorted(os.listdir(folder)), ["fig2.csv", "plots"])
        self.assertEqual(sorted(os.listdir(os.path.join(folder, "plots"))), sorted(written))

    def test_byte_identical_run_to_run(self):
        a, b = os.path.join(TMP, "same-a"), os.path.join(TMP, "same-b")
        self.run_ok(os.path.join(TMP, "fig2.csv"), a)
        self.run_ok(os.path.join(TMP, "fig2.csv"), b)
        names = sorted(os.listdir(a))
        self.assertEqual(names, sorted(os.listdir(b)))
        self.assertEqual(names, ["fig2-claims.csv", "fig2a-reconfigurations.png", "fig2a-reconfigurations.svg",
                                 "fig2b-completion.png", "fig2b-completion.svg"])
        for name in names:
            self.assertEqual(read_bytes(os.path.join(a, name)), read_bytes(os.path.join(b, name)), name)

    def test_missing_column(self):
        csv_path = write_csv(os.path.join(TMP, "no-bct.csv"), *fig2_rows(drop={"batch_completion_s_mean"}))
        out = os.path.join(TMP, "bad-column")
        self.assert_input_error(tool(csv_path, "--out", out), csv_path, "batch_completion_s_mean",
                                "missing column")
        self.assertFalse(os.path.exists(out))

    def test_missing_file(self):
        csv_path = os.path.join(TMP, "nowhere.csv")
        self.assert_input_error(tool(csv_path, "--out", os.path.join(TMP, "bad-file")), csv_path, "(file)",
                                "does not exist")

    def test_bad_number_and_duplicate(self):
        header, rows = fig2_rows()
        rows[3][HEADER.index("reconfigurations_mean")] = "many"
        csv_path = write_csv(os.path.join(TMP, "bad-number.csv"), header, rows)
        self.assert_input_error(tool(csv_path), csv_path, "reconfigurations_mean", "line 5", "not a number")
        header, rows = fig2_rows()
        csv_path = write_csv(os.path.join(TMP, "duplicate.csv"), header, rows + [rows[0]])
        self.assert_input_error(tool(csv_path), csv_path, "policy", "inc-ljf at 800 jobs appears twice")


if __name__ == "__main__":
    unittest.main()
