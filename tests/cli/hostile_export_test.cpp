// Hostile inputs of `odcnsim export chakra` (issue 28): bad job graphs, bad --out, folders of other files,
// read-only places. Each is exit 2, one line naming the graph file or the option, and nothing written anywhere.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli/hostile_support.hpp"

using namespace odcn::test;
using namespace odcn::test::hostile;
namespace fs = std::filesystem;

namespace {

const char* kGraph = R"({"format": "odcnsim-job-graph", "version": 1, "name": "ar4", "ranks": 4, "tasks": [
  {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2, 3], "bytes": 1e6}]})";

/// kGraph with `from` replaced by `to`.
std::string graph_with(const std::string& from, const std::string& to) {
  std::string g = kGraph;
  const auto at = g.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return g.replace(at, from.size(), to);
}

}  // namespace

TEST(HostileExport, EveryBadInputIsOneLineAndWritesNothing) {
  TempDir dir;
  const auto g = dir.write("g.json", kGraph);
  const auto out = dir.path("et");  // never created by any case
  // An earlier export, which a refused export must leave as it was.
  ASSERT_EQ(odcnsim(fmt::format("export chakra {} --quiet --out {}", g, dir.path("prev")), dir).code, 0);
  // A folder of the user's that holds a file of the export's name, one with a folder of that name.
  fs::create_directories(dir.path("mine"));
  dir.write("mine/ar4.0.et", "mine");
  fs::create_directories(dir.path("clash/ar4.1.et"));
  fs::create_directories(dir.path("inputs"));
  const auto graph = [&](const std::string& name, const std::string& text) { return dir.write("inputs/" + name, text); };
  fs::create_directories(dir.path("inputs/folder.json"));
  ASSERT_EQ(::mkfifo(dir.path("inputs/fifo.json").c_str(), 0644), 0);
  const auto unreadable = graph("unreadable.json", kGraph);
  ::chmod(unreadable.c_str(), 0);
  const auto big = graph("big.json", "");
  fs::resize_file(big, (64u << 20) + 1);  // sparse: one byte above the 64 MiB of any input file
  const std::string kineto = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
  const std::string workload = std::string(ODCNSIM_SOURCE_DIR) + "/workloads/small-mix.yaml";

  const auto exp = [&](const std::string& file, const std::string& rest = "") {
    return fmt::format("export chakra {} --out {}{}", q(file), q(out), rest);
  };
  std::vector<Case> cases{
      // The format and the graph file itself.
      {fmt::format("export pytorch {} --out {}", g, out), "command line: (format): unknown trace format 'pytorch'"},
      {fmt::format("export kineto {} --out {}", g, out), "command line: (format): unknown trace format 'kineto'"},
      {exp(dir.path("inputs/missing.json")), dir.path("inputs/missing.json") + ": (file): cannot be read"},
      {exp(dir.path("inputs/folder.json")), dir.path("inputs/folder.json") + ": (file): is a folder"},
      {exp(dir.path("inputs/fifo.json")), dir.path("inputs/fifo.json") + ": (file): is not a regular file"},
      {exp("/dev/zero"), "/dev/zero: (file): is not a regular file"},
      {exp(unreadable), unreadable + ": (file): cannot be read", "", true},
      {exp(big), big + ": (file): is 67108865 bytes, above the limit"},
      {exp(graph("empty.json", "")), dir.path("inputs/empty.json") + ": (file): "},
      {exp(graph("junk.json", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18))),
       dir.path("inputs/junk.json") + ": (file): "},
      {exp(graph("cut.json", std::string(kGraph).substr(0, 60))), dir.path("inputs/cut.json") + ": (file): "},
      {exp(kineto), kineto + ": (file): "},
      {exp(workload), workload + ": (file): "},
      {exp(graph("array.json", "[1, 2, 3]")), dir.path("inputs/array.json") + ": (root): "},
      {exp(graph("format.json", graph_with("odcnsim-job-graph", "chakra"))), dir.path("inputs/format.json") + ": format: "},
      {exp(graph("version.json", graph_with("\"version\": 1", "\"version\": 99"))),
       dir.path("inputs/version.json") + ": version: "},
      {exp(graph("dupkey.json", graph_with("\"version\": 1", "\"version\": 1, \"version\": 1"))),
       dir.path("inputs/dupkey.json") + ": version: duplicate key"},
      // Rank counts: none, negative, above the limit, not a whole number.
      {exp(graph("ranks0.json", graph_with("\"ranks\": 4", "\"ranks\": 0"))), dir.path("inputs/ranks0.json") + ": ranks: "},
      {exp(graph("ranksneg.json", graph_with("\"ranks\": 4", "\"ranks\": -4"))),
       dir.path("inputs/ranksneg.json") + ": ranks: "},
      {exp(graph("rankshuge.json", graph_with("\"ranks\": 4", "\"ranks\": 16777217"))),
       dir.path("inputs/rankshuge.json") + ": ranks: must be between 1 and 16777216"},
      {exp(graph("ranks2e64.json", graph_with("\"ranks\": 4", "\"ranks\": 18446744073709551617"))),
       dir.path("inputs/ranks2e64.json") + ": ranks: "},
      {exp(graph("ranksreal.json", graph_with("\"ranks\": 4", "\"ranks\": 4.5"))),
       dir.path("inputs/ranksreal.json") + ": ranks: "},
      {exp(graph("ranksstr.json", graph_with("\"ranks\": 4", "\"ranks\": \"4\""))),
       dir.path("inputs/ranksstr.json") + ": ranks: "},
      // Names that cannot name files, tasks that are not tasks.
      {exp(graph("slash.json", graph_with("\"ar4\"", "\"a/b\""))), dir.path("inputs/slash.json") + ": name: "},
      {exp(graph("dotdot.json", graph_with("\"ar4\"", "\"..\""))), dir.path("inputs/dotdot.json") + ": name: "},
      {exp(graph("ctrl.json", graph_with("\"ar4\"", "\"a\\u0001b\""))), dir.path("inputs/ctrl.json") + ": name: "},
      {exp(graph("tasks.json", graph_with("\"tasks\": [", "\"tasks\": 7, \"x\": ["))), dir.path("inputs/tasks.json") + ": "},
      {exp(graph("kind.json", graph_with("\"collective\"", "\"teleport\""))), dir.path("inputs/kind.json") + ": tasks[0].kind: "},
      {exp(graph("group.json", graph_with("[0, 1, 2, 3]", "[0, 1, 2, 9]"))), dir.path("inputs/group.json") + ": tasks[0].group"},
      {exp(graph("bytes.json", graph_with("1e6", "-1"))), dir.path("inputs/bytes.json") + ": tasks[0].bytes: "},
      {exp(graph("bytesinf.json", graph_with("1e6", "1e999"))), dir.path("inputs/bytesinf.json") + ": tasks[0].bytes: "},
      // --out: a file, a device, below a missing folder or a file.
      {fmt::format("export chakra {} --out {}", g, g), "command line: --out: ", "is not a folder"},
      {fmt::format("export chakra {} --out /dev/null", g), "command line: --out: ", "is not a folder"},
      {fmt::format("export chakra {} --out {}", g, dir.path("no/such")), "command line: --out: ", "does not exist"},
      {fmt::format("export chakra {} --out {}/et", g, g), "command line: --out: "},
      // Folders holding the user's files of the export's names: kept, and nothing added beside them.
      {fmt::format("export chakra {} --out {}", g, dir.path("mine")), "command line: --out: ",
       "exists and no earlier odcnsim export wrote it"},
      {fmt::format("export chakra {} --out {}", g, dir.path("clash")), "command line: --out: ", "is a folder"},
      // The options: an earlier export stays as it was.
      {fmt::format("export chakra {} --for astra --out {}", g, dir.path("prev")), "command line: --for: must be odcnsim or astra-sim"},
      {fmt::format("export chakra {} --for '' --out {}", g, dir.path("prev")), "command line: --for: "},
      {fmt::format("export chakra {} --outdir {}", g, out), "command line: --outdir: unknown option of 'odcnsim export'"},
      {fmt::format("export chakra {} {} --out {}", g, g, out), "command line: "},
      {fmt::format("export chakra --out {}", out), "command line: "},
  };
  expect_hostile(cases, dir);
}

