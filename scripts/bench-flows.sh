#!/usr/bin/env bash
# The engine's cost per flow through the ordinary path (odcnsim run, policy static, one iteration): F transfers of
# unequal sizes (bytes drawn from a seeded distribution, so that no two finish together) in one job graph.
#   pairs     F transfers on F disjoint circuits: a clos_ocs fabric of 2F pods in groups of two, one 100 Gb/s
#             circuit per group, transfer i from pod 2i to pod 2i+1, all starting at time 0;
#   switch    F transfers through one non-blocking packet switch (an electrical fabric of 2F servers, 100 Gb/s
#             NICs), transfer i from server 2i to 2i+1: disjoint NICs, so none slows another;
#   arriving  the transfers of pairs arriving over time: transfer i starts after its pod computed for i + 1 ms (a few in flight at a time);
#   mesh      F = N(N-1) transfers, one per ordered pair of N pods in one group (one circuit per pod pair, shared
#             by its two directions), all at time 0.
# (Each transfer is a task of its own. When more than 1,024 are ready at once, the engine sends them 64 to an
# actor (docs/model.md); tasks that arrive over time take an actor each, and about 30,000 at once is this
# machine's cap, vm.max_map_count. A collective's transfers are spread over actors, 64 each: for millions of
# flows in flight, see odcnsim bench --collective all-to-all --no-compact --ranks 256,512,1024.)
# Prints, per case and F, the median wall time of REPEAT runs, the wall time per flow and the largest peak memory
# (max RSS, from wait4). Writes only into a temporary folder.
# Usage: bash scripts/bench-flows.sh [REPEAT] [ODCNSIM]   (defaults: 3, build/odcnsim)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
bin="${2:-build/odcnsim}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-flows.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "bench-flows.sh: $bin: not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$bin" "$repeat" "$tmp" <<'PY'
import json, os, random, statistics, sys

sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
from bench_runs import clos_platform, timed  # noqa: E402

binary, repeat, tmp = os.path.abspath(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

def electrical(servers):
    return (f"kind: electrical\nname: flows-{servers}\nservers: {{count: {servers}, gpus_per_server: 1, nic_ports: 1, "
            f"nic_gbps: 100}}\nswitch: single\n")

def case(name, f):
    rng = random.Random(f)  # the sizes depend on F only: every build and run sees the same ones
    size = lambda: rng.randrange(1_000_000, 100_000_000)
    tasks = []
    if name == "mesh":
        n = round((1 + (1 + 4 * f) ** 0.5) / 2)
        pods, group = n, n
        for a in range(n):
            for b in range(n):
                if a != b:
                    tasks.append({"id": f"t{a}-{b}", "kind": "transfer", "src": a, "dst": b, "bytes": size()})
    else:  # pairs, switch, arriving
        pods, group = 2 * f, 2
        for i in range(f):
            t = {"id": f"t{i}", "kind": "transfer", "src": 2 * i, "dst": 2 * i + 1, "bytes": size()}
            if name == "arriving":
                tasks.append({"id": f"c{i}", "kind": "compute", "rank": 2 * i, "duration_s": (i + 1) * 1e-3})
                t["deps"] = [f"c{i}"]
            tasks.append(t)
    graph = {"format": "odcnsim-job-graph", "version": 1, "name": f"{name}-{f}", "ranks": pods, "iterations": 1,
             "arrival_s": 0, "tasks": tasks}
    d = os.path.join(tmp, f"{name}-{f}")
    os.makedirs(d, exist_ok=True)
    text = electrical(pods) if name == "switch" else clos_platform(f"flows-{pods}", pods, group, 1000)
    open(os.path.join(d, "platform.yaml"), "w").write(text)
    json.dump(graph, open(os.path.join(d, "graph.json"), "w"))
    open(os.path.join(d, "workload.yaml"), "w").write(
        f"job_graphs:\n  - file: graph.json\n    endpoints: [{', '.join(map(str, range(pods)))}]\n")
    return d, len([t for t in tasks if t["kind"] == "transfer"])

def run_args(d):
    return [binary, "run", "--platform", os.path.join(d, "platform.yaml"), "--workload",
            os.path.join(d, "workload.yaml"), "--policy", "static", "--iterations", "1", "--no-slowdown", "--trace",
            "none", "--quiet", "--force", "--out", os.path.join(d, "out")]

print(f"bench-flows: {binary}, median of {repeat} runs")
print(f"{'case':<10} {'flows':>9} {'wall_s':>8} {'us_per_flow':>12} {'peak_MiB':>9}")
for name, sizes in (("pairs", (1000, 2000, 4000, 8000, 16000, 32000)),
                    ("switch", (1000, 2000, 4000, 8000, 16000, 32000)),
                    ("arriving", (1000, 2000, 4000, 8000)),
                    ("mesh", (992, 4032, 16256, 65280))):
    for f in sizes:
        d, flows = case(name, f)
        runs = [timed([run_args(d)], "bench-flows.sh") for _ in range(repeat)]
        wall = statistics.median(r[0] for r in runs)
        print(f"{name:<10} {flows:>9} {wall:>8.3f} {1e6 * wall / flows:>12.1f} {max(r[1] for r in runs):>9.0f}",
              flush=True)
PY
