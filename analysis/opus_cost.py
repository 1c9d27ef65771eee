#!/usr/bin/python3
"""Cost and power of photonic vs electrical rails (Opus: Ouyang, Ding, Singh, "Photonic Rails in ML
Datacenters", Fig. 7), by counting devices per rail, from a parameter file of unit costs and powers.

  electrical rail of n GPUs: one switch of radix r if n <= r, else a non-blocking folded Clos of t tiers (the
      smallest t with n <= 2 (r/2)^t): ceil((2t-1) n / r) switches; one transceiver at each end of every GPU link
      and of every link between tiers ((t-1) n of them): 2 t n transceivers;
  photonic rail: ceil(n p / R) OCSes of radix R (p NIC ports per GPU on the OCS; more than one means the rail no
      longer fits one OCS, which the table says), and transceivers only at the NIC end (the OCS is transparent):
      n transceivers.
Totals are per rail times gpus_per_node rails. Results are ratios photonic / electrical, twice: with the NIC-side
transceivers (the GPU end of every GPU link, present in both networks) and without them (the network alone:
electrical switches, their transceivers and the links between tiers; photonic OCSes). Unknown unit values (null)
leave their results out; an unknown cost is then given as the formula of device counts it would be.

Usage: opus_cost.py [PARAMS.json] [--set section.key=value ...]   (default: analysis/params/opus-cost.json)
"""
import argparse
import json
import math
import os
import sys

from odcnplot import InputError, run_main

HERE = os.path.dirname(os.path.abspath(__file__))
PAPER_COST_RATIO = 1 - 0.705  # Opus Fig. 7: photonic rails cost 70.5 % less than electrical ones


