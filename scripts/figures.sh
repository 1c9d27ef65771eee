#!/usr/bin/env bash
# Sets everything up, then regenerates seed 001's figures from scratch into analysis/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
rm -rf analysis/out
/usr/bin/python3 analysis/sweep_tdm4.py "$@"
/usr/bin/python3 analysis/plot_tdm4.py
