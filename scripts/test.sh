#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (unit, engine, CLI and golden scenarios, fuzz corpus replay)
# with ctest. When clang++ with libFuzzer is installed it also builds the fuzzers (tests/fuzz; never part of the
# default build) so that ctest's fuzz.short_run can fuzz every target (80 s in all); without it that test is left
# out.
set -euo pipefail
cd "$(dirname "$0")/.."
# The sweep tests also hand a grid to GNU parallel and to a private single-node Slurm (scripts/slurm-local.sh);
# analysis.report loads odcnsim report's pages in Debian's chromium, headless.
ODCN_EXTRA_PACKAGES="slurmctld slurmd slurm-client munge chromium" bash scripts/bootstrap.sh
if command -v clang++ >/dev/null 2>&1 && grep -qx 'ODCN_FUZZ_CXX_WORKS:BOOL=ON' build/CMakeCache.txt; then
  cmake --build build --target fuzzer -j"$(nproc)"
else
  echo "test.sh: no clang++ with libFuzzer; fuzz.short_run is left out (docs/fuzzing.md)" >&2
fi
ctest --test-dir build --output-on-failure -j"$(nproc)"
