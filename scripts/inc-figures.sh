#!/usr/bin/env bash
# INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") Fig. 2 with odcnsim:
# 800 to 1,400 parameter-server jobs (a workload's generator with --set ps_jobs.generator.jobs=N) on 64 racks of
# INC-capable ToRs under an OCS (platforms/inc-aoi-64rack.yaml), under INC-LJF, INC-FCFS, noINC-LJF, noINC-FCFS and
# INC-group, each with a few generator seeds. The default workload, workloads/inc-aoi-philly.yaml, has the paper's
# Philly job sizes at a load where jobs cross racks (40 iterations, 80 arrivals/s: a deviation it states);
# --workload workloads/inc-aoi-800.yaml is the paper's load with uniform sizes (a deviation: docs/inc-aoi-fig2.md).
#
#   bash scripts/inc-figures.sh [options]          ODCNSIM=/path/to/odcnsim picks the binary (default build/odcnsim)
#
# Options (each takes one value; a bad one is one line on stderr and exit 2):
#   --jobs "800 900 ... 1400"   numbers of jobs (default 800 900 1000 1100 1200 1300 1400)
#   --seeds "1 2 3"             generator seeds (default 1 2 3)
#   --policies "inc-ljf ..."    of inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group (default all five)
#   --workload FILE             a ps_jobs workload with a generator (default workloads/inc-aoi-philly.yaml)
#   --ps-server P               colocated | dedicated | sharded: where a job's CPU PS sits without INC
#                               (ps_jobs.ps_server; default: the workload's, colocated)
#   --workers W                 philly | uniform: the workers-per-job distribution (ps_jobs.generator.workers)
#   --nic-gbps G                server NIC rate in Gb/s (pods.server_gbps=G and pods.tor_gbps=64*G, so the ToR
#                               stays non-blocking; default the platform's 40)
#   --iterations K              iterations per job (ps_jobs.generator.iterations; default the workload's)
#   --set KEY=VALUE             every run gets KEY=VALUE (a one-valued key of the grid); repeatable, each key once,
#                               and not a key another option sets (e.g. --set ocs.base_topology=torus)
#   --reading R                 the reconfiguration reading Fig. 2(a) and its claim use: events (default),
#                               circuits_changed, job_allocations, spanning_jobs or slots_starting_spanning_jobs
#                               (summary.json's inc_aoi.reconfiguration_readings; docs/inc-aoi-fig2.md)
#   --out DIR                   output folder (default analysis/out/inc)
#   -h, --help                  this text
#
# Writes into DIR:
#   grid.yaml       the grid of runs (jobs x policies x seeds, the options above as one-valued keys)
#   sweep/          odcnsim sweep's folder for it (docs/workflow.md): sweep.json, sweep.csv and points/ID/, each an
#                   ordinary run folder (summary.json, ps_jobs.csv, slots.csv, ...), named after its values.
#                   Resumable: run the same command again and the points already finished are not run again.
#                   Points made with other options have other names: they stay in points/ and are not used.
#   fig2-runs.csv   one row per run: jobs,policy,seed,reconfigurations,batch_completion_s,mean_jct_s, then every
#                   reading (events,circuits_changed,job_allocations,spanning_jobs,slots_starting_spanning_jobs),
#                   spanning_fraction (spanning_jobs / jobs) and FCFS's head-of-line blocked slots
#                   (head_blocked_servers, head_blocked_ports)
#   fig2.csv        one row per (jobs, policy): <column>_mean and <column>_sd (sample sd, n - 1; empty for one
#                   seed) of each of those columns over the seeds
#   jct/<policy>-<jobs>-seed<S>.csv   each run's ps_jobs.csv (one row per job, its JCT in jct_s)
# then analysis/plot_inc.py --reading R draws fig2a-reconfigurations.png (Fig. 2(a)), fig2b-completion.png
# (Fig. 2(b)) and writes fig2-claims.csv, fig2-size-classes.csv and fig2-blocking.csv. Runs go 2 at a time
# (odcnsim sweep -j 2); each takes about 0.1-1 s. The wall time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
jobs_list="800 900 1000 1100 1200 1300 1400"
seeds="1 2 3"
policies="inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group"
workload="workloads/inc-aoi-philly.yaml" ps_server="" workers="" nic="" iterations="" reading="events" out="analysis/out/inc"
user_sets=()
die() { echo "inc-figures.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs|--seeds|--policies|--workload|--ps-server|--workers|--nic-gbps|--iterations|--set|--reading|--out)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      case "$1" in
        --jobs) jobs_list="$2" ;;
        --seeds) seeds="$2" ;;
        --policies) policies="$2" ;;
        --workload) workload="$2" ;;
        --ps-server) ps_server="$2" ;;
        --workers) workers="$2" ;;
        --nic-gbps) nic="$2" ;;
        --iterations) iterations="$2" ;;
        --set) user_sets+=("$2") ;;
        --reading) reading="$2" ;;
        --out) out="$2" ;;
      esac
      shift 2 ;;
    -h|--help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
