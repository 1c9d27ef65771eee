#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (unit, engine, CLI and golden scenarios) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
