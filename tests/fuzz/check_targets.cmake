# ctest fuzz.replay_targets: fuzz_replay --list names exactly the targets of ODCN_FUZZ_TARGETS
# (tests/fuzz/CMakeLists.txt), so that a target source that forgets to register, or registers under another
# name, is caught by the normal build.
execute_process(COMMAND "${REPLAY}" --list OUTPUT_VARIABLE listed RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "fuzz_replay --list exited with ${result}")
endif()
string(STRIP "${listed}" listed)
string(REPLACE "\n" ";" listed "${listed}")
set(want ${TARGETS})
list(SORT want)
list(SORT listed)
if(NOT "${listed}" STREQUAL "${want}")
  message(FATAL_ERROR "fuzz_replay links the targets '${listed}', CMakeLists.txt lists '${want}'")
endif()
