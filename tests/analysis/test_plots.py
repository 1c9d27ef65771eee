#!/usr/bin/python3
"""Tests of the plotting tools in analysis/ (plot_sweep.py, plot_compare.py, plot_run.py, plot_improvement.py,
plot_opus.py, opus_cost.py).

    /usr/bin/python3 tests/analysis/test_plots.py        (from anywhere; finds analysis/ from its own path)

Builds small synthetic sweep and compare CSVs and run folders in a temporary folder, runs each tool as a
subprocess and checks the exit status, the files written, the text in the SVGs (titles, legends, labels),
the one-line errors, byte-identical output run to run, that the default output goes into a `plots/`
subfolder of the data's folder with nothing new beside the data (odcnsim keeps `plots/` when it resumes a
sweep or re-runs into a folder), that an interrupted write leaves nothing behind, and a few numbers (the
sweep's mean and sd, the Gantt chart's waiting intervals) by calling the helpers directly.
"""
import csv
import html
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # leave no __pycache__ in analysis/
HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "analysis")
sys.path.insert(0, ANALYSIS)

import pandas as pd  # noqa: E402

import odcnplot  # noqa: E402
import plot_compare  # noqa: E402
import plot_run  # noqa: E402
import plot_sweep  # noqa: E402

PYTHON = sys.executable or "/usr/bin/python3"
METRICS = ["makespan_s", "job_completion_mean_s", "job_completion_median_s", "job_completion_p95_s",
           "job_completion_max_s", "mean_iteration_s", "throughput_iterations_per_hour", "slowdown_mean",
           "slowdown_p95", "reconfigurations", "circuits_changed", "share_compute", "share_communication",
           "share_reconfiguration_stall", "share_waiting"]
TMP = None


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


def sweep_rows(seeds, empty_metric="slowdown_mean"):
    """Two policies × ocs.reconfig_delay_us ∈ {10, 100, 1000} × pods.ports_per_pod ∈ {4, 8} × seeds.
    makespan_s = delay / 10 + ports + (10 for tdm4) + seed, so over seeds 1, 2, 3 the mean is at seed 2 and
    the sd is 1."""
    header = ["point", "platform", "workload", "policy", "seed", "ocs.reconfig_delay_us", "pods.ports_per_pod",
              "jobs", "iterations"] + METRICS
    rows, n = [], 0
    for policy in ("static", "tdm4"):
        for delay in (10, 100, 1000):
            for ports in (4, 8):
                for seed in seeds:
                    makespan = delay / 10 + ports + (10 if policy == "tdm4" else 0) + seed
                    values = {m: 0.25 for m in METRICS}
                    values["makespan_s"] = makespan
                    values["share_waiting"] = 0.1 * ports + 0.01 * seed
                    values[empty_metric] = ""
                    rows.append([f"p{n:03d}", "platforms/clos-8pod.yaml", "workloads/small-mix.yaml", policy, seed,
                                 delay, ports, 3, 5] + [values[m] for m in METRICS])
                    n += 1
    return header, rows


COMPARE = {  # policy: makespan, mean JCT, mean iteration, slowdown, reconfigurations, four shares
    "static": [100.0, 50.0, 10.0, 1.5, 0, 0.5, 0.3, 0.0, 0.2],
    "tdm4": [80.0, 40.0, 8.0, 1.2, 16, 0.5, 0.3, 0.01, 0.19],
    "aggregate": [123.0, 60.0, 12.0, 1.8, 8, 0.4, 0.3, 0.02, 0.28],
}


def compare_csv(path, with_ratios=True, slowdown=True):
    cols = ["makespan_s", "job_completion_mean_s", "mean_iteration_s", "slowdown_mean", "reconfigurations",
            "share_compute", "share_communication", "share_reconfiguration_stall", "share_waiting"]
    header = ["policy", "baseline"] + METRICS + ([m + "_ratio" for m in METRICS] if with_ratios else [])
    base = dict(zip(cols, COMPARE["static"]))
    rows = []
    for policy, v in COMPARE.items():
        d = dict(zip(cols, v))
        if not slowdown:
            d["slowdown_mean"] = ""
        values = [d.get(m, 1.0) for m in METRICS]
        ratios = []
        for m, x in zip(METRICS, values):
            b = base.get(m, 1.0)
            ratios.append("" if x == "" or b == 0 else x / b)
        rows.append([policy, "static"] + values + (ratios if with_ratios else []))
    return write_csv(path, header, rows)


JOBS_HEADER = ["job", "arrival_s", "admitted_s", "done_s", "completion_s", "service_s", "iterations", "compute_s",
               "communication_s", "reconfiguration_stall_s", "waiting_s", "alone_s", "slowdown", "job_name"]
# Output schema 1 (odcnsim before schema_version 2); plot_run.py converts it.
ITER_HEADER = ["job", "job_name", "iteration", "warm", "start_s", "end_s", "duration_s", "compute_s", "comm_s",
               "reconfig_stall_s", "wait_s", "circuit_bytes", "tor_bytes"]
# Output schema 2: the partition under one name per quantity, and the hidden communication beside it.
ITER_HEADER_V2 = ["job", "job_name", "iteration", "warm", "start_s", "end_s", "duration_s", "compute_s",
                  "communication_s", "reconfiguration_stall_s", "waiting_s", "hidden_communication_s",
                  "circuit_bytes", "tor_bytes"]


