#!/usr/bin/python3
"""Table III of TOPO-X (Y.-X. Hu, H. Tian, Y. Zhao, F. Wu, X.-Y. Li, "TOPO-X: Co-optimize Flow Scheduling, Topology,
and ML Training Parallelism") beside odcnsim's, from the table3-runs.csv that scripts/topox-table3.sh writes (one row
per Table III row and run: policy topoopt, policy topox, topox-nodelay (topox with a reconfiguration delay of 0) and
topox-paper (policy topox:paper, the paper's reading: Eq. 6 per transfer, no reconfiguration term, on a fabric
with δ = 0), topox-aligned (policy topox:aligned, slot-aligned starts only) and topox-eq8 (policy topox:eq8, Eq. 8's
port count as written, in + out <= d_S); the iteration time the engine gives in iteration_s, and, for topox-paper,
the planned time in the optional column planned_s; the lower bound for capacity-respecting plans in the optional
column lower_bound_s, taken from the topox run (δ = 1 ms) and the topox-nodelay run (δ = 0); for topoopt, FlexNet's
own estimate of the same topology in the optional column flexnet_estimate_s):

  FOLDER/table3.csv   one row per Table III row: the configuration, the paper's TopoOpt and TOPO-X times (ms) and
                      speedup, odcnsim's, the ring all-reduce lower bound and the compute-path lower bound (ms), whether
                      the paper's TOPO-X time lies below the ring bound, and TOPO-X's MIP status
  FOLDER/table3.md    the same as a Markdown table, with the mean, minimum and maximum speedups (TopoOpt / TOPO-X;
                      for topox:paper's plan, against odcnsim's TopoOpt and against the paper's)

The ring all-reduce bound is 2(N-1)/N·S / (d_S·B) with S the dense parameters in FP32 (all data-parallel under
FlexNet's starting strategy, the hybrid that odcnsim's DLRM generator builds; docs/dlrm.md): every server must send
that much through its d_S ports. The compute path is the DLRM graph's critical path with free communication
(26.34 ms for configuration 1, 12.00 ms for configuration 2). Rows missing from the runs are left out.

Usage: table_topox.py FOLDER      (reads FOLDER/table3-runs.csv)
Bad input: exit 2 and one line `file: field: reason` on stderr.
"""
import os
import re
import sys

import odcnplot as op
from odcnplot import InputError

# No., N_S, N_OCS, d_S, d_OCS, B (Gb/s), batch per GPU, TopoOpt ms, TOPO-X ms, speedup (Table III).
PAPER = [
    (1, 128, 4, 4, 128, 40, 128, 303.020, 150.864, 2.01),
    (2, 128, 6, 6, 128, 40, 128, 177.487, 108.617, 1.63),
    (3, 128, 4, 4, 128, 100, 128, 126.908, 66.093, 1.92),
    (4, 128, 6, 6, 128, 100, 128, 75.131, 52.533, 1.43),
    (5, 16, 4, 4, 16, 10, 256, 195.958, 32.226, 6.08),
    (6, 16, 4, 4, 16, 25, 256, 89.299, 23.278, 3.84),
    (7, 16, 4, 4, 16, 40, 256, 61.517, 21.236, 2.90),
    (8, 16, 4, 4, 16, 100, 256, 27.974, 20.227, 1.38),
    (9, 16, 4, 4, 16, 200, 256, 16.623, 16.623, 1.00),
    (10, 16, 8, 8, 16, 10, 256, 83.417, 23.226, 3.60),
    (11, 16, 8, 8, 16, 25, 256, 37.610, 18.796, 2.00),
    (12, 16, 8, 8, 16, 40, 256, 24.504, 18.364, 1.33),
    (13, 16, 8, 8, 16, 100, 256, 15.832, 15.832, 1.00),
    (14, 16, 8, 8, 16, 200, 256, 14.667, 14.667, 1.00),
]
# Dense parameters of Table II's two configurations (docs/dlrm.md), in FP32 bytes, and their compute paths (ms).
DENSE_BYTES = {128: 306_264_065 * 4, 16: 76_585_985 * 4}
COMPUTE_PATH_MS = {128: 26.3378, 16: 12.0023}


POLICIES = ("topoopt", "topox", "topox-nodelay", "topox-paper", "topox-aligned", "topox-eq8")


