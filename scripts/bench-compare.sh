#!/usr/bin/env bash
# The job-level benchmarks of two builds side by side, in one sitting: each case runs REPEAT times with each build,
# alternating (so that a slow spell of the machine hits both), each run in its own process from its own source tree
# (the scenario files as that build shipped them). Prints the median wall time, the median CPU time (user + system,
# from wait4: steadier than wall time when the machine has slow spells) and the largest peak memory (max RSS) of
# each, and the ratios new / old.
# Usage: bash scripts/bench-compare.sh OLD_TREE [NEW_TREE] [REPEAT]
#   OLD_TREE, NEW_TREE: source trees with a built build/odcnsim (NEW_TREE defaults to this one); REPEAT: default 3.
# Writes only into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:?usage: bench-compare.sh OLD_TREE [NEW_TREE] [REPEAT]}"
new="${2:-$PWD}"
repeat="${3:-3}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-compare.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
for t in "$old" "$new"; do
  [ -x "$t/build/odcnsim" ] || { echo "bench-compare.sh: $t/build/odcnsim: not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$old" "$new" "$repeat" "$tmp" <<'PY'
import os, statistics, subprocess, sys, time

old, new, repeat, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def run(platform, workload, policy, *extra):
    return ["run", "--platform", f"platforms/{platform}.yaml", "--workload", f"workloads/{workload}.yaml",
            "--policy", policy, "--quiet", "--force", *extra]

CASES = [
    ("tdm4-1000", run("clos-256pod", "llama3-1000-physical", "tdm4", "--iterations", "1", "--no-slowdown",
                      "--trace", "none")),
    ("tdm4-1000+slowdown", run("clos-256pod", "llama3-1000-physical", "tdm4", "--iterations", "1")),
    ("static-1000", run("clos-256pod", "llama3-1000-physical", "static", "--no-slowdown", "--trace", "none")),
    ("inc-ljf-800", run("inc-aoi-64rack", "inc-aoi-800", "inc-ljf", "--trace", "none")),
    ("topox-row7", run("flat-ocs-16", "dlrm-16", "topox", "--no-slowdown")),
    ("topoopt-row7", run("flat-ocs-16", "dlrm-16", "topoopt", "--no-slowdown")),
    ("opus-8b", run("photonic-rail-16", "opus-llama3-8b", "opus", "--iterations", "1", "--no-slowdown")),
]

def timed(tree, args, out):
    t0 = time.monotonic()
    p = subprocess.Popen([f"{tree}/build/odcnsim", *args, "--out", out], cwd=tree,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-compare.sh: {tree}: failed: {' '.join(args)}\n{p.stderr.read().decode()}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime

print(f"{'case':<20} {'old s':>9} {'new s':>9} {'new/old':>8} {'old cpu':>8} {'new cpu':>8} {'new/old':>8} "
      f"{'old MiB':>9} {'new MiB':>9}   (medians of {repeat})")
for name, args in CASES:
    samples = {old: [], new: []}
    for r in range(repeat):
        for tree in (old, new) if r % 2 == 0 else (new, old):
            samples[tree].append(timed(tree, args, f"{tmp}/{name}-{r}-{len(samples[tree])}"))
    w = {t: statistics.median(x for x, _, _ in s) for t, s in samples.items()}
    c = {t: statistics.median(z for _, _, z in s) for t, s in samples.items()}
    m = {t: max(y for _, y, _ in s) for t, s in samples.items()}
    print(f"{name:<20} {w[old]:>9.3f} {w[new]:>9.3f} {w[new] / w[old]:>8.3f} {c[old]:>8.3f} {c[new]:>8.3f} "
          f"{c[new] / c[old]:>8.3f} {m[old]:>9.1f} {m[new]:>9.1f}", flush=True)
PY