def run_folder(path, policy, stages, trace):
    """Three jobs (job 2 is named with a comma, so CSV-quoted). Job 0: arrival 0, done 10; in the trace it
    computes 0–2 and 6–8 and communicates 3–6 with 0.5 s of stall at the start."""
    os.makedirs(path)
    write_csv(os.path.join(path, "jobs.csv"), JOBS_HEADER, [
        [0, 0, 0, 10, 10, 10, 2, 4, 2.5, 0.5, 3, 5, 2, "ps-1B"],
        [1, 1, 1, 9, 8, 8, 2, 3, 3, 0, 2, "", "", "rar-3B"],
        [2, 2, 2, 8, 6, 6, 1, 2, 2, 0, 2, "", "", "a2a,8B"],
    ])
    write_csv(os.path.join(path, "iterations.csv"), ITER_HEADER, [
        [0, "ps-1B", 0, 0, 0, 5, 5, 2, 1, 0, 2, 10, 20],
        [0, "ps-1B", 1, 0, 5, 10, 5, 2, 2, 0.5, 1, 10, 20],
        [1, "rar-3B", 0, 0, 1, 9, 8, 3, 3, 0, 2, 10, 20],
        [2, "a2a,8B", 0, 0, 2, 8, 6, 2, 2, 0, 2, 10, 20],
    ])
    write_json(os.path.join(path, "summary.json"), {"policy": policy, "platform_kind": "clos_ocs", "jobs": 3,
                                                    "makespan_s": 10})
    write_json(os.path.join(path, "run.json"), {"policy": policy, "platform": {"file": "platforms/clos-8pod.yaml"},
                                                "workload": {"file": "workloads/small-mix.yaml"}})
    if stages:
        header = ["round", "stage", "k", "t", "start_s", "end_s", "duration_s", "predicted_s", "comm_s",
                  "compute_s", "bound", "circuits_changed", "reconfig_s"]
        rows = []
        for r in (1, 2):
            for s in range(1, 5):
                k, t = (s - 1) % 2, (s - 1) // 2
                start = (r - 1) * 10 + (s - 1) * 2.5
                rows.append([r, s, k, t, start, start + 2.5, 2.5, 2.5, 1.5 if k == 0 else 0.5, 2.5, "compute",
                             4 if s == 1 else 0, 0.25 if s == 1 else 0])
        write_csv(os.path.join(path, "stages.csv"), header, rows)
    if trace:
        events = [
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "jobs"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "ps-1B"}},
            {"cat": "compute", "ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": 2e6, "args": {"job": 0}},
            {"name": "push", "cat": "comm", "ph": "X", "pid": 1, "tid": 0, "ts": 3e6, "dur": 3e6,
             "args": {"job": 0, "stall_s": 0.5}},
            {"cat": "compute", "ph": "X", "pid": 1, "tid": 0, "ts": 6e6, "dur": 2e6, "args": {"job": 0}},
            {"cat": "compute", "ph": "X", "pid": 1, "tid": 1, "ts": 1e6, "dur": 3e6, "args": {"job": 1}},
            {"name": "collective", "cat": "comm", "ph": "X", "pid": 1, "tid": 1, "ts": 4e6, "dur": 3e6,
             "args": {"job": 1, "stall_s": 0}},
            # Job 2 lives in another process as its thread 0: args.job, not tid, says which job it is.
            {"cat": "compute", "ph": "X", "pid": 4, "tid": 0, "ts": 2e6, "dur": 2e6, "args": {"job": 2}},
            {"name": "collective", "cat": "comm", "ph": "X", "pid": 4, "tid": 0, "ts": 5e6, "dur": 2e6,
             "args": {"job": 2, "stall_s": 0.25}},
            # Everything else is ignored.
            {"name": "round 1 stage 1", "cat": "reconfigure", "ph": "X", "pid": 2, "tid": 0, "ts": 0, "dur": 250000},
            {"name": "stage 1 (group A communicates)", "cat": "stage", "ph": "X", "pid": 3, "tid": 0, "ts": 0,
             "dur": 2.5e6},
            {"name": "mark", "ph": "i", "pid": 3, "tid": 0, "ts": 1e6, "s": "g"},
            {"name": "circuits", "ph": "C", "pid": 2, "ts": 0, "args": {"circuits": 4}},
        ]
        write_json(os.path.join(path, "trace.json"), {"displayTimeUnit": "ms", "traceEvents": events})
    return path


def data_folder(name, files):
    """A fresh folder TMP/name, like a result folder odcnsim wrote, holding copies of `files` ({name in the
    folder: path to copy}); returns it and the sorted names in it."""
    folder = os.path.join(TMP, name)
    os.makedirs(folder)
    for target, source in files.items():
        shutil.copy(source, os.path.join(folder, target))
    return folder, sorted(os.listdir(folder))


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="odcnsim-plots-")
    write_csv(os.path.join(TMP, "sweep3.csv"), *sweep_rows([1, 2, 3]))
    write_csv(os.path.join(TMP, "sweep1.csv"), *sweep_rows([7]))
    compare_csv(os.path.join(TMP, "compare.csv"))
    compare_csv(os.path.join(TMP, "compare-noratio.csv"), with_ratios=False, slowdown=False)
    run_folder(os.path.join(TMP, "tdm4"), "tdm4", stages=True, trace=True)
    run_folder(os.path.join(TMP, "static"), "static", stages=False, trace=False)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def tool(name, *args):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("MPLBACKEND", None)
    return subprocess.run([PYTHON, os.path.join(ANALYSIS, name)] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=120, env=env)


