#!/usr/bin/python3
"""The figures of Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters") from the CSVs that
scripts/opus-figures.sh writes into FOLDER (fig8.csv, windows.csv, technologies.csv):

  OUT/fig8.png (and .svg)         iteration time overhead vs reconfiguration delay, on-demand and provisioned
                                  (Fig. 8)
  OUT/windows_cdf.png (and .svg)  CDF of the windows between parallelism phases on the electrical twin (§3.1)
  OUT/technologies.png (and .svg) iteration overhead per OCS technology of Table 3
  OUT/windows_rail0.png (and .svg) rail 0's windows in one steady iteration against the traffic after each
                                  (Fig. 4(b)); drawn when windows.csv has odcnsim's rail, next_bytes and steady
  OUT/opus.md                     the numbers beside the paper's

Usage: plot_opus.py FOLDER [--out OUT]     (default OUT: FOLDER/plots, created)
Nothing is written beside the CSVs unless --out names FOLDER (scripts/opus-figures.sh does). Each file is
written to a temporary name in its folder and renamed into place; the paths written are printed.
Bad input: exit 2 and one line `file: field: reason` on stderr.
"""
import argparse
import os

import numpy as np

import odcndraw
import odcnplot as op
from odcnplot import InputError

PAPER_100MS = {"on_demand_s": 6.5, "provisioned_s": 3.5}  # % overhead at 100 ms, Fig. 8


def overhead(df, path, column):
    base = op.numbers(df, "electrical_s", path, allow_empty=False)
    return 100.0 * (op.numbers(df, column, path, allow_empty=False) / base - 1.0)


