#!/usr/bin/python3
"""Draws the circuits of one `odcnsim run` over time, from DIR/circuits.csv: the circuits lit and the
reconfigurations.

    /usr/bin/python3 analysis/plot_circuits.py DIR [--out PREFIX]

Top panel: the circuits carrying traffic over time, summed over the fabric, and per switch (`oxc` of
circuits.csv: an OXC, a rail, or the OCS layer) when there are 2 to 4 of them. A circuit added at time_s
lights up δ later (the reconfiguration delay, from DIR/run.json); a removed one goes dark at time_s; the
initial configuration (reason `initial`) is lit at its time. Without run.json's δ the panel shows the
circuits held (δ = 0) and says so. Bottom panel: reconfigurations so far (the instants at which a circuit
changed, initial configuration excluded, as summary.json counts them), with the number of reconfigurations
and of circuits changed (Σ |new − old|) in its title. The time axis ends at summary.json's makespan_s when
present.

Writes PREFIX.png and PREFIX.svg and prints their paths. Default PREFIX: DIR/plots/<DIR's name>-circuits;
--out naming an existing folder writes <folder>/<DIR's name>-circuits. Bad input: exit 2 and one line
`file: field: reason` on stderr.

Example:
    /usr/bin/python3 analysis/plot_circuits.py out/tdm4
"""
import math
import os

import odcnplot as op
import plot_run

COLUMNS = ["time_s", "oxc", "pod_a", "pod_b", "old_circuits", "new_circuits", "reason"]


def read_rows(path):
    """circuits.csv as a list of dicts with numbers (time_s, oxc, old, new) and the reason, in file order."""
    df = op.read_csv(path, required=COLUMNS)
    cols = {c: op.numbers(df, c, path, allow_empty=False) for c in ("time_s", "oxc", "old_circuits", "new_circuits")}
    rows = []
    for i in range(len(df)):
        row = {c: cols[c].iloc[i] for c in cols}
        if row["time_s"] < 0 or row["old_circuits"] < 0 or row["new_circuits"] < 0:
            raise op.InputError(path, "time_s", f"line {i + 2}: a negative time or circuit count")
        row["reason"] = df["reason"].iloc[i]
        rows.append(row)
    if not rows:
        raise op.InputError(path, "(file)", "has no rows")
    return rows


def reconfig_delay(run):
    """δ in seconds from run.json (platform.reconfig_delay_s or platform.spec.reconfig_delay_s), else None."""
    platform = run.get("platform") if isinstance(run, dict) else None
    for where in (platform, platform.get("spec") if isinstance(platform, dict) else None):
        if isinstance(where, dict) and isinstance(where.get("reconfig_delay_s"), (int, float)):
            return float(where["reconfig_delay_s"])
    return None


def lit_steps(rows, delay, oxc=None):
    """The circuits lit over time (of switch `oxc`, or all): [(time, count)] after each change, sorted. Added
    circuits count from time_s + δ (the initial configuration from time_s), removed ones stop at time_s."""
    events = []
    for r in rows:
        if oxc is not None and r["oxc"] != oxc:
            continue
        change = r["new_circuits"] - r["old_circuits"]
        if change > 0:
            events.append((r["time_s"] + (0.0 if r["reason"] == "initial" else delay), change))
        elif change < 0:
            events.append((r["time_s"], change))
    steps, count = [], 0.0
    for t, change in sorted(events):
        count += change
        if steps and steps[-1][0] == t:
            steps[-1] = (t, count)
        else:
            steps.append((t, count))
    return steps


def reconfigurations(rows):
    """(the instants of the reconfigurations, sorted, and Σ |new − old|), initial configuration excluded."""
    changed = [r for r in rows if r["reason"] != "initial" and r["new_circuits"] != r["old_circuits"]]
    return sorted({r["time_s"] for r in changed}), sum(abs(r["new_circuits"] - r["old_circuits"]) for r in changed)


def draw_step(ax, steps, end, **style):
    xs = [0.0] + [t for t, _ in steps] + [end]
    ys = [0.0] + [c for _, c in steps] + [steps[-1][1] if steps else 0.0]
    return ax.step(xs, ys, where="post", **style)[0]


def main(argv=None):
    p = op.ArgumentParser(prog="plot_circuits.py", description=__doc__,
                          formatter_class=op.argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="a folder written by odcnsim run --out DIR")
    p.add_argument("--out", metavar="PREFIX", help="output path without extension, or an existing folder "
                   "(default: DIR/plots/<DIR name>-circuits)")
    a = p.parse_args(argv)
    d = plot_run.check_folder(a.dir)
    path = os.path.join(d, "circuits.csv")
    rows = read_rows(path)
    summary, run, inputs = plot_run.read_titles(d)
    delay = reconfig_delay(run)
    times, changed = reconfigurations(rows)
    makespan = summary.get("makespan_s") if isinstance(summary.get("makespan_s"), (int, float)) else None
    end = max([r["time_s"] for r in rows] + [t + (delay or 0.0) for t in times] + [makespan or 0.0])
    end = end if end > 0 else 1.0

    op.setup_style()
    fig, (top, bottom) = op.plt.subplots(2, 1, sharex=True, figsize=(8.0, 5.6), height_ratios=[3, 2])
    switches = sorted({r["oxc"] for r in rows})
    handles = [draw_step(top, lit_steps(rows, delay or 0.0), end, color="#000000", linewidth=1.6,
                         label="all switches")]
    if 2 <= len(switches) <= 4:
        for i, oxc in enumerate(switches):
            handles.append(draw_step(top, lit_steps(rows, delay or 0.0, oxc), end, color=op.PALETTE[i],
                                     linestyle=op.LINESTYLES[(i + 1) % len(op.LINESTYLES)], linewidth=1.2,
                                     label=f"switch {op.format_value(oxc)}"))
    top.set_ylabel("circuits lit" if delay is not None else "circuits held")
    top.set_ylim(bottom=0)
    counts = [(t, float(k + 1)) for k, t in enumerate(times)]
    draw_step(bottom, counts, end, color=op.PALETTE[5], linewidth=1.6)
    bottom.set_ylabel("reconfigurations\nso far")
    bottom.set_xlabel("time (s)")
    bottom.set_xlim(0, end)
    bottom.set_ylim(0, max(1, len(times)) * 1.1)
    bottom.set_title(f"{len(times)} reconfigurations, {op.format_value(float(changed))} circuits changed",
                     fontsize=9)
    note = (f"added circuits light up δ = {plot_run.fmt_seconds(delay)} after the change" if delay is not None
            else "δ unknown (no run.json): circuits held, not lit")
    op.suptitle(fig, f"circuits over time — {plot_run.describe(summary, run)}\n({note})")
    if len(handles) > 1:
        top.legend(handles=handles, loc="best", fontsize=8)
    name = os.path.basename(os.path.normpath(os.path.abspath(d))) or "run"
    prefix = op.output_prefix(a.out, name + "-circuits", os.path.abspath(d))
    op.save_figure(fig, prefix, inputs + [path])


if __name__ == "__main__":
    op.run_main(main)
