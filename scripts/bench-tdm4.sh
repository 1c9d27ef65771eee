#!/usr/bin/env bash
# TDM-4 at scale (issue 9, item 4): planning plus simulating one round with the default search (multistart)
# on the default scenario's models (physical), by `odcnsim bench` (median wall time and peak memory of
# --repeat runs, each in its own process): 1,000 jobs; the full 256-pod fabric (20,000 generated, of which the
# 19,559 that fit are placed); and 40,000 jobs on a 256-pod fabric with 8,192 GPUs per pod; then the same under
# the paper's literal Eq. (8) (tang-eq8). Then the growth
# exponent of the planning time over 1,250-20,000 jobs (least squares on log-log), for the default search and
# for --search paper. Usage: bash scripts/bench-tdm4.sh [REPEAT] (default 3). Builds first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${1:-3}"
[ -x build/odcnsim ] || bash scripts/bootstrap.sh
b=build/odcnsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for model in physical tang-eq8; do
  echo "== targets ($model models, default search, 1 iteration of every job = planning + one round)"
  $b bench --policy tdm4 --model "$model" --jobs 1000,20000 --iterations 1 --repeat "$repeat"
  $b bench --policy tdm4 --model "$model" --jobs 40000 --iterations 1 --repeat "$repeat" --set pods.gpus_per_pod=8192
done
for search in multistart paper; do
  echo "== growth, --search $search"
  $b bench --policy tdm4 --search "$search" --jobs 1250,2500,5000,10000,20000 --iterations 1 --repeat "$repeat" \
    | tee "$out/growth-$search.txt"
done
/usr/bin/python3 - "$out" <<'PY'
import math, sys
for search in ("multistart", "paper"):
    xs, ys = [], []
    for line in open(f"{sys.argv[1]}/growth-{search}.txt"):
        f = line.split()
        if len(f) == 5 and f[0].isdigit():
            xs.append(math.log(int(f[0]))); ys.append(math.log(max(float(f[2]), 1e-4)))
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print(f"planning time grows as n^{slope:.2f} ({search}, {n} job counts)")
PY
