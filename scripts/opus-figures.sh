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
# The delay and technology grids (analysis/grids/opus-fig8.yaml, opus-technologies.yaml) run through
# `odcnsim sweep`, -j N at once (default: every CPU), into DIR/runs: a second call resumes them (finished points
# are kept); --fresh starts them over. Another --set into the same DIR is refused by the sweep (its workload
# differs): use --fresh or another --out.
#   bash scripts/opus-figures.sh [--iterations N] [-j N] [--skip-405b] [--set KEY=VALUE ...] [--out DIR] [--fresh]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=4
skip405=0
sets=()
out=analysis/out/opus
jobs=$(nproc)
fresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    --skip-405b) skip405=1; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "opus-figures.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
mkdir -p "$out"
runs="$(cd "$out" && pwd)/runs"
if [ "$fresh" = 1 ] && [ -d "$runs" ]; then
  # Only a folder this script made is removed: it holds the electrical run or one of the sweeps, and nothing else.
  for entry in "$runs"/* "$runs"/.[!.]*; do
    [ -e "$entry" ] || continue
    case "$(basename "$entry")" in
      electrical|405b|opus-fig8|opus-fig8.yaml|opus-technologies|opus-technologies.yaml|405b.json|405b.yaml|8b-*.json|8b-*.yaml) ;;
      *) echo "opus-figures.sh: --fresh: $runs holds $(basename "$entry"), which this script did not write; nothing removed (choose another --out)" >&2
         exit 2 ;;
    esac
  done
  rm -rf "$runs"
fi
mkdir -p "$runs"
py=/usr/bin/python3
workload=$PWD/workloads/opus-llama3-8b.yaml
if [ ${#sets[@]} -gt 0 ]; then
  # Named after its settings, so that a sweep folder of other settings is refused, never mixed in.
  tag=$(printf '%s\n' "${sets[@]}" | sha256sum | cut -c1-12)
  build/odcnsim generate torchtitan "${sets[@]}" --force --out "$runs/8b-$tag.json" | tee "$out/generated.txt"
  printf 'job_graphs:\n  - file: 8b-%s.json\n    endpoints: [%s]\n' "$tag" "$(seq -s, 0 15)" > "$runs/8b-$tag.yaml"
  workload="$runs/8b-$tag.yaml"
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

# A shipped grid with this call's workload and iterations (absolute paths), swept into $runs/NAME.
sweep() {
  sed -e "s#^platform: ../../#platform: $PWD/#" -e "s#^workload: .*#workload: $workload#" \
    -e "s#^iterations: .*#iterations: $iterations#" "analysis/grids/$1.yaml" > "$runs/$1.yaml"
  build/odcnsim sweep "$runs/$1.yaml" --out "$runs/$1" -j "$jobs" || {
    status=$?
    echo "opus-figures.sh: the $1 sweep failed (above); with other settings, pass --fresh or another --out" >&2
    exit $status
  }
}
# fig8.csv / technologies.csv from a sweep: a row per value of its key, the two modes' steady means side by side.
table() {  # sweep key header
  $py - "$runs/$1" "$2" "$3" "$electrical" <<'PY'
import csv, json, os, sys
folder, key, header, electrical = sys.argv[1:5]
def steady(run):
    start = json.load(open(os.path.join(run, "summary.json"))).get("windows_steady_from_iteration") or 1
    rows = [r for r in csv.DictReader(open(os.path.join(run, "iterations.csv"))) if int(r["iteration"]) >= start]
    return repr(sum(float(r["duration_s"]) for r in rows) / len(rows))
by = {}
for r in csv.DictReader(open(os.path.join(folder, "sweep.csv"))):
    run = os.path.join(folder, "points", r["point"])
    delay = json.load(open(os.path.join(run, "run.json")))["platform"].get("reconfig_delay_s", "")
    by.setdefault(r[key], {"delay": delay})[r["policy"]] = steady(run)
print(header)
for value, v in sorted(by.items(), key=lambda kv: float(kv[1]["delay"])):  # by delay, as the figures draw them
    extra = [str(v["delay"])] if key == "ocs.technology" else []
    print(",".join([value] + extra + [electrical, v["opus:on-demand"], v["opus:provisioned"]]))
PY
}

start=$(date +%s.%N)
run electrical platforms/electrical-rail-16.yaml opus
cp "$runs/electrical/windows.csv" "$out/windows.csv"
electrical=$(steady "$runs/electrical")
sweep opus-fig8
table opus-fig8 ocs.reconfig_delay_ms "delay_ms,electrical_s,on_demand_s,provisioned_s" > "$out/fig8.csv"
fig8_end=$(date +%s.%N)
sweep opus-technologies
table opus-technologies ocs.technology "technology,reconfig_delay_s,electrical_s,on_demand_s,provisioned_s" \
  > "$out/technologies.csv"
if [ "$skip405" = 0 ]; then
  build/odcnsim generate torchtitan --preset llama3.1-405b --out "$runs/405b.json" --quiet
  printf 'job_graphs:\n  - file: %s/405b.json\n    endpoints: [%s]\n' "$runs" "$(seq -s, 0 1023)" > "$runs/405b.yaml"
  build/odcnsim run --platform platforms/electrical-rail-1024.yaml --workload "$runs/405b.yaml" --policy opus \
    --iterations 2 --no-slowdown --out "$runs/405b" | tee "$out/windows-405b.txt"
fi
echo "fig8 sweep: $(echo "$fig8_end - $start" | bc) s wall for 23 runs (-j $jobs; finished points are kept)" >&2
$py analysis/plot_opus.py "$out" --out "$out"
