# ctest fuzz.short_run: fuzzes for SECONDS with the libFuzzer binary, writing only into the build tree.
#   cmake -DFUZZER=... -DWORK_DIR=... -DSEED_CORPUS=... -DDICT=... -DSECONDS=60 -P short_run.cmake
# WORK_DIR/corpus is a fresh scratch corpus (the first, writable corpus folder); the seed corpus is read only.
# Crash, timeout and OOM inputs go to WORK_DIR/artifacts/. Prints ODCN-FUZZ-SKIP (ctest then reports the test
# as skipped) when the fuzzer was not built.
foreach(var FUZZER WORK_DIR SEED_CORPUS DICT SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "short_run.cmake needs -D${var}=...")
  endif()
endforeach()

if(NOT EXISTS "${FUZZER}")
  message("ODCN-FUZZ-SKIP: ${FUZZER} is not built; build it with `cmake --build <build> --target fuzzer` "
          "(scripts/test.sh does when clang++ is installed)")
  return()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/artifacts")
execute_process(
  COMMAND "${FUZZER}"
          -max_total_time=${SECONDS}
          -timeout=20
          -rss_limit_mb=4096
          -print_final_stats=1
          "-dict=${DICT}"
          "-artifact_prefix=${WORK_DIR}/artifacts/"
          "${WORK_DIR}/corpus" "${SEED_CORPUS}"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(GLOB found "${WORK_DIR}/artifacts/*")
  message(FATAL_ERROR "fuzz_inputs exited with ${result}; inputs that failed: ${found}\n"
                      "Minimise each (tests/fuzz/README.md), add it to tests/fuzz/crashes/ and describe it there.")
endif()
