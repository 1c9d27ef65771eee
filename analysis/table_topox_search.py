#!/usr/bin/python3
"""TOPO-X's Table III (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training Parallelism") with
the parallelisation searched, beside the hybrid strategy, from what scripts/topox-search.sh writes:

  FOLDER/inputs/row<N>-<search>.txt   generate's report for each search (topoopt, topox-delay, topox-free): its
                                      cost for the hybrid strategy and for the cheapest strategy found
  FOLDER/runs/row<N>-<run>/summary.json    topoopt (δ = 1 ms), topox (δ = 1 ms), topox-nodelay (δ = 0)
  FOLDER/../table3-runs.csv           the hybrid strategy's runs (scripts/topox-table3.sh)

and writes

  FOLDER/search.csv   one row per Table III row: the paper's times; TopoOpt (engine, and FlexNet's estimate as the
                      search computed it, in the strategy builder's task order, which moves it: docs/dlrm.md) and
                      TOPO-X (δ = 0 and 1 ms) under the hybrid strategy and under the searched ones; TOPO-X's lower
                      bound at δ = 0 of the hybrid and of the cheapest strategy the search found; the speedups;
                      whether the paper's TOPO-X time lies below that cheapest bound
  FOLDER/search.md    the same as a Markdown table with the mean speedups

Usage: table_topox_search.py FOLDER "ROWS"     (ROWS: Table III rows separated by spaces)
Bad input: exit 2 and one line `file: field: reason` on stderr.
"""
import json
import os
import re
import sys

import odcnplot as op
from odcnplot import InputError
from table_topox import PAPER

COST = re.compile(r"^  cost +hybrid ([0-9.]+) ms -> searched ([0-9.]+) ms", re.M)


def search_cost(path):
    """(hybrid, searched) cost in ms from generate's report."""
    try:
        with open(path, encoding="utf-8") as f:
            m = COST.search(f.read())
    except OSError as e:
        raise InputError(path, "(file)", f"cannot be read ({e.strerror})")
    if not m:
        raise InputError(path, "cost", "no line 'cost  hybrid X ms -> searched Y ms' (not a generate --search report)")
    return float(m.group(1)), float(m.group(2))