// A job graph of 16,777,216 ranks (the limit) is accepted, and export then writes 16.7 million files: an hour or
// more, and every file's bytes held in memory first. It needs a limit of its own (core/limits.hpp, docs/limits.md).
TEST(HostileExport, AHugeRankCountIsRefusedBeforeWriting) {
  TempDir dir;
  const auto g = dir.write("g.json", graph_with("\"ranks\": 4", "\"ranks\": 16777216"));
  expect_hostile({{fmt::format("export chakra {} --out {}", g, dir.path("et")),
                   g + ": ranks: 16777216 ranks would be 16777216 Chakra files, above the limit of 262144"}},
                 dir);
}

// A --out where nothing can be created (a read-only folder, /proc) was a write error (exit 1) naming the hidden
// staging folder, which the user never gave; run, compare and sweep refuse such an --out as bad input (exit 2).
// export, import, generate and compare (into an existing folder) now do too, naming the folder.
TEST(HostileExport, AnOutWhereNothingCanBeCreatedIsABadOption) {
  TempDir dir;
  const auto g = dir.write("g.json", kGraph);
  const std::string kineto = std::string(ODCNSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
  const std::string inputs = fmt::format("--platform {0}/platforms/clos-8pod.yaml --workload {0}/workloads/small-mix.yaml",
                                         ODCNSIM_SOURCE_DIR);
  fs::create_directories(dir.path("ro/inner"));
  ::chmod(dir.path("ro/inner").c_str(), 0555);
  ::chmod(dir.path("ro").c_str(), 0555);
  const std::string ro = dir.path("ro");
  expect_hostile({{fmt::format("export chakra {} --out /proc/odcnsim-export", g), "command line: --out: cannot write into folder '/proc'"},
                  {fmt::format("export chakra {} --out {}/et", g, ro), "command line: --out: cannot write into folder", "", true},
                  {fmt::format("export chakra {} --out {}/inner", g, ro), "command line: --out: cannot write into folder", "", true},
                  {fmt::format("import kineto {} --replicate --out {}/g.json", kineto, ro), "command line: --out: cannot write into folder", "", true},
                  {fmt::format("generate torchtitan --out {}/g.json", ro), "command line: --out: cannot write into folder", "", true},
                  {fmt::format("compare {} --policies static --out {}/inner", inputs, ro), "command line: --out: cannot write into folder", "", true}},
                 dir);
  ::chmod(dir.path("ro").c_str(), 0755);
  ::chmod(dir.path("ro/inner").c_str(), 0755);
}
