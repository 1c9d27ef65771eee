#!/usr/bin/env bash
# Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters") side by side with odcnsim, on the
# Llama3-8B TorchTitan-like preset (TP 4 x FSDP 2 x PP 2, 16 GPUs; workloads/opus-llama3-8b.yaml):
#   fig8.csv          steady-state iteration time vs reconfiguration delay 0-100 ms: electrical, on-demand,
#                     provisioned (the paper: +6.5 % and +3.5 % at 100 ms)
#   windows.csv       the windows between parallelism phases on the electrical twin (§3.1's definition)
#   technologies.csv  iteration overhead per OCS technology of Table 3, both modes
#   windows-405b.txt  windows per iteration of the Llama3.1-405B-like preset on 1,024 GPUs (the paper: 127)
# then analysis/plot_opus.py draws them into analysis/out/opus/*.png. Steady state: the mean of the iterations
# from the run's windows_steady_from_iteration (iteration 0 starts with dark rails and is the provisioned mode's
# profile; a provisioned run may settle over one more). About 15 s on 2 cores.
# With --set KEY=VALUE (repeatable; generate torchtitan's keys, e.g. utilisation=0.21 microbatches=3) the 8B job
# is generated with them instead of docs/examples/llama3-8b-torchtitan.json; --out DIR writes elsewhere.
#   bash scripts/opus-figures.sh [--iterations N] [--skip-405b] [--set KEY=VALUE ...] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=4
skip405=0
sets=()
out=analysis/out/opus
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    --skip-405b) skip405=1; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "opus-figures.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
mkdir -p "$out"
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
py=/usr/bin/python3
workload=workloads/opus-llama3-8b.yaml
if [ ${#sets[@]} -gt 0 ]; then
  build/odcnsim generate torchtitan "${sets[@]}" --out "$runs/8b.json" | tee "$out/generated.txt"
  printf 'job_graphs:\n  - file: %s/8b.json\n    endpoints: [%s]\n' "$runs" "$(seq -s, 0 15)" > "$runs/8b.yaml"
  workload="$runs/8b.yaml"
fi

# Mean iteration time of a finished run's steady state: from the iteration its summary names
# (windows_steady_from_iteration: iteration 0 and any settling iterations left out), else from iteration 1.
steady() {
  $py - "$1/iterations.csv" "$1/summary.json" <<'PY'
import csv, json, sys
start = json.load(open(sys.argv[2])).get("windows_steady_from_iteration") or 1
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["iteration"]) >= start]
print(repr(sum(float(r["duration_s"]) for r in rows) / len(rows)))
PY
}
run() {  # name platform policy [--set ...]
  local name="$1" platform="$2" policy="$3"
  shift 3
  build/odcnsim run --platform "$platform" --workload "$workload" --policy "$policy" --iterations "$iterations" \
    --no-slowdown --quiet --out "$runs/$name" "$@"
}

start=$(date +%s.%N)
run electrical platforms/electrical-rail-16.yaml opus
cp "$runs/electrical/windows.csv" "$out/windows.csv"
electrical=$(steady "$runs/electrical")
echo "delay_ms,electrical_s,on_demand_s,provisioned_s" > "$out/fig8.csv"
for ms in 0 10 20 30 40 50 60 70 80 90 100; do
  run "d$ms" platforms/photonic-rail-16.yaml opus:on-demand --set "ocs.reconfig_delay_ms=$ms"
  run "p$ms" platforms/photonic-rail-16.yaml opus:provisioned --set "ocs.reconfig_delay_ms=$ms"
  echo "$ms,$electrical,$(steady "$runs/d$ms"),$(steady "$runs/p$ms")" >> "$out/fig8.csv"
done
fig8_end=$(date +%s.%N)
echo "technology,reconfig_delay_s,electrical_s,on_demand_s,provisioned_s" > "$out/technologies.csv"
for tech in plzt sip rotornet 3d_mems piezo liquid_crystal robotic; do
  run "t$tech-d" platforms/photonic-rail-16.yaml opus:on-demand --set "ocs.technology=$tech"
  run "t$tech-p" platforms/photonic-rail-16.yaml opus:provisioned --set "ocs.technology=$tech"
  delay=$($py -c "import json,sys; print(json.load(open(sys.argv[1]))['platform']['reconfig_delay_s'])" "$runs/t$tech-d/run.json" 2>/dev/null || echo "")
  echo "$tech,$delay,$electrical,$(steady "$runs/t$tech-d"),$(steady "$runs/t$tech-p")" >> "$out/technologies.csv"
done
if [ "$skip405" = 0 ]; then
  build/odcnsim generate torchtitan --preset llama3.1-405b --out "$runs/405b.json" --quiet
  printf 'job_graphs:\n  - file: %s/405b.json\n    endpoints: [%s]\n' "$runs" "$(seq -s, 0 1023)" > "$runs/405b.yaml"
  build/odcnsim run --platform platforms/electrical-rail-1024.yaml --workload "$runs/405b.yaml" --policy opus \
    --iterations 2 --no-slowdown --out "$runs/405b" | tee "$out/windows-405b.txt"
fi
echo "fig8 sweep: $(echo "$fig8_end - $start" | bc) s wall for 23 runs" >&2
$py analysis/plot_opus.py "$out" --out "$out"
