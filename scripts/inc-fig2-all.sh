#!/usr/bin/env bash
# INC-AOI (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs") Fig. 2 under every
# configuration docs/inc-aoi-fig2.md reports, then the tables README.md and that page show
# (analysis/inc_fig2_table.py). Each configuration is one scripts/inc-figures.sh sweep (7 job counts x 5 policies
# x 3 seeds) into OUT/inc-<label>; it resumes, so running this again only prints the tables.
#
#   bash scripts/inc-fig2-all.sh [--out OUT]      OUT defaults to analysis/out; ODCNSIM picks the binary
#
#   c     the default: Philly job sizes at a load where jobs cross racks (workloads/inc-aoi-philly.yaml)
#   a     uniform sizes at the paper's load (workloads/inc-aoi-800.yaml; a deviation)
#   b     Philly sizes at the paper's load (no job crosses racks)
#   d, e  c with a dedicated or a sharded CPU parameter server
#   f100, f400   c with 100 or 400 Gb/s NICs
#   g, h  c with a base ring or torus of circuits, forwarding through ToRs (ocs.base_topology)
# About 9 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
out="analysis/out"
case "${1:-}" in
  --out) [ $# -eq 2 ] || { echo "inc-fig2-all.sh: --out DIR" >&2; exit 2; }; out="$2" ;;
  -h|--help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  "") ;;
  *) echo "inc-fig2-all.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
uniform="--workload workloads/inc-aoi-800.yaml"
configs=(
  "c|"
  "a|$uniform"
  "b|$uniform --workers philly"
  "d|--ps-server dedicated"
  "e|--ps-server sharded"
  "f100|--nic-gbps 100"
  "f400|--nic-gbps 400"
  "g|--set ocs.base_topology=ring"
  "h|--set ocs.base_topology=torus"
)
mkdir -p "$out"
args=()
for c in "${configs[@]}"; do
  label="${c%%|*}" opts="${c#*|}"
  echo "== ($label) bash scripts/inc-figures.sh $opts --out $out/inc-$label" >&2
  # shellcheck disable=SC2086  # the options are words
  bash scripts/inc-figures.sh $opts --out "$out/inc-$label" >"$out/inc-$label.log" 2>&1 \
    || { echo "inc-fig2-all.sh: configuration $label failed; see $out/inc-$label.log" >&2; exit 2; }
  tail -n 1 "$out/inc-$label.log" >&2
  args+=("$label=$out/inc-$label")
done
/usr/bin/python3 analysis/inc_fig2_table.py "${args[@]}"
