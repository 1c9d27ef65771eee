// Hostile inputs of `odcnsim compare` (issue 28): bad policies, duplicates, seed ranges, swapped files, bad --set,
// policies the workload refuses, existing out folders. Each is exit 2, one line naming the option or the file,
// no run started, and an earlier comparison left byte-identical.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/hostile_support.hpp"

using namespace odcn::test;
using namespace odcn::test::hostile;
namespace fs = std::filesystem;

TEST(HostileCompare, EveryBadInputIsOneLineAndTouchesNothing) {
  TempDir dir;
  // An earlier comparison (one quick run) that every refused comparison into it must leave as it was.
  const auto prev = dir.path("prev");
  ASSERT_EQ(odcnsim(fmt::format("compare --platform {} --workload {} --policies static --iterations 1 --no-slowdown "
                                "--trace none --quiet --out {}",
                                kPlatform, kWorkload, prev),
                    dir)
                .code,
            0);
  fs::create_directories(dir.path("mine"));
  dir.write("mine/notes.txt", "keep me");
  const auto file = dir.write("file.txt", "a file, not a folder");
  const auto bad_yaml = dir.write("bad.yaml", "kind: clos_ocs\npods: {count: [\n");
  fs::create_directories(dir.path("folder.yaml"));
  const auto out = dir.path("cmp");
  const std::string inputs = fmt::format("--platform {} --workload {}", kPlatform, kWorkload);
  const auto cmp = [&](const std::string& rest, const std::string& into = "") {
    return fmt::format("compare {} {} --out {}", inputs, rest, into.empty() ? out : into);
  };
  const std::string graphs = fmt::format("--platform {}/platforms/electrical-16.yaml --workload {}/workloads/graphs-dp4.yaml",
                                         kSrc, kSrc);
  std::vector<Case> cases{
      // Policies: unknown, twice, empty names, a line break, very long, none.
      {cmp("--policies static,fastest"), "command line: --policies: unknown policy 'fastest'"},
      {cmp("--policies static,static"), "command line: --policies: 'static' is named twice"},
      {cmp("--policies static,"), "command line: --policies: unknown policy ''"},
      {cmp("--policies ,"), "command line: --policies: unknown policy ''"},
      {cmp("--policies static,,tdm4"), "command line: --policies: unknown policy ''"},
      {cmp("--policies \"$(printf 'st\\natic')\""), "command line: --policies: unknown policy 'st\\x0aatic'"},
      {cmp("--policies " + std::string(3000, 'x')), "command line: --policies: ", "(3000 characters)"},
      {cmp("--policies tdm4:nonsense"), "command line: --policies: "},
      // The baseline.
      {cmp("--policies static --baseline tdm4"), "command line: --baseline: 'tdm4' is not one of the policies"},
      {cmp("--policies static --baseline " + std::string(500, 'b')), "command line: --baseline: ", "(500 characters)"},
      // Seeds: backwards, too many, twice, not numbers, negative, above 2^64 - 1, with --seed.
      {cmp("--policies static --seeds 3-1"), "command line: --seeds: '3-1' runs backwards"},
      {cmp("--policies static --seeds 1-101"), "command line: --seeds: lists more than 100 seeds"},
      {cmp("--policies static --seeds 0-18446744073709551615"), "command line: --seeds: lists more than 100 seeds"},
      {cmp("--policies static --seeds 1,1"), "command line: --seeds: seed 1 is listed twice"},
      {cmp("--policies static --seeds a-b"), "command line: --seeds: must be a whole number"},
      {cmp("--policies static --seeds 1-"), "command line: --seeds: "},
      {cmp("--policies static --seeds 1--3"), "command line: --seeds: "},
      {cmp("--policies static --seeds 1-3-5"), "command line: --seeds: "},
      {cmp("--policies static --seeds -1"), "command line: --seeds: "},
      {cmp("--policies static --seeds 18446744073709551616"), "command line: --seeds: "},
      {cmp("--policies static --seeds 1-3 --seed 2"), "command line: --seeds: give --seed or --seeds, not both"},
      {cmp("--policies static --seed -1"), "command line: --seed: "},
      // --set: not KEY=VALUE, no value, no such key, a refused value, twice, a value of many lines, very long.
      {cmp("--policies static --set x"), "command line: --set: expects key.path=value"},
      {cmp("--policies static --set =1"), "command line: --set: expects key.path=value"},
      {cmp("--policies static --set ocs.port_gbps="), "command line: --set: "},
      {cmp("--policies static --set ocs.colour=1"), "command line: --set ocs.colour=1: "},
      {cmp("--policies static --set ocs.port_gbps=-1"), "command line: --set ocs.port_gbps=-1: "},
      {cmp("--policies static --set ocs.port_gbps=nan"), "command line: --set ocs.port_gbps=nan: "},
      {cmp("--policies static --set ocs.port_gbps=1e999"), "command line: --set ocs.port_gbps=1e999: "},
      {cmp("--policies static --set \"$(printf 'ocs.port_gbps=1\\n2')\""), "command line: --set ocs.port_gbps=1\\x0a2: "},
      {cmp("--policies static --set ocs.port_gbps=" + std::string(5000, '9')), "command line: --set ocs.port_gbps=",
       "(5000 characters)"},
      {cmp("--policies static --set " + std::string(5000, 'k') + "=1"), "command line: --set ", "(5000 characters)"},
      // Other options.
      {cmp("--policies static --jobs 0"), "command line: --jobs: "},
      {cmp("--policies static --jobs 99999"), "command line: --jobs: "},
      {cmp("--policies static --iterations 0"), "command line: --iterations: "},
      {cmp("--policies static --iterations 2147483648"), "command line: --iterations: "},
      {cmp("--policies static --trace verbose"), "command line: --trace: must be full, summary or none"},
      {cmp("--policies static --mip-seconds 5"), "command line: --mip-seconds: unknown option of 'odcnsim compare'"},
      // The files: swapped, missing, not YAML, a folder; a policy the workload refuses.
      {fmt::format("compare --platform {} --workload {} --policies static --out {}", kWorkload, kPlatform, out),
       kWorkload + ": (file): is a workload, given as --platform", "did you swap --platform and --workload?"},
      {fmt::format("compare --platform {} --workload {} --policies static --out {}", dir.path("none.yaml"), kWorkload, out),
       dir.path("none.yaml") + ": (file): cannot be read"},
      {fmt::format("compare --platform {} --workload {} --policies static --out {}", bad_yaml, kWorkload, out),
       bad_yaml + ": (file): not valid YAML"},
      {fmt::format("compare --platform {} --workload {} --policies static --out {}", kPlatform, dir.path("folder.yaml"), out),
       dir.path("folder.yaml") + ": (file): is a folder"},
      {fmt::format("compare {} --policies static,tdm4 --out {}", graphs, out),
       "command line: --policies: policy tdm4 plans the TDM-4 paper's jobs"},
      {fmt::format("compare {} --policies static,tdm4 --out {}", graphs, prev),
       "command line: --policies: policy tdm4 plans the TDM-4 paper's jobs"},
      // --out: a folder of the user's, a file, below a file, the sources' platforms folder; an earlier comparison
      // with a refused option.
      {cmp("--policies static", dir.path("mine")), "command line: --out: ", "holds files that odcnsim compare did not write"},
      {cmp("--policies static", file), "command line: --out: ", "is not a folder"},
      {cmp("--policies static", file + "/cmp"), "command line: --out: "},
      {cmp("--policies static", kSrc + "/platforms"), "command line: --out: ", "holds files that odcnsim compare did not write"},
      {cmp("--policies static,fastest", prev), "command line: --policies: unknown policy 'fastest'"},
      {cmp("--policies static --seeds 2-1", prev), "command line: --seeds: "},
  };
  expect_hostile(cases, dir);
}

// A --set of a key the platform kind does not have is refused naming the platform file and the key's first part
// ('electrical-16.yaml: ocs: unknown key'), as if the file held it; the origin should be the --set (run and sweep
// say the same: the message comes from sim/spec/).
TEST(HostileCompare, ASetOfAKeyThePlatformLacksNamesTheSet) {
  TempDir dir;
  expect_hostile({{fmt::format("compare --platform {0}/platforms/electrical-16.yaml --workload {0}/workloads/graphs-dp4.yaml "
                               "--policies static --set ocs.port_gbps=1 --out {1}",
                               kSrc, dir.path("c")),
                   "command line: --set ocs.port_gbps=1: "}},
                 dir);
}
