#!/usr/bin/env bash
# Builds odcnsim and its tests with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/ and runs
# the whole suite there. Any sanitizer report fails the test that triggered it. Slower than scripts/test.sh
# (a separate build, and every test runs instrumented); not part of CI's time budget.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh >/dev/null
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DODCNSIM_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
# SimGrid switches stacks between actors; ASan must not treat that as a stack overflow. Leak checking is on.
export ASAN_OPTIONS="detect_stack_use_after_return=0:abort_on_error=0:halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" "$@"
