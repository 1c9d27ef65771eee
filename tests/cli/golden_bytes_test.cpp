// Byte-for-byte regression against tests/golden/ (see its README): restructuring the engine must not change
// any result of the existing policies. trace.json must hold the same events; their order in the file (the
// order in which simultaneous events were recorded) may differ, since a trace viewer orders them by time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

namespace {

/// trace.json's events, each as its compact JSON text, sorted.
std::vector<std::string> trace_events(const std::string& path) {
  const auto trace = read_json(path);  // (a range-for over a member of a temporary would outlive it)
  std::vector<std::string> events;
  for (const auto& e : trace["traceEvents"]) events.push_back(e.dump());
  std::sort(events.begin(), events.end());
  return events;
}

}  // namespace

TEST(GoldenBytes, EveryScenarioMatchesTheRecordedOutputs) {
  const fs::path golden = fs::path(ODCNSIM_SOURCE_DIR) / "tests/golden";
  int scenarios = 0;
  for (const auto& dir : fs::directory_iterator(golden)) {
    if (!dir.is_directory()) continue;
    const std::string name = dir.path().filename().string();
    SCOPED_TRACE(name);
    const auto first = name.find('+'), second = name.find('+', first + 1);
    ASSERT_NE(second, std::string::npos);
    const std::string platform = name.substr(0, first), workload = name.substr(first + 1, second - first - 1),
                      policy = name.substr(second + 1);
    std::string iterations = read_file((dir.path() / "iterations").string());
    iterations.erase(iterations.find_last_not_of("\n") + 1);
    TempDir tmp;
    const auto r = odcnsim(fmt::format("run --platform platforms/{}.yaml --workload workloads/{}.yaml --policy {} "
                                       "--iterations {} --out {} --quiet",
                                       platform, workload, policy, iterations, tmp.path("out")),
                           tmp);
    ASSERT_EQ(r.code, 0) << r.err;
    int files = 0;
    for (const char* f : {"summary.json", "jobs.csv", "iterations.csv", "stages.csv", "circuits.csv", "trace.json"}) {
      const fs::path expected = dir.path() / f;
      EXPECT_EQ(fs::exists(expected), fs::exists(tmp.path("out/") + f)) << f;
      if (!fs::exists(expected)) continue;
      ++files;
      if (std::string(f) == "trace.json")
        EXPECT_TRUE(trace_events(expected.string()) == trace_events(tmp.path("out/") + f)) << f << " differs";
      else
        EXPECT_TRUE(read_file(expected.string()) == read_file(tmp.path("out/") + f)) << f << " differs";
    }
    EXPECT_GE(files, 4);
    ++scenarios;
  }
  EXPECT_EQ(scenarios, 8);
}