def svg_text(path):
    """The SVG with XML escapes undone (matplotlib writes each text as a comment before its glyphs)."""
    with open(path, encoding="utf-8") as f:
        return html.unescape(f.read())


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class Base(unittest.TestCase):
    def assert_written(self, proc, prefix):
        """Exit 0, PREFIX.png and PREFIX.svg written, non-trivial, and their paths printed."""
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        png, svg = prefix + ".png", prefix + ".svg"
        self.assertEqual([line for line in proc.stdout.splitlines() if line.startswith(prefix + ".")], [png, svg])
        self.assertTrue(read_bytes(png).startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertGreater(os.path.getsize(png), 10000)
        self.assertGreater(os.path.getsize(svg), 10000)
        self.assertIn("<svg", svg_text(svg))
        return svg_text(svg)

    def assert_only_plots(self, folder, before, written):
        """`folder` holds what it held before plus `plots/`, and `plots/` holds exactly the files `written` (no
        temporary files left over)."""
        self.assertEqual(sorted(os.listdir(folder)), sorted(before + ["plots"]))
        self.assertEqual(sorted(os.listdir(os.path.join(folder, "plots"))), sorted(written))

    def assert_input_error(self, proc, file, field, *words):
        """Exit 2, nothing on stdout, and exactly one line `file: field: reason` on stderr."""
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith(f"{file}: {field}: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])


class SweepTest(Base):
    def test_aggregate_mean_and_sd(self):
        df = pd.DataFrame({
            "policy": ["b", "b", "b", "a", "a", "a", "b"],
            "k": [100.0, 10.0, 10.0, 10.0, 10.0, 100.0, 10.0],
            "y": [4.0, 1.0, 2.0, 7.0, math.nan, 6.0, 3.0],
        })
        agg = plot_sweep.aggregate(df, "k", "y", ["policy"])
        self.assertEqual(agg["policy"].tolist(), ["b", "b", "a", "a"])  # first appearance; x ascending
        self.assertEqual(agg["k"].tolist(), [10.0, 100.0, 10.0, 100.0])
        self.assertEqual(agg["n"].tolist(), [3, 1, 1, 1])  # the NaN is left out
        self.assertEqual(agg["mean"].tolist(), [2.0, 4.0, 7.0, 6.0])
        self.assertAlmostEqual(agg["sd"].iloc[0], 1.0)  # sample sd of 1, 2, 3
        self.assertTrue(math.isnan(agg["sd"].iloc[1]))
        self.assertEqual((agg["min"].iloc[0], agg["max"].iloc[0]), (1.0, 3.0))
        df2 = pd.DataFrame({"policy": ["p"] * 2, "k": ["x", "x"], "y": [1.0, 4.0]})
        self.assertAlmostEqual(plot_sweep.aggregate(df2, "k", "y", ["policy"])["sd"].iloc[0], math.sqrt(4.5))

    def test_seeds_phrase(self):
        self.assertEqual(plot_sweep.seeds_phrase([3, 3], "seeds"), "(mean ± sd over 3 seeds)")
        self.assertEqual(plot_sweep.seeds_phrase([2, 3], "seeds"), "(mean ± sd over 2–3 seeds)")
        self.assertEqual(plot_sweep.seeds_phrase([1, 1], "seeds"), "")

    def test_three_seeds(self):
        csv_path = os.path.join(TMP, "sweep3.csv")
        prefix = os.path.join(TMP, "out", "s3")
        proc = tool("plot_sweep.py", csv_path, "--x", "ocs.reconfig_delay_us", "--y", "makespan_s", "--logx",
                    "--out", prefix)
        svg = self.assert_written(proc, prefix)
        self.assertIn("makespan vs OCS reconfiguration delay δ — clos-8pod, small-mix", svg)
        self.assertIn("OCS reconfiguration delay δ (µs)", svg)  # the x label: the key in words, with its unit
        self.assertIn("makespan (s)", svg)
        for policy in ("static", "tdm4"):
            for ports in (4, 8):
                self.assertIn(f"{policy}, ports per pod = {ports} (mean ± sd over 3 seeds)", svg)
        # Byte-identical output run to run.
        again = tool("plot_sweep.py", csv_path, "--x", "ocs.reconfig_delay_us", "--y", "makespan_s", "--logx",
                     "--out", prefix + "-again")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(read_bytes(prefix + ".svg"), read_bytes(prefix + "-again.svg"))
        self.assertEqual(read_bytes(prefix + ".png"), read_bytes(prefix + "-again.png"))

    def test_one_seed_two_metrics_default_prefix(self):
        # A sweep folder as odcnsim writes it: the default output goes into its plots/ subfolder, nothing beside
        # sweep.csv, so that odcnsim can still resume the sweep.
        folder, before = data_folder("delay", {"sweep.csv": os.path.join(TMP, "sweep1.csv"),
                                               "sweep.yaml": os.path.join(TMP, "sweep1.csv")})  # a second file
        csv_path = os.path.join(folder, "sweep.csv")
        proc = tool("plot_sweep.py", csv_path, "--x", "pods.ports_per_pod", "--y", "makespan_s", "--y",
                    "share_waiting")
        name = "sweep-makespan_s-share_waiting-vs-pods.ports_per_pod"
        svg = self.assert_written(proc, os.path.join(folder, "plots", name))
        self.assertEqual(proc.stdout.splitlines(), [os.path.join(folder, "plots", name + ext) for ext in (".png", ".svg")])
        self.assert_only_plots(folder, before, [name + ".png", name + ".svg"])
        # Again into the existing plots/ folder: replaced in place, still nothing else.
        again = tool("plot_sweep.py", csv_path, "--x", "pods.ports_per_pod", "--y", "makespan_s", "--y",
                     "share_waiting")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assert_only_plots(folder, before, [name + ".png", name + ".svg"])
        self.assertIn("makespan and waiting share vs ports per pod — clos-8pod, small-mix", svg)
        self.assertIn("tdm4, OCS reconfiguration delay δ = 1000 µs", svg)
        self.assertIn("waiting share", svg)
        self.assertNotIn("mean ± sd", svg)
        self.assertNotIn("seeds", svg)

    def test_errors(self):
        csv_path = os.path.join(TMP, "sweep3.csv")
        missing = os.path.join(TMP, "nope.csv")
        self.assert_input_error(tool("plot_sweep.py", missing, "--x", "a", "--y", "makespan_s"), missing, "(file)")
        self.assert_input_error(tool("plot_sweep.py", csv_path, "--x", "ocs.delay", "--y", "makespan_s"),
                                csv_path, "ocs.delay", "ocs.reconfig_delay_us, pods.ports_per_pod")
        self.assert_input_error(tool("plot_sweep.py", csv_path, "--x", "pods.ports_per_pod", "--y", "jct"),
                                csv_path, "jct", "makespan_s", "share_waiting")
        self.assert_input_error(tool("plot_sweep.py", csv_path, "--x", "pods.ports_per_pod", "--y", "slowdown_mean"),
                                csv_path, "slowdown_mean", "empty")
        bad = os.path.join(TMP, "bad-value.csv")
        header, rows = sweep_rows([1])
        rows[3][header.index("makespan_s")] = "fast"
        write_csv(bad, header, rows)
        self.assert_input_error(tool("plot_sweep.py", bad, "--x", "pods.ports_per_pod", "--y", "makespan_s"),
                                bad, "makespan_s", "line 5", "'fast'")
        self.assertFalse(any(n.startswith("sweep3-") for n in os.listdir(TMP)))
        self.assertFalse(os.path.exists(os.path.join(TMP, "plots")))  # bad input: no plots/ folder either

    def test_text_key_and_out_folder(self):
        header, rows = sweep_rows([5])
        i = header.index("pods.ports_per_pod")
        for r in rows:
            r[i] = {4: "four", 8: "eight"}[r[i]]
        text = write_csv(os.path.join(TMP, "sweep-text.csv"), header, rows)
        folder = os.path.join(TMP, "figs")
        os.makedirs(folder)
        proc = tool("plot_sweep.py", text, "--x", "pods.ports_per_pod", "--y", "makespan_s", "--out", folder)
        svg = self.assert_written(proc, os.path.join(folder, "sweep-text-makespan_s-vs-pods.ports_per_pod"))
        self.assertIn("four", svg)  # categories, in order of appearance
        self.assertIn("static, OCS reconfiguration delay δ = 10 µs", svg)
        self.assert_input_error(tool("plot_sweep.py", text, "--x", "pods.ports_per_pod", "--y", "makespan_s",
                                     "--logx"), text, "pods.ports_per_pod", "--logx")

    def test_never_replaces_an_input(self):
        src = os.path.join(TMP, "sweep3.csv")
        disguised = os.path.join(TMP, "input.svg")
        shutil.copy(src, disguised)
        proc = tool("plot_sweep.py", disguised, "--x", "pods.ports_per_pod", "--y", "makespan_s", "--out",
                    os.path.join(TMP, "input"))
        self.assert_input_error(proc, disguised, "--out", "input")
        self.assertEqual(read_bytes(disguised), read_bytes(src))


class CompareTest(Base):
    def test_default_panels(self):
        folder, before = data_folder("cmp", {"compare.csv": os.path.join(TMP, "compare.csv")})
        csv_path = os.path.join(folder, "compare.csv")
        proc = tool("plot_compare.py", csv_path)
        svg = self.assert_written(proc, os.path.join(folder, "plots", "compare-bars"))
        self.assert_only_plots(folder, before, ["compare-bars.png", "compare-bars.svg"])
        self.assertIn("policies compared with the baseline static", svg)
        for text in ("makespan (s)", "mean job completion (s)", "mean iteration (s)", "mean slowdown",
                     "reconfigurations", "shares of job time", "reconfiguration stall", "waiting", "(baseline)",
                     "×1.00", "×0.80", "×1.23", "×1.20"):
            self.assertIn(text, svg)
        again = tool("plot_compare.py", csv_path, "--out", os.path.join(TMP, "compare-again"))
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(read_bytes(os.path.join(folder, "plots", "compare-bars.svg")),
                         read_bytes(os.path.join(TMP, "compare-again.svg")))
        self.assert_only_plots(folder, before, ["compare-bars.png", "compare-bars.svg"])  # --out: not in plots/

    def test_ratios_computed_and_empty_metric_skipped(self):
        csv_path = os.path.join(TMP, "compare-noratio.csv")
        prefix = os.path.join(TMP, "cmp2")
        svg = self.assert_written(tool("plot_compare.py", csv_path, "--out", prefix), prefix)
        self.assertIn("×1.23", svg)  # 123 / 100, computed from the baseline's row
        self.assertNotIn("mean slowdown", svg)  # empty on every row: skipped by default
        self.assertAlmostEqual(plot_compare.ratios(pd.DataFrame({"policy": ["a", "b"]}), "m", [2.0, 3.0], "a", "x")[1],
                               1.5)
        self.assert_input_error(tool("plot_compare.py", csv_path, "--metrics", "makespan_s,slowdown_mean"),
                                csv_path, "slowdown_mean", "empty")

    def test_chosen_metrics_and_errors(self):
        csv_path = os.path.join(TMP, "compare.csv")
        prefix = os.path.join(TMP, "cmp3")
        svg = self.assert_written(tool("plot_compare.py", csv_path, "--metrics", "circuits_changed,shares",
                                       "--out", prefix), prefix)
        self.assertIn("circuits changed", svg)
        self.assertNotIn("makespan", svg)
        self.assert_input_error(tool("plot_compare.py", csv_path, "--metrics", "speed"), csv_path, "speed",
                                "makespan_s", "shares")
        bad = os.path.join(TMP, "compare-bad.csv")
        with open(csv_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines[2] = lines[2].replace(",static,", ",tdm4,", 1)
        with open(bad, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        self.assert_input_error(tool("plot_compare.py", bad), bad, "baseline", "line 3")


class RunTest(Base):
    def test_waiting_intervals(self):
        self.assertEqual(plot_run.waiting_intervals(0, 10, [(1, 2), (1.5, 3), (5, 6), (9, 12)]),
                         [(0, 1), (3, 5), (6, 9)])
        self.assertEqual(plot_run.waiting_intervals(2, 4, []), [(2, 4)])
        self.assertEqual(plot_run.waiting_intervals(2, 4, [(0, 5)]), [])

    def test_gantt_from_trace_by_hand(self):
        path = os.path.join(TMP, "tdm4", "trace.json")
        with open(path, encoding="utf-8") as f:
            slices = plot_run.trace_slices(path, json.load(f))
        self.assertEqual(sorted(slices), [0, 1, 2])  # job 2 from args.job, though its tid is 0
        job0 = plot_run.job_segments(0.0, 10.0, slices[0])
        self.assertEqual(job0["compute"], [(0.0, 2.0), (6.0, 8.0)])
        self.assertEqual(job0["stall"], [(3.0, 3.5)])
        self.assertEqual(job0["communication"], [(3.5, 6.0)])
        self.assertEqual(job0["waiting"], [(2.0, 3.0), (8.0, 10.0)])
        job2 = plot_run.job_segments(2.0, 8.0, slices[2])
        self.assertEqual(job2["waiting"], [(4.0, 5.0), (7.0, 8.0)])
        self.assertEqual(job2["stall"], [(5.0, 5.25)])
        # Without args (traces written before the C++ side adds them): job = tid, no stall.
        old = {"traceEvents": [{"cat": "comm", "ph": "X", "pid": 1, "tid": 3, "ts": 1e6, "dur": 1e6},
                               {"cat": "compute", "ph": "X", "pid": 1, "tid": 3, "ts": 0, "dur": 1e6},
                               {"ph": "M", "name": "thread_name", "pid": 1, "tid": 3}]}
        s = plot_run.trace_slices("t.json", old)
        self.assertEqual(s, {3: {"compute": [(0.0, 1.0)], "communication": [(1.0, 2.0)], "stall": []}})

    def test_gantt_from_iterations_by_hand(self):
        path = write_csv(os.path.join(TMP, "iters.csv"), ITER_HEADER, [
            [0, "j", 0, 0, 0, 10, 10, 3, 5, 1, 2, 0, 0],  # parts 3, 4, 1, 2: fill 0..10 exactly
            [0, "j", 1, 0, 12, 21, 9, 3, 3, 0, 0, 0, 0],  # parts 3, 3, 0, 0 scaled to 9 s: 4.5 each
        ])
        s = plot_run.iteration_slices(path)[0]
        seg = plot_run.job_segments(0.0, 22.0, s)
        self.assertEqual(seg["compute"], [(0.0, 3.0), (12.0, 16.5)])
        self.assertEqual(seg["communication"], [(3.0, 7.0), (16.5, 21.0)])
        self.assertEqual(seg["stall"], [(7.0, 8.0)])
        self.assertEqual(seg["waiting"], [(8.0, 12.0), (21.0, 22.0)])

    def test_gantt_from_schema2_iterations_by_hand(self):
        path = write_csv(os.path.join(TMP, "iters2.csv"), ITER_HEADER_V2, [
            [0, "j", 0, 0, 0, 10, 10, 3, 4, 1, 2, 0, 0, 0],  # parts 3, 4, 1, 2: fill 0..10 exactly
            [0, "j", 1, 0, 12, 21, 9, 3, 3, 0, 0, 5, 0, 0],  # parts 3, 3, 0, 0 scaled to 9 s; hidden is not drawn
        ])
        s = plot_run.iteration_slices(path)[0]
        seg = plot_run.job_segments(0.0, 22.0, s)
        self.assertEqual(seg["compute"], [(0.0, 3.0), (12.0, 16.5)])
        self.assertEqual(seg["communication"], [(3.0, 7.0), (16.5, 21.0)])
        self.assertEqual(seg["stall"], [(7.0, 8.0)])
        self.assertEqual(seg["waiting"], [(8.0, 12.0), (21.0, 22.0)])

    def test_tdm_run_with_trace(self):
        d = os.path.join(TMP, "tdm4")
        before = sorted(os.listdir(d))
        proc = tool("plot_run.py", d)
        plots = os.path.join(d, "plots")
        timeline = self.assert_written(proc, os.path.join(plots, "tdm4-timeline"))
        stages = self.assert_written(proc, os.path.join(plots, "tdm4-stages"))
        self.assertIn("per-job timeline — tdm4, clos-8pod, small-mix", timeline)
        self.assertNotIn("iteration shares", timeline)
        self.assertNotIn("first", timeline)
        for text in ("compute", "communication", "reconfiguration stall", "waiting", "2 a2a,8B"):
            self.assertIn(text, timeline)
        self.assertIn("round 1 stages — tdm4, clos-8pod, small-mix", stages)
        for text in ("stage 1 (A)", "stage 2 (B)", "stage 3 (A)", "stage 4 (B)", "reconfiguration δ",
                     "communication", "compute / idle", "δ = 250 ms", "bound: compute"):
            self.assertIn(text, stages)
        self.assertEqual(before, ["iterations.csv", "jobs.csv", "run.json", "stages.csv", "summary.json",
                                  "trace.json"])
        # Only DIR/plots/ added to DIR, nothing written beside DIR.
        self.assert_only_plots(d, before, ["tdm4-timeline.png", "tdm4-timeline.svg", "tdm4-stages.png",
                                           "tdm4-stages.svg"])
        self.assertFalse(os.path.exists(d + "-timeline.png"))
        again = tool("plot_run.py", d, "--out", os.path.join(TMP, "tdm4-again"))
        self.assertEqual(again.returncode, 0, again.stderr)
        for part in ("-timeline.svg", "-stages.svg"):
            self.assertEqual(read_bytes(os.path.join(plots, "tdm4" + part)),
                             read_bytes(os.path.join(TMP, "tdm4-again" + part)))

    def test_static_run_without_trace(self):
        d = os.path.join(TMP, "static")
        prefix = os.path.join(TMP, "out", "static")
        proc = tool("plot_run.py", d, "--out", prefix, "--max-jobs", "2")
        timeline = self.assert_written(proc, prefix + "-timeline")
        jobs = self.assert_written(proc, prefix + "-jobs")
        self.assertIn("per-job timeline — static, clos-8pod, small-mix", timeline)
        self.assertIn("(first 2 of 3 jobs by id; iteration shares, not order)", timeline)
        self.assertIn("time per job — static, clos-8pod, small-mix", jobs)
        self.assertIn("(first 2 of 3 jobs by id)", jobs)
        self.assertNotIn("a2a", jobs)

    def test_errors(self):
        missing = os.path.join(TMP, "no-such-run")
        self.assert_input_error(tool("plot_run.py", missing), missing, "(folder)", "does not exist")
        d = os.path.join(TMP, "broken")
        shutil.copytree(os.path.join(TMP, "tdm4"), d)
        with open(os.path.join(d, "trace.json"), "w", encoding="utf-8") as f:
            f.write('{"traceEvents": [')
        self.assert_input_error(tool("plot_run.py", d), os.path.join(d, "trace.json"), "(json)")
        os.remove(os.path.join(d, "jobs.csv"))
        self.assert_input_error(tool("plot_run.py", d), os.path.join(d, "jobs.csv"), "(file)", "does not exist")
        self.assertFalse(os.path.exists(d + "-timeline.png"))
        self.assertFalse(os.path.exists(os.path.join(d, "plots")))


class ImprovementTest(Base):
    """plot_improvement.py on a sweep whose improvements are known by hand."""

    def sweep(self):
        # aggregate: mean_iteration_s = 10·g, throughput 100, ratio g·seed; tdm4: 8·g + seed − 1.5, throughput
        # 125; static: 5·g. So at g = 1 tdm4 (7.5 and 8.5 against 10) improves by 25 % and 15 %: mean 20, sd √50.
        header = ["point", "platform", "workload", "policy", "seed", "training.gpu_tflops", "jobs", "iterations",
                  "mean_iteration_s", "throughput_iterations_per_hour", "training_to_comm_ratio"]
        rows = []
        for g in (1, 2):
            for seed in (1, 2):
                for policy, value, thr in (("aggregate", 10 * g, 100), ("tdm4", 8 * g + seed - 1.5, 125),
                                           ("static", 5 * g, 150)):
                    ratio = g * seed if policy == "aggregate" else ""
                    rows.append([f"{policy}-{g}-{seed}", "p.yaml", "w.yaml", policy, seed, g, 10, 2, value, thr, ratio])
        return write_csv(os.path.join(TMP, "improve.csv"), header, rows)

    def test_improvement_by_hand(self):
        path = self.sweep()
        prefix = os.path.join(TMP, "improve")
        proc = tool("plot_improvement.py", path, "--x", "training.gpu_tflops", "--out", prefix)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines(), [prefix + ".md", prefix + ".png", prefix + ".svg"])
        with open(prefix + ".md", encoding="utf-8") as f:
            table = f.read()
        self.assertIn(f"| 1 | 20.00 % ± {math.sqrt(50):.2f} (8) | 50.00 % ± 0.00 (5) |", table)
        # g = 2: tdm4 16 − 0.5 and 16 + 0.5 against 20: 22.5 % and 17.5 %.
        self.assertIn(f"| 2 | 20.00 % ± {math.sqrt(12.5):.2f} (16) |", table)
        svg = svg_text(prefix + ".svg")
        self.assertIn("improvement over aggregate (%)", svg)
        self.assertNotIn(">aggregate<", svg)  # no line for the baseline itself

    def test_default_out_is_plots_in_the_sweep_folder(self):
        folder, before = data_folder("regime", {"sweep.csv": self.sweep()})
        proc = tool("plot_improvement.py", os.path.join(folder, "sweep.csv"), "--x", "training.gpu_tflops")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        name = "sweep-improvement-mean_iteration_s-vs-training.gpu_tflops"
        written = [name + ext for ext in (".md", ".png", ".svg")]
        self.assertEqual(proc.stdout.splitlines(), [os.path.join(folder, "plots", n) for n in written])
        self.assert_only_plots(folder, before, written)

    def test_throughput_and_metric_on_x(self):
        path = self.sweep()
        prefix = os.path.join(TMP, "improve-thr")
        proc = tool("plot_improvement.py", path, "--x-metric", "training_to_comm_ratio", "--metric",
                    "throughput_iterations_per_hour", "--logx", "--out", prefix)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(prefix + ".md", encoding="utf-8") as f:
            table = f.read()
        # Higher is better: 125 / 100 − 1 = 25 %; x = the baseline's ratio averaged over seeds: 1.5 and 3.
        self.assertIn("| 1.5 | 25.00 % ± 0.00 (125) | 50.00 % ± 0.00 (150) |", table)
        self.assertIn("| 3 | 25.00 % ± 0.00 (125) |", table)

    def test_errors(self):
        path = self.sweep()
        self.assert_input_error(tool("plot_improvement.py", path, "--x", "speed"), path, "speed", "not a swept key")
        self.assert_input_error(tool("plot_improvement.py", path, "--x", "training.gpu_tflops", "--baseline", "x"),
                                path, "policy", "no row of the baseline")
        bad = tool("plot_improvement.py", path)
        self.assertEqual(bad.returncode, 2)


class OpusCostTest(unittest.TestCase):
    """analysis/opus_cost.py (Opus Fig. 7) against device counts made by hand."""

    def test_device_counts(self):
        import opus_cost
        # 64 GPUs on a 64-port switch: one switch, a transceiver at each end of 64 links.
        self.assertEqual(opus_cost.electrical_rail(64, 64), {"switches": 1, "transceivers": 128, "tiers": 1})
        # 128 GPUs: two tiers (128 <= 2 * 32^2): 4 leaves of 32 down + 32 up, 2 spines; 128 GPU links and 128
        # leaf-spine links, two transceivers each.
        self.assertEqual(opus_cost.electrical_rail(128, 64), {"switches": 6, "transceivers": 512, "tiers": 2})
        # 4,096 GPUs: three tiers (4,096 > 2,048); 5 * 4096 / 64 = 320 switches; 3 links per GPU.
        self.assertEqual(opus_cost.electrical_rail(4096, 64), {"switches": 320, "transceivers": 6 * 4096, "tiers": 3})
        # A rail of 128 GPUs with 2 ports each on a 384-port OCS: one OCS, transceivers only at the NICs.
        self.assertEqual(opus_cost.photonic_rail(128, 2, 384), {"ocs": 1, "transceivers": 128})
        self.assertEqual(opus_cost.photonic_rail(256, 2, 384), {"ocs": 2, "transceivers": 256})

    def test_ratios_and_unknown_prices(self):
        out = tool("opus_cost.py", "--set", "gpus=[1024]").stdout
        # 1,024 GPUs = 8 rails of 128: electrical 8 x (6 x 341 W + 512 x 12 W); photonic 8 x (100 W + 128 x 12 W).
        ratio = (100 + 128 * 12) / (6 * 341 + 512 * 12)
        self.assertIn(f"{ratio:.4f}", out)
        # Without the NIC-side transceivers (the GPU end of every GPU link, in both networks): 8 x 100 W against
        # 8 x (6 x 341 W + 384 x 12 W).
        network = 100 / (6 * 341 + 384 * 12)
        self.assertIn(f"| 1024 | left out | 48, 3072 (2) | 8, 0 | {network:.4f} ({100 * (network - 1):+.2f} %) |", out)
        # An unknown cost is the formula of its device counts.
        self.assertIn("unknown: (8 ocs + 1024 t) / (48 sw + 4096 t)", out)
        self.assertIn("unknown: (8 ocs) / (48 sw + 3072 t)", out)
        priced = tool("opus_cost.py", "--set", "gpus=[1024]", "--set", "cost.transceiver_usd=1", "--set",
                     "cost.switch_usd=10", "--set", "cost.ocs_usd=100").stdout
        self.assertIn(f"{(100 + 128) / (60 + 512):.4f}", priced)
        self.assertIn(f"{100 / (60 + 384):.4f}", priced)
        # The one relation the paper's -70.5 % fixes among unknown prices at 1,024 GPUs, by hand:
        # (8 ocs + 1024 t) / (48 sw + 4096 t) = 0.295  <=>  ocs = (0.295 * 48 sw + (0.295 * 4096 - 1024) t) / 8.
        self.assertIn(f"ocs = {0.295 * 48 / 8:.3f} sw + {(0.295 * 4096 - 1024) / 8:.2f} t", out)
        # Prices on that relation give the paper's ratio back (sw = 30 t).
        ocs = 0.295 * 48 / 8 * 30 + (0.295 * 4096 - 1024) / 8
        implied = tool("opus_cost.py", "--set", "gpus=[1024]", "--set", "cost.transceiver_usd=1", "--set",
                       "cost.switch_usd=30", "--set", f"cost.ocs_usd={ocs}").stdout
        self.assertIn("0.2950 (-70.50 %)", implied)
        bad = tool("opus_cost.py", "--set", "cost.nope=1")
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)


class OpusPlotTest(Base):
    """analysis/plot_opus.py on small CSVs: where it writes by default and with --out."""

    def folder(self, name):
        folder = os.path.join(TMP, name)
        os.makedirs(folder)
        write_csv(os.path.join(folder, "fig8.csv"), ["delay_ms", "electrical_s", "on_demand_s", "provisioned_s"],
                  [[ms, 1.0, 1.0 + ms / 1000, 1.0 + ms / 2000] for ms in (0, 50, 100)])
        write_csv(os.path.join(folder, "windows.csv"), ["window_s", "next_task_name", "to_group"],
                  [[0.0005, "ag", "dp"], [0.002, "rs", "dp"], [0.9, "rs", "pp"]])
        write_csv(os.path.join(folder, "technologies.csv"),
                  ["technology", "reconfig_delay_s", "electrical_s", "on_demand_s", "provisioned_s"],
                  [["plzt", 1e-8, 1.0, 1.0, 1.0], ["robotic", 60, 1.0, 3.0, 2.0]])
        return folder, sorted(os.listdir(folder))

    FILES = ["fig8.png", "fig8.svg", "windows_cdf.png", "windows_cdf.svg", "technologies.png", "technologies.svg",
             "opus.md"]

    def test_default_out_is_plots(self):
        folder, before = self.folder("opus")
        proc = tool("plot_opus.py", folder)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        self.assert_only_plots(folder, before, self.FILES)
        for f in self.FILES:
            self.assertIn(os.path.join(folder, "plots", f), proc.stdout.splitlines())
        with open(os.path.join(folder, "plots", "opus.md"), encoding="utf-8") as f:
            self.assertIn("| overhead at 100 ms, on-demand | 10.00 % | +6.5 % |", f.read())

    def test_only_steady_windows_count(self):
        """odcnsim's windows.csv marks iteration 0 and settling iterations steady = 0: they are left out."""
        folder, _ = self.folder("opus-steady")
        write_csv(os.path.join(folder, "windows.csv"), ["window_s", "next_task_name", "to_group", "steady"],
                  [[5.0, "ag0", "dp", 0], [0.0, "pp", "pp", 1], [0.002, "rs", "dp", 1], [0.0, "ag", "dp", 1],
                   [0.5, "rs1", "dp", 1]])
        proc = tool("plot_opus.py", folder)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(folder, "plots", "opus.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("| windows over 1 ms | 50.0 % | > 75 % |", text)  # 2 of the 4 steady windows
        self.assertIn("| largest window | 500 ms, before rs1 (dp) |", text)  # not iteration 0's 5 s
        self.assertFalse(os.path.exists(os.path.join(folder, "plots", "windows_rail0.png")))  # no rail column

    def test_rail0_windows_against_traffic(self):
        """Fig. 4(b): drawn from odcnsim's windows.csv (rail, next_bytes, iteration, steady)."""
        folder, _ = self.folder("opus-rail0")
        write_csv(os.path.join(folder, "windows.csv"),
                  ["job", "iteration", "gpu", "rail", "window_s", "next_task_name", "to_group", "next_bytes", "steady"],
                  [[0, 0, 0, 0, 5.0, "ag", "dp", 1e9, 0], [0, 1, 0, 0, 0.002, "pp", "pp", 3.3e7, 1],
                   [0, 1, 8, 0, 0.4, "rs", "dp", 4e9, 1], [0, 1, 1, 1, 0.3, "rs", "dp", 4e9, 1]])
        proc = tool("plot_opus.py", folder)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(os.path.join(folder, "plots", "windows_rail0.png"), proc.stdout.splitlines())

    def test_out_keeps_the_old_place(self):
        folder, before = self.folder("opus-out")
        proc = tool("plot_opus.py", folder, "--out", folder)  # as scripts/opus-figures.sh calls it
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(folder)), sorted(before + self.FILES))
        missing = os.path.join(TMP, "no-opus")
        self.assert_input_error(tool("plot_opus.py", missing), os.path.join(missing, "fig8.csv"), "(file)")
        self.assertFalse(os.path.exists(missing))


class AtomicWriteTest(unittest.TestCase):
    """An interrupted write leaves neither a partial file nor a temporary file; an earlier file stays whole."""

    def test_interrupted_write_leaves_nothing(self):
        folder = os.path.join(TMP, "atomic")
        os.makedirs(folder)
        target = os.path.join(folder, "fig.png")

        def interrupted(f):
            f.write(b"half an image")
            raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt):
            odcnplot._write_atomic(target, interrupted, folder)
        self.assertEqual(os.listdir(folder), [])
        odcnplot.write_text(target, "whole\n", [])
        with self.assertRaises(KeyboardInterrupt):
            odcnplot._write_atomic(target, interrupted, folder)
        self.assertEqual(os.listdir(folder), ["fig.png"])
        self.assertEqual(read_bytes(target), b"whole\n")

    def test_default_prefix(self):
        self.assertEqual(odcnplot.output_prefix(None, "sweep-x", os.path.join("out", "delay")),
                         os.path.join("out", "delay", "plots", "sweep-x"))
        self.assertEqual(odcnplot.output_prefix("figs/a", "sweep-x", "out/delay"), "figs/a")
        self.assertEqual(odcnplot.output_prefix("figs/", "sweep-x", "out/delay"), os.path.join("figs", "sweep-x"))


class HelpTest(unittest.TestCase):
    def test_help_shows_the_docstring(self):
        for name in ("plot_sweep.py", "plot_compare.py", "plot_run.py", "plot_improvement.py", "plot_circuits.py",
                     "plot_ranks.py", "plot_cdf.py", "plot_seeds.py"):
            proc = tool(name, "--help")
            self.assertEqual(proc.returncode, 0)
            self.assertIn("usage:", proc.stdout)
            self.assertIn("Example:", proc.stdout)
            self.assertIn("/plots/", proc.stdout)  # the default output folder is documented
            self.assertNotIn("next to the CSV", proc.stdout)
            bad = tool(name)
            self.assertEqual(bad.returncode, 2)
            self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)


if __name__ == "__main__":
    unittest.main()
