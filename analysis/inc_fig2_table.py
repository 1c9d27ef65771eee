#!/usr/bin/python3
"""INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") Fig. 2 claims over
several configurations, as markdown tables (what README.md and docs/inc-aoi-fig2.md show).

    /usr/bin/python3 analysis/inc_fig2_table.py LABEL=DIR [LABEL=DIR ...]

Each DIR is an --out folder of scripts/inc-figures.sh (its fig2.csv); scripts/inc-fig2-all.sh runs them all and
calls this. Prints, in order:
  1. the paper's six claims beside odcnsim's in each configuration (reconfigurations under the `events` reading),
     each a ratio of sums over the job counts (the "up to" claims: the largest over them), as analysis/plot_inc.py
     computes them; a minus sign is an increase (the paper's claims are reductions);
  2. the reconfiguration claim (INC-LJF vs noINC-FCFS) under every reading of "reconfiguration";
  3. per configuration and policy at the largest job count: batch completion (s), events and the fraction of
     jobs whose workers span racks (seed means);
  4. mean JCT per size class (workers per job) of every job of every run (fig2-size-classes.csv);
  5. FCFS's head-of-line blocked slots by cause (fig2-blocking.csv).
Needs python3-pandas (/usr/bin/python3; apt-get install python3-pandas). A bad argument or a missing or malformed
fig2.csv is one line `file: field: reason` on stderr and exit 2.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_inc  # noqa: E402
from odcnplot import InputError  # noqa: E402

READINGS = ["events", "circuits_changed", "job_allocations", "spanning_jobs", "slots_starting_spanning_jobs"]


def percent(x):
    return "—" if x is None else f"{x:.1f} %".replace("-", "−")


def reconfiguration_claim(path, reading):
    """The first claim under `reading`; None (printed —) when fig2.csv has no column for it."""
    import pandas as pd
    header = pd.read_csv(path, nrows=0)
    if plot_inc.reading_column(header, reading) + "_mean" not in header.columns:
        return None
    data, _, _ = plot_inc.load(path, reading)
    return plot_inc.claims(data)[0][2]


def at_largest(path):
    """{policy: (jobs, batch_completion_s, events, spanning_fraction)} at the largest job count of fig2.csv."""
    import pandas as pd
    df = pd.read_csv(path)
    for column in ("jobs", "policy", "batch_completion_s_mean", "events_mean", "spanning_fraction_mean"):
        if column not in df.columns:
            raise InputError(path, column, "missing (a fig2.csv of scripts/inc-figures.sh has it)")
    top = df[df["jobs"] == df["jobs"].max()]
    return {r.policy: (int(r.jobs), r.batch_completion_s_mean, r.events_mean, r.spanning_fraction_mean)
            for r in top.itertuples()}


def main(argv):
    if not argv or any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0 if argv else 2
    configs = []
    for a in argv:
        label, sep, folder = a.partition("=")
        if not sep or not label or not folder:
            raise InputError("command line", a, "must be LABEL=DIR (an --out folder of scripts/inc-figures.sh)")
        path = os.path.join(folder, "fig2.csv")
        if not os.path.isfile(path):
            raise InputError(path, "(file)", "cannot be read (run scripts/inc-figures.sh --out " + folder + ")")
        configs.append((label, path))

    claims = {label: plot_inc.claims(plot_inc.load(path, "events")[0]) for label, path in configs}
    labels = [label for label, _ in configs]
    print("| claim (reduction) | paper | " + " | ".join(labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for i, (claim, paper, *_rest) in enumerate(plot_inc.CLAIMS):
        name = claim + (" (`events`)" if i == 0 else "")
        print(f"| {name} | {paper} % | " + " | ".join(percent(claims[l][i][2]) for l in labels) + " |")
    print()
    print("| INC-LJF vs noINC-FCFS, reconfigurations by reading | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for reading in READINGS:
        print(f"| `{reading}` | " + " | ".join(percent(reconfiguration_claim(p, reading)) for _, p in configs) + " |")
    print()
    print("| configuration | policy | jobs | batch completion (s) | events | spanning jobs |")
    print("|---|---|---:|---:|---:|---:|")
    for label, path in configs:
        for policy, (jobs, batch, events, spanning) in at_largest(path).items():
            print(f"| {label} | {policy} | {jobs} | {batch:.1f} | {events:.1f} | {100 * spanning:.1f} % |")
    print()
    print("| configuration | policy | 2 workers | 4 workers | 8 workers | 16 workers |")
    print("|---|---|---:|---:|---:|---:|")
    for label, path in configs:
        classes = read_rows(os.path.join(os.path.dirname(path), "fig2-size-classes.csv"),
                            ["policy", "workers", "mean_jct_s"])
        for policy in dict.fromkeys(r["policy"] for r in classes):
            jct = {r["workers"]: float(r["mean_jct_s"]) for r in classes if r["policy"] == policy}
            print(f"| {label} | {policy} | " + " | ".join(f"{jct[w]:.1f}" if w in jct else "—"
                                                      for w in ("2", "4", "8", "16")) + " |")
    print()
    print("| configuration | FCFS policy | blocked by servers | blocked by ports |")
    print("|---|---|---:|---:|")
    for label, path in configs:
        for r in read_rows(os.path.join(os.path.dirname(path), "fig2-blocking.csv"),
                           ["policy", "blocked_slots_servers", "blocked_slots_ports", "servers_percent",
                            "ports_percent"]):
            print(f"| {label} | {r['policy']} | {float(r['blocked_slots_servers']):.0f} ({r['servers_percent']} %) | "
                  f"{float(r['blocked_slots_ports']):.0f} ({r['ports_percent']} %) |")
    return 0


def read_rows(path, columns):
    """The rows of a CSV that analysis/plot_inc.py wrote, as dicts; InputError when a column is missing."""
    import csv
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            header = rows[0].keys() if rows else []
    except OSError:
        raise InputError(path, "(file)", "cannot be read (analysis/plot_inc.py writes it)")
    for c in columns:
        if rows and c not in header:
            raise InputError(path, c, "missing")
    return rows


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print(str(e), file=sys.stderr)
        sys.exit(2)
