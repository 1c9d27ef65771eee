#!/usr/bin/env bash
# INC-AOI speed target (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs"; issue 24, item 8):
# 1,400 parameter-server jobs on 64 racks of 64 servers (platforms/inc-aoi-64rack.yaml) under each of the five
# policies, for Fig. 2's default workload (workloads/inc-aoi-philly.yaml: Philly sizes, 40 iterations) and the
# uniform one (workloads/inc-aoi-800.yaml, 20 iterations), both with ps_jobs.generator.jobs=1400 and a full
# trace.json, as a user runs them; each the median wall time and the largest peak memory (max RSS of the odcnsim
# process, from wait4) of REPEAT runs, each in its own process.          target <= 2 s and <= 1 GiB each
# Usage: bash scripts/bench-inc.sh [REPEAT] (default 3). Builds first if needed. Writes only into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-inc.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$repeat" "$tmp" build/odcnsim <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
from bench_runs import report  # noqa: E402
repeat, tmp, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]
print(f"1,400 jobs, 64 racks, {repeat} runs each")
report([(f"{policy} {name}", [[b, "run", "--platform", "platforms/inc-aoi-64rack.yaml", "--workload", workload,
                               "--set", "ps_jobs.generator.jobs=1400", "--policy", policy, "--quiet", "--force",
                               "--out", f"{tmp}/{policy}-{name}"]], 2.0, 1024.0)
        for name, workload in [("philly", "workloads/inc-aoi-philly.yaml"), ("uniform", "workloads/inc-aoi-800.yaml")]
        for policy in ["inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"]], repeat, "bench-inc.sh", 20)
PY
