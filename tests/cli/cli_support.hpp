#pragma once
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "support/temp_files.hpp"

namespace odcn::test {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `odcnsim ARGS` from the source folder (so relative scenario paths work).
inline Result odcnsim(const std::string& args, const TempDir& scratch) {
  const std::string out = scratch.path("stdout.txt"), err = scratch.path("stderr.txt");
  const std::string cmd = fmt::format("cd '{}' && '{}' {} > '{}' 2> '{}' < /dev/null", ODCNSIM_SOURCE_DIR, ODCNSIM_BIN,
                                      args, out, err);
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

}  // namespace odcn::test