def main(argv=None):
    parser = op.ArgumentParser(prog="plot_opus.py", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", metavar="FOLDER", help="the folder scripts/opus-figures.sh wrote the CSVs into")
    parser.add_argument("--out", metavar="OUT", help="output folder (default: FOLDER/plots)")
    args = parser.parse_args(argv)
    op.setup_style()
    folder = args.folder
    out = args.out if args.out is not None else op.plots_folder(folder)
    if os.path.exists(out) and not os.path.isdir(out):
        raise InputError(out, "--out", "is a file, not a folder")
    fig8_path = os.path.join(folder, "fig8.csv")
    fig8 = op.read_csv(fig8_path, ["delay_ms", "electrical_s", "on_demand_s", "provisioned_s"])
    delay = op.numbers(fig8, "delay_ms", fig8_path, allow_empty=False)
    fig, ax = op.plt.subplots(figsize=(5.5, 3.6))
    for i, (column, label) in enumerate([("on_demand_s", "on-demand"), ("provisioned_s", "provisioned")]):
        ax.plot(delay, overhead(fig8, fig8_path, column), marker=op.MARKERS[i], color=op.PALETTE[i], label=label)
        ax.scatter([100], [PAPER_100MS[column]], marker="*", s=90, color=op.PALETTE[i], zorder=5,
                   label=f"{label}, paper at 100 ms")
    ax.axhline(0, color="#000000", linewidth=0.8, label="electrical rails")
    ax.set_xlabel("OCS reconfiguration delay (ms)")
    ax.set_ylabel("iteration time overhead (%)")
    ax.set_title("Llama3-8B, TP 4 x FSDP 2 x PP 2 (Opus Fig. 8)")
    ax.legend(fontsize=7)
    op.save_figure(fig, os.path.join(out, "fig8"), [fig8_path])

    windows_path = os.path.join(folder, "windows.csv")
    windows = op.read_csv(windows_path, ["window_s", "next_task_name", "to_group"])
    if "steady" in windows.columns:  # odcnsim's statistics leave out iteration 0 and settling iterations
        windows = windows[op.numbers(windows, "steady", windows_path).to_numpy() == 1].reset_index(drop=True)
    w = np.sort(op.numbers(windows, "window_s", windows_path, allow_empty=False).to_numpy())
    if len(w) == 0:
        raise InputError(windows_path, "window_s", "no windows")
    fig, ax = op.plt.subplots(figsize=(5.5, 3.6))
    # ms on a log axis; windows of 0 (the next phase overlaps the previous one) in a bin of their own
    odcndraw.cdf_panel(ax, [("windows", w * 1e3, {"color": op.PALETTE[0]})], zero_label="0\n(overlapping)")
    ax.axvline(1.0, color="#888888", linestyle=":", label="1 ms")
    ax.set_xlabel("window between parallelism phases (ms)")
    ax.set_title("Steady-state windows on the electrical twin (Opus §3.1)")
    ax.legend(fontsize=7, loc="lower right")
    op.save_figure(fig, os.path.join(out, "windows_cdf"), [windows_path])

    if all(c in windows.columns for c in ("rail", "next_bytes", "iteration", "steady")) and len(windows):
        rail = windows[op.numbers(windows, "rail", windows_path).to_numpy() == 0]
        if len(rail):
            iters = op.numbers(rail, "iteration", windows_path).to_numpy()
            one = rail[iters == iters.min()]  # the first steady iteration
            gpu_col = next((c for c in one.columns if c in ("gpu", "server", "pod")), None)
            fig, ax = op.plt.subplots(figsize=(5.5, 3.6))
            mib = op.numbers(one, "next_bytes", windows_path).to_numpy() / 2**20
            ms = np.maximum(op.numbers(one, "window_s", windows_path).to_numpy() * 1e3, 1e-3)
            gpus = one[gpu_col].tolist() if gpu_col else ["all"] * len(one)
            def number_first(g):
                try:
                    return (0, float(g), "")
                except (TypeError, ValueError):
                    return (1, 0.0, str(g))
            for k, g in enumerate(sorted(set(gpus), key=number_first)):
                sel = np.array([x == g for x in gpus])
                ax.scatter(np.maximum(mib[sel], 1e-3), ms[sel], s=18, color=op.PALETTE[k % len(op.PALETTE)],
                           label=f"{gpu_col or 'gpu'} {g}")
            ax.axhline(1.0, color="#888888", linestyle=":", label="1 ms")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("traffic after the window (MiB)")
            ax.set_ylabel("window (ms)")
            ax.set_title(f"Rail 0, iteration {int(iters.min())} (Opus Fig. 4(b)); windows of 0 at 1 µs")
            ax.legend(fontsize=7)
            op.save_figure(fig, os.path.join(out, "windows_rail0"), [windows_path])

    tech_path = os.path.join(folder, "technologies.csv")
    tech = op.read_csv(tech_path, ["technology", "electrical_s", "on_demand_s", "provisioned_s"])
    fig, ax = op.plt.subplots(figsize=(6.5, 0.9 + 0.45 * len(tech)))
    y = np.arange(len(tech))
    values = []
    for i, (column, label) in enumerate([("on_demand_s", "on-demand"), ("provisioned_s", "provisioned")]):
        values += list(overhead(tech, tech_path, column))
        odcndraw.log_bars(ax, y + (i - 0.5) * 0.4, values[-len(tech):], 0.4, op.PALETTE[i], label, unit=" %")
    positive = [v for v in values if v > 0] or [1.0]
    ax.set_xscale("log")
    ax.set_xlim(min(positive) / 3, max(positive) * 60)  # room for the value at the end of the longest bar
    ax.set_yticks(y)
    ax.set_yticklabels([f"{t} ({op.format_value(float(d) * 1e3)} ms)" for t, d in
                        zip(tech["technology"], op.numbers(tech, "reconfig_delay_s", tech_path))]
                       if "reconfig_delay_s" in tech.columns else list(tech["technology"]))
    ax.set_ylim(len(tech) - 0.5, -0.5)
    ax.grid(False, axis="y")
    ax.set_xlabel("iteration time overhead over electrical rails (%)")
    ax.set_title("OCS technologies of Opus Table 3 (reconfiguration delay)")
    op.legend_below(fig, *ax.get_legend_handles_labels(), ncol=2)
    op.save_figure(fig, os.path.join(out, "technologies"), [tech_path])

    over_1ms = float((w > 1e-3).mean())
    largest = windows.iloc[int(np.argmax(op.numbers(windows, "window_s", windows_path).to_numpy()))]
    at100 = fig8[fig8["delay_ms"].astype(float) == 100.0]
    lines = ["| quantity | odcnsim | Opus (paper) |", "|---|---:|---:|"]
    if len(at100):
        lines.append(f"| overhead at 100 ms, on-demand | {overhead(at100, fig8_path, 'on_demand_s').iloc[0]:.2f} % | +6.5 % |")
        lines.append(f"| overhead at 100 ms, provisioned | {overhead(at100, fig8_path, 'provisioned_s').iloc[0]:.2f} % | +3.5 % |")
    lines.append(f"| windows over 1 ms | {100 * over_1ms:.1f} % | > 75 % |")
    lines.append(f"| largest window | {float(largest['window_s']) * 1e3:.0f} ms, before {largest['next_task_name']} "
                 f"({largest['to_group']}) | ~1000 ms, before the reduce-scatter |")
    text = "\n".join(lines) + "\n"
    md = os.path.join(out, "opus.md")
    op.write_text(md, text, [fig8_path, windows_path, tech_path])
    print(md)
    print(text, end="")


if __name__ == "__main__":
    op.run_main(main)
