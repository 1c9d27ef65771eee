// Hostile inputs of `odcnsim sweep` (issue 28): grid YAML errors of every key, grids on the command line with bad
// --set lists and seed ranges, --emit, and --collect on malformed sweep.json and summary.json, missing files,
// traversal ids and wrong types. Each is exit 2, one line naming the grid file and key, the option or the JSON
// file and field, and nothing written (no point run, no sweep.csv).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "cli/hostile_support.hpp"

using namespace odcn::test;
using namespace odcn::test::hostile;
namespace fs = std::filesystem;

namespace {

const std::string kHead = fmt::format("platform: {0}/platforms/clos-8pod.yaml\nworkload: {0}/workloads/small-mix.yaml\n", kSrc);
const std::string kInline =
    fmt::format("--platform {0}/platforms/clos-8pod.yaml --workload {0}/workloads/small-mix.yaml", kSrc);

/// A sweep.json as sweep writes it, with `keys` and `points` as given.
std::string sweep_json(const std::string& keys, const std::string& points) {
  return R"({"odcnsim_version": "x", "grid": "g.yaml", "base": {"platform": "p.yaml", "workload": "w.yaml"}, "keys": )" +
         keys + R"(, "points": )" + points + "}";
}
const std::string kPoint = R"({"id": "policy=static", "policy": "static", "seed": null, "set": {}})";

}  // namespace

TEST(HostileSweep, GridFiles) {
  TempDir dir;
  const auto out = dir.path("s");
  int n = 0;
  // Each grid in its own file, so that the line can be checked to name it.
  const auto grid = [&](const std::string& text) {
    const auto g = dir.write(fmt::format("g{}.yaml", n++), text);
    return std::make_pair(fmt::format("sweep {} --out {}", g, out), g);
  };
  std::vector<std::pair<std::string, std::string>> grids{  // (text, expected after "GRID: ")
      {kHead + "policies: [static]\nrepeat: 3\n", "repeat: unknown key"},
      {kHead + "policies: []\n", "policies: must list at least one policy"},
      {kHead + "policies: [static, fastest]\n", "policies[1]: unknown policy 'fastest'"},
      {kHead + "policies: [static, static]\n", "policies[1]: 'static' is listed twice"},
      {kHead + "policies: [[static]]\n", "policies[0]: "},
      {kHead + "policies: &a [*a]\n", "policies"},
      {kHead + "policies: [static]\niterations: 0\n", "iterations: "},
      {kHead + "policies: [static]\niterations: x\n", "iterations: must be a whole number"},
      {kHead + "policies: [static]\niterations: 1e3\n", "iterations: "},
      {kHead + "policies: [static]\niterations: 99999999999999999999\n", "iterations: "},
      {kHead + "policies: [static]\nslowdown: maybe\n", "slowdown: must be true or false"},
      {kHead + "policies: [static]\nseeds: 5\n", "seeds: "},
      {kHead + "policies: [static]\nseeds: [x]\n", "seeds[0]: "},
      {kHead + "policies: [static]\nseeds: [-1]\n", "seeds[0]: "},
      {kHead + "policies: [static]\nseeds: [18446744073709551616]\n", "seeds[0]: "},
      {kHead + "policies: [static]\nset: [1]\n", "set: "},
      {kHead + "policies: [static]\nset:\n  ocs.reconfig_delay_us: 10\n", "set.ocs.reconfig_delay_us: must list the values"},
      {kHead + "policies: [static]\nset:\n  ocs.reconfig_delay_us: []\n", "set.ocs.reconfig_delay_us: "},
      {kHead + "policies: [static]\nset:\n  ocs.reconfig_delay_us: [[1]]\n", "set.ocs.reconfig_delay_us[0]: "},
      {kHead + "policies: [static]\nset:\n  ocs.reconfig_delay_us: [~]\n", "set.ocs.reconfig_delay_us[0]: "},
      {kHead + "policies: [static]\nset:\n  ocs.reconfig_delay_us: [10, 10]\n", "set.ocs.reconfig_delay_us[1]: '10' is listed twice"},
      {kHead + "policies: [static]\nset:\n  ocs.port_gbps: [100, -1]\n", "set.ocs.port_gbps: value '-1': must be > 0"},
      {kHead + "policies: [static]\nset:\n  ocs.nonexistent: [1]\n", "set.ocs.nonexistent: value '1': unknown key"},
      {kHead + "policies: [static]\nset:\n  colour: [1]\n", "set.colour[0]: "},
      {kHead + "policies: [static]\nset:\n  ocs.port_gbps: [" + std::string(5000, '9') + "]\n", "set.ocs.port_gbps: "},
      {"workload: w.yaml\npolicies: [static]\n", "platform: is required"},
      {kHead + "policies: [static]\nplatform: x\n", "platform: duplicate key"},
      {"platform: [a]\nworkload: b\npolicies: [static]\n", "platform: "},
      {"platform: p\npolicies: [static]\n", "workload: is required"},
      {"[1, 2]\n", "(root): must be a YAML mapping"},
      {"", "(root): "},
      {"a: b: c\n", "(file): not valid YAML"},
      {"policies: [static]\n---\npolicies: [tdm4]\n", "(file): holds 2 YAML documents"},
      {"\xff\xfe", "(file): is not UTF-8 text"},
      {kHead + "policies: [static]\n" + std::string(200, ' ') + "{}: 1\n", "(file): "},
      // A policy that refuses the workload, named in the grid.
      {fmt::format("platform: {0}/platforms/electrical-16.yaml\nworkload: {0}/workloads/graphs-dp4.yaml\npolicies: [static, tdm4]\n",
                   kSrc),
       "policies[1]: policy tdm4 plans the TDM-4 paper's jobs"},
  };
  std::vector<Case> cases;
  for (const auto& [text, expect] : grids) {
    const auto [args, g] = grid(text);
    cases.push_back({args, g + ": " + expect});
  }
  // The files a grid names, and grids that are not files.
  const auto missing = grid("platform: " + dir.path("none.yaml") + "\nworkload: " + kSrc + "/workloads/small-mix.yaml\npolicies: [static]\n");
  cases.push_back({missing.first, dir.path("none.yaml") + ": (file): cannot be read"});
  fs::create_directories(dir.path("folder.yaml"));
  ASSERT_EQ(::mkfifo(dir.path("fifo.yaml").c_str(), 0644), 0);
  cases.push_back({fmt::format("sweep {} --out {}", dir.path("none.yaml"), out), dir.path("none.yaml") + ": (file): cannot be read"});
  cases.push_back({fmt::format("sweep {} --out {}", dir.path("folder.yaml"), out), dir.path("folder.yaml") + ": (file): is a folder"});
  cases.push_back({fmt::format("sweep {} --out {}", dir.path("fifo.yaml"), out), dir.path("fifo.yaml") + ": (file): is not a regular file"});
  cases.push_back({fmt::format("sweep /dev/zero --out {}", out), "/dev/zero: (file): is not a regular file"});
  expect_hostile(cases, dir);
}

