#!/usr/bin/python3
"""Every figure type of analysis/ rendered from synthetic data, checked to stay on its canvas, with numbers
computed by hand.

    /usr/bin/python3 tests/analysis/test_figures.py        (from anywhere; finds analysis/ from its own path)

Each tool's main() runs in this process with odcnplot.save_figure replaced by a recorder: every figure a tool
would save is laid out (drawn) and every text artist (titles, axis labels, drawn tick labels, legends,
annotations, the suptitle) and every axes' tight box must lie within the canvas. Then the numbers: the ratio
of means of plot_improvement, the share in the "0 (overlapping)" bin of the window CDF, the seed error bars
of plot_seeds (sample sd and t 95 % CI), the circuits lit over time, the per-rank slices and the policies'
CDFs, each against values worked out in the comments.
"""
import contextlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # leave no __pycache__ in analysis/
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "analysis"))
sys.path.insert(0, HERE)

import matplotlib.container  # noqa: E402
import matplotlib.text  # noqa: E402

import odcnlabels  # noqa: E402
import odcnplot  # noqa: E402
import test_plot_inc  # noqa: E402  (the INC fig2.csv builder)
import test_plots  # noqa: E402  (the sweep, compare and run builders)
from test_plots import write_csv, write_json  # noqa: E402

TMP = None
SAVED = []  # (prefix, figure, problems) of every figure a tool saved
ORIGINAL_SAVE = odcnplot.save_figure
TOLERANCE = 1.0  # pixels


def off_canvas(fig):
    """The artists of a laid-out figure that reach outside its canvas: [(what, text, bbox)]."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    found = []

    def check(what, artist, bbox=None):
        if artist is None or not artist.get_visible():
            return
        if isinstance(artist, matplotlib.text.Text) and not artist.get_text().strip():
            return
        box = bbox if bbox is not None else artist.get_window_extent(r)
        if box.x0 < -TOLERANCE or box.y0 < -TOLERANCE or box.x1 > w + TOLERANCE or box.y1 > h + TOLERANCE:
            found.append((what, getattr(artist, "get_text", lambda: "")(), box))

    for ax in fig.axes:
        if not ax.get_visible():
            continue
        check("axes (tight box)", ax, ax.get_tightbbox(r))
        for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts):
            check("axes text", t)
        check("legend", ax.get_legend())
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for label, loc in zip(axis.get_majorticklabels(), axis.get_majorticklocs()):
                if lo <= loc <= hi:
                    check("tick label", label)
    for t in dict.fromkeys([fig._suptitle, *fig.texts]):  # (the suptitle is one of fig.texts too)
        check("figure text", t)
    for leg in fig.legends:
        check("figure legend", leg)
    return found


def recording_save(fig, prefix, inputs):
    SAVED.append((prefix, fig, off_canvas(fig)))
    odcnplot.plt.close(fig)
    return [prefix + ".png", prefix + ".svg"]


def run_tool(name, *args):
    """Runs analysis/NAME.py's main(args) here; returns (figures saved, stdout)."""
    module = __import__(name)
    start = len(SAVED)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main([str(a) for a in args])
    return SAVED[start:], out.getvalue()


def bar_container(ax):
    return next(c for c in ax.containers if isinstance(c, matplotlib.container.BarContainer))


def texts_of(fig):
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text)]


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="odcnsim-figures-")
    odcnplot.save_figure = recording_save


def tearDownModule():
    odcnplot.save_figure = ORIGINAL_SAVE
    shutil.rmtree(TMP, ignore_errors=True)


def improvement_sweep(name, gs):
    """aggregate (the baseline) and tdm4 over key g and seeds 1, 2. g = 1: aggregate 10 and 30, tdm4 5 and 33:
    per seed 1 − 5/10 = 50 % and 1 − 33/30 = −10 %, mean of ratios 20 % ± √((30² + 30²)/1) = 42.43; ratio of
    means 1 − 19/20 = 5 %. g = 2: aggregate 20 and 20, tdm4 10 and 30: mean of ratios (50 − 50)/2 = 0 ± 70.71,
    ratio of means 1 − 20/20 = 0 %."""
    values = {(1, "aggregate"): (10, 30), (1, "tdm4"): (5, 33), (2, "aggregate"): (20, 20), (2, "tdm4"): (10, 30)}
    header = ["point", "platform", "workload", "policy", "seed", "g", "jobs", "iterations", "mean_iteration_s"]
    rows = [[f"{p}-{g}-{s}", "p.yaml", "w.yaml", p, s, g, 2, 3, values[(g, p)][s - 1]]
            for g in gs for p in ("aggregate", "tdm4") for s in (1, 2)]
    return write_csv(os.path.join(TMP, name), header, rows)