for n in $jobs_list; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--jobs: '$n' is not a positive integer"
done
for s in $seeds; do
  [[ "$s" =~ ^[0-9]+$ ]] || die "--seeds: '$s' is not a non-negative integer"
done
for p in $policies; do
  case "$p" in
    inc-ljf|inc-fcfs|noinc-ljf|noinc-fcfs|inc-group) ;;
    *) die "--policies: '$p' is not one of inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group" ;;
  esac
done
[ -n "$jobs_list" ] && [ -n "$seeds" ] && [ -n "$policies" ] \
  || die "--jobs, --seeds and --policies need at least one value each"
case "$ps_server" in ""|colocated|dedicated|sharded) ;; *) die "--ps-server: '$ps_server' is not one of colocated dedicated sharded" ;; esac
case "$workers" in ""|philly|uniform) ;; *) die "--workers: '$workers' is not one of philly uniform" ;; esac
[ -z "$nic" ] || [[ "$nic" =~ ^[0-9]+(\.[0-9]+)?$ && ! "$nic" =~ ^0+(\.0+)?$ ]] \
  || die "--nic-gbps: '$nic' is not a positive number"
[ -z "$iterations" ] || [[ "$iterations" =~ ^[1-9][0-9]*$ ]] || die "--iterations: '$iterations' is not a positive integer"
case "$reading" in
  events|circuits_changed|job_allocations|spanning_jobs|slots_starting_spanning_jobs) ;;
  *) die "--reading: '$reading' is not one of events circuits_changed job_allocations spanning_jobs slots_starting_spanning_jobs" ;;