TEST(HostileSweep, GridsOnTheCommandLineAndEmit) {
  TempDir dir;
  const auto out = dir.path("s");
  fs::create_directories(dir.path("mine"));
  dir.write("mine/notes.txt", "keep me");
  const auto file = dir.write("file.txt", "a file");
  const auto sw = [&](const std::string& rest) { return fmt::format("sweep {} {} --out {}", kInline, rest, out); };
  std::vector<Case> cases{
      {sw("--policies static,static"), "command line: --policies: 'static' is listed twice"},
      {sw("--policies static,fastest"), "command line: --policies: "},
      {sw("--policies ''"), "command line: --policies: "},
      {sw(""), "command line: --policies: is required for a grid given on the command line"},
      {fmt::format("sweep --platform {}/platforms/clos-8pod.yaml --policies static --out {}", kSrc, out),
       "command line: --workload: is required"},
      {sw("--policies static --seeds 3-1"), "command line: --seeds: '3-1' runs backwards"},
      {sw("--policies static --seeds 1,1"), "command line: --seeds: seed 1 is listed twice"},
      {sw("--policies static --seeds -1"), "command line: --seeds: "},
      {sw("--policies static --seeds x"), "command line: --seeds: "},
      {sw("--policies static --set ocs.port_gbps=1 --set ocs.port_gbps=2"), "command line: --set: 'ocs.port_gbps' is given twice"},
      {sw("--policies static --set x"), "command line: --set"},
      {sw("--policies static --iterations 0"), "command line: --iterations: "},
      {sw("--policies static --jobs 0"), "command line: --jobs: "},
      {sw("--policies static --jobs 1025"), "command line: --jobs: "},
      {sw("--policies static --emit bogus"), "command line: --emit: must be parallel or slurm"},
      {sw("--policies static --emit parallel --slurm-time 5"), "command line: --slurm-time: goes with --emit slurm"},
      {sw("--policies static --slurm-mem 300"), "command line: --slurm-mem: goes with --emit slurm"},
      {sw("--policies static --emit slurm --slurm-time 0 --slurm-mem 300"), "command line: --slurm-time: "},
      {sw("--policies static --emit slurm --slurm-time 5 --slurm-mem 99999999999"), "command line: --slurm-mem: "},
      {sw("--policies static --emit slurm --slurm-time x --slurm-mem 300"), "command line: --slurm-time: "},
      {fmt::format("sweep {}/g.yaml {} --policies static --out {}", dir.path(""), kInline, out),
       "command line: sweep: give a GRID.yaml or the grid's options"},
      {fmt::format("sweep {} --policies static", kInline), "command line: --out: is required"},
      {fmt::format("sweep {} --policies static --out {}", kInline, dir.path("mine")), "command line: --out: ",
       "holds files that odcnsim sweep did not write"},
      {fmt::format("sweep {} --policies static --out {}", kInline, file), "command line: --out: ", "is not a folder"},
      {fmt::format("sweep {} --policies static --out {}/s", kInline, file), "command line: --out: "},
      {fmt::format("sweep {} --policies static --emit parallel --collect {}", kInline, out), "command line: --collect: "},
  };
  expect_hostile(cases, dir);
}