def compare_folder(name, makespans, jobs):
    """A compare folder: compare.csv with `makespans` {policy: value} (baseline static) and runs/POLICY/jobs.csv
    with `jobs` {policy: [(completion_s, slowdown)]}."""
    folder = os.path.join(TMP, name)
    os.makedirs(folder)
    write_csv(os.path.join(folder, "compare.csv"), ["policy", "baseline", "platform", "workload", "makespan_s",
                                                    "reconfigurations"],
              [[p, "static", "platforms/clos-8pod.yaml", "workloads/small-mix.yaml", m, 2] for p, m in makespans.items()])
    for policy, rows in jobs.items():
        os.makedirs(os.path.join(folder, "runs", policy))
        write_csv(os.path.join(folder, "runs", policy, "jobs.csv"), ["job", "completion_s", "slowdown"],
                  [[i, c, s] for i, (c, s) in enumerate(rows)])
    return folder


class Canvas(unittest.TestCase):
    def assert_on_canvas(self, saved, count):
        self.assertEqual(len(saved), count, [p for p, _, _ in saved])
        for prefix, _, problems in saved:
            self.assertEqual(problems, [], f"{os.path.basename(prefix)}: off the canvas")


class CheckerTest(Canvas):
    def test_the_checker_finds_a_clipped_text(self):
        odcnplot.setup_style()
        fig, ax = odcnplot.plt.subplots(figsize=(3, 2))
        ax.text(1.3, 0.5, "off the right edge", transform=ax.transAxes)
        problems = off_canvas(fig)
        self.assertEqual([p[:2] for p in problems], [("axes (tight box)", ""), ("axes text", "off the right edge")])
        fig, ax = odcnplot.plt.subplots(figsize=(3, 2))
        ax.set_ylabel("a long label\nin two lines (s)")
        fig.suptitle("a title")
        self.assertEqual(off_canvas(fig), [])


