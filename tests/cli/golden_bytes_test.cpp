// Byte-for-byte regression against tests/golden/ (see its README): restructuring the engine must not change
// any result of the existing policies.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

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
    for (const char* f : {"summary.json", "iterations.csv", "stages.csv", "circuits.csv", "trace.json"}) {
      const fs::path expected = dir.path() / f;
      EXPECT_EQ(fs::exists(expected), fs::exists(tmp.path("out/") + f)) << f;
      if (!fs::exists(expected)) continue;
      ++files;
      EXPECT_TRUE(read_file(expected.string()) == read_file(tmp.path("out/") + f)) << f << " differs";
    }
    EXPECT_GE(files, 4);
    ++scenarios;
  }
  EXPECT_EQ(scenarios, 6);
}
