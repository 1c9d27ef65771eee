#!/usr/bin/env bash
# TOPO-X (Y.-X. Hu, H. Tian, Y. Zhao, F. Wu, X.-Y. Li, "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML
# Training Parallelism") Table III with the parallelisation searched (`odcnsim generate dlrm --search`, docs/dlrm.md
# "The strategy search") instead of FlexNet's starting hybrid strategy, for both policies:
#   topoopt   the strategy searched with TopoOpt's own cost, FlexNet's estimate of the topology TopologyFinder builds
#             for each candidate (--search-cost topoopt), then run as Table III runs it;
#   topox     the strategy searched with TOPO-X's lower bound on the row's fabric (--search-cost topox; its cheapest
#             finalists and the hybrid judged by TOPO-X's planner), once at δ = 1 ms and once at δ = 0, each then
#             planned and run at its δ.
# Both searches are simulated annealing from the hybrid strategy (seed 1), in the space FlexNet's measurements allow.
# The hybrid strategy's numbers come from scripts/topox-table3.sh's table3-runs.csv (run it first for the same rows).
# Resumable: a searched graph or a run already written is kept; delete analysis/out/topox/search/ to start over.
# Writes analysis/out/topox/search/{search.csv,search.md}, the searched graphs in inputs/ and each run in runs/.
#   bash scripts/topox-search.sh [--rows "5 6 ... 14"] [--quick]          ODCNSIM=/path/to/odcnsim picks the binary
# --quick divides the search budgets (5000 and 1000 steps for 16 servers, 500 and 100 for 128) by 10.
set -euo pipefail
cd "$(dirname "$0")/.."
rows="1 2 3 4 5 6 7 8 9 10 11 12 13 14"
scale=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rows)
      [ $# -ge 2 ] || { echo "topox-search.sh: $1 needs a value (see --help)" >&2; exit 2; }
      rows="$2"
      shift 2 ;;
    --quick) scale=10; shift ;;
    -h|--help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "topox-search.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
source scripts/topox-rows.sh
check_rows topox-search.sh "$rows"
[ -f analysis/out/topox/table3-runs.csv ] \
  || { echo "topox-search.sh: analysis/out/topox/table3-runs.csv is missing: run scripts/topox-table3.sh first" >&2; exit 2; }

bin="${ODCNSIM:-build/odcnsim}"
if [ -z "${ODCNSIM:-}" ] && [ ! -x "$bin" ]; then bash scripts/bootstrap.sh; fi
[ -x "$bin" ] || { echo "topox-search.sh: ODCNSIM: '$bin' is not an executable file" >&2; exit 2; }
out=analysis/out/topox/search
mkdir -p "$out/inputs" "$out/runs"
total_start=$(date +%s.%N)

# The row's platform at δ (ms): the committed flat-ocs-N.yaml's servers and slot, the row's ports and bandwidth.
platform() {  # row delay_ms -> path
  local r="$1" delay="$2" n d b
  read -r n d b <<< "$(row_spec "$r")"
  local f="$out/inputs/row$r-delay$delay.yaml"
  { echo "# TOPO-X Table III row $r (scripts/topox-search.sh): $n servers, $d ports of $b Gb/s, δ = $delay ms"
    echo "kind: flat_ocs"
    echo "name: topox-row$r"
    echo "servers: {count: $n, gpus_per_server: 4, nic_ports: $d, nic_gbps: $b}"
    echo "ocs: {count: $d, ports: $n, reconfig_delay_ms: $delay, duplex: full}"
    echo "slot_ms: 1"
  } > "$f.tmp"
  mv "$f.tmp" "$f"
  echo "$f"
}

# One searched graph (kept when it exists) and its workload file.
searched() {  # row name cost budget platform
  local r="$1" name="$2" cost="$3" budget="$4" plat="$5" n d b
  read -r n d b <<< "$(row_spec "$r")"
  local preset; preset=$([ "$n" = 128 ] && echo table2-1 || echo table2-2)
  local g="$out/inputs/row$r-$name.json"
  if [ ! -f "$g" ]; then
    "$bin" generate dlrm --preset "$preset" --search "$plat" --search-cost "$cost" \
      --search-budget "$budget" --out "$g" > "$out/inputs/row$r-$name.txt" 2> /dev/null \
      || { echo "topox-search.sh: the search of row $r ($name) failed" >&2; return 1; }
  fi
  { echo "job_graphs:"
    echo "  - file: row$r-$name.json"
    printf "    endpoints: [%s]\n" "$(seq -s ', ' 0 $((n - 1)))"
  } > "$out/inputs/row$r-$name.yaml"
}

run_one() {  # row name policy cost platform
  local r="$1" name="$2" policy="$3" cost="$4" plat="$5"
  local dir="$out/runs/row$r-$name"
  [ -f "$dir/summary.json" ] && return 0
  "$bin" run --platform "$plat" --workload "$out/inputs/row$r-$cost.yaml" --policy "$policy" \
    --no-slowdown --quiet --out "$dir" || { echo "topox-search.sh: row $r $name failed" >&2; return 1; }
}

for r in $rows; do
  read -r n d b <<< "$(row_spec "$r")"
  if [ "$n" = 16 ]; then bx=$((5000 / scale)); bt=$((1000 / scale)); else bx=$((500 / scale)); bt=$((100 / scale)); fi
  t0=$(date +%s)
  free=$(platform "$r" 0)
  delay=$(platform "$r" 1)
  searched "$r" topox-delay topox "$bx" "$delay" & pid=$!
  searched "$r" topox-free topox "$bx" "$free"
  wait "$pid"
  searched "$r" topoopt topoopt "$bt" "$free" & pid=$!
  run_one "$r" topox topox topox-delay "$delay"
  wait "$pid"
  run_one "$r" topox-nodelay topox topox-free "$free" & pid=$!
  run_one "$r" topoopt topoopt topoopt "$delay"
  wait "$pid"
  echo "topox-search.sh: row $r searched and run in $(( $(date +%s) - t0 )) s" >&2
done

/usr/bin/python3 analysis/table_topox_search.py "$out" "$rows"
printf "topox-search.sh: %d rows in %.1f s -> %s/search.{csv,md}\n" "$(echo "$rows" | wc -w)" \
  "$(awk -v a="$total_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')" "$out" >&2