class ExistingFigures(Canvas):
    def test_sweep_ticks_at_the_swept_values(self):
        path = write_csv(os.path.join(TMP, "sweep3.csv"), *test_plots.sweep_rows([1, 2, 3]))
        saved, _ = run_tool("plot_sweep", path, "--x", "ocs.reconfig_delay_us", "--y", "makespan_s",
                            "--y", "share_waiting", "--logx", "--out", os.path.join(TMP, "s"))
        self.assert_on_canvas(saved, 1)
        ax = saved[0][1].axes[-1]
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["10", "100", "1000"])
        self.assertEqual(ax.get_xlabel(), "OCS reconfiguration delay δ (µs)")

    def test_improvement_ratio_of_means_by_hand(self):
        saved, out = run_tool("plot_improvement", improvement_sweep("imp.csv", (1, 2)), "--x", "g", "--out",
                              os.path.join(TMP, "imp"))
        self.assert_on_canvas(saved, 1)
        with open(os.path.join(TMP, "imp.md"), encoding="utf-8") as f:
            table = f.read()
        self.assertIn("| 1 | 20.00 % ± 42.43 (19) | 5.00 % |", table)
        self.assertIn("| 2 | 0.00 % ± 70.71 (20) | 0.00 % |", table)
        dashed = [ln for ln in saved[0][1].axes[0].lines if ln.get_label() == "tdm4: ratio of means"]
        self.assertEqual([round(y, 9) for y in dashed[0].get_ydata()], [5.0, 0.0])

    def test_improvement_at_one_point_is_bars(self):
        saved, _ = run_tool("plot_improvement", improvement_sweep("imp1.csv", (1,)), "--x", "g", "--out",
                            os.path.join(TMP, "imp1"))
        self.assert_on_canvas(saved, 1)
        heights = [round(p.get_height(), 9) for p in saved[0][1].axes[0].patches]
        self.assertEqual(heights, [20.0, 5.0])  # mean of ratios, ratio of means (see improvement_sweep)

    def test_compare(self):
        path = test_plots.compare_csv(os.path.join(TMP, "compare.csv"))
        saved, _ = run_tool("plot_compare", path, "--out", os.path.join(TMP, "cmp"))
        self.assert_on_canvas(saved, 1)

    def test_runs(self):
        tdm = test_plots.run_folder(os.path.join(TMP, "tdm4"), "tdm4", stages=True, trace=True)
        static = test_plots.run_folder(os.path.join(TMP, "static"), "static", stages=False, trace=False)
        saved, _ = run_tool("plot_run", tdm, "--out", os.path.join(TMP, "tdm4-fig"))
        self.assert_on_canvas(saved, 2)  # timeline, stages
        saved, _ = run_tool("plot_run", static, "--out", os.path.join(TMP, "static-fig"), "--max-jobs", "2")
        self.assert_on_canvas(saved, 2)  # timeline, jobs

    def test_inc(self):
        path = write_csv(os.path.join(TMP, "fig2.csv"), *test_plot_inc.fig2_rows())
        saved, _ = run_tool("plot_inc", path, "--out", os.path.join(TMP, "inc"))
        self.assertGreaterEqual(len(saved), 2)
        self.assert_on_canvas(saved, len(saved))

    def test_opus_zero_bin_and_bar_values(self):
        folder = os.path.join(TMP, "opus")
        os.makedirs(folder)
        write_csv(os.path.join(folder, "fig8.csv"), ["delay_ms", "electrical_s", "on_demand_s", "provisioned_s"],
                  [[ms, 1.0, 1.0 + ms / 1000, 1.0 + ms / 2000] for ms in (0, 10, 100)])
        # 8 steady windows of rail 0, 3 of them 0 (overlapping phases): 3/8 = 37.5 % in the zero bin.
        windows = [0, 0, 0, 0.0005, 0.002, 0.01, 0.3, 0.9]
        write_csv(os.path.join(folder, "windows.csv"), ["window_s", "next_task_name", "to_group", "rail", "gpu",
                                                        "next_bytes", "iteration", "steady"],
                  [[w, "rs", "dp", 0, i % 2, 2 ** 20 * (i + 1), 1, 1] for i, w in enumerate(windows)])
        # robotic: 3.0 / 1.0 − 1 = 200 % on demand, 100 % provisioned; plzt: 0 % (no bar on a log axis).
        write_csv(os.path.join(folder, "technologies.csv"),
                  ["technology", "reconfig_delay_s", "electrical_s", "on_demand_s", "provisioned_s"],
                  [["plzt", 1e-8, 1.0, 1.0, 1.0], ["3d_mems", 0.015, 1.0, 1.01, 1.005], ["robotic", 60, 1.0, 3.0, 2.0]])
        saved, _ = run_tool("plot_opus", folder, "--out", os.path.join(TMP, "opus-out"))
        self.assert_on_canvas(saved, 4)  # fig8, windows_cdf, windows_rail0, technologies
        cdf = next(fig for prefix, fig, _ in saved if prefix.endswith("windows_cdf"))
        ax = cdf.axes[0]
        self.assertIn("0\n(overlapping)", [t.get_text() for t in ax.get_xticklabels()])
        self.assertIn("38 % are 0", texts_of(cdf))
        line = ax.lines[0]
        zero_at = ax.get_xticks()[0]
        self.assertAlmostEqual(max(y for x, y in zip(line.get_xdata(), line.get_ydata()) if x <= zero_at), 3 / 8)
        tech = next(fig for prefix, fig, _ in saved if prefix.endswith("technologies"))
        for text in ("200 %", "100 %", "0 %", "1 %", "0.5 %"):
            self.assertIn(text, texts_of(tech))


