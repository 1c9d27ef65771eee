#!/usr/bin/env bash
# INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") Fig. 2 with odcnsim:
# 800 to 1,400 parameter-server jobs (workloads/inc-aoi-800.yaml, --set ps_jobs.generator.jobs=N) on 64 racks of
# INC-capable ToRs under an OCS (platforms/inc-aoi-64rack.yaml), under INC-LJF, INC-FCFS, noINC-LJF, noINC-FCFS and
# INC-group, each with a few generator seeds. Writes into analysis/out/inc/:
#   fig2-runs.csv       one row per run: jobs,policy,seed,reconfigurations,batch_completion_s,mean_jct_s
#   fig2.csv            one row per (jobs, policy): mean and sample sd (n - 1; empty for one seed) over the seeds
#   jct/<policy>-<jobs>-seed<S>.csv   each run's ps_jobs.csv (one row per job, its JCT in jct_s)
# then analysis/plot_inc.py draws fig2a-reconfigurations.png (Fig. 2(a)), fig2b-completion.png (Fig. 2(b)) and
# writes fig2-claims.csv (the paper's percentages beside odcnsim's). Every run is about 0.5-1.5 s (105 by default).
#   bash scripts/inc-figures.sh [--jobs "800 900 ... 1400"] [--seeds "1 2 3"] [--policies "inc-ljf ..."]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs_list="800 900 1000 1100 1200 1300 1400"
seeds="1 2 3"
policies="inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group"
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs|--seeds|--policies)
      [ $# -ge 2 ] || { echo "inc-figures.sh: $1 needs a value (see --help)" >&2; exit 2; }
      case "$1" in
        --jobs) jobs_list="$2" ;;
        --seeds) seeds="$2" ;;
        --policies) policies="$2" ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "inc-figures.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for n in $jobs_list; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "inc-figures.sh: --jobs: '$n' is not a positive integer" >&2; exit 2; }
done
for s in $seeds; do
  [[ "$s" =~ ^[0-9]+$ ]] || { echo "inc-figures.sh: --seeds: '$s' is not a non-negative integer" >&2; exit 2; }
done
for p in $policies; do
  case "$p" in
    inc-ljf|inc-fcfs|noinc-ljf|noinc-fcfs|inc-group) ;;
    *) echo "inc-figures.sh: --policies: '$p' is not one of inc-ljf inc-fcfs noinc-ljf noinc-fcfs inc-group" >&2
       exit 2 ;;
  esac
done
[ -n "$jobs_list" ] && [ -n "$seeds" ] && [ -n "$policies" ] \
  || { echo "inc-figures.sh: --jobs, --seeds and --policies need at least one value each" >&2; exit 2; }

[ -x build/odcnsim ] || bash scripts/bootstrap.sh
out=analysis/out/inc
mkdir -p "$out"
rm -rf "$out/jct"
mkdir -p "$out/jct"
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
py=/usr/bin/python3

start=$(date +%s.%N)
count=0
for n in $jobs_list; do
  for p in $policies; do
    for s in $seeds; do
      name="$p-$n-seed$s"
      build/odcnsim run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml \
        --policy "$p" --set "ps_jobs.generator.jobs=$n" --seed "$s" --no-slowdown --quiet --trace none \
        --out "$runs/$name"
      cp "$runs/$name/ps_jobs.csv" "$out/jct/$name.csv"
      count=$((count + 1))
    done
  done
done
end=$(date +%s.%N)

# fig2-runs.csv and fig2.csv from the run folders, in the order of --jobs, --policies, --seeds.
$py - "$runs" "$out" "$jobs_list" "$policies" "$seeds" <<'PY'
import csv, json, math, os, sys
runs, out = sys.argv[1], sys.argv[2]
jobs_list, policies, seeds = (a.split() for a in sys.argv[3:6])

def mean_sd(v):
    m = math.fsum(v) / len(v)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else None
    return repr(m), "" if sd is None else repr(sd)

with open(os.path.join(out, "fig2-runs.csv"), "w", newline="") as f_runs, \
        open(os.path.join(out, "fig2.csv"), "w", newline="") as f_agg:
    w_runs = csv.writer(f_runs, lineterminator="\n")
    w_agg = csv.writer(f_agg, lineterminator="\n")
    w_runs.writerow(["jobs", "policy", "seed", "reconfigurations", "batch_completion_s", "mean_jct_s"])
    w_agg.writerow(["jobs", "policy", "seeds", "reconfigurations_mean", "reconfigurations_sd",
                    "batch_completion_s_mean", "batch_completion_s_sd", "mean_jct_s_mean", "mean_jct_s_sd"])
    for n in jobs_list:
        for p in policies:
            rec, bct, jct = [], [], []
            for s in seeds:
                d = os.path.join(runs, f"{p}-{n}-seed{s}")
                with open(os.path.join(d, "summary.json")) as f:
                    summary = json.load(f)
                with open(os.path.join(d, "ps_jobs.csv"), newline="") as f:
                    times = [float(r["jct_s"]) for r in csv.DictReader(f) if r["jct_s"] != ""]
                rec.append(int(summary["reconfigurations"]))
                bct.append(float(summary["inc_aoi"]["batch_completion_s"]))
                jct.append(math.fsum(times) / len(times))
                w_runs.writerow([n, p, s, rec[-1], repr(bct[-1]), repr(jct[-1])])
            w_agg.writerow([n, p, len(seeds), *mean_sd(rec), *mean_sd(bct), *mean_sd(jct)])
PY
$py analysis/plot_inc.py "$out/fig2.csv" --out "$out"
printf "inc-figures: %d runs in %.1f s wall\n" "$count" "$(echo "$end - $start" | bc)"

# A small table: the seed means per (jobs, policy).
$py - "$out/fig2.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(f"{'jobs':>5}  {'policy':<11} {'seeds':>5} {'reconfigurations':>16} {'batch_completion_s':>18} {'mean_jct_s':>10}")
for r in rows:
    print(f"{r['jobs']:>5}  {r['policy']:<11} {r['seeds']:>5} {float(r['reconfigurations_mean']):>16.1f} "
          f"{float(r['batch_completion_s_mean']):>18.1f} {float(r['mean_jct_s_mean']):>10.2f}")
PY
