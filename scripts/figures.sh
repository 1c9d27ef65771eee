#!/usr/bin/env bash
# Sets everything up, then regenerates TDM-4's (Tang et al.) figures into analysis/out/ with the generic tools:
# two sweeps (odcnsim sweep, grids in analysis/grids/) and their plots (analysis/plot_sweep.py). A sweep that
# was interrupted resumes where it stopped; pass --fresh to run every point again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
if [ "${1:-}" = "--fresh" ]; then rm -rf analysis/out; fi
mkdir -p analysis/out
build/odcnsim sweep analysis/grids/tdm4-jobs.yaml --out analysis/out/tdm4-jobs
build/odcnsim sweep analysis/grids/tdm4-context.yaml --out analysis/out/tdm4-context
/usr/bin/python3 analysis/plot_sweep.py analysis/out/tdm4-jobs/sweep.csv --x generator.jobs --y round_time_s \
  --logx --out analysis/out/round_vs_jobs
/usr/bin/python3 analysis/plot_sweep.py analysis/out/tdm4-context/sweep.csv --x training.context_tokens \
  --y round_time_s --logx --out analysis/out/round_vs_context
