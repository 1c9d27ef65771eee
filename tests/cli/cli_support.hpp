#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>
#include <nlohmann/json.hpp>
#include <string>

#include "support/temp_files.hpp"

namespace odcn::test {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

/// Under ASan (scripts/test-sanitized.sh), SimGrid's actor stacks make the sanitizer print a three-line
/// warning ("ASan is ignoring requested __asan_handle_no_return ...", google/sanitizers#189) to stderr once
/// per process. It is the sanitizer's, not odcnsim's output; the tests that count stderr lines drop it.
inline std::string without_sanitizer_notes(const std::string& err) {
  const std::string marker = "WARNING: ASan is ignoring requested __asan_handle_no_return";
  const auto at = err.find(marker);
  if (at == std::string::npos) return err;  // (each process that ran prints it once: drop every copy)
  const auto start = err.rfind('\n', at) == std::string::npos ? 0 : err.rfind('\n', at) + 1;
  std::size_t end = start;
  for (int line = 0; line < 3; ++line) {
    const auto newline = err.find('\n', end);
    end = newline == std::string::npos ? err.size() : newline + 1;
  }
  return without_sanitizer_notes(err.substr(0, start) + err.substr(end));
}

/// Runs `odcnsim ARGS` from the source folder (so relative scenario paths work).
inline Result odcnsim(const std::string& args, const TempDir& scratch) {
  const std::string out = scratch.path("stdout.txt"), err = scratch.path("stderr.txt");
  const std::string cmd = fmt::format("cd '{}' && '{}' {} > '{}' 2> '{}' < /dev/null", ODCNSIM_SOURCE_DIR, ODCNSIM_BIN,
                                      args, out, err);
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), without_sanitizer_notes(read_file(err))};
}

/// Runs a bash script (written to a file, so that it may hold any quotes) from the scratch folder.
inline Result run_script(const std::string& script, const TempDir& scratch) {
  const std::string file = scratch.write("script.sh", script + "\n");
  const std::string out = scratch.path("script-stdout.txt"), err = scratch.path("script-stderr.txt");
  const int status =
      std::system(fmt::format("cd '{}' && bash '{}' > '{}' 2> '{}' < /dev/null", scratch.path(""), file, out, err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), without_sanitizer_notes(read_file(err))};
}

/// A refusal: `odcnsim ARGS` exits 2 with exactly one line on stderr that starts with `expect`.
struct Refusal {
  std::string args, expect;
};
inline void expect_refusals(const std::vector<Refusal>& cases, const TempDir& scratch) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = odcnsim(c.args, scratch);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.find(c.expect), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

/// A CSV file with a header row (fields hold no commas in these scenarios).
struct Csv {
  std::map<std::string, std::size_t> column;
  std::vector<std::vector<std::string>> rows;
  const std::string& at(std::size_t row, const std::string& name) const { return rows[row][column.at(name)]; }
  double num(std::size_t row, const std::string& name) const { return std::stod(at(row, name)); }
};

inline Csv read_table(const std::string& path) {
  std::istringstream in(read_file(path));
  Csv csv;
  std::string line;
  const auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::istringstream s(l);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    return cells;
  };
  std::getline(in, line);
  const auto header = split(line);
  for (std::size_t i = 0; i < header.size(); ++i) csv.column[header[i]] = i;
  while (std::getline(in, line))
    if (!line.empty()) csv.rows.push_back(split(line));
  return csv;
}

}  // namespace odcn::test
