#!/usr/bin/env bash
# Opus speed targets (issue 10, item 7), each the median wall time and the largest peak memory (max RSS of the
# odcnsim process, from wait4) of REPEAT runs, each in its own process:
#   8b        the Llama3-8B preset (16 GPUs, photonic rails, opus:provisioned), one iteration     target <= 0.5 s
#   405b      the Llama3.1-405B-like preset (1,024 GPUs, photonic rails, opus), one iteration     target <= 5 s, <= 2 GiB
#   fig8      the Fig. 8 delay sweep of scripts/opus-figures.sh: 23 runs of 4 iterations, one after another
#                                                                                              target <= 60 s
#   kineto    a profiled job: the Kineto sample (nccl_data.json.gz, 10 MB of JSON) read from the workload and run
# Usage: bash scripts/bench-opus.sh [REPEAT] (default 3). Builds first if needed. Writes only into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
case "$repeat" in ''|*[!0-9]*|0) echo "bench-opus.sh: REPEAT must be a whole number >= 1 (got '$repeat')" >&2; exit 2 ;; esac
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=build/odcnsim
$b generate torchtitan --preset llama3-8b --out "$tmp/8b.json" --quiet
$b generate torchtitan --preset llama3.1-405b --out "$tmp/405b.json" --quiet
printf 'job_graphs:\n  - file: 8b.json\n    endpoints: [%s]\n' "$(seq -s, 0 15)" > "$tmp/8b.yaml"
printf 'job_graphs:\n  - file: 405b.json\n    endpoints: [%s]\n' "$(seq -s, 0 1023)" > "$tmp/405b.yaml"
/usr/bin/python3 - "$repeat" "$tmp" "$b" <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, "scripts")
from bench_runs import report  # noqa: E402
repeat, tmp, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def run(platform, workload, policy, out, iterations, *extra):
    return [b, "run", "--platform", platform, "--workload", workload, "--policy", policy, "--iterations",
            str(iterations), "--no-slowdown", "--quiet", "--force", "--out", f"{tmp}/{out}", *extra]

fig8 = [run("platforms/electrical-rail-16.yaml", f"{tmp}/8b.yaml", "opus", "e", 4)]
for ms in range(0, 101, 10):
    for mode in ("on-demand", "provisioned"):
        fig8.append(run("platforms/photonic-rail-16.yaml", f"{tmp}/8b.yaml", f"opus:{mode}", f"{mode}{ms}", 4,
                        "--set", f"ocs.reconfig_delay_ms={ms}"))
kineto = f"{tmp}/kineto.yaml"
with open(kineto, "w") as f:
    f.write(f"job_graphs:\n  - format: kineto\n    file: {os.getcwd()}/tests/data/kineto/nccl_data.json.gz\n"
            "    replicate: true\n    endpoints: [0, 1]\n")
cases = [
    ("8b", [run("platforms/photonic-rail-16.yaml", f"{tmp}/8b.yaml", "opus:provisioned", "8b", 1)], 0.5, None),
    ("405b", [run("platforms/photonic-rail-1024.yaml", f"{tmp}/405b.yaml", "opus", "405b", 1)], 5.0, 2048.0),
    ("fig8", fig8, 60.0, None),
    ("kineto", [run("platforms/electrical-16.yaml", kineto, "static", "kineto", 1)], None, None),
]
report(cases, repeat, "bench-opus.sh")
PY
