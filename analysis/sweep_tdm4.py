#!/usr/bin/python3
"""TDM-4 §IV.C sweep: round time of tdm4 vs aggregate on clos-256pod, against the number of jobs and
against the context length. Runs build/odcnsim for every point and seed, and writes one CSV row per run.

    /usr/bin/python3 analysis/sweep_tdm4.py [--out analysis/out] [--seeds 3] [--jobs 250,500,...]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "analysis", "out"), help="output folder")
    ap.add_argument("--odcnsim", default=os.path.join(ROOT, "build", "odcnsim"), help="odcnsim binary")
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms", "clos-256pod.yaml"))
    ap.add_argument("--seeds", type=int, default=3, help="generator seeds per point (1..N)")
    ap.add_argument("--jobs", default="250,500,1000,2000,4000", help="job counts (context fixed at 8k)")
    ap.add_argument("--contexts", default="2048,4096,8192,16384,32768", help="context lengths (jobs fixed)")
    ap.add_argument("--context-sweep-jobs", type=int, default=4000, help="job count of the context sweep")
    a = ap.parse_args()
    if not os.access(a.odcnsim, os.X_OK):
        sys.exit(f"sweep_tdm4: {a.odcnsim} not found; build first (bash scripts/bootstrap.sh)")

    work = os.path.join(a.out, "work")
    os.makedirs(work, exist_ok=True)
    points = [("jobs", int(n), 8192) for n in a.jobs.split(",")]
    points += [("context", a.context_sweep_jobs, int(c)) for c in a.contexts.split(",")]
    runs = [(sweep, n, ctx, seed, policy) for (sweep, n, ctx) in points for seed in range(1, a.seeds + 1)
            for policy in ("tdm4", "aggregate")]

    rows = []
    started = time.time()
    for i, (sweep, n, ctx, seed, policy) in enumerate(runs, 1):
        wl = os.path.join(work, f"gen-{n}-{ctx}-{seed}.yaml")
        with open(wl, "w") as f:
            f.write(f"training:\n  context_tokens: {ctx}\ngenerator:\n  jobs: {n}\n  seed: {seed}\n")
        out = os.path.join(work, f"run-{sweep}-{n}-{ctx}-{seed}-{policy}")
        t0 = time.time()
        res = subprocess.run([a.odcnsim, "run", "--platform", a.platform, "--workload", wl, "--policy", policy,
                              "--out", out, "--quiet"], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"sweep_tdm4: odcnsim failed on {wl} ({policy}): {res.stderr.strip()}")
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        rows.append({"sweep": sweep, "jobs": n, "context": ctx, "seed": seed, "policy": policy,
                     "round_time_s": s["round_time_s"], "predicted_round_time_s": s["predicted_round_time_s"],
                     "seed_round_time_s": s["seed_round_time_s"], "reconfigurations": s["reconfigurations"],
                     "group_b_jobs": s["group_b_jobs"], "unplaced_jobs": s["unplaced_jobs"],
                     "wall_s": round(time.time() - t0, 3)})
        print(f"[{i:3d}/{len(runs)}] {sweep:7s} jobs={n:5d} ctx={ctx:5d} seed={seed} {policy:9s} "
              f"round {s['round_time_s']:10.3f} s  ({time.time() - started:6.1f} s elapsed)", flush=True)

    path = os.path.join(a.out, "tdm4_sweep.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"sweep_tdm4: wrote {path}")


if __name__ == "__main__":
    main()
