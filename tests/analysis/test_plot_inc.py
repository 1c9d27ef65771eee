#!/usr/bin/python3
"""Tests of analysis/plot_inc.py (INC-AOI's Fig. 2 from the fig2.csv of scripts/inc-figures.sh).

    /usr/bin/python3 tests/analysis/test_plot_inc.py        (from anywhere; finds analysis/ from its own path)

Builds a small synthetic fig2.csv (800 and 900 jobs, the five policies) and a folder of per-job CSVs whose claims,
size classes and blocking shares are computed by hand below, runs the tool as a subprocess, and checks the CSVs
value by value, the choice of reconfiguration reading (--reading, and the fallback to reconfigurations_mean for a
fig2.csv of before the readings), the two figures (PNG and SVG, with the policies' labels, the reading's label and
the paper's title), the one-line errors (exit 2), and byte-identical output run to run.
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
          "batch_completion_s_sd", "mean_jct_s_mean", "mean_jct_s_sd", "events_mean", "events_sd",
          "job_allocations_mean", "job_allocations_sd", "head_blocked_servers_mean", "head_blocked_servers_sd",
          "head_blocked_ports_mean", "head_blocked_ports_sd"]
# (jobs, policy): (events = reconfigurations, batch completion, job allocations, head-blocked slots by servers,
# by ports), all seed means. The sds are 1 (events, allocations), 2 (s) and 0.5 (blocked slots).
VALUES = {
    (800, "inc-ljf"): (1, 20, 2, 0, 0), (800, "inc-fcfs"): (4, 50, 8, 3, 1), (800, "noinc-ljf"): (6, 50, 8, 0, 0),
    (800, "noinc-fcfs"): (10, 100, 40, 10, 0), (800, "inc-group"): (3, 25, 8, 0, 0),
    (900, "inc-ljf"): (4, 80, 8, 0, 0), (900, "inc-fcfs"): (5, 160, 8, 5, 3), (900, "noinc-ljf"): (7, 100, 8, 0, 0),
    (900, "noinc-fcfs"): (20, 200, 60, 30, 0), (900, "inc-group"): (4, 90, 8, 0, 0),
}
# The claims by hand, in plot_inc.CLAIMS's order. "Ratio of sums": 100 * (1 - sum ours / sum baseline) over 800 and
# 900 jobs; "up to": the largest 100 * (1 - ours / baseline) at one job count. (A mean of the per-count
# percentages would give 85, 70, 50, 60, 50, 55 instead.)
EXPECTED = [
    ("96.4", "83.33"),  # events noINC-FCFS → INC-LJF: 1 - (1 + 4) / (10 + 20) = 1 - 5/30 = 83.33 %
    ("93.2", "66.67"),  # completion noINC-FCFS → INC-LJF: 1 - (20 + 80) / (100 + 200) = 1 - 100/300 = 66.67 %
    ("49.4", "50.00"),  # FCFS, noINC → INC: 800: 1 - 50/100 = 50, 900: 1 - 160/200 = 20; max 50
    ("46.8", "60.00"),  # LJF, noINC → INC: 800: 1 - 20/50 = 60, 900: 1 - 80/100 = 20; max 60
    ("87.3", "50.00"),  # noINC, FCFS → LJF: 1 - (50 + 100) / (100 + 200) = 50 %
    ("86.3", "52.38"),  # INC, FCFS → LJF: 1 - (20 + 80) / (50 + 160) = 1 - 100/210 = 52.38 %
]
# --reading job_allocations changes only the first claim: 1 - (2 + 8) / (40 + 60) = 90 % (a mean of per-count
# percentages would be (95 + 86.67) / 2 = 90.83).
ALLOCATIONS_FIRST = "90.00"
METRICS = ["events_mean", "batch_completion_s_mean", "batch_completion_s_mean", "batch_completion_s_mean",
           "batch_completion_s_mean", "batch_completion_s_mean"]
COMBINE = ["ratio of sums", "ratio of sums", "max over job counts", "max over job counts", "ratio of sums",
           "ratio of sums"]
# FCFS head-of-line blocking, summed over 800 and 900 jobs: inc-fcfs servers 3 + 5 = 8, ports 1 + 3 = 4 (8/12 =
# 66.67 %, 4/12 = 33.33 %); noinc-fcfs servers 10 + 30 = 40, ports 0 (100 %, 0 %).
BLOCKING = [["policy", "blocked_slots_servers", "blocked_slots_ports", "servers_percent", "ports_percent"],
            ["inc-fcfs", "8.0", "4.0", "66.67", "33.33"], ["noinc-fcfs", "40.0", "0.0", "100.00", "0.00"]]
# Per-job CSVs (workers, jct_s); "" is a job without a JCT (skipped). inc-ljf-700 is not in fig2.csv (ignored), nor
# is notes.txt.
JCT_FILES = {
    "inc-ljf-800-seed1.csv": [(2, 10), (2, 20), (4, 30), (16, 100)],
    "inc-ljf-800-seed2.csv": [(2, 30), (4, 50), (16, "")],
    "inc-ljf-900-seed1.csv": [(8, 40)],
    "noinc-fcfs-800-seed1.csv": [(2, 5), (16, 200)],
    "inc-ljf-700-seed1.csv": [(2, 1000)],
}
# By hand: inc-ljf workers 2: (10 + 20 + 30) / 3 = 20 over 2 runs; 4: (30 + 50) / 2 = 40 over 2 runs; 8: 40 (1 run);
# 16: 100 (1 run: seed 2's 16-worker job has no JCT). noinc-fcfs 2: 5; 16: 200.
SIZE_CLASSES = [["policy", "workers", "runs", "jobs", "mean_jct_s"],
                ["inc-ljf", "2", "2", "3", "20.0"], ["inc-ljf", "4", "2", "2", "40.0"],
                ["inc-ljf", "8", "1", "1", "40.0"], ["inc-ljf", "16", "1", "1", "100.0"],
                ["noinc-fcfs", "2", "1", "1", "5.0"], ["noinc-fcfs", "16", "1", "1", "200.0"]]
TMP = None


def fig2_rows(drop=(), policies=None):
    rows = []
    for (jobs, policy), (rec, bct, alloc, servers, ports) in VALUES.items():
        if policies is not None and policy not in policies:
            continue
        row = dict(zip(HEADER, [jobs, policy, 3, float(rec), 1.0, float(bct), 2.0, bct / 4, 0.5, float(rec), 1.0,
                                float(alloc), 1.0, float(servers), 0.5, float(ports), 0.5]))
        rows.append([row[c] for c in HEADER if c not in drop])
    return [c for c in HEADER if c not in drop], rows


def write_jct(folder):
    os.makedirs(folder)
    for name, rows in JCT_FILES.items():
        write_csv(os.path.join(folder, name), ["job", "workers", "jct_s"],
                  [[i, w, t] for i, (w, t) in enumerate(rows)])
    with open(os.path.join(folder, "notes.txt"), "w") as f:
        f.write("not a run\n")
    return folder


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="odcnsim-plot-inc-")
    write_csv(os.path.join(TMP, "fig2.csv"), *fig2_rows())
    write_jct(os.path.join(TMP, "jct-hand"))


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def tool(*args):
    return test_plots.tool("plot_inc.py", *args)


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def read_claims(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


class PlotIncTest(test_plots.Base):
    def run_ok(self, csv_path, out, *more):
        proc = tool(csv_path, "--out", out, *more)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        return proc

    def test_claims_by_hand(self):
        out = os.path.join(TMP, "claims")
        proc = self.run_ok(os.path.join(TMP, "fig2.csv"), out)
        path = os.path.join(out, "fig2-claims.csv")
        self.assertIn(path, proc.stdout.splitlines())
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.readline(), "claim,paper_percent,odcnsim_percent,metric,combine\n")
        rows = read_claims(path)
        self.assertEqual([r["claim"] for r in rows], [c[0] for c in plot_inc.CLAIMS])
        self.assertEqual([(r["paper_percent"], r["odcnsim_percent"]) for r in rows], EXPECTED)
        self.assertEqual([r["metric"] for r in rows], METRICS)
        self.assertEqual([r["combine"] for r in rows], COMBINE)
        self.assertIn("reading for Fig. 2(a) and its claim: events_mean", proc.stdout)

    def test_reading_selects_column(self):
        out = os.path.join(TMP, "allocations")
        proc = self.run_ok(os.path.join(TMP, "fig2.csv"), out, "--reading", "job_allocations")
        rows = read_claims(os.path.join(out, "fig2-claims.csv"))
        self.assertEqual([r["odcnsim_percent"] for r in rows], [ALLOCATIONS_FIRST] + [e[1] for e in EXPECTED[1:]])
        self.assertEqual([r["metric"] for r in rows], ["job_allocations_mean"] + METRICS[1:])
        self.assertIn("job_allocations_mean", proc.stdout)
        text = svg_text(os.path.join(out, "fig2a-reconfigurations.svg"))
        self.assertIn(plot_inc.READING_LABELS["job_allocations"], text)
        self.assertNotIn(plot_inc.READING_LABELS["events"], text)

    def test_old_csv_events_from_reconfigurations(self):
        header, rows = fig2_rows(drop={"events_mean", "events_sd"})
        csv_path = write_csv(os.path.join(TMP, "old.csv"), header, rows)
        out = os.path.join(TMP, "old")
        self.run_ok(csv_path, out)
        rows = read_claims(os.path.join(out, "fig2-claims.csv"))
        self.assertEqual([r["odcnsim_percent"] for r in rows], [e[1] for e in EXPECTED])
        self.assertEqual(rows[0]["metric"], "reconfigurations_mean")
        # A reading the CSV lacks is a one-line error.
        self.assert_input_error(tool(csv_path, "--out", os.path.join(TMP, "old-bad"), "--reading", "spanning_jobs"),
                                csv_path, "spanning_jobs_mean", "missing column")

    def test_claims_helpers(self):
        data, order, column = plot_inc.load(os.path.join(TMP, "fig2.csv"))
        self.assertEqual(order, ["inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"])
        self.assertEqual(column, "events")
        self.assertEqual(data["noinc-fcfs"][900]["batch_completion_s"], (200.0, 2.0))
        self.assertEqual(plot_inc.reduction(10.0, 1.0), 90.0)
        self.assertIsNone(plot_inc.reduction(0.0, 1.0))
        self.assertEqual(plot_inc.combine([10.0, 30.0], [5.0, 5.0], plot_inc.RATIO), 75.0)  # 1 - 10/40
        self.assertEqual(plot_inc.combine([10.0, 30.0], [5.0, 6.0], plot_inc.MAX), 80.0)  # 1 - 6/30
        self.assertIsNone(plot_inc.combine([0.0, 0.0], [1.0, 0.0], plot_inc.RATIO))
        self.assertIsNone(plot_inc.combine([0.0, 4.0], [0.0, 1.0], plot_inc.MAX))
        self.assertEqual(plot_inc.combine([0.0, 4.0], [0.0, 1.0], plot_inc.RATIO), 75.0)  # a 0 count adds nothing
        values = [round(v, 6) for _, _, v in plot_inc.claims(data)]
        self.assertEqual(values, [83.333333, 66.666667, 50.0, 60.0, 50.0, 52.380952])

    def test_size_classes_and_blocking(self):
        out = os.path.join(TMP, "classes")
        proc = self.run_ok(os.path.join(TMP, "fig2.csv"), out, "--jct", os.path.join(TMP, "jct-hand"))
        classes = os.path.join(out, "fig2-size-classes.csv")
        self.assertIn(classes, proc.stdout.splitlines())
        self.assertEqual(read_rows(classes), SIZE_CLASSES)
        self.assertEqual(read_rows(os.path.join(out, "fig2-blocking.csv")), BLOCKING)

    def test_missing_policy_leaves_claims_empty(self):
        csv_path = write_csv(os.path.join(TMP, "no-noinc-fcfs.csv"),
                             *fig2_rows(policies={"inc-ljf", "inc-fcfs", "noinc-ljf", "inc-group"}))
        out = os.path.join(TMP, "partial")
        self.run_ok(csv_path, out)
        rows = read_claims(os.path.join(out, "fig2-claims.csv"))
        self.assertEqual([r["odcnsim_percent"] for r in rows], ["", "", "", "60.00", "", "52.38"])
        self.assertEqual(read_rows(os.path.join(out, "fig2-blocking.csv")), BLOCKING[:2])

    def test_table_over_configurations(self):
        """analysis/inc_fig2_table.py: the claims by hand (EXPECTED, ALLOCATIONS_FIRST) as markdown, a column per
        configuration, and the rows at the largest job count."""
        folder = os.path.join(TMP, "table")
        os.makedirs(folder, exist_ok=True)
        header, rows = fig2_rows()
        header = header + ["spanning_fraction_mean"]
        rows = [r + [0.25] for r in rows]
        write_csv(os.path.join(folder, "fig2.csv"), header, rows)
        write_csv(os.path.join(folder, "fig2-size-classes.csv"), SIZE_CLASSES[0], SIZE_CLASSES[1:])
        write_csv(os.path.join(folder, "fig2-blocking.csv"), BLOCKING[0], BLOCKING[1:])
        proc = test_plots.tool("inc_fig2_table.py", "x=" + folder, "y=" + folder)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        for (claim, *_), (paper, ours) in zip(plot_inc.CLAIMS, EXPECTED):
            row = next(line for line in lines if line.startswith("| " + claim))
            value = f"{float(ours):.1f} %"
            self.assertEqual(row.split(" | ")[-2:], [value, value + " |"], row)
        self.assertIn(f"| `job_allocations` | {float(ALLOCATIONS_FIRST):.1f} % | {float(ALLOCATIONS_FIRST):.1f} % |",
                      lines)
        self.assertIn("| `circuits_changed` | — | — |", lines)  # no such column in this fig2.csv
        self.assertIn("| x | noinc-fcfs | 900 | 200.0 | 20.0 | 25.0 % |", lines)
        self.assertIn("| x | inc-ljf | 20.0 | 40.0 | 40.0 | 100.0 |", lines)
        self.assertIn("| y | inc-fcfs | 8 (66.67 %) | 4 (33.33 %) |", lines)
        bad = test_plots.tool("inc_fig2_table.py", "x=" + os.path.join(TMP, "nowhere"))
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(bad.stderr.count("\n"), 1, bad.stderr)
        self.assertIn("fig2.csv: (file): cannot be read", bad.stderr)

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
        self.assertIn(plot_inc.READING_LABELS["events"], svg_text(os.path.join(out, "fig2a-reconfigurations.svg")))

    def test_default_out_is_plots_in_the_csv_folder(self):
        folder = os.path.join(TMP, "default")
        os.makedirs(folder)
        shutil.copy(os.path.join(TMP, "fig2.csv"), folder)
        shutil.copytree(os.path.join(TMP, "jct-hand"), os.path.join(folder, "jct"))
        proc = tool(os.path.join(folder, "fig2.csv"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        written = ["fig2a-reconfigurations.png", "fig2a-reconfigurations.svg", "fig2b-completion.png",
                   "fig2b-completion.svg", "fig2-claims.csv", "fig2-size-classes.csv", "fig2-blocking.csv"]
        for name in written:
            self.assertIn(os.path.join(folder, "plots", name), proc.stdout.splitlines())
        # Nothing new beside the CSV; plots/ holds exactly the outputs (no temporary files left over). The jct/
        # beside the CSV is read by default.
        self.assertEqual(sorted(os.listdir(folder)), ["fig2.csv", "jct", "plots"])
        self.assertEqual(sorted(os.listdir(os.path.join(folder, "plots"))), sorted(written))
        self.assertEqual(read_rows(os.path.join(folder, "plots", "fig2-size-classes.csv")), SIZE_CLASSES)

    def test_byte_identical_run_to_run(self):
        a, b = os.path.join(TMP, "same-a"), os.path.join(TMP, "same-b")
        jct = os.path.join(TMP, "jct-hand")
        self.run_ok(os.path.join(TMP, "fig2.csv"), a, "--jct", jct)
        self.run_ok(os.path.join(TMP, "fig2.csv"), b, "--jct", jct)
        names = sorted(os.listdir(a))
        self.assertEqual(names, sorted(os.listdir(b)))
        self.assertEqual(names, ["fig2-blocking.csv", "fig2-claims.csv", "fig2-size-classes.csv",
                                 "fig2a-reconfigurations.png", "fig2a-reconfigurations.svg", "fig2b-completion.png",
                                 "fig2b-completion.svg"])
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

    def test_bad_jct_folder(self):
        jct = os.path.join(TMP, "no-such-jct")
        self.assert_input_error(tool(os.path.join(TMP, "fig2.csv"), "--out", os.path.join(TMP, "bad-jct"), "--jct",
                                     jct), jct, "--jct", "not a folder")

    def test_bad_number_and_duplicate(self):
        header, rows = fig2_rows()
        rows[3][HEADER.index("events_mean")] = "many"
        csv_path = write_csv(os.path.join(TMP, "bad-number.csv"), header, rows)
        self.assert_input_error(tool(csv_path), csv_path, "events_mean", "line 5", "not a number")
        header, rows = fig2_rows()
        csv_path = write_csv(os.path.join(TMP, "duplicate.csv"), header, rows + [rows[0]])
        self.assert_input_error(tool(csv_path), csv_path, "policy", "inc-ljf at 800 jobs appears twice")


if __name__ == "__main__":
    unittest.main()