def ring_bound_ms(n, d, gbps):
    return 1e3 * 2 * (n - 1) / n * DENSE_BYTES[n] / (d * gbps * 1e9 / 8)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        if len(sys.argv) == 2:
            print(__doc__)
            return
        raise InputError("command line", "(arguments)", "expected FOLDER (see --help)")
    folder = sys.argv[1]
    path = os.path.join(folder, "table3-runs.csv")
    df = op.read_csv(path, required=["row", "policy", "iteration_s", "mip_status"])
    times = op.numbers(df, "iteration_s", path, allow_empty=False)
    planned = op.numbers(df, "planned_s", path) if "planned_s" in df.columns else None
    bounds = op.numbers(df, "lower_bound_s", path) if "lower_bound_s" in df.columns else None
    flexnet = op.numbers(df, "flexnet_estimate_s", path) if "flexnet_estimate_s" in df.columns else None
    rows = op.numbers(df, "row", path, allow_empty=False)
    got = {}
    for i in range(len(df)):
        policy = df["policy"].iloc[i]
        if policy not in POLICIES:
            raise InputError(path, f"policy (line {i + 2})",
                             f"must be one of {', '.join(POLICIES)} (got '{policy}')")
        if not (times.iloc[i] > 0):
            raise InputError(path, f"iteration_s (line {i + 2})", f"must be > 0 (got {times.iloc[i]})")
        got[(int(rows.iloc[i]), policy)] = (1e3 * times.iloc[i], df["mip_status"].iloc[i])
        if bounds is not None and policy in ("topox", "topox-nodelay") and bounds.iloc[i] > 0:
            got[(int(rows.iloc[i]), "lower-bound" if policy == "topox" else "lower-bound-nodelay")] = \
                (1e3 * bounds.iloc[i], "")
        if flexnet is not None and policy == "topoopt" and flexnet.iloc[i] > 0:
            got[(int(rows.iloc[i]), "flexnet")] = (1e3 * flexnet.iloc[i], "")
        if policy == "topox-paper":
            if planned is None or not (planned.iloc[i] > 0):
                raise InputError(path, f"planned_s (line {i + 2})", "a topox-paper run needs its planned time > 0")
            got[(int(rows.iloc[i]), "topox-paper-planned")] = (1e3 * planned.iloc[i], "")
    header = ["row", "servers", "ocs", "d_s", "d_ocs", "gbps", "batch_per_gpu", "paper_topoopt_ms", "paper_topox_ms",
              "paper_speedup", "odcnsim_topoopt_ms", "odcnsim_topox_ms", "odcnsim_speedup",
              "odcnsim_topox_nodelay_ms", "odcnsim_nodelay_speedup", "ring_bound_ms",
              "compute_path_ms", "paper_topox_below_ring_bound", "mip_status", "topox_paper_planned_ms",
              "topox_paper_executed_ms", "lower_bound_ms", "topox_aligned_ms", "lower_bound_nodelay_ms",
              "topox_eq8_ms", "topoopt_flexnet_ms"]
    lines = [",".join(header)]
    md = ["| No. | N_S | d_S | B | paper TopoOpt | paper TOPO-X | paper speedup | odcnsim TopoOpt | TopoOpt, FlexNet's "
          "estimate | topox:paper planned | "
          "topox:paper executed | topox, δ = 0 | lower bound, δ = 0 | topox, δ = 1 ms | lower bound, δ = 1 ms | "
          "odcnsim speedup (δ = 1 ms) | topox:aligned, δ = 1 ms | topox:eq8, δ = 1 ms | ring AR bound | TOPO-X's MIP |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ours, theirs, free, planned_ours, planned_theirs, aligned, eq8, fn, fn_plan = [], [], [], [], [], [], [], [], []
    for no, n, ocs, d, docs, b, batch, p_opt, p_x, p_sp in PAPER:
        if (no, "topoopt") not in got or (no, "topox") not in got:
            continue
        t_opt, _ = got[(no, "topoopt")]
        t_x, status = got[(no, "topox")]
        speedup = t_opt / t_x
        t_free = got.get((no, "topox-nodelay"), (None, ""))[0]
        free_sp = t_opt / t_free if t_free else None
        if free_sp:
            free.append(free_sp)
        bound = ring_bound_ms(n, d, b)
        below = p_x < bound
        t_plan = got.get((no, "topox-paper-planned"), (None, ""))[0]
        t_exec = got.get((no, "topox-paper"), (None, ""))[0]
        t_bound = got.get((no, "lower-bound"), (None, ""))[0]
        t_aligned = got.get((no, "topox-aligned"), (None, ""))[0]
        if t_aligned:
            aligned.append(t_opt / t_aligned)
        t_bound_free = got.get((no, "lower-bound-nodelay"), (None, ""))[0]
        t_eq8 = got.get((no, "topox-eq8"), (None, ""))[0]
        t_fn = got.get((no, "flexnet"), (None, ""))[0]
        if t_fn:
            fn.append(t_fn / p_opt)
            if t_plan:
                fn_plan.append(t_fn / t_plan)
        if t_eq8:
            eq8.append(t_opt / t_eq8)
        if t_plan:
            planned_ours.append(t_opt / t_plan)
            planned_theirs.append(p_opt / t_plan)
        ours.append(speedup)
        theirs.append(p_sp)
        lines.append(",".join(str(v) for v in [
            no, n, ocs, d, docs, b, batch, p_opt, p_x, p_sp, f"{t_opt:.3f}", f"{t_x:.3f}", f"{speedup:.3f}",
            f"{t_free:.3f}" if t_free else "", f"{free_sp:.3f}" if free_sp else "", f"{bound:.3f}", COMPUTE_PATH_MS[n],
            "yes" if below else "no", '"' + status.replace('"', "'") + '"', f"{t_plan:.3f}" if t_plan else "",
            f"{t_exec:.3f}" if t_exec else "", f"{t_bound:.3f}" if t_bound else "",
            f"{t_aligned:.3f}" if t_aligned else "", f"{t_bound_free:.3f}" if t_bound_free else "",
            f"{t_eq8:.3f}" if t_eq8 else "", f"{t_fn:.3f}" if t_fn else ""]))
        short = re.sub(r"^not run: (\d+) columns, above the limit of \d+ \(heuristic plan\)$",
                       lambda m: f"not run ({int(m.group(1)):,} columns)", status)
        def ms(v):
            return f"{v:.1f}" if v else "-"
        md.append(f"| {no} | {n} | {d} | {b} | {p_opt:.1f} | {p_x:.1f}{' (below bound)' if below else ''} | "
                  f"{p_sp:.2f}x | {t_opt:.1f} | {ms(t_fn)} | {ms(t_plan)}{' (below bound)' if t_plan and t_plan < bound else ''} | "
                  f"{ms(t_exec)} | {ms(t_free)} | {ms(t_bound_free)} | {t_x:.1f} | {ms(t_bound)} | {speedup:.2f}x | "
                  f"{ms(t_aligned)} | {ms(t_eq8)} | {bound:.1f} | {short} |")
    if not ours:
        raise InputError(path, "row", "no Table III row has both a topoopt and a topox run")
    md.append("")
    md.append(f"Times in ms per iteration. Speedup TopoOpt / TOPO-X over {len(ours)} rows: paper mean "
              f"{sum(theirs) / len(theirs):.2f}x (min {min(theirs):.2f}x, max {max(theirs):.2f}x); odcnsim mean "
              f"{sum(ours) / len(ours):.2f}x (min {min(ours):.2f}x, max {max(ours):.2f}x)"
              + (f"; odcnsim with δ = 0 mean {sum(free) / len(free):.2f}x (min {min(free):.2f}x, max {max(free):.2f}x)"
                 if free else "")
              + (f"; topox:paper's plan against odcnsim's TopoOpt mean {sum(planned_ours) / len(planned_ours):.2f}x "
                 f"(min {min(planned_ours):.2f}x, max {max(planned_ours):.2f}x), against the paper's TopoOpt mean "
                 f"{sum(planned_theirs) / len(planned_theirs):.2f}x (min {min(planned_theirs):.2f}x, max "
                 f"{max(planned_theirs):.2f}x)" if planned_ours else "")
              + (f"; topox:aligned (slot-aligned starts only, δ = 1 ms) mean {sum(aligned) / len(aligned):.2f}x "
                 f"(min {min(aligned):.2f}x, max {max(aligned):.2f}x)" if aligned else "")
              + (f"; topox:eq8 (Eq. 8's count, δ = 1 ms) mean {sum(eq8) / len(eq8):.2f}x "
                 f"(min {min(eq8):.2f}x, max {max(eq8):.2f}x)" if eq8 else "") + "."
              + (f" FlexNet's estimate of TopoOpt over the paper's TopoOpt time: mean {sum(fn) / len(fn):.2f} "
                 f"(min {min(fn):.2f}, max {max(fn):.2f})." if fn else "")
              + (f" The paper's comparison, FlexNet's estimate of TopoOpt over topox:paper's plan: mean "
                 f"{sum(fn_plan) / len(fn_plan):.2f}x (min {min(fn_plan):.2f}x, max {max(fn_plan):.2f}x)."
                 if fn_plan else ""))
    below = [str(p[0]) for p in PAPER if (p[0], "topox") in got and p[8] < ring_bound_ms(p[1], p[3], p[5])]
    if below:
        md.append(f"The paper's TOPO-X time lies below the ring all-reduce lower bound 2(N-1)/N·S/(d_S·B) of the "
                  f"all-data-parallel dense layers in rows {', '.join(below)}.")
    op.write_table(folder, "table3", lines, md, [path], "table_topox.py")


if __name__ == "__main__":
    op.run_main(main)
