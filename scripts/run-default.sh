#!/usr/bin/env bash
# Sets everything up, then runs seed 001's scenario: 1,000 Llama-3 jobs on the 256-pod OCS Clos under the
# TDM four-stage schedule, and prints a summary. Outputs go to out/default/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
./build/odcnsim run --platform platforms/clos-256pod.yaml --workload workloads/llama3-1000.yaml --policy tdm4 \
  --iterations 2 --out out/default "$@"
