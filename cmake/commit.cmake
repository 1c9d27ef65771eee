# Writes OUT (odcn_commit.hpp): the git commit of SRC, "+dirty" when the work tree differs from it, "unknown"
# outside a git checkout. Run at every build (target odcn_commit); the file changes only when the commit does, so
# only what includes it is rebuilt then.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no OUTPUT_VARIABLE changes
                  ERROR_QUIET)
  if(NOT changes STREQUAL "")
    set(commit "${commit}+dirty")
  endif()
endif()
file(WRITE "${OUT}.tmp" "#pragma once\n#define ODCNSIM_COMMIT \"${commit}\"\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
