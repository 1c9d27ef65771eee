#!/usr/bin/env bash
# INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") Fig. 2 with odcnsim:
# 800 to 1,400 parameter-server jobs (workloads/inc-aoi-800.yaml, --set ps_jobs.generator.jobs=N) on 64 racks of
# INC-capable ToRs under an OCS (platforms/inc-aoi-64rack.yaml), under INC-LJF, INC-FCFS, noINC-LJF, noINC-FCFS and
# INC-group, each with a few generator seeds.
#
#   bash scripts/inc-figures.sh [options]          ODCNSIM=/path/to/odcnsim picks the binary (default build/odcnsim)
#
# Options (each takes one value; a bad one is one line on stderr and exit 2):
#   --jobs "800 900 ... 1400"   numbers of jobs (default 800 900 1000 1100 1200 1300 1400)
#   --seeds "1 2 3"             generator seeds (default 1 2 3)
#   --policies "inc-ljf ..."    of inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group (default all five)
#   --ps-server P               colocated | dedicated | sharded: where a job's CPU PS sits without INC
#                               (ps_jobs.ps_server; default: the workload's, colocated)
#   --workers W                 philly | uniform: the workers-per-job distribution (ps_jobs.generator.workers)
#   --nic-gbps G                server NIC rate in Gb/s (pods.server_gbps=G and pods.tor_gbps=64*G, so the ToR
#                               stays non-blocking; default the platform's 40)
#   --iterations K              iterations per job (ps_jobs.generator.iterations; default the workload's 20)
#   --set KEY=VALUE             passed to every run as --set KEY=VALUE; repeatable, in order, after the above
#   --reading R                 the reconfiguration reading Fig. 2(a) and its claim use: events (default),
#                               circuits_changed, job_allocations, spanning_jobs or slots_starting_spanning_jobs
#                               (summary.json's inc_aoi.reconfiguration_readings; docs/inc-aoi-fig2.md)
#   --out DIR                   output folder (default analysis/out/inc)
#   -h, --help                  this text
#
# Writes into DIR:
#   runs/<policy>-<jobs>-seed<S>/   each run's folder (summary.json, ps_jobs.csv, slots.csv, ...). Resumable: a
#                               run whose folder holds summary.json is not run again. runs/settings.txt records
#                               the binary's options; a DIR whose runs were made with other options is refused.
#                               runs/joblog.txt: GNU parallel's log of the runs just done (each one's seconds).
#   fig2-runs.csv   one row per run: jobs,policy,seed,reconfigurations,batch_completion_s,mean_jct_s, then every
#                   reading (events,circuits_changed,job_allocations,spanning_jobs,slots_starting_spanning_jobs),
#                   spanning_fraction (spanning_jobs / jobs) and FCFS's head-of-line blocked slots
#                   (head_blocked_servers, head_blocked_ports)
#   fig2.csv        one row per (jobs, policy): <column>_mean and <column>_sd (sample sd, n - 1; empty for one
#                   seed) of each of those columns over the seeds
#   jct/<policy>-<jobs>-seed<S>.csv   each run's ps_jobs.csv (one row per job, its JCT in jct_s)
# then analysis/plot_inc.py --reading R draws fig2a-reconfigurations.png (Fig. 2(a)), fig2b-completion.png
# (Fig. 2(b)) and writes fig2-claims.csv, fig2-size-classes.csv and fig2-blocking.csv. Runs go 2 at a time (GNU
# parallel if installed, else xargs -P2); each takes about 0.1-2 s. The wall time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
jobs_list="800 900 1000 1100 1200 1300 1400"
seeds="1 2 3"
policies="inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group"
ps_server="" workers="" nic="" iterations="" reading="events" out="analysis/out/inc"
sets=()
die() { echo "inc-figures.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs|--seeds|--policies|--ps-server|--workers|--nic-gbps|--iterations|--set|--reading|--out)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      case "$1" in
        --jobs) jobs_list="$2" ;;
        --seeds) seeds="$2" ;;
        --policies) policies="$2" ;;
        --ps-server) ps_server="$2" ;;
        --workers) workers="$2" ;;
        --nic-gbps) nic="$2" ;;
        --iterations) iterations="$2" ;;
        --set) sets+=("$2") ;;
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
for kv in "${sets[@]+"${sets[@]}"}"; do
  [[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_.]*=.+$ ]] || die "--set: '$kv' is not KEY=VALUE"
