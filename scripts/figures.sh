#!/usr/bin/env bash
# Sets everything up, then regenerates TDM-4's (Tang et al.) figures into analysis/out/ with the generic tools:
# sweeps (odcnsim sweep, grids in analysis/grids/) and their plots (analysis/plot_sweep.py,
# analysis/plot_improvement.py). A sweep that was interrupted resumes where it stopped; pass --fresh to run
# every point again. About 2 minutes on 2 cores.
#   physical models (the default scenario): improvement over aggregate vs jobs and vs context, static as a
#     third line; the regime figure of the searches (paper, threshold, multistart) vs training/communication.
#   the paper's literal Eq. (8) (tang-eq8): round time vs jobs and vs context, where nothing can be gained.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
if [ "${1:-}" = "--fresh" ]; then rm -rf analysis/out; fi
mkdir -p analysis/out
py=/usr/bin/python3
for grid in tdm4-physical-jobs tdm4-physical-context tdm4-regime tdm4-jobs tdm4-context; do
  build/odcnsim sweep "analysis/grids/$grid.yaml" --out "analysis/out/$grid"
done
$py analysis/plot_improvement.py analysis/out/tdm4-physical-jobs/sweep.csv --x generator.jobs --logx \
  --metric mean_iteration_s --out analysis/out/improvement_vs_jobs
$py analysis/plot_improvement.py analysis/out/tdm4-physical-context/sweep.csv --x training.context_tokens --logx \
  --metric mean_iteration_s --out analysis/out/improvement_vs_context
$py analysis/plot_improvement.py analysis/out/tdm4-regime/sweep.csv --x-metric training_to_comm_ratio --logx \
  --metric round_time_s --out analysis/out/regime
$py analysis/plot_sweep.py analysis/out/tdm4-jobs/sweep.csv --x generator.jobs --y round_time_s \
  --logx --out analysis/out/round_vs_jobs
$py analysis/plot_sweep.py analysis/out/tdm4-context/sweep.csv --x training.context_tokens \
  --y round_time_s --logx --out analysis/out/round_vs_context
