#!/usr/bin/env bash
# TOPO-X speed targets (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training Parallelism";
# issues 12 and 25, item 7), each the median wall time and the largest peak memory (max RSS of the odcnsim process,
# from wait4) of REPEAT runs, each in its own process:
#   row2-topoopt   128 servers, d_S = 6, 40 Gb/s, policy topoopt (and FlexNet's estimate)      target <= 30 s
#   row1-topox     128 servers, d_S = 4, 40 Gb/s, policy topox (plan and replay)               target <= 30 s
#   row1-eq8       the same under topox:eq8, Table III's slowest run                            target <= 30 s
#   row7-topox     16 servers, d_S = 4, 40 Gb/s, policy topox                                   target <= 30 s
#   mip-4          topox:mip with --mip-seconds 30 on a DLRM of 4 servers and 4 tables: CBC keeps its limit
# The whole table (scripts/topox-table3.sh, 84 runs, target <= 5 min) prints its own time.
# Usage: bash scripts/bench-topox.sh [REPEAT] (default 3). Builds first if needed. Writes only into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-topox.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=build/odcnsim
$b generate dlrm --preset table2-1 --out "$tmp/dlrm128.json" --quiet
$b generate dlrm --preset table2-2 --set servers=4 --set tables=4 --set bottom_layers=2 --set top_layers=3 \
  --out "$tmp/dlrm4.json" --quiet
printf 'job_graphs:\n  - file: dlrm128.json\n    endpoints: [%s]\n' "$(seq -s, 0 127)" > "$tmp/dlrm128.yaml"
printf 'job_graphs:\n  - file: dlrm4.json\n    endpoints: [0, 1, 2, 3]\n' > "$tmp/dlrm4.yaml"
/usr/bin/python3 - "$repeat" "$tmp" "$b" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
from bench_runs import report  # noqa: E402
repeat, tmp, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def run(platform, workload, policy, out, *extra):
    return [[b, "run", "--platform", platform, "--workload", workload, "--policy", policy, "--no-slowdown",
             "--trace", "none", "--quiet", "--force", "--out", f"{tmp}/{out}", *extra]]

wide = ["--set", "servers.nic_ports=6", "--set", "ocs.count=6"]
small = ["--set", "servers.count=4", "--set", "servers.nic_ports=2", "--set", "ocs.count=2", "--set", "ocs.ports=4"]
report([
    ("row2-topoopt", run("platforms/flat-ocs-128.yaml", f"{tmp}/dlrm128.yaml", "topoopt", "r2", *wide), 30.0, None),
    ("row1-topox", run("platforms/flat-ocs-128.yaml", f"{tmp}/dlrm128.yaml", "topox", "r1"), 30.0, None),
    ("row1-eq8", run("platforms/flat-ocs-128.yaml", f"{tmp}/dlrm128.yaml", "topox:eq8", "r1e"), 30.0, None),
    ("row7-topox", run("platforms/flat-ocs-16.yaml", "workloads/dlrm-16.yaml", "topox", "r7"), 30.0, None),
    ("mip-4", run("platforms/flat-ocs-16.yaml", f"{tmp}/dlrm4.yaml", "topox:mip", "m4", "--mip-seconds", "30",
                  *small), 60.0, None),
], repeat, "bench-topox.sh", 13)
PY
