// Hostile inputs of `odcnsim run`, `validate`, `generate` and `bench` (issue 28): bad files, bad options, bad
// --out. Each is exit 2, one line naming the file or the option, nothing on stdout and nothing written.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/hostile_support.hpp"

using namespace odcn::test;
using namespace odcn::test::hostile;
namespace fs = std::filesystem;

TEST(HostileCommands, RunAndValidate) {
  TempDir dir;
  const auto out = dir.path("o");
  const auto prev = dir.path("prev");
  ASSERT_EQ(odcnsim(fmt::format("run --platform {} --workload {} --iterations 1 --no-slowdown --trace none --quiet --out {}",
                                kPlatform, kWorkload, prev),
                    dir)
                .code,
            0);
  fs::create_directories(dir.path("folder.yaml"));
  ASSERT_EQ(::mkfifo(dir.path("fifo.yaml").c_str(), 0644), 0);
  const auto junk = dir.write("junk.yaml", std::string("\x89PNG\r\n\x1a\n\xff\xfe", 10));
  const auto bad = dir.write("bad.yaml", "kind: clos_ocs\npods: {count: [\n");
  const auto alias = dir.write("alias.yaml", "a: &a [*a, *a]\n");
  const auto file = dir.write("file.txt", "a file");
  const auto run = [&](const std::string& rest, const std::string& into = "") {
    return fmt::format("run --platform {} --workload {} {} --out {}", kPlatform, kWorkload, rest, into.empty() ? out : into);
  };
  std::vector<Case> cases{
      {run("--policy fastest"), "command line: --policy: unknown policy 'fastest'"},
      {run("--iterations 0"), "command line: --iterations: "},
      {run("--iterations 99999999999999999999999"), "command line: --iterations: "},
      {run("--seed -1"), "command line: --seed: "},
      {run("--seed 18446744073709551616"), "command line: --seed: "},
      {run("--trace verbose"), "command line: --trace: "},
      {run("--set x"), "command line: --set: "},
      {run("--set ocs.port_gbps=-1"), "command line: --set ocs.port_gbps=-1: "},
      {run("--set \"$(printf 'platform.name=a\\001b')\""), "command line: --set platform.name=a\\x01b: "},
      {run("--policy static --mip-seconds 5"), "command line: --mip-seconds: "},
      {run("--policy tdm4 --search sideways"), "command line: --search: "},
      {fmt::format("run --platform {} --workload {} --out {}", kWorkload, kPlatform, out), kWorkload + ": (file): "},
      {fmt::format("run --platform {} --workload {} --out {}", dir.path("folder.yaml"), kWorkload, out),
       dir.path("folder.yaml") + ": (file): is a folder"},
      {fmt::format("run --platform {} --workload {} --out {}", kPlatform, dir.path("fifo.yaml"), out),
       dir.path("fifo.yaml") + ": (file): is not a regular file"},
      {fmt::format("run --platform {} --workload {} --out {}", kPlatform, junk, out), junk + ": (file): "},
      {fmt::format("run --platform {} --workload {} --out {}", bad, kWorkload, out), bad + ": (file): not valid YAML"},
      {fmt::format("run --platform {} --workload {} --out {}", alias, kWorkload, out), alias + ": "},
      {run("", file), "command line: --out: ", "exists and is not a folder"},
      {run("", file + "/o"), "command line: --out: "},
      {run("", dir.path("")), "command line: --out: "},
      {run("", kSrc + "/platforms"), "command line: --out: "},
      {run("", "/proc/odcnsim-run"), "command line: --out: "},
      {run("--policy fastest", prev), "command line: --policy: "},
      {"validate " + dir.path("none.yaml"), dir.path("none.yaml") + ": (file): cannot be read"},
      {"validate " + dir.path("folder.yaml"), dir.path("folder.yaml") + ": (file): is a folder"},
      {"validate " + dir.path("fifo.yaml"), dir.path("fifo.yaml") + ": (file): is not a regular file"},
      {"validate " + junk, junk + ": (file): "},
      {"validate " + bad, bad + ": (file): not valid YAML"},
      {"validate " + alias, alias + ": "},
      {"validate", "command line: "},
  };
  expect_hostile(cases, dir);
}

