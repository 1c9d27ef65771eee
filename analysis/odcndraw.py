"""Drawing helpers shared by the plotting tools: ticks at the swept values on log axes, bars on a log axis with
their value written at their end, CDFs with an explicit bin for zeros on a log axis, and the statistics of the
error bars (sample standard deviation, Student's t 95 % confidence interval).

Not a command.
"""
import math

import matplotlib.ticker
import numpy as np

import odcnplot as op

MAX_TICKS = 12

# Student's t, two-sided 95 % (the 0.975 quantile), by degrees of freedom; beyond 30, the value of the next
# smaller tabulated degrees of freedom (a slightly wider interval), down to the normal's 1.960.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048,
        29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}
ERRORS = {"sd": "± sd", "ci95": "± 95 % CI"}


def mean_sd(values):
    """(mean, sample standard deviation with n − 1); the sd is NaN for one value."""
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.nan
    return mean, sd


def t975(dof):
    """Student's t 0.975 quantile for `dof` degrees of freedom (table above)."""
    return T975[max(k for k in T975 if k <= dof)] if dof < 1e9 else 1.960


def mean_error(values, error="sd"):
    """(mean, half-width of the error bar, n): one sample sd, or the half-width of Student's t 95 % confidence
    interval of the mean (t × sd / √n). The half-width is NaN for one value."""
    mean, sd = mean_sd(values)
    n = len(values)
    if error == "ci95" and n > 1:
        return mean, t975(n - 1) * sd / math.sqrt(n), n
    return mean, sd, n


def value_text(v):
    """A measured number, short: 3 significant digits, no exponent between 0.001 and 10⁶."""
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e6:
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return f"{v:.2e}"


def ticks_at(axis, values, log):
    """Major ticks of `axis` (ax.xaxis or ax.yaxis) at the given values, labelled as written in a sweep
    (integers without '.0'); at most MAX_TICKS of them (every k-th beyond that). On a log axis the minor
    ticks keep no labels."""
    values = sorted(set(float(v) for v in values))
    if len(values) > MAX_TICKS:
        step = math.ceil(len(values) / MAX_TICKS)
        values = values[::step]
    axis.set_major_locator(matplotlib.ticker.FixedLocator(values))
    axis.set_major_formatter(matplotlib.ticker.FixedFormatter([op.format_value(v) for v in values]))
    if log:
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if len(values) > 5 and max(len(op.format_value(v)) for v in values) > 4 and axis.axis_name == "x":
        for t in axis.get_majorticklabels():
            t.set_rotation(30)
            t.set_horizontalalignment("right")


def log_bars(ax, ys, values, height, colour, label, unit=""):
    """Horizontal bars on a log x axis, each with its value written at its end; a value ≤ 0 (which a log axis
    cannot show) gets no bar and its value written at the axis' left edge."""
    ax.barh([y for y, v in zip(ys, values) if v > 0], [v for v in values if v > 0], height=height, color=colour,
            label=label)
    for y, v in zip(ys, values):
        where = (v, y) if v > 0 else (0.0, y)
        coords = "data" if v > 0 else ("axes fraction", "data")
        ax.annotate(f"{value_text(v)}{unit}", where, xycoords=coords, xytext=(3, 0), textcoords="offset points",
                    ha="left", va="center", fontsize=7)


def wants_log(values):
    """True when the positive values span more than two decades (a CDF of them is then drawn on a log axis)."""
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) > 100 * min(positive)


def cdf_panel(ax, series, zero_label="0", log=True):
    """CDFs (steps) of several series of values ≥ 0, `series` = [(label, values, line style dict)], on one axes. On a
    log x axis (log=True), zeros, which a log axis cannot show, get a bin of their own at the axis' left, a
    decade below the smallest positive value and set apart by a dashed line: its tick reads `zero_label` and
    the jump of each CDF there is written beside it. Returns each series' share of zeros."""
    every = np.concatenate([np.asarray(v, dtype=float) for _, v, _ in series])
    positive = every[every > 0]
    lo = positive.min() if len(positive) else 1.0
    hi = positive.max() if len(positive) else 10.0
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    last = max(last, first + 1)
    zero_at = 10.0 ** (first - 1)
    shares = []
    for label, values, style in series:
        v = np.sort(np.asarray(values, dtype=float))
        n = len(v)
        shares.append(float((v <= 0).sum()) / n if n else 0.0)
        xs = np.where(v > 0, v, zero_at) if log else v
        start = zero_at / 2 if log else min(0.0, float(every.min()))
        ax.step(np.concatenate([[start], xs]), np.arange(0, n + 1) / max(n, 1), where="post", label=label, **style)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("fraction ≤ x (CDF)")
    if not log:
        return shares
    ax.set_xscale("log")
    ax.set_xlim(zero_at / 2, 10.0 ** last)
    decades = [10.0 ** k for k in range(first, last + 1)]
    has_zeros = any(s > 0 for s in shares)
    ticks = ([zero_at] if has_zeros else []) + decades
    names = ([zero_label] if has_zeros else []) + [op.format_value(float(f"{d:.0e}")) for d in decades]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FixedFormatter(names))
    ax.xaxis.set_minor_locator(matplotlib.ticker.FixedLocator([m * d for d in decades[:-1] for m in range(2, 10)]))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if has_zeros:
        ax.axvline(zero_at * 10 ** 0.5, color="#888888", linestyle="--", linewidth=0.8)
        for share in shares:
            if share > 0:
                ax.annotate(f"{100 * share:.0f} % are 0", (zero_at, share), xytext=(4, -2), textcoords="offset points",
                            ha="left", va="top", fontsize=8)
    return shares
