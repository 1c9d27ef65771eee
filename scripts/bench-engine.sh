#!/usr/bin/env bash
# The engine's cost on one large collective through the ordinary path (odcnsim run, policy static, one iteration,
# no slowdown baseline, no trace), against its closed form:
#   ring-N    a ring all-reduce of 1 GiB over N pods of one clos_ocs group (N - 1 ports a pod, 100 Gb/s each,
#             every pod pair a candidate circuit); policy static gives each ring pair about (N - 1)/2 circuits;
#             closed form 2(N - 1) (S/N) / (c B), c the fewest circuits of a ring pair (run.json);
#   a2a-N     an all-to-all of 1 GiB per pod over N pods of one group: one half-duplex circuit per pod pair, each
#             carrying S/N each way, closed form 2 (S/N) / B;
#   a2av-N    the same with each ordered pair's bytes drawn from a seeded distribution (2-8 MiB), one transfer task
#             per pair: no closed form by one transfer; the check is the busiest circuit's bytes / B.
# Each case is generated into a temporary folder; prints the median wall time of REPEAT runs, the largest peak
# memory (max RSS, from wait4), the simulated time and its relative error. With OLD (another build's odcnsim)
# both builds run alternately in the same sitting.
# Usage: bash scripts/bench-engine.sh [REPEAT] [ODCNSIM] [OLD] [CASES]
#   defaults: 3, build/odcnsim, none (OLD "" for none), ring-1024,a2a-256,a2a-1024,a2av-256; e.g. CASES a2a-2048
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
bin="${2:-build/odcnsim}"
old="${3:-}"
cases="${4:-ring-1024,a2a-256,a2a-1024,a2av-256}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-engine.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
for b in "$bin" ${old:+"$old"}; do [ -x "$b" ] || { echo "bench-engine.sh: $b: not built" >&2; exit 2; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$repeat" "$tmp" "$cases" "$bin" ${old:+"$old"} <<'PY'
import csv, json, os, random, statistics, sys

sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
from bench_runs import clos_platform, timed  # noqa: E402

repeat, tmp, binaries = int(sys.argv[1]), sys.argv[2], [os.path.abspath(b) for b in sys.argv[4:]]
cases = []
for c in sys.argv[3].split(","):
    name, _, n = c.partition("-")
    if name not in ("ring", "a2a", "a2av") or not n.isdigit() or int(n) < 3:
        print(f"bench-engine.sh: CASES: '{c}': expected ring-N, a2a-N or a2av-N with N >= 3", file=sys.stderr)
        sys.exit(2)
    cases.append((name, int(n)))
S, B = 2 ** 30, 12.5e9


def case(name, n):
    if name == "a2av":
        rng = random.Random(n)
        tasks = [{"id": f"t{a}-{b}", "kind": "transfer", "src": a, "dst": b,
                  "bytes": rng.randrange(2 * 2 ** 20, 8 * 2 ** 20)}
                 for a in range(n) for b in range(n) if a != b]
    else:
        op, alg = ("all-reduce", "ring") if name == "ring" else ("all-to-all", "direct")
        tasks = [{"id": "c", "kind": "collective", "op": op, "algorithm": alg, "group": list(range(n)), "bytes": S}]
    d = os.path.join(tmp, f"{name}-{n}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "platform.yaml"), "w").write(clos_platform(f"group-{n}", n, n, 400 * n))
    json.dump({"format": "odcnsim-job-graph", "version": 1, "name": f"{name}-{n}", "ranks": n, "iterations": 1,
               "tasks": tasks}, open(os.path.join(d, "graph.json"), "w"))
    return d, tasks


def closed_form(name, n, tasks, out):
    if name == "a2a":
        return 2 * (S / n) / B
    if name == "ring":
        circuits = {(c["a"], c["b"]): c["circuits"] for c in json.load(open(os.path.join(out, "run.json")))["static_circuits"]}
        fewest = min(circuits[(min(i, (i + 1) % n), max(i, (i + 1) % n))] for i in range(n))
        return 2 * (n - 1) * (S / n) / (fewest * B)
    per_pair = {}
    for t in tasks:  # half duplex: both directions of a pair share its one circuit; each pair ends alone
        key = (min(t["src"], t["dst"]), max(t["src"], t["dst"]))
        per_pair[key] = per_pair.get(key, 0) + t["bytes"]
    return max(per_pair.values()) / B


def args(binary, d, out):
    return [binary, "run", "--platform", os.path.join(d, "platform.yaml"), "--workload", os.path.join(d, "graph.json"),
            "--policy", "static", "--iterations", "1", "--no-slowdown", "--trace", "none", "--quiet", "--force",
            "--out", out]


print(f"bench-engine: median of {repeat} runs; {' against '.join(binaries)}")
print(f"{'case':<10} {'build':<6} {'wall_s':>8} {'min':>7} {'max':>7} {'peak_MiB':>9} {'simulated_s':>13} {'rel_error':>9}")
for name, n in cases:
    d, tasks = case(name, n)
    samples = {b: [] for b in binaries}
    for _ in range(repeat):
        for b in binaries:  # alternating, so that the machine's drift hits both builds alike
            samples[b].append(timed([args(b, d, os.path.join(d, "out"))], "bench-engine.sh"))
    for i, b in enumerate(binaries):
        out = os.path.join(d, "out")
        timed([args(b, d, out)], "bench-engine.sh")  # this build's own result, for the check
        row = next(csv.DictReader(open(os.path.join(out, "iterations.csv"))))
        sim, expect = float(row["duration_s"]), closed_form(name, n, tasks, out)
        walls = [w for w, _ in samples[b]]
        print(f"{name + '-' + str(n):<10} {'new' if i == 0 else 'old':<6} {statistics.median(walls):>8.3f} "
              f"{min(walls):>7.3f} {max(walls):>7.3f} {max(m for _, m in samples[b]):>9.1f} {sim:>13.9g} "
              f"{abs(sim - expect) / expect:>9.1e}", flush=True)
PY