esac
seen_keys=" ps_jobs.generator.jobs "
[ -z "$ps_server" ] || seen_keys+="ps_jobs.ps_server "
[ -z "$workers" ] || seen_keys+="ps_jobs.generator.workers "
[ -z "$iterations" ] || seen_keys+="ps_jobs.generator.iterations "
[ -z "$nic" ] || seen_keys+="pods.server_gbps pods.tor_gbps "
for kv in "${user_sets[@]+"${user_sets[@]}"}"; do
  [[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_.]*=[^][{},#:\'\"]+$ ]] \
    || die "--set: '$kv' is not KEY=VALUE (a value without , [ ] { } # : or quotes)"
  case "$seen_keys" in *" ${kv%%=*} "*) die "--set: ${kv%%=*} is given twice, or by another option (--jobs, ...)" ;; esac
  seen_keys+="${kv%%=*} "
done
[ -f "$workload" ] || die "--workload: '$workload' is not a file"
[ -n "$out" ] || die "--out: empty"
[ ! -e "$out" ] || [ -d "$out" ] || die "--out: '$out' is not a folder"

bin="${ODCNSIM:-build/odcnsim}"
if [ -z "${ODCNSIM:-}" ] && [ ! -x "$bin" ]; then bash scripts/bootstrap.sh; fi
[ -x "$bin" ] || die "ODCNSIM: '$bin' is not an executable file"

# The grid: every run gets the workload's generator with jobs = N, under each policy and seed, plus the options
# above as one-valued keys. odcnsim sweep runs it 2 at a time and resumes; points made with other options have
# other names, so they are never mixed in.
sets=("ps_jobs.generator.jobs=[$(echo $jobs_list | tr ' ' ',')]")
[ -z "$ps_server" ] || sets+=("ps_jobs.ps_server=[$ps_server]")
[ -z "$workers" ] || sets+=("ps_jobs.generator.workers=[$workers]")
[ -z "$iterations" ] || sets+=("ps_jobs.generator.iterations=[$iterations]")
if [ -n "$nic" ]; then
  tor=$(/usr/bin/python3 -c "import sys; g = float(sys.argv[1]); print(repr(64 * g).removesuffix('.0'))" "$nic")
  sets+=("pods.server_gbps=[$nic]" "pods.tor_gbps=[$tor]")
fi
for kv in "${user_sets[@]+"${user_sets[@]}"}"; do sets+=("${kv%%=*}=[${kv#*=}]"); done

mkdir -p "$out"
grid="$out/grid.yaml"
{
  echo "# INC-AOI Fig. 2 (scripts/inc-figures.sh): $jobs_list jobs x $policies x seeds $seeds"
  echo "platform: $(pwd)/platforms/inc-aoi-64rack.yaml"
  echo "workload: $(realpath "$workload")"
  echo "policies: [$(echo $policies | tr ' ' ',')]"
  echo "seeds: [$(echo $seeds | tr ' ' ',')]"
  echo "slowdown: false"
  echo "set:"
  for kv in "${sets[@]}"; do echo "  ${kv%%=*}: ${kv#*=}"; done
} >"$grid.tmp"
mv "$grid.tmp" "$grid"

rm -rf "$out/jct"
mkdir -p "$out/jct"
start=$(date +%s.%N)
"$bin" sweep "$grid" --out "$out/sweep" -j 2 || { echo "inc-figures.sh: odcnsim sweep failed (see above)" >&2; exit 2; }
end=$(date +%s.%N)

# fig2-runs.csv, fig2.csv and jct/ from the run folders, in the order of --jobs, --policies, --seeds.
/usr/bin/python3 - "$out" "$jobs_list" "$policies" "$seeds" <<'PY'
import csv, json, math, os, shutil, sys
out = sys.argv[1]
jobs_list, policies, seeds = (a.split() for a in sys.argv[2:5])
with open(os.path.join(out, "sweep", "sweep.json")) as f:
    folder = {(p["set"]["ps_jobs.generator.jobs"], p["policy"], str(p["seed"])): p["id"] for p in json.load(f)["points"]}
READINGS = ["events", "circuits_changed", "job_allocations", "spanning_jobs", "slots_starting_spanning_jobs"]
METRICS = ["reconfigurations", "batch_completion_s", "mean_jct_s"] + READINGS + \
    ["spanning_fraction", "head_blocked_servers", "head_blocked_ports"]

def mean_sd(v):
    m = math.fsum(v) / len(v)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else None
    return [repr(m), "" if sd is None else repr(sd)]

rows_runs, rows_agg = [], []
for n in jobs_list:
    for p in policies:
        values = {m: [] for m in METRICS}
        for s in seeds:
            name = f"{p}-{n}-seed{s}"
            d = os.path.join(out, "sweep", "points", folder[(n, p, s)])
            with open(os.path.join(d, "summary.json")) as f:
                summary = json.load(f)
            with open(os.path.join(d, "ps_jobs.csv"), newline="") as f:
                times = [float(r["jct_s"]) for r in csv.DictReader(f) if r["jct_s"] != ""]
            shutil.copyfile(os.path.join(d, "ps_jobs.csv"), os.path.join(out, "jct", name + ".csv"))
            inc = summary["inc_aoi"]
            r = {"reconfigurations": int(summary["reconfigurations"]),
                 "batch_completion_s": float(inc["batch_completion_s"]),
                 "mean_jct_s": math.fsum(times) / len(times)}
            for k in READINGS:
                r[k] = int(inc["reconfiguration_readings"][k])
            r["spanning_fraction"] = r["spanning_jobs"] / int(summary["jobs"])
            r["head_blocked_servers"] = int(inc["fcfs_head_blocked_slots"]["servers"])
            r["head_blocked_ports"] = int(inc["fcfs_head_blocked_slots"]["ports"])
            for m in METRICS:
                values[m].append(r[m])
            rows_runs.append([n, p, s] + [repr(r[m]) if isinstance(r[m], float) else r[m] for m in METRICS])
        rows_agg.append([n, p, len(seeds)] + [x for m in METRICS for x in mean_sd(values[m])])

def write(path, header, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)

write(os.path.join(out, "fig2-runs.csv"), ["jobs", "policy", "seed"] + METRICS, rows_runs)
write(os.path.join(out, "fig2.csv"), ["jobs", "policy", "seeds"] + [f"{m}_{k}" for m in METRICS for k in ("mean", "sd")],
      rows_agg)
PY
/usr/bin/python3 analysis/plot_inc.py "$out/fig2.csv" --out "$out" --reading "$reading" --jct "$out/jct"

# A small table: the seed means per (jobs, policy).
/usr/bin/python3 - "$out/fig2.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(f"{'jobs':>5}  {'policy':<11} {'seeds':>5} {'events':>7} {'changed':>8} {'allocs':>7} {'spanning':>8} "
      f"{'batch_s':>9} {'mean_jct_s':>10}")
for r in rows:
    print(f"{r['jobs']:>5}  {r['policy']:<11} {r['seeds']:>5} {float(r['events_mean']):>7.1f} "
          f"{float(r['circuits_changed_mean']):>8.1f} {float(r['job_allocations_mean']):>7.1f} "
          f"{float(r['spanning_jobs_mean']):>8.1f} {float(r['batch_completion_s_mean']):>9.1f} "
          f"{float(r['mean_jct_s_mean']):>10.2f}")
PY
t1=$(date +%s.%N)
printf "inc-figures: %d runs in %s/sweep: sweep %.1f s wall, all %.1f s wall\n" \
  "$(( $(echo $jobs_list | wc -w) * $(echo $policies | wc -w) * $(echo $seeds | wc -w) ))" "$out" "$(echo "$end - $start" | bc)" "$(echo "$t1 - $t0" | bc)"
