#!/usr/bin/env bash
# TOPO-X (Y.-X. Hu, H. Tian, Y. Zhao, F. Wu, X.-Y. Li, "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML
# Training Parallelism") Table III with odcnsim: one DLRM iteration (Table II, `odcnsim generate dlrm`) on each of the
# 14 flat OCS configurations, under policy topoopt (TopologyFinder's static topology, forwarding through servers) and
# policy topox (circuits and transfers planned slot by slot; CBC's MIP, limited by --mip-seconds, where the model has
# at most 20,000 columns, else the critical-path heuristic), topox again with a reconfiguration delay of 0
# (topox-nodelay: circuits change at slot boundaries for free), and topox:paper on that δ = 0 fabric (topox-paper: the
# paper's reading, Eq. 6 per transfer with no circuit capacity; its planned time and the time the engine takes to run
# that plan on the fabric's capacities), and topox:aligned (topox-aligned: slot-aligned starts only, a sensitivity:
# continuous starts are ours). Writes into analysis/out/topox/:
#   table3-runs.csv   one row per (row, run): the iteration time, planner and simulation wall time, MIP status
#   table3.csv        one row per Table III row: odcnsim's and the paper's times and speedups, bounds (the ring
#                     all-reduce bound and odcnsim's lower bound for capacity-respecting plans), MIP status
#   table3.md         the same as a Markdown table, with the rows whose paper time lies below a lower bound marked
#   row<N>-<run>.json      each run's summary.json
#   bash scripts/topox-table3.sh [--rows "1 2 ... 14"] [--mip-seconds 30]
set -euo pipefail
cd "$(dirname "$0")/.."
rows="1 2 3 4 5 6 7 8 9 10 11 12 13 14"
mip_seconds=30
while [ $# -gt 0 ]; do
  case "$1" in
    --rows|--mip-seconds)
      [ $# -ge 2 ] || { echo "topox-table3.sh: $1 needs a value (see --help)" >&2; exit 2; }
      case "$1" in
        --rows) rows="$2" ;;
        --mip-seconds) mip_seconds="$2" ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "topox-table3.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for r in $rows; do
  [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -ge 1 ] && [ "$r" -le 14 ] \
    || { echo "topox-table3.sh: --rows: '$r' is not a row of Table III (1 to 14)" >&2; exit 2; }
done
[[ "$mip_seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "topox-table3.sh: --mip-seconds: '$mip_seconds' is not a number" >&2; exit 2; }
[ -n "$rows" ] || { echo "topox-table3.sh: --rows needs at least one row" >&2; exit 2; }

[ -x build/odcnsim ] || bash scripts/bootstrap.sh
bin=build/odcnsim
out=analysis/out/topox
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Table III: N_S, d_S (= N_OCS), B in Gb/s; d_OCS = N_S. Rows 1-4 run Table II configuration 1, rows 5-14 configuration 2.
row_spec() {
  case "$1" in
    1) echo "128 4 40" ;;  2) echo "128 6 40" ;;  3) echo "128 4 100" ;; 4) echo "128 6 100" ;;
    5) echo "16 4 10" ;;   6) echo "16 4 25" ;;   7) echo "16 4 40" ;;   8) echo "16 4 100" ;;  9) echo "16 4 200" ;;
    10) echo "16 8 10" ;;  11) echo "16 8 25" ;;  12) echo "16 8 40" ;;  13) echo "16 8 100" ;; 14) echo "16 8 200" ;;
  esac
}

for preset in table2-1 table2-2; do
  "$bin" generate dlrm --preset "$preset" --quiet --out "$work/dlrm-$preset.json"
  n=$([ "$preset" = table2-1 ] && echo 128 || echo 16)
  { echo "job_graphs:"
    echo "  - file: $work/dlrm-$preset.json"
    printf "    endpoints: [%s]\n" "$(seq -s ', ' 0 $((n - 1)))"
  } > "$work/dlrm-$preset.yaml"
done

echo "row,policy,servers,ports,gbps,iteration_s,plan_wall_s,simulate_wall_s,run_wall_s,mip_status,planned_s,lower_bound_s" > "$out/table3-runs.csv"
total_start=$(date +%s.%N)
for r in $rows; do
  read -r n d b <<< "$(row_spec "$r")"
  if [ "$n" = 128 ]; then platform=platforms/flat-ocs-128.yaml; preset=table2-1; else platform=platforms/flat-ocs-16.yaml; preset=table2-2; fi
  for policy in topoopt topox topox-nodelay topox-paper topox-aligned; do
    row_start=$(date +%s.%N)
    log="$work/row$r-$policy.log"
    extra=()
    [ "$policy" != topoopt ] && extra=(--mip-seconds "$mip_seconds")
    [ "$policy" = topox-nodelay ] || [ "$policy" = topox-paper ] && extra+=(--set ocs.reconfig_delay_ms=0)
    name="${policy%-nodelay}"
    name="${name/topox-paper/topox:paper}"
    name="${name/topox-aligned/topox:aligned}"
    "$bin" run --platform "$platform" --workload "$work/dlrm-$preset.yaml" --policy "$name" \
      --set "servers.nic_ports=$d" --set "ocs.count=$d" --set "servers.nic_gbps=$b" \
      --trace none --no-slowdown --out "$work/row$r-$policy" "${extra[@]}" > "$log" \
      || { cat "$log" >&2; echo "topox-table3.sh: row $r, policy $policy failed" >&2; exit 1; }
    wall=$(awk -v a="$row_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    cp "$work/row$r-$policy/summary.json" "$out/row$r-$policy.json"
    plan=$(sed -n 's/.*wall time *plan \([0-9.]*\) s, simulate \([0-9.]*\) s.*/\1/p' "$log")
    sim=$(sed -n 's/.*wall time *plan \([0-9.]*\) s, simulate \([0-9.]*\) s.*/\2/p' "$log")
    /usr/bin/python3 - "$out/row$r-$policy.json" "$r" "$policy" "$n" "$d" "$b" "$plan" "$sim" "$wall" >> "$out/table3-runs.csv" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
status = s.get("topox", {}).get("mip_status", "")
planned = repr(s["topox"]["planned_iteration_s"]) if sys.argv[3] == "topox-paper" else ""
bound = repr(s["topox"]["lower_bound_s"]) if "topox" in s else ""
print(",".join(sys.argv[2:7] + [repr(s["mean_iteration_s"])] + sys.argv[7:10] + ['"' + status.replace('"', "'") + '"',
                                                                                 planned, bound]))
EOF
    printf "topox-table3.sh: row %2s %-13s %s ms (%.1f s)\n" "$r" "$policy" \
      "$(/usr/bin/python3 -c "import json,sys; print(round(1e3*json.load(open(sys.argv[1]))['mean_iteration_s'], 3))" "$out/row$r-$policy.json")" "$wall" >&2
  done
done
/usr/bin/python3 analysis/table_topox.py "$out"
printf "topox-table3.sh: %d rows in %.1f s -> %s/table3.{csv,md}\n" "$(echo "$rows" | wc -w)" \
  "$(awk -v a="$total_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')" "$out" >&2
