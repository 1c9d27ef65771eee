#!/usr/bin/env bash
# TOPO-X (Y.-X. Hu, H. Tian, Y. Zhao, F. Wu, X.-Y. Li, "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML
# Training Parallelism") Table III with odcnsim: one DLRM iteration (Table II, `odcnsim generate dlrm`) on each of the
# 14 flat OCS configurations, under
#   topoopt        TopologyFinder's static topology, forwarding through servers (and FlexNet's own estimate of it:
#                  exclusive FIFO links, 1 MiB segments, 1 us per hop, the intra-server all-reduce term);
#   topox          circuits and transfers planned slot by slot (CBC's MIP where the model has at most 20,000
#                  columns, else the critical-path heuristics), with the platform's δ = 1 ms dark slot;
#   topox-aligned  topox:aligned, slot-aligned starts only (a sensitivity: continuous starts are ours);
#   topox-eq8      topox:eq8, Eq. 8's port count as written (in + out <= d_S: d_S / 2 duplex circuits per server);
#   topox-nodelay  topox with a reconfiguration delay of 0 (circuits change at slot boundaries for free);
#   topox-paper    topox:paper on that δ = 0 fabric: the paper's reading, Eq. 6 per transfer with no circuit
#                  capacity; its planned time and the time the engine takes to run that plan on the fabric.
# The runs go through `odcnsim sweep` (2 at a time, resumable: run the same command again and finished runs are
# kept), one sweep per platform size, port count and δ, in analysis/out/topox/sweeps/. Writes into analysis/out/topox/:
#   table3-runs.csv   one row per (row, run): the iteration time, MIP status, topox:paper's planned time and the
#                     lower bound for capacity-respecting plans
#   table3.csv        one row per Table III row: odcnsim's and the paper's times and speedups, bounds (the ring
#                     all-reduce bound and odcnsim's lower bound for capacity-respecting plans), MIP status
#   table3.md         the same as a Markdown table, with the rows whose paper time lies below a lower bound marked
#   row<N>-<run>.json      each run's summary.json
#   bash scripts/topox-table3.sh [--rows "1 2 ... 14"]          ODCNSIM=/path/to/odcnsim picks the binary
set -euo pipefail
cd "$(dirname "$0")/.."
rows="1 2 3 4 5 6 7 8 9 10 11 12 13 14"
while [ $# -gt 0 ]; do
  case "$1" in
    --rows)
      [ $# -ge 2 ] || { echo "topox-table3.sh: $1 needs a value (see --help)" >&2; exit 2; }
      rows="$2"
      shift 2 ;;
    -h|--help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "topox-table3.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
source scripts/topox-rows.sh
check_rows topox-table3.sh "$rows"

bin="${ODCNSIM:-build/odcnsim}"
if [ -z "${ODCNSIM:-}" ] && [ ! -x "$bin" ]; then bash scripts/bootstrap.sh; fi
[ -x "$bin" ] || { echo "topox-table3.sh: ODCNSIM: '$bin' is not an executable file" >&2; exit 2; }
out=analysis/out/topox
mkdir -p "$out/inputs" "$out/sweeps"
total_start=$(date +%s.%N)

# The two DLRM job graphs (deterministic) and their workloads, kept so that a rerun resumes its sweeps.
for preset in table2-1 table2-2; do
  n=$([ "$preset" = table2-1 ] && echo 128 || echo 16)
  "$bin" generate dlrm --preset "$preset" --quiet --out "$out/inputs/dlrm-$preset.json"
  { echo "job_graphs:"
    echo "  - file: dlrm-$preset.json"
    printf "    endpoints: [%s]\n" "$(seq -s ', ' 0 $((n - 1)))"
  } > "$out/inputs/dlrm-$preset.yaml.tmp"
  mv "$out/inputs/dlrm-$preset.yaml.tmp" "$out/inputs/dlrm-$preset.yaml"
done

# One grid per (servers, ports) and δ: the bandwidths of the requested rows are its one swept key; ports and OCS
# count move together (d_S = N_OCS), so each value of them is a grid of its own.
sweeps=()
for nd in "128 4" "128 6" "16 4" "16 8"; do
  read -r n d <<< "$nd"
  gbps=()
  for r in $rows; do
    read -r rn rd rb <<< "$(row_spec "$r")"
    [ "$rn" = "$n" ] && [ "$rd" = "$d" ] && gbps+=("$rb")
  done
  [ ${#gbps[@]} -gt 0 ] || continue
  preset=$([ "$n" = 128 ] && echo table2-1 || echo table2-2)
  for kind in delay free; do
    grid="$out/sweeps/n$n-d$d-$kind.yaml"
    { echo "# TOPO-X Table III (scripts/topox-table3.sh): $n servers, $d ports, $([ $kind = delay ] && echo "δ = 1 ms" || echo "δ = 0")"
      echo "platform: $(pwd)/platforms/flat-ocs-$n.yaml"
      echo "workload: $(pwd)/$out/inputs/dlrm-$preset.yaml"
      if [ "$kind" = delay ]; then echo "policies: [topoopt, topox, \"topox:aligned\", \"topox:eq8\"]"; else echo "policies: [topox, \"topox:paper\"]"; fi
      echo "slowdown: false"
      echo "set:"
      echo "  servers.nic_ports: [$d]"
      echo "  ocs.count: [$d]"
      echo "  servers.nic_gbps: [$(IFS=,; echo "${gbps[*]}")]"
      [ "$kind" = free ] && echo "  ocs.reconfig_delay_ms: [0]"
    } > "$grid.tmp"
    mv "$grid.tmp" "$grid"
    "$bin" sweep "$grid" --out "$out/sweeps/n$n-d$d-$kind" -j 2 --quiet \
      || { echo "topox-table3.sh: odcnsim sweep $grid failed (see above)" >&2; exit 1; }
    sweeps+=("$out/sweeps/n$n-d$d-$kind")
  done
done

# table3-runs.csv from the sweeps' points, in row order, then the table.
/usr/bin/python3 - "$out" "$rows" "${sweeps[@]}" <<'PY'
import json, os, shutil, sys
out, rows = sys.argv[1], [int(r) for r in sys.argv[2].split()]
SPEC = {1: (128, 4, 40), 2: (128, 6, 40), 3: (128, 4, 100), 4: (128, 6, 100), 5: (16, 4, 10), 6: (16, 4, 25),
        7: (16, 4, 40), 8: (16, 4, 100), 9: (16, 4, 200), 10: (16, 8, 10), 11: (16, 8, 25), 12: (16, 8, 40),
        13: (16, 8, 100), 14: (16, 8, 200)}
NAMES = {("delay", "topoopt"): "topoopt", ("delay", "topox"): "topox", ("delay", "topox:aligned"): "topox-aligned",
         ("free", "topox"): "topox-nodelay", ("free", "topox:paper"): "topox-paper", ("delay", "topox:eq8"): "topox-eq8"}
ORDER = ["topoopt", "topox", "topox-aligned", "topox-eq8", "topox-nodelay", "topox-paper"]
found = {}
for folder in sys.argv[3:]:
    kind = folder.rsplit("-", 1)[1]
    with open(os.path.join(folder, "sweep.json")) as f:
        for p in json.load(f)["points"]:
            s = p["set"]
            key = (int(s["servers.nic_ports"]), float(s["servers.nic_gbps"]))
            summary = os.path.join(folder, "points", p["id"], "summary.json")
            found[(key, NAMES[(kind, p["policy"])], "128" if "n128" in folder else "16")] = summary
lines = ["row,policy,servers,ports,gbps,iteration_s,plan_wall_s,simulate_wall_s,run_wall_s,mip_status,planned_s,"
         "lower_bound_s,flexnet_estimate_s"]
for r in rows:
    n, d, b = SPEC[r]
    for policy in ORDER:
        path = found[((d, float(b)), policy, str(n))]
        with open(path) as f:
            s = json.load(f)
        shutil.copyfile(path, os.path.join(out, f"row{r}-{policy}.json"))
        x = s.get("topox", {})
        status = x.get("mip_status", "").replace('"', "'")
        planned = repr(x["planned_iteration_s"]) if policy == "topox-paper" else ""
        bound = repr(x["lower_bound_s"]) if x else ""
        flexnet = repr(s["topoopt"]["flexnet_estimate_s"]) if policy == "topoopt" else ""
        lines.append(f'{r},{policy},{n},{d},{b},{s["mean_iteration_s"]!r},,,,"{status}",{planned},{bound},{flexnet}')
        print(f"topox-table3.sh: row {r:2} {policy:<13} {round(1e3 * s['mean_iteration_s'], 3)} ms", file=sys.stderr)
with open(os.path.join(out, "table3-runs.csv.tmp"), "w") as f:
    f.write("\n".join(lines) + "\n")
os.replace(os.path.join(out, "table3-runs.csv.tmp"), os.path.join(out, "table3-runs.csv"))
PY
/usr/bin/python3 analysis/table_topox.py "$out"
printf "topox-table3.sh: %d rows in %.1f s -> %s/table3.{csv,md}\n" "$(echo "$rows" | wc -w)" \
  "$(awk -v a="$total_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')" "$out" >&2