done
[ -n "$out" ] || die "--out: empty"
[ ! -e "$out" ] || [ -d "$out" ] || die "--out: '$out' is not a folder"

bin="${ODCNSIM:-build/odcnsim}"
if [ -z "${ODCNSIM:-}" ] && [ ! -x "$bin" ]; then bash scripts/bootstrap.sh; fi
[ -x "$bin" ] || die "ODCNSIM: '$bin' is not an executable file"

# The options every run gets besides --policy, jobs and --seed, in a fixed order.
extra=()
[ -z "$ps_server" ] || extra+=(--set "ps_jobs.ps_server=$ps_server")
[ -z "$workers" ] || extra+=(--set "ps_jobs.generator.workers=$workers")
[ -z "$iterations" ] || extra+=(--set "ps_jobs.generator.iterations=$iterations")
if [ -n "$nic" ]; then
  tor=$(/usr/bin/python3 -c "import sys; g = float(sys.argv[1]); print(repr(64 * g).removesuffix('.0'))" "$nic")
  extra+=(--set "pods.server_gbps=$nic" --set "pods.tor_gbps=$tor")
fi
for kv in "${sets[@]+"${sets[@]}"}"; do extra+=(--set "$kv"); done

mkdir -p "$out/runs"
rm -rf "$out/jct"
mkdir -p "$out/jct"
settings="platforms/inc-aoi-64rack.yaml workloads/inc-aoi-800.yaml --no-slowdown --trace none ${extra[*]+"${extra[*]}"}"
if [ -f "$out/runs/settings.txt" ]; then
  [ "$(cat "$out/runs/settings.txt")" = "$settings" ] \
    || die "--out: $out/runs holds runs made with '$(cat "$out/runs/settings.txt")', not '$settings'; pick another --out or remove $out/runs"
else
  printf '%s\n' "$settings" >"$out/runs/settings.txt"
fi

# One line per run still to do: name, policy, jobs, seed.
todo="$out/runs/.todo"
: >"$todo"
total=0
for n in $jobs_list; do
  for p in $policies; do
    for s in $seeds; do
      total=$((total + 1))
      name="$p-$n-seed$s"
      [ -f "$out/runs/$name/summary.json" ] || printf '%s %s %s %s\n' "$name" "$p" "$n" "$s" >>"$todo"
    done
  done
done
count=$(wc -l <"$todo")

# One run: into <name>.part, renamed when the binary succeeded (an interrupted run leaves no summary.json).
export INC_BIN="$bin" INC_RUNS="$out/runs"
INC_EXTRA=""
[ ${#extra[@]} -eq 0 ] || INC_EXTRA=$(printf '%q ' "${extra[@]}")
export INC_EXTRA
one_run() {
  local name=$1 p=$2 n=$3 s=$4
  rm -rf "$INC_RUNS/$name.part" "$INC_RUNS/$name"
  eval "\"\$INC_BIN\" run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml \
    --policy \"\$p\" --set \"ps_jobs.generator.jobs=\$n\" --seed \"\$s\" $INC_EXTRA --no-slowdown --quiet \
    --trace none --out \"\$INC_RUNS/\$name.part\"" || { echo "inc-figures.sh: run $name failed" >&2; return 1; }
  mv "$INC_RUNS/$name.part" "$INC_RUNS/$name"
}
export -f one_run

start=$(date +%s.%N)
if [ "$count" -gt 0 ]; then
  if command -v parallel >/dev/null 2>&1; then
    parallel --will-cite -j2 --halt now,fail=1 --joblog "$out/runs/joblog.txt" --colsep ' ' one_run {1} {2} {3} {4} <"$todo"
  else
    xargs -P2 -n4 bash -c 'one_run "$@"' _ <"$todo"
  fi
fi
end=$(date +%s.%N)
rm -f "$todo"

# fig2-runs.csv, fig2.csv and jct/ from the run folders, in the order of --jobs, --policies, --seeds.
/usr/bin/python3 - "$out" "$jobs_list" "$policies" "$seeds" <<'PY'
import csv, json, math, os, shutil, sys
out = sys.argv[1]
jobs_list, policies, seeds = (a.split() for a in sys.argv[2:5])
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
            d = os.path.join(out, "runs", name)
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
printf "inc-figures: %d of %d runs done now (the rest were already in %s/runs): runs %.1f s wall, all %.1f s wall\n" \
  "$count" "$total" "$out" "$(echo "$end - $start" | bc)" "$(echo "$t1 - $t0" | bc)"
