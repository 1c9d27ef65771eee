#!/usr/bin/env bash
# INC-AOI speed target (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs"; issue 11, item 7):
# 1,400 parameter-server jobs on 64 racks of 64 servers (platforms/inc-aoi-64rack.yaml, workloads/inc-aoi-800.yaml
# with ps_jobs.generator.jobs=1400, 20 iterations a job), under each of the five policies, each the median wall
# time and the largest peak memory (max RSS of the odcnsim process, from wait4) of REPEAT runs, each in its own
# process.                                                                     target <= 5 s and <= 1 GiB each
# Usage: bash scripts/bench-inc.sh [REPEAT] (default 3). Builds first if needed. Writes only into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-inc.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$repeat" "$tmp" build/odcnsim <<'PY'
import os, statistics, subprocess, sys, time
repeat, tmp, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]
print(f"{'policy':<12} {'median wall':>12} {'peak RSS':>10}   (1,400 jobs, 64 racks, {repeat} runs each)")
for policy in ["inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"]:
    walls, peak = [], 0.0
    for i in range(repeat):
        argv = [b, "run", "--platform", "platforms/inc-aoi-64rack.yaml", "--workload", "workloads/inc-aoi-800.yaml",
                "--set", "ps_jobs.generator.jobs=1400", "--policy", policy, "--quiet", "--force", "--out",
                f"{tmp}/{policy}"]
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"bench-inc.sh: failed: {' '.join(argv)}\n{p.stderr.read().decode()}")
        walls.append(time.monotonic() - t0)
        peak = max(peak, usage.ru_maxrss / 1024)
    print(f"{policy:<12} {statistics.median(walls):>10.2f} s {peak:>6.0f} MiB")
PY
