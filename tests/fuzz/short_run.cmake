# ctest fuzz.short_run: fuzzes every target in turn, SECONDS in all (split evenly), writing only into the build
# tree.
#   cmake -DFUZZER_DIR=... -DTARGETS="inputs;kineto;..." -DWORK_DIR=... -DFUZZ_DIR=tests/fuzz -DSECONDS=80
#         -P short_run.cmake
# For target NAME: FUZZER_DIR/fuzz_NAME, a fresh scratch corpus WORK_DIR/NAME/corpus (the first, writable corpus
# folder), the seed corpus FUZZ_DIR/corpus/NAME (read only), the dictionary FUZZ_DIR/dicts/NAME.dict when there
# is one. Crash, timeout and OOM inputs go to WORK_DIR/NAME/artifacts/. Every target runs even when an earlier one
# failed. Prints ODCN-FUZZ-SKIP (ctest then reports the test as skipped) when the fuzzers were not built.
foreach(var FUZZER_DIR TARGETS WORK_DIR FUZZ_DIR SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "short_run.cmake needs -D${var}=...")
  endif()
endforeach()

list(LENGTH TARGETS n)
math(EXPR each "${SECONDS} / ${n}")
if(each LESS 1)
  set(each 1)
endif()
foreach(t IN LISTS TARGETS)
  if(NOT EXISTS "${FUZZER_DIR}/fuzz_${t}")
    message("ODCN-FUZZ-SKIP: ${FUZZER_DIR}/fuzz_${t} is not built; build it with `cmake --build <build> --target "
            "fuzzer` (scripts/test.sh does when clang++ is installed)")
    return()
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
set(failed "")
foreach(t IN LISTS TARGETS)
  set(dir "${WORK_DIR}/${t}")
  file(MAKE_DIRECTORY "${dir}/corpus" "${dir}/artifacts")
  set(dict "")
  if(EXISTS "${FUZZ_DIR}/dicts/${t}.dict")
    set(dict "-dict=${FUZZ_DIR}/dicts/${t}.dict")
  endif()
  message("fuzz.short_run: ${t}, ${each} s")
  execute_process(
    COMMAND "${FUZZER_DIR}/fuzz_${t}"
            -max_total_time=${each}
            -timeout=20
            -rss_limit_mb=4096
            -print_final_stats=1
            ${dict}
            "-artifact_prefix=${dir}/artifacts/"
            "${dir}/corpus" "${FUZZ_DIR}/corpus/${t}"
    WORKING_DIRECTORY "${dir}"
    RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    file(GLOB found "${dir}/artifacts/*")
    list(APPEND failed "fuzz_${t} exited with ${result}; inputs that failed: ${found}")
  endif()
endforeach()
if(failed)
  string(REPLACE ";" "\n" failed "${failed}")
  message(FATAL_ERROR "${failed}\n"
                      "Minimise each (tests/fuzz/README.md), add it to tests/fuzz/crashes/NAME/ and describe it there.")
endif()