def tiers(n, r):
    t = 1
    while n > 2 * (r // 2) ** t:
        t += 1
    return t


def electrical_rail(n, r):
    if n <= r:
        return {"switches": 1, "transceivers": 2 * n, "tiers": 1}
    t = tiers(n, r)
    return {"switches": math.ceil((2 * t - 1) * n / r), "transceivers": 2 * t * n, "tiers": t}


def photonic_rail(n, ports, radix):
    return {"ocs": math.ceil(n * ports / radix), "transceivers": n}


def load(path, sets):
    try:
        with open(path, encoding="utf-8") as f:
            p = json.load(f)
    except OSError as e:
        raise InputError(path, "(file)", f"cannot be read ({e.strerror or e})")
    except json.JSONDecodeError as e:
        raise InputError(path, "(json)", f"line {e.lineno}: {e.msg}")
    for s in sets:
        if "=" not in s:
            raise InputError("command line", "--set", f"expects section.key=value (got '{s}')")
        key, value = s.split("=", 1)
        parts = key.split(".")
        node = p
        for k in parts[:-1]:
            if not isinstance(node.get(k), dict):
                raise InputError("command line", f"--set {s}", f"'{k}' is no section of {path}")
            node = node[k]
        if parts[-1] not in node:
            raise InputError("command line", f"--set {s}", f"'{parts[-1]}' is no key of {path}")
        try:
            node[parts[-1]] = json.loads(value)
        except json.JSONDecodeError:
            raise InputError("command line", f"--set {s}", "the value must be a JSON number, list or null")
    for k in ("gpus", "gpus_per_node", "switch_radix", "ocs_radix", "nic_ports_on_ocs", "cost", "power"):
        if k not in p:
            raise InputError(path, k, "missing")
    for k in ("gpus_per_node", "switch_radix", "ocs_radix", "nic_ports_on_ocs"):
        if not isinstance(p[k], int) or p[k] < 1:
            raise InputError(path, k, f"must be an integer >= 1 (got {p[k]!r})")
    if not isinstance(p["gpus"], list) or not p["gpus"] or any(not isinstance(g, int) or g < 1 for g in p["gpus"]):
        raise InputError(path, "gpus", "must be a non-empty list of integers >= 1")
    for section in ("cost", "power"):
        for k, v in p[section].items():
            if v is not None and (not isinstance(v, (int, float)) or v < 0):
                raise InputError(path, f"{section}.{k}", f"must be a number >= 0 or null (got {v!r})")
    return p


def network_side(counts, n):
    """The same counts without the n NIC-side transceivers of a rail of n GPUs."""
    out = dict(counts)
    out["transceivers"] -= n
    return out


def totals(p, gpus, nic_side=True):
    rails = p["gpus_per_node"]
    n = math.ceil(gpus / rails)
    e = electrical_rail(n, p["switch_radix"])
    o = photonic_rail(n, p["nic_ports_on_ocs"], p["ocs_radix"])
    if not nic_side:
        e, o = network_side(e, n), network_side(o, n)

    def value(section, suffix, counts):
        units = {"switches": "switch", "transceivers": "transceiver", "ocs": "ocs"}
        total = 0.0
        for what, count in counts.items():
            if what not in units:
                continue
            unit = p[section].get(f"{units[what]}_{suffix}")
            if unit is None:
                return None
            total += count * unit * rails
        return total

    return {
        "gpus": gpus, "per_rail": n, "tiers": e["tiers"], "ocs_per_rail": o["ocs"],
        "electrical": {"switches": e["switches"] * rails, "transceivers": e["transceivers"] * rails,
                       "power_w": value("power", "w", e), "cost_usd": value("cost", "usd", e)},
        "photonic": {"ocs": o["ocs"] * rails, "transceivers": o["transceivers"] * rails,
                     "power_w": value("power", "w", o), "cost_usd": value("cost", "usd", o)},
    }


def ratio(a, b):
    return "unknown (set its unit values)" if a is None or b is None or b == 0 else f"{a / b:.4f} ({100 * (a / b - 1):+.2f} %)"


def cost_formula(t):
    """An unknown cost ratio as the device counts it is made of (per unit prices ocs, sw, t)."""
    e, o = t["electrical"], t["photonic"]
    top = " + ".join(x for x in (f"{o['ocs']} ocs" if o["ocs"] else "", f"{o['transceivers']} t" if o["transceivers"] else "") if x)
    return f"({top}) / ({e['switches']} sw + {e['transceivers']} t)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", nargs="?", default=os.path.join(HERE, "params", "opus-cost.json"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    p = load(args.params, args.set)
    print(f"OCS radix {p['ocs_radix']}, {p['nic_ports_on_ocs']} NIC ports per GPU on it, {p['switch_radix']}-port "
          f"switches, {p['gpus_per_node']} rails")
    print("| GPUs | NIC-side transceivers | electrical: switches, transceivers (tiers) | photonic: OCSes, transceivers | "
          "power photonic/electrical | cost photonic/electrical |")
    print("|---:|---|---|---|---|---|")
    for g in p["gpus"]:
        for nic_side in (True, False):
            t = totals(p, g, nic_side)
            e, o = t["electrical"], t["photonic"]
            note = "" if t["ocs_per_rail"] == 1 else f" ({t['ocs_per_rail']} per rail: beyond one OCS)"
            cost = ratio(o["cost_usd"], e["cost_usd"])
            if o["cost_usd"] is None or e["cost_usd"] is None:
                cost = "unknown: " + cost_formula(t)
            print(f"| {g} | {'counted' if nic_side else 'left out'} | {e['switches']}, {e['transceivers']} ({t['tiers']}) | "
                  f"{o['ocs']}{note}, {o['transceivers']} | {ratio(o['power_w'], e['power_w'])} | {cost} |")
    if any(v is None for v in p["cost"].values()):
        g = p["gpus"][0]
        per_sw, per_t = implied_prices(p, g, PAPER_COST_RATIO)
        print(f"\nUnit prices are unknown here (set cost.transceiver_usd, cost.switch_usd, cost.ocs_usd). The paper's "
              f"cost ratio {PAPER_COST_RATIO:.3f} (-70.5 %) at {g} GPUs holds exactly when "
              f"ocs = {per_sw:.3f} sw + {per_t:.2f} t (NIC-side transceivers counted).")


def implied_prices(p, gpus, paper_ratio):
    """The OCS price, in switch and transceiver prices, at which the cost ratio (NIC-side transceivers counted) is
    `paper_ratio`: (O ocs + T_o t) / (S sw + T_e t) = k gives ocs = (k S sw + (k T_e - T_o) t) / O. Unknown unit
    prices cannot be solved for one by one; this is the one relation the paper's number fixes among them."""
    t = totals(p, gpus, True)
    e, o = t["electrical"], t["photonic"]
    k = paper_ratio
    return k * e["switches"] / o["ocs"], (k * e["transceivers"] - o["transceivers"]) / o["ocs"]


def cost_ratio(p, gpus, nic_side):
    """The cost ratio photonic / electrical from the unit prices in p (all must be known), or None."""
    t = totals(p, gpus, nic_side)
    e, o = t["electrical"]["cost_usd"], t["photonic"]["cost_usd"]
    return None if e is None or o is None or e == 0 else o / e


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    run_main(main)