class NewFigures(Canvas):
    def test_circuits_lit_by_hand(self):
        import plot_circuits
        folder = os.path.join(TMP, "circ")
        os.makedirs(folder)
        # δ = 1 s. Initial: 2 + 1 circuits lit at 0. At 5: pair 0-1 2 → 0 (dark at 5), 2-3 0 → 3 (lit at 6).
        # At 8 on switch 1: 4-5 0 → 2 (lit at 9). Lit: 3 from 0, 1 from 5, 4 from 6, 6 from 9.
        # Reconfigurations: 5 and 8, i.e. 2; circuits changed 2 + 3 + 2 = 7.
        write_csv(os.path.join(folder, "circuits.csv"), plot_circuits.COLUMNS,
                  [[0, 0, 0, 1, 0, 2, "initial"], [0, 0, 1, 2, 0, 1, "initial"], [5, 0, 0, 1, 2, 0, "stage 1"],
                   [5, 0, 2, 3, 0, 3, "stage 1"], [8, 1, 4, 5, 0, 2, "stage 2"]])
        write_json(os.path.join(folder, "run.json"), {"policy": "tdm4", "platform": {"reconfig_delay_s": 1.0}})
        write_json(os.path.join(folder, "summary.json"), {"policy": "tdm4", "makespan_s": 12})
        rows = plot_circuits.read_rows(os.path.join(folder, "circuits.csv"))
        self.assertEqual(plot_circuits.lit_steps(rows, 1.0), [(0, 3), (5, 1), (6, 4), (9, 6)])
        self.assertEqual(plot_circuits.lit_steps(rows, 1.0, oxc=1), [(9, 2)])
        saved, _ = run_tool("plot_circuits", folder)
        self.assert_on_canvas(saved, 1)
        self.assertEqual(saved[0][0], os.path.join(folder, "plots", "circ-circuits"))
        self.assertIn("2 reconfigurations, 7 circuits changed", texts_of(saved[0][1]))
        self.assertEqual(saved[0][1].axes[0].get_ylabel(), "circuits lit")

    def test_ranks_by_hand(self):
        import plot_run
        folder = os.path.join(TMP, "ranks")
        os.makedirs(folder)
        # Job 0 (rank-level), rank 0: compute 0–1 s, a collective 1–2 s whose first 0.25 s stall; rank 1: compute
        # 0–0.5 s and the same collective. Job 1 has no rank (pod-level): left out.
        events = [{"cat": "compute", "ph": "X", "pid": 3, "tid": 5, "ts": 0, "dur": 1e6, "args": {"job": 0, "rank": 0}},
                  {"cat": "comm", "ph": "X", "pid": 3, "tid": 6, "ts": 1e6, "dur": 1e6,
                   "args": {"job": 0, "rank": 0, "stall_s": 0.25}},
                  {"cat": "compute", "ph": "X", "pid": 3, "tid": 7, "ts": 0, "dur": 5e5, "args": {"job": 0, "rank": 1}},
                  {"cat": "comm", "ph": "X", "pid": 3, "tid": 8, "ts": 1e6, "dur": 1e6,
                   "args": {"job": 0, "rank": 1, "stall_s": 0.25}},
                  {"cat": "compute", "ph": "X", "pid": 1, "tid": 2, "ts": 0, "dur": 1e6, "args": {"job": 1}}]
        write_json(os.path.join(folder, "trace.json"), {"traceEvents": events})
        write_json(os.path.join(folder, "run.json"), {"policy": "static", "jobs": [{"id": 0, "name": "toy"}]})
        slices = plot_run.trace_slices("trace.json", {"traceEvents": events}, by_rank=True)
        self.assertEqual(sorted(slices), [(0, 0), (0, 1)])
        self.assertEqual(slices[(0, 0)], {"compute": [(0, 1)], "communication": [(1.25, 2)], "stall": [(1, 1.25)]})
        saved, _ = run_tool("plot_ranks", folder, "--out", os.path.join(TMP, "ranks-fig"))
        self.assert_on_canvas(saved, 1)
        ax = saved[0][1].axes[0]
        self.assertEqual([t.get_text() for t in ax.get_yticklabels()], ["toy · rank 0", "toy · rank 1"])

    def test_policy_cdfs_by_hand(self):
        # static: completion 1, 2, 3, 4 → the CDF steps 0.25 at each, median 2.5. tdm4: 0, 1, 10, 1000 span more
        # than two decades → log axis, 1 of 4 in the "0" bin (25 %).
        folder = compare_folder("cdf", {"static": 4, "tdm4": 1000},
                                {"static": [(1, 1), (2, 1), (3, 1), (4, 2)], "tdm4": [(0, 1), (1, 1), (10, 2), (1000, 3)]})
        saved, _ = run_tool("plot_cdf", folder)
        self.assert_on_canvas(saved, 1)
        self.assertEqual(saved[0][0], os.path.join(folder, "plots", "compare-cdf"))
        fig = saved[0][1]
        completion = fig.axes[0]
        static = next(ln for ln in completion.lines if ln.get_label().startswith("static"))
        self.assertEqual(static.get_label(), "static (4 jobs, median 2.5)")
        self.assertEqual(list(static.get_xdata()[1:]), [1, 2, 3, 4])
        self.assertEqual(list(static.get_ydata()), [0, 0.25, 0.5, 0.75, 1])
        self.assertEqual(completion.get_xscale(), "log")
        self.assertIn("25 % are 0", texts_of(fig))
        self.assertEqual(fig.axes[1].get_xlabel(), "slowdown (completion / alone)")

    def seed_folders(self):
        # makespan of static over 3 seeds: 10, 12, 17 → mean 13, sample sd √((9 + 1 + 16) / 2) = √13 = 3.606,
        # t 95 % CI half-width 4.303 × √13 / √3 = 8.957. tdm4: 20 in one folder only (no error bar).
        return [compare_folder(f"seed{i}", {"static": m, **({"tdm4": 20} if i == 0 else {})}, {})
                for i, m in enumerate((10, 12, 17))]

    def test_seed_error_bars_by_hand(self):
        folders = self.seed_folders()
        for error, half in (("sd", math.sqrt(13)), ("ci95", 4.303 * math.sqrt(13) / math.sqrt(3))):
            prefix = os.path.join(TMP, f"seeds-{error}")
            saved, _ = run_tool("plot_seeds", *folders, "--metrics", "makespan_s", "--error", error, "--out", prefix)
            self.assert_on_canvas(saved, 1)
            with open(prefix + ".md", encoding="utf-8") as f:
                self.assertIn(f"| static | 13 ± {half:.4g} (3) |", f.read())
            bars = bar_container(saved[0][1].axes[0])
            (x, lo), (_, hi) = bars.errorbar.lines[2][0].get_segments()[0]
            self.assertAlmostEqual(hi - lo, 2 * half, places=9)
            self.assertAlmostEqual(bars.patches[0].get_height(), 13)

    def test_seeds_from_one_compare_over_seeds(self):
        # compare --seeds' compare-seeds.csv holds the same runs as the three folders above: the same bars.
        folder = os.path.join(TMP, "cmp-over-seeds")
        os.makedirs(folder, exist_ok=True)
        write_csv(os.path.join(folder, "compare-seeds.csv"), ["policy", "seed", "makespan_s"],
                  [["static", "1", "10"], ["static", "2", "12"], ["static", "3", "17"], ["tdm4", "1", "20"]])
        prefix = os.path.join(TMP, "seeds-one-compare")
        saved, _ = run_tool("plot_seeds", folder, "--metrics", "makespan_s", "--error", "ci95", "--out", prefix)
        self.assert_on_canvas(saved, 1)
        with open(prefix + ".md", encoding="utf-8") as f:
            self.assertIn(f"| static | 13 ± {4.303 * math.sqrt(13) / math.sqrt(3):.4g} (3) |", f.read())
        other = compare_folder("one-seed", {"static": 10}, {})
        with self.assertRaises(odcnplot.InputError):  # a compare over seeds stands alone
            run_tool("plot_seeds", folder, other)

    def test_seeds_from_a_sweep(self):
        path = write_csv(os.path.join(TMP, "sweep-seeds.csv"), *test_plots.sweep_rows([1, 2, 3]))
        with self.assertRaises(odcnplot.InputError):  # two swept keys still vary
            run_tool("plot_seeds", path)
        saved, _ = run_tool("plot_seeds", path, "--fix", "ocs.reconfig_delay_us=100", "--fix", "pods.ports_per_pod=4",
                            "--out", os.path.join(TMP, "seeds-sweep"))
        self.assert_on_canvas(saved, 1)
        # makespan = delay / 10 + ports + (10 for tdm4) + seed: static 10 + 4 + 2 = 16 on average over seeds 1–3.
        self.assertAlmostEqual(bar_container(saved[0][1].axes[0]).patches[0].get_height(), 16)