TEST(HostileSweep, Collect) {
  TempDir dir;
  int n = 0;
  // Each malformed sweep folder in a folder of its own.
  const auto folder = [&](const std::string& sweep) {
    const auto f = dir.path(fmt::format("c{}", n++));
    fs::create_directories(f);
    if (!sweep.empty()) dir.write(fs::path(f).filename().string() + "/sweep.json", sweep);
    return f;
  };
  const auto collect = [&](const std::string& f) { return "sweep --collect " + q(f); };
  std::vector<Case> cases;
  const auto add = [&](const std::string& sweep, const std::string& field, const std::string& contains = "") {
    const auto f = folder(sweep);
    cases.push_back({collect(f), f + "/sweep.json: " + field, contains});
  };
  add(sweep_json("[]", R"("everything")"), "points: must be a list of points");
  add(sweep_json("[]", "[7]"), "points[0]: must be an object");
  add(sweep_json("[]", R"([{"id": 7, "policy": "static", "seed": null, "set": {}}])"), "points[0].id: must be a string");
  add(sweep_json("[]", R"([{"policy": "static", "seed": null, "set": {}}])"), "points[0].id: must be a string");
  add(sweep_json("[]", R"([{"id": "../escape", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: ",
      "is not a point folder name");
  add(sweep_json("[]", R"([{"id": "..", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: ");
  add(sweep_json("[]", R"([{"id": ".", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: ");
  add(sweep_json("[]", R"([{"id": "/etc", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: ");
  add(sweep_json("[]", R"([{"id": "", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: ");
  add(sweep_json("[]", R"([{"id": ")" + std::string(300, 'a') + R"(", "policy": "static", "seed": null, "set": {}}])"),
      "points[0].id: ", "(300 characters)");
  add(sweep_json("[]", R"([{"id": "a\nb", "policy": "static", "seed": null, "set": {}}])"), "points[0].id: 'a\\x0ab'");
  add(sweep_json("[]", "[" + kPoint + R"(, {"id": "b", "policy": 3, "seed": null, "set": {}}])"), "points[1].policy: must be a string");
  add(sweep_json("[]", R"([{"id": "b", "policy": "static", "seed": 1.5, "set": {}}])"), "points[0].seed: must be null");
  add(sweep_json("[]", R"([{"id": "b", "policy": "static", "seed": "1", "set": {}}])"), "points[0].seed: ");
  add(sweep_json("[]", R"([{"id": "b", "policy": "static", "seed": null, "set": []}])"), "points[0].set: must be an object");
  add(sweep_json(R"(["k"])", "[" + kPoint + "]"), "points[0].set.k: must be a string");
  add(sweep_json(R"(["k"])", R"([{"id": "b", "policy": "static", "seed": null, "set": {"k": 1}}])"), "points[0].set.k: must be a string");
  add(sweep_json("[1]", "[]"), "keys[0]: must be a string");
  add(sweep_json(R"("k")", "[]"), "keys: must be a list of strings");
  add(R"({"points": []})", "keys: must be a list of strings");
  add(R"({"keys": [], "points": []})", "base: must be an object");
  add(R"({"keys": [], "base": {"platform": 1, "workload": "w"}, "points": []})", "base.platform: must be a string");
  add(R"({"keys": [], "base": {"platform": "p"}, "points": []})", "base.workload: must be a string");
  add("[1, 2]", "(file): is not an odcnsim JSON result");
  add("{\"keys\": [", "(file): is not an odcnsim JSON result");
  add(std::string("\x1f\x8b\x08\0\0\0", 6), "(file): is not an odcnsim JSON result");
  add("null", "(file): is not an odcnsim JSON result");
  // A folder without a sweep.json, a missing folder, a file.
  const auto empty = folder("");
  cases.push_back({collect(empty), "command line: --collect: ", "holds no sweep.json"});
  cases.push_back({collect(dir.path("missing")), "command line: --collect: ", "holds no sweep.json"});
  cases.push_back({collect(dir.write("file.txt", "x")), "command line: --collect: "});
  // A summary.json that is not a JSON object.
  const auto not_object = folder(sweep_json("[]", "[" + kPoint + "]"));
  fs::create_directories(not_object + "/points/policy=static");
  dir.write(fs::path(not_object).filename().string() + "/points/policy=static/summary.json", "[1]");
  cases.push_back({collect(not_object), not_object + "/points/policy=static/summary.json: (file): is not an odcnsim JSON result"});
  expect_hostile(cases, dir);
}

// A sweep.json or summary.json that is a folder was an internal error (exit 1, the C++ library's text), and one
// that is a FIFO hung --collect for ever: both are read as every input file is now.
TEST(HostileSweep, CollectRefusesFoldersAndFifosAsJsonFiles) {
  TempDir dir;
  std::vector<Case> cases;
  const auto make = [&](const std::string& name, const std::string& sweep) {
    fs::create_directories(dir.path(name + "/points/policy=static"));
    if (!sweep.empty()) dir.write(name + "/sweep.json", sweep);
    return dir.path(name);
  };
  const std::string sweep = sweep_json("[]", "[" + kPoint + "]");
  const auto a = make("a", "");
  fs::create_directories(a + "/sweep.json");
  cases.push_back({"sweep --collect " + a, a + "/sweep.json: (file): is a folder, not a file"});
  const auto b = make("b", "");
  ASSERT_EQ(::mkfifo((b + "/sweep.json").c_str(), 0644), 0);
  cases.push_back({"sweep --collect " + b, b + "/sweep.json: (file): is not a regular file"});
  const auto c = make("c", sweep);
  fs::create_directories(c + "/points/policy=static/summary.json");
  cases.push_back({"sweep --collect " + c, c + "/points/policy=static/summary.json: (file): is a folder, not a file"});
  const auto d = make("d", sweep);
  ASSERT_EQ(::mkfifo((d + "/points/policy=static/summary.json").c_str(), 0644), 0);
  cases.push_back({"sweep --collect " + d, d + "/points/policy=static/summary.json: (file): is not a regular file"});
  expect_hostile(cases, dir);
}

// A sweep.json whose groups of set values do not each hold every policy (sweep never writes one, a hand-made or
// damaged one may) ended --collect in 'internal error: map::at' (exit 1) after sweep.csv was written. Such a group
// has no run of the missing policy: its row in sweep-stats.csv counts 0 seeds.
TEST(HostileSweep, CollectOfAGroupWithoutAPolicyIsNoInternalError) {
  TempDir dir;
  const auto s = dir.path("s");
  fs::create_directories(s + "/points/a");
  fs::create_directories(s + "/points/b");
  dir.write("s/sweep.json", sweep_json(R"(["k"])", R"([{"id": "a", "policy": "static", "seed": 1, "set": {"k": "1"}},
    {"id": "b", "policy": "tdm4", "seed": 1, "set": {"k": "2"}}])"));
  dir.write("s/points/a/summary.json", R"({"jobs": 1, "makespan_s": 2})");
  dir.write("s/points/b/summary.json", R"({"jobs": 1, "makespan_s": 3})");
  const auto r = odcnsim("sweep --collect " + s + " --quiet", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto stats = read_table(s + "/sweep-stats.csv");
  ASSERT_EQ(stats.rows.size(), 4u);  // two groups x two policies
  EXPECT_EQ(stats.at(0, "policy"), "static");
  EXPECT_EQ(stats.at(0, "seeds"), "1");
  EXPECT_EQ(stats.at(1, "policy"), "tdm4");
  EXPECT_EQ(stats.at(1, "seeds"), "0");
}

// Bugs these corpora found in sim/app/sweep_grid.cpp and sim/app/cmd_sweep.cpp, each fixed.

// A grid's `seeds: [1, 1]` was accepted: the two points got the same id and ran into one folder at once (compare
// --seeds 1,1 and sweep --seeds 1,1 refuse it: 'seed 1 is listed twice').
TEST(HostileSweep, AGridSeedListedTwiceIsRefused) {
  TempDir dir;
  const auto g = dir.write("g.yaml", kHead + "policies: [static]\nseeds: [1, 1]\n");
  expect_hostile({{fmt::format("sweep {} --out {}", g, dir.path("s")), g + ": seeds[1]: "}}, dir);
}

// A grid on the command line was refused in the grid file's words: `--set K=1,1` is 'command line:
// set.K[1]: ...', `--set K=-1` 'command line: set.K: value ...', a refused policy 'command line: policies: ...'.
// The field must be the option the user typed, as compare and run name it.
TEST(HostileSweep, AnInlineGridsRefusalNamesTheOption) {
  TempDir dir;
  const auto out = dir.path("s");
  expect_hostile({{fmt::format("sweep {} --policies static --set ocs.port_gbps=1,1 --out {}", kInline, out),
                   "command line: --set ocs.port_gbps=1,1: "},
                  {fmt::format("sweep {} --policies static --set ocs.port_gbps= --out {}", kInline, out), "command line: --set"},
                  {fmt::format("sweep {} --policies static --set ocs.port_gbps=-1 --out {}", kInline, out),
                   "command line: --set ocs.port_gbps=-1: "},
                  {fmt::format("sweep --platform {0}/platforms/electrical-16.yaml --workload {0}/workloads/graphs-dp4.yaml "
                               "--policies static,tdm4 --out {1}",
                               kSrc, out),
                   "command line: --policies: policy tdm4 plans the TDM-4 paper's jobs"}},
                 dir);
}

// A grid's set key that is empty was named 'set.[0]' (with the reason of a --set): it is the set that holds it.
TEST(HostileSweep, AnEmptySetKeyIsNamedAsTheKey) {
  TempDir dir;
  const auto g = dir.write("g.yaml", kHead + "policies: [static]\nset:\n  '': [1]\n");
  expect_hostile({{fmt::format("sweep {} --out {}", g, dir.path("s")), g + ": set: "}}, dir);
}

// --collect of a sweep whose points have no result yet wrote sweep.csv (a header alone), then refused: a refusal
// must write nothing.
TEST(HostileSweep, CollectWithNoResultWritesNothing) {
  TempDir dir;
  fs::create_directories(dir.path("s"));
  dir.write("s/sweep.json", sweep_json("[]", "[" + kPoint + "]"));
  expect_hostile({{"sweep --collect " + dir.path("s"), "command line: --collect: none of the 1 points has a result yet"}},
                 dir);
}

// check_sweep_json accepted what sweep never writes: two points of one id (one folder read twice) and a negative
// seed. (A key holding a comma, quote or line break is now quoted in sweep.csv: fuzz target sweep_collect.)
TEST(HostileSweep, CollectRefusesWhatSweepNeverWrites) {
  TempDir dir;
  std::vector<Case> cases;
  int n = 0;
  const auto add = [&](const std::string& sweep, const std::string& field) {
    const std::string f = fmt::format("c{}", n++);
    fs::create_directories(dir.path(f + "/points/a"));
    dir.write(f + "/sweep.json", sweep);
    dir.write(f + "/points/a/summary.json", R"({"jobs": 1, "makespan_s": 2})");
    cases.push_back({"sweep --collect " + dir.path(f), dir.path(f) + "/sweep.json: " + field});
  };
  add(sweep_json("[]", R"([{"id": "a", "policy": "static", "seed": null, "set": {}},
                           {"id": "a", "policy": "tdm4", "seed": null, "set": {}}])"),
      "points[1].id: ");
  add(sweep_json("[]", R"([{"id": "a", "policy": "static", "seed": -5, "set": {}}])"), "points[0].seed: ");
  expect_hostile(cases, dir);
}