TEST(HostileCommands, GenerateAndBench) {
  TempDir dir;
  const auto out = dir.path("g.json");
  fs::create_directories(dir.path("folder"));
  const auto kept = dir.write("kept.json", "mine\n");
  const auto gen = [&](const std::string& rest) { return fmt::format("generate {} --out {}", rest, out); };
  const auto bench = [&](const std::string& rest) { return fmt::format("bench --platform {} {}", kPlatform, rest); };
  std::vector<Case> cases{
      {gen("bogus"), "command line: (kind): unknown generator 'bogus'"},
      {gen("torchtitan --preset llama5"), "command line: --preset: unknown preset 'llama5'"},
      {gen("torchtitan --set tp=0"), "command line: --set tp: "},
      {gen("torchtitan --set tp"), "command line: --set: "},
      {gen("torchtitan --set colour=1"), "command line: --set colour: unknown key"},
      {gen("torchtitan --set layers=99999999"), "command line: --set layers: "},
      {gen("torchtitan --set tp=3"), "command line: "},
      {gen("torchtitan --set gpu=tpu"), "command line: --set gpu: "},
      {gen("torchtitan --set name=a,b"), "command line: --set name: "},
      {gen("dlrm --set servers=0"), "command line: --set servers: "},
      {gen("dlrm --search " + dir.path("none.yaml")), dir.path("none.yaml") + ": (file): cannot be read"},
      {gen("dlrm --search " + kPlatform), kPlatform + ": "},
      {gen("dlrm --search-budget 5"), "command line: "},
      {"generate torchtitan --out " + dir.path("folder"), "command line: --out: ", "is a folder"},
      {"generate torchtitan --out " + kept, "command line: --out: ", "exists and is not a job graph"},
      {"generate torchtitan --out " + dir.path("no/such.json"), "command line: --out: ", "does not exist"},
      {"generate torchtitan --out ''", "command line: --out: is empty"},
      {bench("--jobs 0"), "command line: --jobs: "},
      {bench("--jobs x,1"), "command line: --jobs: "},
      {bench("--jobs 1 --repeat 0"), "command line: --repeat: "},
      {bench("--jobs 1 --iterations 0"), "command line: --iterations: "},
      {bench("--jobs 1 --model gpt"), "command line: --model: "},
      {"bench --platform " + dir.path("none.yaml") + " --jobs 1", dir.path("none.yaml") + ": (file): cannot be read"},
      {"bench --platform " + kWorkload + " --jobs 1", kWorkload + ": "},
      {"bench --collective bogus", "command line: --collective: unknown operation 'bogus'"},
      {"bench --collective all-reduce --ranks 0", "command line: --ranks: "},
      {"bench --collective all-reduce --ranks 4 --bytes -1", "command line: --bytes: "},
      {"bench --collective all-reduce --ranks 4 --bytes nan", "command line: --bytes: "},
      {"bench --collective all-reduce --ranks 4 --algorithm tree", "command line: --algorithm: "},
      {"bench --collective all-reduce --ranks 4 --fabric flat_ocs --ports 3", "command line: --ports: "},
  };
  expect_hostile(cases, dir);
}