class Labels(unittest.TestCase):
    def test_known_and_unknown_keys(self):
        self.assertEqual(odcnlabels.label("ocs.reconfig_delay_us"), "OCS reconfiguration delay δ (µs)")
        self.assertEqual(odcnlabels.label("generator.jobs"), "generated jobs")
        self.assertEqual(odcnlabels.label("ps_jobs.scheduler.group_delay_s"), "group delay (s) [ps_jobs.scheduler]")
        self.assertEqual(odcnlabels.setting("ocs.reconfig_delay_ms", 10), "OCS reconfiguration delay δ = 10 ms")

    def test_every_metric_and_swept_key_of_the_repository_has_a_label(self):
        for m in test_plots.METRICS + ["share_hidden_communication", "rounds", "round_time_s", "predicted_round_time_s",
                                       "seed_round_time_s", "hill_climb_moves", "training_to_comm_ratio",
                                       "group_b_jobs", "search"]:
            self.assertIn(m, odcnlabels.LABELS)
        grids = os.path.join(ROOT, "analysis", "grids")
        keys = set()
        for name in os.listdir(grids):
            with open(os.path.join(grids, name), encoding="utf-8") as f:
                lines = f.read().split("\nset:\n", 1)[-1].splitlines()
            keys |= {ln.split(":")[0].strip() for ln in lines if ln.startswith("  ") and ":" in ln}
        self.assertTrue(keys)
        for k in keys:
            self.assertIn(k, odcnlabels.LABELS)


if __name__ == "__main__":
    unittest.main(verbosity=2)
