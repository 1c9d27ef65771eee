// Every output is odcnsim's: each policy and each command run twice into the same --out succeeds (the second
// replaces what the first wrote, recognised by its manifest), a plots/ folder of images beside the results is kept,
// and a file of the user's still stops the run unless --force.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

namespace {

struct Scenario {
  std::string policy, platform, workload, extra;
};

// One scenario per policy of the table, small enough to run in about a second.
const Scenario kScenarios[] = {
    {"static", "clos-8pod", "small-mix", ""},
    {"tdm4", "clos-8pod", "small-mix", ""},
    {"aggregate", "clos-8pod", "small-mix", ""},
    {"tdm4-ilp", "clos-8pod", "small-mix", ""},
    {"alone", "clos-8pod", "small-mix", ""},
    {"opus", "photonic-rail-16", "graphs-dp4", ""},
    {"inc-ljf", "inc-aoi-64rack", "inc-aoi-800", "--set ps_jobs.generator.jobs=20"},
    {"inc-fcfs", "inc-aoi-64rack", "inc-aoi-800", "--set ps_jobs.generator.jobs=20"},
    {"noinc-ljf", "inc-aoi-64rack", "inc-aoi-800", "--set ps_jobs.generator.jobs=20"},
    {"noinc-fcfs", "inc-aoi-64rack", "inc-aoi-800", "--set ps_jobs.generator.jobs=20"},
    {"inc-group", "inc-aoi-64rack", "inc-aoi-800", "--set ps_jobs.generator.jobs=20"},
    {"topox", "flat-ocs-16", "dlrm-16", ""},
    {"topoopt", "flat-ocs-16", "dlrm-16", ""},
};

std::string run_args(const Scenario& s, const std::string& out) {
  return "run --platform platforms/" + s.platform + ".yaml --workload workloads/" + s.workload + ".yaml --policy " +
         s.policy + " --iterations 1 --no-slowdown --quiet " + s.extra + " --out '" + out + "'";
}

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

// The table of policies and this test list the same policies: a new row needs a scenario here.
TEST(Rerun, EveryPolicyOfTheTableHasAScenario) {
  TempDir dir;
  const auto r = odcnsim("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy none "
                         "--out " + dir.path("x"), dir);
  ASSERT_EQ(r.code, 2);
  const auto from = r.err.find("(known: ") + 8, to = r.err.find(';', from);
  std::string known = r.err.substr(from, to - from) + ",";
  std::set<std::string> table, here;
  for (std::size_t p = 0, c; (c = known.find(',', p)) != std::string::npos; p = c + 2) table.insert(known.substr(p, c - p));
  for (const auto& s : kScenarios) here.insert(s.policy);
  EXPECT_EQ(table, here);
}

TEST(Rerun, EveryPolicyTwiceIntoTheSameFolder) {
  TempDir dir;
  for (const auto& s : kScenarios) {
    SCOPED_TRACE(s.policy);
    const std::string out = dir.path("out-" + s.policy);
    auto r = odcnsim(run_args(s, out), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto first = names_in(out);
    // The manifest lists every file the run wrote, itself included.
    std::ifstream in(out + "/manifest.json");
    const auto manifest = nlohmann::json::parse(in);
    EXPECT_EQ(manifest["written_by"], "odcnsim");
    EXPECT_EQ(manifest["files"].get<std::set<std::string>>(), first);
    // A plot of the result, as analysis/ writes it, does not stop the next run.
    fs::create_directory(out + "/plots");
    std::ofstream(out + "/plots/timeline.png") << "png";
    r = odcnsim(run_args(s, out), dir);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(names_in(out), first);
  }
}

TEST(Rerun, AFileOfTheUsersStopsTheRunAndIsKept) {
  TempDir dir;
  const Scenario s = kScenarios[0];
  const std::string out = dir.path("out");
  ASSERT_EQ(odcnsim(run_args(s, out), dir).code, 0);
  std::ofstream(out + "/notes.txt") << "mine";
  const auto r = odcnsim(run_args(s, out), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds files that odcnsim did not write (notes.txt)"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out + "/notes.txt"), "mine");
  std::ofstream(out + "/manifest.json") << "{\"written_by\": \"me\", \"files\": [\"notes.txt\"]}";
  EXPECT_EQ(odcnsim(run_args(s, out), dir).code, 2);  // a manifest odcnsim did not write lists nothing of odcnsim's
  EXPECT_EQ(read_file(out + "/notes.txt"), "mine");
}

TEST(Rerun, EveryCommandTwiceIntoTheSameOut) {
  TempDir dir;
  const std::string cmds[] = {
      "generate torchtitan --quiet --out " + dir.path("tt.json"),
      "generate dlrm --quiet --out " + dir.path("dlrm.json"),
      "import kineto tests/data/kineto/nccl_data.json.gz --replicate --quiet --out " + dir.path("k.json"),
      "export chakra docs/examples/job-graph-dp4.json --quiet --out " + dir.path("et"),
      "compare --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policies static,aggregate "
      "--iterations 1 --no-slowdown --quiet --out " + dir.path("cmp"),
      "compare --platform platforms/photonic-rail-16.yaml --workload workloads/graphs-dp4.yaml --policies "
      "static,opus:on-demand,opus --iterations 1 --quiet --out " + dir.path("cmp-graphs"),
  };
  for (const auto& c : cmds) {
    SCOPED_TRACE(c);
    auto r = odcnsim(c, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    r = odcnsim(c, dir);
    EXPECT_EQ(r.code, 0) << r.err;
  }
  // compare keeps a plots/ folder that a plot tool wrote next to its table.
  fs::create_directory(dir.path("cmp/plots"));
  std::ofstream(dir.path("cmp/plots/bars.png")) << "png";
  EXPECT_EQ(odcnsim(cmds[4], dir).code, 0);
  EXPECT_TRUE(fs::exists(dir.path("cmp/plots/bars.png")));
  // A hand-written job graph at generate's --out is never replaced without --force.
  std::ofstream(dir.path("mine.json")) << read_file(std::string(ODCNSIM_SOURCE_DIR) + "/docs/examples/job-graph-dp4.json");
  const auto r = odcnsim("generate torchtitan --quiet --out " + dir.path("mine.json"), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a job graph that 'odcnsim generate torchtitan' wrote"), std::string::npos) << r.err;
}

TEST(Rerun, SweepTwiceIntoTheSameFolderKeepsPlots) {
  TempDir dir;
  const auto grid = dir.write("grid.yaml", "platform: " + std::string(ODCNSIM_SOURCE_DIR) +
                                               "/platforms/clos-8pod.yaml\nworkload: " + ODCNSIM_SOURCE_DIR +
                                               "/workloads/small-mix.yaml\npolicies: [static]\niterations: 1\n"
                                               "slowdown: false\nset:\n  ocs.reconfig_delay_us: [10, 1000]\n");
  const std::string cmd = "sweep " + grid + " --quiet -j 2 --out " + dir.path("sw");
  ASSERT_EQ(odcnsim(cmd, dir).code, 0);
  fs::create_directory(dir.path("sw/plots"));
  std::ofstream(dir.path("sw/plots/makespan.png")) << "png";
  const auto r = odcnsim(cmd, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path("sw/plots/makespan.png")));
}

// A result folder is replaced only by the command that wrote it: a run never replaces an export's folder (which
// may hold the run's own input traces), an export never replaces a manifest.json it did not write, and a job graph
// is replaced without --force only by the command that generated it.
TEST(Rerun, AResultIsReplacedOnlyByTheCommandThatWroteIt) {
  TempDir dir;
  ASSERT_EQ(odcnsim("export chakra docs/examples/job-graph-dp4.json --quiet --out " + dir.path("et"), dir).code, 0);
  const std::string et = read_file(dir.path("et/dp4-toy.0.et"));
  auto r = odcnsim("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --quiet --no-slowdown "
                   "--out " + dir.path("et"), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds files that odcnsim did not write"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.path("et/dp4-toy.0.et")), et);
  fs::create_directory(dir.path("mine"));
  std::ofstream(dir.path("mine/manifest.json")) << "{\"my\": \"own\"}";
  r = odcnsim("export chakra docs/examples/job-graph-dp4.json --quiet --out " + dir.path("mine"), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(read_file(dir.path("mine/manifest.json")), "{\"my\": \"own\"}");
  ASSERT_EQ(odcnsim("import kineto tests/data/kineto/nccl_data.json.gz --replicate --quiet --out " + dir.path("k.json"),
                    dir).code, 0);
  const std::string imported = read_file(dir.path("k.json"));
  r = odcnsim("generate dlrm --quiet --out " + dir.path("k.json"), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a job graph that 'odcnsim generate dlrm' wrote"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.path("k.json")), imported);
}

// export chakra writes every file into a hidden staging folder first: a write that fails (here a file-size limit,
// as a full disk would) adds nothing to an existing folder and creates no new one, leaves no staging folder, and
// a staging folder a killed export left behind never blocks the next export.
TEST(Rerun, AFailedExportAddsNothingAndLeavesNoStaging) {
  TempDir dir;
  std::string tasks = R"({"id": "c0", "kind": "compute", "rank": 0, "duration_s": 0.001})";
  for (int i = 0; i < 3000; ++i)  // rank 1's chain makes its .et file far larger than rank 0's
    tasks += fmt::format(R"(, {{"id": "b{}", "kind": "compute", "rank": 1, "duration_s": 0.001{}}})", i,
                         i ? fmt::format(R"(, "deps": ["b{}"])", i - 1) : "");
  const auto graph = dir.write("skew.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "skew", "ranks": 2, "tasks": [)" +
                                                tasks + "]}");
  std::filesystem::create_directories(dir.path("mine"));
  dir.write("mine/notes.txt", "keep me");
  std::filesystem::create_directories(dir.path(".fresh.partial"));  // an older export's leftover
  const auto r = run_script(fmt::format("ulimit -f 20; '{0}' export chakra '{1}' --out mine; echo $? > rc.mine; "
                                        "'{0}' export chakra '{1}' --out fresh; echo $? > rc.fresh",
                                        ODCNSIM_BIN, graph),
                            dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir.path("rc.mine")), "1\n");
  EXPECT_EQ(read_file(dir.path("rc.fresh")), "1\n");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  // Each error names the file's place, not the staging folder it was being written in.
  EXPECT_NE(r.err.find("mine/skew.1.et: (write): write failed: File too large"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fresh/skew.1.et: (write): write failed: File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".partial"), std::string::npos) << r.err;
  std::vector<std::string> in_mine;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("mine"))) in_mine.push_back(e.path().filename());
  EXPECT_EQ(in_mine, std::vector<std::string>{"notes.txt"});
  EXPECT_FALSE(std::filesystem::exists(dir.path("fresh")));
  for (const auto& e : std::filesystem::directory_iterator(dir.path("")))
    EXPECT_TRUE(e.path().filename() == ".fresh.partial" || e.path().filename().string().find(".partial") == std::string::npos)
        << e.path();
  // Without the limit both succeed, the leftover notwithstanding.
  EXPECT_EQ(odcnsim(fmt::format("export chakra '{}' --quiet --out '{}'", graph, dir.path("fresh")), dir).code, 0);
  EXPECT_EQ(odcnsim(fmt::format("export chakra '{}' --quiet --out '{}'", graph, dir.path("mine")), dir).code, 0);
  EXPECT_EQ(read_file(dir.path("mine/notes.txt")), "keep me");
  EXPECT_TRUE(std::filesystem::exists(dir.path("fresh/skew.1.et")));
}