// An option given an empty value was read as not given: `compare --out ''` was an internal error (exit 1,
// "filesystem error: cannot make absolute path"), `export --out ''` a write error (exit 1) naming no path, and
// `--groups ''`, `--step ''`, `--baseline ''`, `--seeds ''`, `--emit ''` (which ran the whole sweep) and
// `--collect ''` fell back to their defaults without a word. Every one is now `command line: --OPTION: is empty`.
TEST(HostileCommands, AnEmptyValueIsRefusedNotReadAsNotGiven) {
  TempDir dir;
  const std::string kineto = kSrc + "/tests/data/kineto/nccl_data.json.gz";
  const auto g = dir.write("g.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "ar2", "ranks": 2, "tasks": [
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1], "bytes": 1e6}]})");
  const std::string inputs = fmt::format("--platform {} --workload {}", kPlatform, kWorkload);
  const auto out = dir.path("o");
  std::vector<Case> cases{
      {fmt::format("export chakra {} --out ''", g), "command line: --out: is empty"},
      {fmt::format("export chakra {} --for '' --out {}", g, out), "command line: --for: is empty"},
      {fmt::format("compare {} --policies static --out ''", inputs), "command line: --out: is empty"},
      {fmt::format("compare {} --policies static --baseline '' --out {}", inputs, out), "command line: --baseline: is empty"},
      {fmt::format("compare {} --policies static --seeds '' --out {}", inputs, out), "command line: --seeds: is empty"},
      {fmt::format("compare {} --policies '' --out {}", inputs, out), "command line: --policies: is empty"},
      {fmt::format("compare --platform '' --workload {} --policies static --out {}", kWorkload, out), "command line: --platform: is empty"},
      {fmt::format("sweep {} --policies static --emit '' --out {}", inputs, out), "command line: --emit: is empty"},
      {fmt::format("sweep {} --policies static --out ''", inputs), "command line: --out: is empty"},
      {"sweep --collect ''", "command line: --collect: is empty"},
      {fmt::format("import kineto {} --replicate --step '' --out {}", kineto, out), "command line: --step: is empty"},
      {fmt::format("import kineto {} --replicate --name '' --out {}", kineto, out), "command line: --name: is empty"},
      {fmt::format("import kineto {} --replicate --streams '' --out {}", kineto, out), "command line: --streams: is empty"},
      {fmt::format("import chakra {} --groups '' --out {}", ODCNSIM_CHAKRA_SAMPLE, out), "command line: --groups: is empty"},
      {fmt::format("import kineto '' --out {}", out), "command line: files: is empty"},
      {fmt::format("run {} --policy '' --out {}", inputs, out), "command line: --policy: is empty"},
      {fmt::format("run {} --search '' --policy tdm4 --out {}", inputs, out), "command line: --search: is empty"},
      {"validate ''", "command line: files: is empty"},
      {"generate torchtitan --out ''", "command line: --out: is empty"},
      {"bench --jobs 1 --policy ''", "command line: --policy: is empty"},
  };
  expect_hostile(cases, dir);
}

// bench printed its header on stdout before a child run refused an unknown --policy or a --set that is not
// KEY=VALUE: both are checked with the platform now, before anything is printed.
TEST(HostileCommands, BenchRefusesBadPolicyAndSetBeforePrinting) {
  TempDir dir;
  const std::string bench = "bench --platform " + kPlatform + " --jobs 1 --repeat 1 --iterations 1";
  expect_hostile({{bench + " --policy fastest", "command line: --policy: unknown policy 'fastest'"},
                  {bench + " --set colour", "command line: --set: expects key.path=value"},
                  {bench + " --set =1", "command line: --set: expects key.path=value"}},
                 dir);
}

// An option of one value given twice was CLI11's 'command line: SUBCOMMAND: --out: At Most 1 required but received
// 2': the field named the subcommand and the reason was the library's. The field is now the option.
TEST(HostileCommands, AnOptionOfOneValueGivenTwiceNamesTheOption) {
  TempDir dir;
  const auto g = dir.write("g.json", "{}");
  const std::string kineto = kSrc + "/tests/data/kineto/nccl_data.json.gz";
  expect_hostile({{fmt::format("export chakra {} --out {} --out {}", g, dir.path("a"), dir.path("b")),
                   "command line: --out: is given twice; give it once"},
                  {fmt::format("run --platform {} --platform {} --workload {} --out {}", kPlatform, kPlatform, kWorkload,
                               dir.path("o")),
                   "command line: --platform: is given twice; give it once"},
                  {fmt::format("compare --platform {} --workload {} --policies static --policies tdm4 --out {}", kPlatform,
                               kWorkload, dir.path("o")),
                   "command line: --policies: is given twice; give it once"},
                  {fmt::format("import chakra {} --ranks 2 --ranks=3 --out {}", ODCNSIM_CHAKRA_SAMPLE, dir.path("o.json")),
                   "command line: --ranks: is given twice; give it once"},
                  {fmt::format("import kineto {} --replicate --step 4 --step 5 --out {}", kineto, dir.path("o.json")),
                   "command line: --step: is given twice; give it once"}},
                 dir);
}
