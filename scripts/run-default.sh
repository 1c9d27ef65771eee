#!/usr/bin/env bash
# Sets everything up, then runs the default scenario: 1,000 Llama-3 jobs (TDM-4 §IV.A's generator) on the
# 256-pod OCS Clos with the physical compute and ToR models (docs/model.md), under TDM-4's four-stage schedule
# (policy tdm4, default search), and prints its summary (outputs in out/default/). Then it compares tdm4 with
# the non-TDM aggregate schedule and with static circuits (odcnsim compare; out/default-compare/).
# Extra arguments go to the tdm4 run (e.g. --search paper, --trace summary).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
./build/odcnsim run --platform platforms/clos-256pod.yaml --workload workloads/llama3-1000-physical.yaml \
  --policy tdm4 --iterations 2 --out out/default "$@"
echo
./build/odcnsim compare --platform platforms/clos-256pod.yaml --workload workloads/llama3-1000-physical.yaml \
  --policies tdm4,aggregate,static --baseline aggregate --iterations 2 --trace summary --out out/default-compare