def summary(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError(path, "(file)", f"cannot be read ({e.strerror})")
    except ValueError as e:
        raise InputError(path, "(file)", f"is not JSON ({e})")


def hybrid_runs(path):
    df = op.read_csv(path, required=["row", "policy", "iteration_s", "lower_bound_s", "flexnet_estimate_s"])
    rows = op.numbers(df, "row", path, allow_empty=False)
    times = op.numbers(df, "iteration_s", path, allow_empty=False)
    bounds = op.numbers(df, "lower_bound_s", path)
    flexnet = op.numbers(df, "flexnet_estimate_s", path)
    got = {}
    for i in range(len(df)):
        got[(int(rows.iloc[i]), df["policy"].iloc[i])] = (1e3 * times.iloc[i], 1e3 * bounds.iloc[i],
                                                          1e3 * flexnet.iloc[i])
    return got


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) != 3:
        raise InputError("command line", "(arguments)", "expected FOLDER and ROWS (see --help)")
    folder, rows = sys.argv[1], sys.argv[2].split()
    table3 = os.path.join(folder, "..", "table3-runs.csv")
    hybrid = hybrid_runs(table3)
    header = ["row", "servers", "d_s", "gbps", "paper_topoopt_ms", "paper_topox_ms", "paper_speedup",
              "hybrid_topoopt_ms", "hybrid_topoopt_flexnet_ms", "hybrid_topox_nodelay_ms", "hybrid_topox_ms",
              "hybrid_bound_ms", "searched_topoopt_ms", "searched_topoopt_flexnet_ms", "searched_topox_nodelay_ms",
              "searched_topox_ms", "cheapest_bound_ms", "hybrid_speedup", "searched_speedup",
              "paper_topox_below_cheapest_bound"]
    lines = [",".join(header)]
    md = ["| No. | N_S | d_S | B | paper TopoOpt | paper TOPO-X | TopoOpt hybrid → searched (engine) | TopoOpt's "
          "cost, FlexNet's estimate: hybrid → searched | TOPO-X δ = 0: hybrid → searched | TOPO-X δ = 1 ms: hybrid → "
          "searched | TOPO-X's bound δ = 0: hybrid → cheapest found | speedup δ = 1 ms: hybrid → searched | paper "
          "TOPO-X below the cheapest bound |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    sp_h, sp_s, below = [], [], []
    for no, n, _ocs, d, _docs, b, _batch, p_opt, p_x, p_sp in PAPER:
        if str(no) not in rows:
            continue
        for name in ("topoopt", "topox", "topox-nodelay"):
            if (no, name) not in hybrid:
                raise InputError(table3, "row", f"row {no} has no {name} run (run scripts/topox-table3.sh first)")
        h_opt, _, _ = hybrid[(no, "topoopt")]
        h_x, _, _ = hybrid[(no, "topox")]
        h_free, h_bound, _ = hybrid[(no, "topox-nodelay")]
        runs = {name: summary(os.path.join(folder, "runs", f"row{no}-{name}", "summary.json"))
                for name in ("topoopt", "topox", "topox-nodelay")}
        s_opt = 1e3 * runs["topoopt"]["mean_iteration_s"]
        s_fn = 1e3 * runs["topoopt"]["topoopt"]["flexnet_estimate_s"]
        s_x = 1e3 * runs["topox"]["mean_iteration_s"]
        s_free = 1e3 * runs["topox-nodelay"]["mean_iteration_s"]
        fn_hybrid, fn_searched = search_cost(os.path.join(folder, "inputs", f"row{no}-topoopt.txt"))
        _, s_bound = search_cost(os.path.join(folder, "inputs", f"row{no}-topox-free.txt"))
        sp_h.append(h_opt / h_x)
        sp_s.append(s_opt / s_x)
        is_below = p_x < s_bound
        if is_below:
            below.append(str(no))
        lines.append(",".join(str(v) for v in [
            no, n, d, b, p_opt, p_x, p_sp, f"{h_opt:.3f}", f"{fn_hybrid:.3f}", f"{h_free:.3f}", f"{h_x:.3f}",
            f"{h_bound:.3f}", f"{s_opt:.3f}", f"{s_fn:.3f}", f"{s_free:.3f}", f"{s_x:.3f}", f"{s_bound:.3f}",
            f"{h_opt / h_x:.3f}", f"{s_opt / s_x:.3f}", "yes" if is_below else "no"]))
        md.append(f"| {no} | {n} | {d} | {b} | {p_opt:.1f} | {p_x:.1f} | {h_opt:.1f} → {s_opt:.1f} | "
                  f"{fn_hybrid:.1f} → {fn_searched:.1f} | {h_free:.1f} → {s_free:.1f} | {h_x:.1f} → {s_x:.1f} | "
                  f"{h_bound:.1f} → {s_bound:.1f} | {h_opt / h_x:.2f}x → {s_opt / s_x:.2f}x | "
                  f"{'yes' if is_below else 'no'} |")
    if not sp_h:
        raise InputError("command line", "ROWS", "no row of Table III given")
    md.append("")
    md.append(f"Times in ms per iteration. Speedup TopoOpt / TOPO-X (δ = 1 ms, each on its own strategy) over "
              f"{len(sp_h)} rows: hybrid mean {sum(sp_h) / len(sp_h):.2f}x (min {min(sp_h):.2f}x, max "
              f"{max(sp_h):.2f}x), searched mean {sum(sp_s) / len(sp_s):.2f}x (min {min(sp_s):.2f}x, max "
              f"{max(sp_s):.2f}x)." + (f" The paper's TOPO-X time lies below the cheapest lower "
                                      f"bound the search found in rows {', '.join(below)}." if below else ""))
    op.write_table(folder, "search", lines, md, [table3], "table_topox_search.py")


if __name__ == "__main__":
    op.run_main(main)
