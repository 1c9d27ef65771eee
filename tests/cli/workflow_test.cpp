// compare and sweep as a user runs them: compare's table equals separate runs; a sweep resumes, and the same
// grid run by GNU parallel (and by a real single-node Slurm, where one can be started) gives the same CSV.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cli/cli_support.hpp"

using namespace odcn::test;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = "--platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml";

/// Rows of a CSV without quoted fields, keyed by their first column; each row maps column → text.
std::map<std::string, std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) head.push_back(c);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
      const auto comma = line.find(',', start);
      cells.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    EXPECT_EQ(cells.size(), head.size()) << line;
    for (std::size_t i = 0; i < head.size() && i < cells.size(); ++i) rows[cells[0]][head[i]] = cells[i];
  }
  return rows;
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

/// A grid over two δ and two GPU speeds, two policies: 8 points of small-mix on clos-8pod.
std::string write_grid(const TempDir& dir) {
  return dir.write("grid.yaml", fmt::format("platform: {0}/platforms/clos-8pod.yaml\n"
                                            "workload: {0}/workloads/small-mix.yaml\n"
                                            "policies: [static, tdm4]\n"
                                            "iterations: 2\n"
                                            "set:\n"
                                            "  ocs.reconfig_delay_us: [200, 10000]\n"
                                            "  training.gpu_tflops: [26, 312]\n",
                                            ODCNSIM_SOURCE_DIR));
}

}  // namespace

TEST(Compare, TableEqualsSeparateRuns) {
  TempDir dir;
  const auto r = odcnsim(fmt::format("compare {} --policies static,tdm4,alone --baseline tdm4 --iterations 2 --set "
                                     "ocs.reconfig_delay_us=10000 --out {}",
                                     kSmall, dir.path("cmp")),
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ratios (x) to tdm4"), std::string::npos) << r.out;
  const auto table = read_csv(dir.path("cmp/compare.csv"));
  ASSERT_EQ(table.size(), 3u);
  std::map<std::string, nlohmann::json> separate;
  for (const char* policy : {"static", "tdm4", "alone"}) {
    SCOPED_TRACE(policy);
    const auto out = dir.path(std::string("sep-") + policy);
    const auto s = odcnsim(fmt::format("run {} --policy {} --iterations 2 --set ocs.reconfig_delay_us=10000 --out {}",
                                       kSmall, policy, out),
                           dir);
    ASSERT_EQ(s.code, 0) << s.err;
    // compare's run of the policy is the very same run.
    EXPECT_EQ(read_file(out + "/summary.json"), read_file(dir.path("cmp/runs/") + policy + "/summary.json"));
    separate[policy] = read_json(out + "/summary.json");
  }
  for (const auto& [policy, s] : separate) {
    const auto& row = table.at(policy);
    EXPECT_EQ(row.at("baseline"), "tdm4");
    for (const char* key : {"makespan_s", "job_completion_mean_s", "job_completion_p95_s", "mean_iteration_s",
                            "throughput_iterations_per_hour", "slowdown_mean", "share_waiting"}) {
      SCOPED_TRACE(key);
      EXPECT_DOUBLE_EQ(std::stod(row.at(key)), s[key].get<double>());
      EXPECT_NEAR(std::stod(row.at(std::string(key) + "_ratio")), s[key].get<double>() / separate["tdm4"][key].get<double>(),
                  1e-12);
    }
    EXPECT_EQ(row.at("reconfigurations"), std::to_string(s["reconfigurations"].get<int>()));
  }
  // tdm4 does not reconfigure here, so the other policies' ratio of reconfigurations is undefined: empty.
  EXPECT_EQ(table.at("alone").at("reconfigurations_ratio"), "");
  const auto doc = read_json(dir.path("cmp/compare.json"));
  EXPECT_EQ(doc["baseline"], "tdm4");
  EXPECT_EQ(doc["policies"].size(), 3u);
  const std::string md = read_file(dir.path("cmp/compare.md"));
  EXPECT_NE(md.find("| mean slowdown"), std::string::npos);
  EXPECT_NE(md.find("tdm4 (baseline)"), std::string::npos);
  // The overrides reached every run.
  EXPECT_EQ(read_json(dir.path("cmp/runs/static/run.json"))["overrides"][0]["path"], "ocs.reconfig_delay_us");
}

TEST(Compare, BadInputIsOneLineAndOtherFilesAreKept) {
  TempDir dir;
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : {Case{"--policies static,fastest", "command line: --policies: unknown policy 'fastest'"},
                        Case{"--policies static,static", "command line: --policies: 'static' is named twice"},
                        Case{"--policies static --baseline tdm4", "command line: --baseline: 'tdm4' is not one"},
                        Case{"--policies static --set ocs.port_gbps=-1", "command line: --set ocs.port_gbps=-1:"}}) {
    SCOPED_TRACE(c.args);
    const auto r = odcnsim(fmt::format("compare {} {} --out {}", kSmall, c.args, dir.path("c")), dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind(c.expect, 0), 0u) << r.err;
  }
  fs::create_directories(dir.path("mine"));
  dir.write("mine/notes.txt", "keep me");
  const auto r = odcnsim(fmt::format("compare {} --policies static --out {}", kSmall, dir.path("mine")), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds files that odcnsim compare did not write (notes.txt)"), std::string::npos) << r.err;
  const auto forced = odcnsim(fmt::format("compare {} --policies static --out {} --force", kSmall, dir.path("mine")), dir);
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(read_file(dir.path("mine/notes.txt")), "keep me");
  EXPECT_TRUE(fs::exists(dir.path("mine/compare.csv")));
  // A policy that refuses the workload is refused before any run: no folder for the policies that would have run,
  // and an earlier comparison in --out keeps every file as it was.
  const std::string graphs = "--platform platforms/electrical-16.yaml --workload workloads/graphs-dp4.yaml";
  const auto refused = odcnsim(fmt::format("compare {} --policies static,tdm4 --out {}", graphs, dir.path("g")), dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(lines(refused.err), 1) << refused.err;
  EXPECT_EQ(refused.err.rfind("command line: --policies: policy tdm4 plans the TDM-4 paper's jobs", 0), 0u) << refused.err;
  EXPECT_FALSE(fs::exists(dir.path("g")));
  const std::string before = read_file(dir.path("mine/runs/static/summary.json"));
  const auto again = odcnsim(fmt::format("compare {} --policies static,tdm4 --out {} --force", graphs, dir.path("mine")), dir);
  EXPECT_EQ(again.code, 2);
  EXPECT_EQ(read_file(dir.path("mine/runs/static/summary.json")), before);
}

TEST(Sweep, WritesATidyCsvAndResumes) {
  TempDir dir;
  const auto grid = write_grid(dir);
  const auto first = odcnsim(fmt::format("sweep {} --out {} -j 4", grid, dir.path("s")), dir);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.err.find("8 points (0 finished earlier, 8 to run)"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("sweep: 8/8 done"), std::string::npos) << "plain progress lines when not a terminal";
  const std::string csv = read_file(dir.path("s/sweep.csv"));
  const auto rows = read_csv(dir.path("s/sweep.csv"));
  ASSERT_EQ(rows.size(), 8u);
  // Every point is the run its values describe.
  for (const auto& [id, row] : rows) {
    SCOPED_TRACE(id);
    const auto s = read_json(dir.path("s/points/") + id + "/summary.json");
    EXPECT_EQ(row.at("policy"), s["policy"]);
    EXPECT_DOUBLE_EQ(std::stod(row.at("makespan_s")), s["makespan_s"].get<double>());
    EXPECT_EQ(id, fmt::format("ocs.reconfig_delay_us={}+training.gpu_tflops={}+policy={}", row.at("ocs.reconfig_delay_us"),
                              row.at("training.gpu_tflops"), row.at("policy")));
    EXPECT_FALSE(fs::exists(dir.path("s/points/") + id + "/trace.json"));  // traces only on request
  }
  // 12x faster GPUs shorten static's makespan: training dominates small-mix.
  const auto& slow = rows.at("ocs.reconfig_delay_us=200+training.gpu_tflops=26+policy=static");
  const auto& fast = rows.at("ocs.reconfig_delay_us=200+training.gpu_tflops=312+policy=static");
  EXPECT_LT(std::stod(fast.at("makespan_s")), std::stod(slow.at("makespan_s")) / 5);

  // Resume: only the missing point runs again; the others are not touched.
  const std::string kept = dir.path("s/points/ocs.reconfig_delay_us=200+training.gpu_tflops=26+policy=tdm4/summary.json");
  struct stat before {};
  ASSERT_EQ(stat(kept.c_str(), &before), 0);
  fs::remove_all(dir.path("s/points/ocs.reconfig_delay_us=10000+training.gpu_tflops=312+policy=static"));
  const auto second = odcnsim(fmt::format("sweep {} --out {}", grid, dir.path("s")), dir);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.err.find("8 points (7 finished earlier, 1 to run)"), std::string::npos) << second.err;
  struct stat after {};
  ASSERT_EQ(stat(kept.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(read_file(dir.path("s/sweep.csv")), csv);

  // Another grid in the same folder is refused rather than mixed in.
  const auto other = dir.write("other.yaml", read_file(grid) + "slowdown: false\n");
  const auto refused = odcnsim(fmt::format("sweep {} --out {}", other, dir.path("s")), dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("holds a sweep of another grid (its slowdown differs)"), std::string::npos) << refused.err;
}

TEST(Sweep, GnuParallelGivesTheSameCsv) {
  if (std::system("command -v parallel > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "GNU parallel is not installed (Debian package 'parallel'; scripts/test.sh installs it)";
  TempDir dir;
  const auto grid = write_grid(dir);
  ASSERT_EQ(odcnsim(fmt::format("sweep {} --out {} --quiet", grid, dir.path("builtin")), dir).code, 0);
  const auto emit = odcnsim(fmt::format("sweep {} --out {} --emit parallel", grid, dir.path("gnu")), dir);
  ASSERT_EQ(emit.code, 0) << emit.err;
  EXPECT_NE(emit.out.find("parallel -j"), std::string::npos);
  EXPECT_EQ(lines(read_file(dir.path("gnu/commands.txt"))), 8);
  const auto ran = run_script(fmt::format("cd / && parallel --will-cite -j 4 < '{}'", dir.path("gnu/commands.txt")), dir);
  ASSERT_EQ(ran.code, 0) << ran.err;
  const auto collected = odcnsim(fmt::format("sweep --collect {}", dir.path("gnu")), dir);
  ASSERT_EQ(collected.code, 0) << collected.err;
  EXPECT_EQ(read_file(dir.path("gnu/sweep.csv")), read_file(dir.path("builtin/sweep.csv")));
}

TEST(Sweep, SlurmJobArrayGivesTheSameCsv) {
  const std::string script = fmt::format("{}/scripts/slurm-local.sh", ODCNSIM_SOURCE_DIR);
  TempDir dir;
  if (run_script(fmt::format("bash '{}' check", script), dir).code != 0)
    GTEST_SKIP() << "Slurm is not installed (Debian packages slurm-wlm and munge)";
  fs::create_directories(dir.path("slurm-state"));
  const auto start = run_script(fmt::format("bash '{}' start '{}'", script, dir.path("slurm-state")), dir);
  if (start.code != 0) GTEST_SKIP() << "a single-node Slurm could not be started here: " << start.err;
  const std::string env = start.out;  // export lines (SLURM_CONF)
  const auto grid = write_grid(dir);
  ASSERT_EQ(odcnsim(fmt::format("sweep {} --out {} --quiet", grid, dir.path("builtin")), dir).code, 0);
  const auto emit = odcnsim(fmt::format("sweep {} --out {} --emit slurm", grid, dir.path("slurm")), dir);
  ASSERT_EQ(emit.code, 0) << emit.err;
  // (sbatch --wait polls every ~10 s; squeue until the array has left the queue is quicker.)
  const auto ran = run_script(fmt::format("set -e\n{}\nid=$(sbatch --parsable '{}')\nfor i in $(seq 600); do\n"
                                          "  squeue -h -j \"$id\" 2>/dev/null | grep -q . || exit 0\n  sleep 0.2\ndone\n"
                                          "exit 1",
                                          env, dir.path("slurm/sweep.sbatch")),
                              dir);
  run_script(fmt::format("bash '{}' stop '{}'", script, dir.path("slurm-state")), dir);
  ASSERT_EQ(ran.code, 0) << ran.out << ran.err;
  const auto collected = odcnsim(fmt::format("sweep --collect {}", dir.path("slurm")), dir);
  ASSERT_EQ(collected.code, 0) << collected.err;
  EXPECT_EQ(read_file(dir.path("slurm/sweep.csv")), read_file(dir.path("builtin/sweep.csv")));
}

TEST(Sweep, BadGridsAreOneLine) {
  TempDir dir;
  const std::string head = fmt::format("platform: {0}/platforms/clos-8pod.yaml\nworkload: {0}/workloads/small-mix.yaml\n",
                                       ODCNSIM_SOURCE_DIR);
  struct Case {
    std::string text, expect;
  };
  for (const Case& c : {Case{head + "policies: [static]\nrepeat: 3\n", "g.yaml: repeat: unknown key"},
                        Case{head + "policies: [static, fastest]\n", "g.yaml: policies[1]: unknown policy 'fastest'"},
                        Case{head + "policies: []\n", "g.yaml: policies: must list at least one policy"},
                        Case{head + "policies: [static]\nset:\n  ocs.reconfig_delay_us: 10\n",
                             "g.yaml: set.ocs.reconfig_delay_us: must list the values"},
                        Case{head + "policies: [static]\nset:\n  colour: [1]\n", "g.yaml: set.colour[0]:"},
                        Case{head + "policies: [static]\nseeds: [x]\n", "g.yaml: seeds[0]:"},
                        Case{head + "policies: [static]\nset:\n  ocs.reconfig_delay_us: [10, 10]\n",
                             "g.yaml: set.ocs.reconfig_delay_us[1]: '10' is listed twice"},
                        Case{"workload: w.yaml\npolicies: [static]\n", "g.yaml: platform: is required"},
                        // A value the platform refuses is the grid's error: it names the grid and the key.
                        Case{head + "policies: [static]\nset:\n  ocs.port_gbps: [100, -1]\n",
                             "g.yaml: set.ocs.port_gbps: value '-1': must be > 0 (got -1)"},
                        Case{head + "policies: [static]\nset:\n  ocs.nonexistent: [1]\n",
                             "g.yaml: set.ocs.nonexistent: value '1': unknown key"},
                        // A policy that refuses the workload is refused before any point runs, naming the grid.
                        Case{fmt::format("platform: {0}/platforms/electrical-16.yaml\nworkload: "
                                         "{0}/workloads/graphs-dp4.yaml\npolicies: [static, tdm4]\n",
                                         ODCNSIM_SOURCE_DIR),
                             "g.yaml: policies[1]: policy tdm4 plans the TDM-4 paper's jobs"},
                        // 1000^4 = 10^12 points: refused from the sizes, before any point is made or checked.
                        Case{head + "policies: [static]\nset:\n" + [] {
                               std::string sets;
                               for (const char* k : {"ocs.reconfig_delay_us", "ocs.port_gbps", "pods.gpus_per_pod",
                                                     "training.iterations"}) {
                                 sets += fmt::format("  {}: [", k);
                                 for (int v = 1; v <= 1000; ++v) sets += fmt::format("{}{}", v > 1 ? ", " : "", v);
                                 sets += "]\n";
                               }
                               return sets;
                             }(),
                             "g.yaml: set: 1000000000000 points (set values x policies x seeds), above the limit of "
                             "100000"}}) {
    SCOPED_TRACE(c.text);
    const auto grid = dir.write("g.yaml", c.text);
    const auto r = odcnsim(fmt::format("sweep {} --out {}", grid, dir.path("out")), dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path("out/sweep.csv")));
  }
}

TEST(Sweep, ValuesThatLookAlikeAsFolderNamesStayApart) {
  // "a b" and "a_b" would both be the folder name a_b: each point's name ends in a fingerprint of its values.
  TempDir dir;
  const auto grid = dir.write("g.yaml", fmt::format("platform: {0}/platforms/clos-8pod.yaml\n"
                                                    "workload: {0}/workloads/small-mix.yaml\n"
                                                    "policies: [static]\niterations: 1\nslowdown: false\n"
                                                    "set:\n  platform.name: [\"a b\", a_b]\n",
                                                    ODCNSIM_SOURCE_DIR));
  const auto r = odcnsim(fmt::format("sweep {} --out {} -j 2 --quiet", grid, dir.path("s")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::set<std::string> names;
  const auto sweep = read_json(dir.path("s/sweep.json"));  // (not a temporary: the loop keeps a reference into it)
  for (const auto& point : sweep["points"]) {
    const auto run = read_json(dir.path("s/points/") + point["id"].get<std::string>() + "/run.json");
    EXPECT_EQ(run["overrides"][0]["value"], point["set"]["platform.name"]);
    names.insert(point["id"].get<std::string>());
  }
  EXPECT_EQ(names.size(), 2u);
}

// --collect reads a sweep.json it did not necessarily write: every malformed field is one line naming it (exit
// 2), a point id can never lead outside points/, and nothing is written.
TEST(Sweep, CollectRefusesMalformedSweepJsonInOneLine) {
  TempDir dir;
  const std::string ok_point = R"({"id": "policy=static", "policy": "static", "seed": null, "set": {}})";
  auto sweep = [](const std::string& keys, const std::string& points) {
    return R"({"odcnsim_version": "x", "grid": "g.yaml", "base": {"platform": "p.yaml", "workload": "w.yaml"}, "keys": )" +
           keys + R"(, "points": )" + points + "}";
  };
  const struct {
    std::string json, expect;
  } cases[] = {
      {sweep("[]", R"("everything")"), "sweep.json: points: must be a list of points"},
      {sweep("[]", R"([{"id": 7, "policy": "static", "seed": null, "set": {}}])"), "sweep.json: points[0].id: must be a string"},
      {sweep("[]", R"([{"id": "../escape", "policy": "static", "seed": null, "set": {}}])"),
       "sweep.json: points[0].id: '../escape' is not a point folder name"},
      {sweep("[]", R"([{"id": "..", "policy": "static", "seed": null, "set": {}}])"), "sweep.json: points[0].id: '..' is not"},
      {sweep("[]", "[" + ok_point + R"(, {"id": "b", "policy": 3, "seed": null, "set": {}}])"),
       "sweep.json: points[1].policy: must be a string"},
      {sweep("[]", R"([{"id": "b", "policy": "static", "seed": 1.5, "set": {}}])"), "sweep.json: points[0].seed: must be null"},
      {sweep(R"(["k"])", "[" + ok_point + "]"), "sweep.json: points[0].set.k: must be a string"},
      {sweep(R"([1])", "[]"), "sweep.json: keys[0]: must be a string"},
      {R"({"points": []})", "sweep.json: keys: must be a list of strings"},
      {R"([1, 2])", "sweep.json: (file): is not an odcnsim JSON result"},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    const std::string folder = fmt::format("s{}", n++);
    std::filesystem::create_directories(dir.path(folder));
    dir.write(folder + "/sweep.json", c.json);
    const auto r = odcnsim("sweep --collect " + dir.path(folder), dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path(folder + "/sweep.csv")));
  }
}

// A comparison whose second run fails while it runs (static cannot make a ring of four from one port per server)
// leaves an earlier comparison in --out exactly as it was: the runs go to a hidden staging folder of the command
// and replace runs/POLICY only when every run has succeeded.
TEST(Compare, AFailedRunLeavesTheEarlierComparisonWhole) {
  TempDir dir;
  dir.write("g.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "ar4", "ranks": 4, "tasks": [
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2, 3], "bytes": 1e6}]})");
  const auto w = dir.write("w.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 1, 2, 3]\n");
  const auto flat = dir.write("p.yaml", "kind: flat_ocs\nservers: {count: 8, gpus_per_server: 4, nic_ports: 1, nic_gbps: 100}\n"
                                        "ocs: {count: 1, ports: 8, reconfig_delay_ms: 1}\nslot_ms: 1\n");
  const std::string base = fmt::format("compare --platform {} --workload {} --no-slowdown --out {}", flat, w, dir.path("c"));
  const auto first = odcnsim(base + " --policies topox --iterations 1", dir);
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string summary = read_file(dir.path("c/runs/topox/summary.json")), table = read_file(dir.path("c/compare.csv"));
  const auto failed = odcnsim(base + " --policies topox,static --iterations 2", dir);
  EXPECT_EQ(failed.code, 2);
  EXPECT_EQ(lines(failed.err), 1) << failed.err;
  EXPECT_EQ(read_file(dir.path("c/runs/topox/summary.json")), summary);
  EXPECT_EQ(read_file(dir.path("c/compare.csv")), table);
  EXPECT_FALSE(fs::exists(dir.path("c/runs/static")));
  for (const auto& e : fs::directory_iterator(dir.path("c")))
    EXPECT_EQ(e.path().filename().string().find(".runs."), std::string::npos) << e.path();
  // And a comparison that succeeds replaces the runs and the tables together.
  const auto again = odcnsim(base + " --policies topox --iterations 2", dir);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(read_file(dir.path("c/runs/topox/summary.json")), summary);
}

// compare --seeds: each policy once per seed, the same runs as `run --seed K`; the statistics worked from those
// runs' summary.json here (Student's t(0.975, 2) = 4.303 from a printed table).
TEST(Compare, SeedsGiveMeansIntervalsAndBothRatios) {
  TempDir dir;
  const std::string inputs = "--platform platforms/clos-32pod.yaml --workload workloads/small-models-120.yaml";
  const auto r = odcnsim(fmt::format("compare {} --policies static,tdm4 --seeds 1-3 --iterations 1 --no-slowdown "
                                     "--out {}", inputs, dir.path("cmp")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mean ± 95 % interval over 3 seeds"), std::string::npos) << r.out;
  std::map<std::string, std::vector<double>> makespan;  // per policy, per seed, from separate runs
  for (const char* policy : {"static", "tdm4"})
    for (int seed = 1; seed <= 3; ++seed) {
      const auto out = dir.path(fmt::format("sep-{}-{}", policy, seed));
      const auto s = odcnsim(fmt::format("run {} --policy {} --seed {} --iterations 1 --no-slowdown --out {}", inputs,
                                         policy, seed, out), dir);
      ASSERT_EQ(s.code, 0) << s.err;
      EXPECT_EQ(read_file(out + "/summary.json"),
                read_file(dir.path(fmt::format("cmp/runs/{}/seed-{}/summary.json", policy, seed))));
      makespan[policy].push_back(read_json(out + "/summary.json")["makespan_s"].get<double>());
    }
  ASSERT_NE(makespan["static"][0], makespan["static"][2]) << "the seeds must give different workloads";
  const auto mean = [](const std::vector<double>& v) { return (v[0] + v[1] + v[2]) / 3; };
  const auto& t = makespan["tdm4"];
  const double m = mean(t);
  const double sd = std::sqrt(((t[0] - m) * (t[0] - m) + (t[1] - m) * (t[1] - m) + (t[2] - m) * (t[2] - m)) / 2);
  std::vector<double> ratios;
  for (int i = 0; i < 3; ++i) ratios.push_back(t[static_cast<std::size_t>(i)] / makespan["static"][static_cast<std::size_t>(i)]);
  const auto row = read_csv(dir.path("cmp/compare.csv")).at("tdm4");
  EXPECT_EQ(row.at("seeds"), "3");
  EXPECT_NEAR(std::stod(row.at("makespan_s")), m, 1e-12 * m);
  EXPECT_NEAR(std::stod(row.at("makespan_s_sd")), sd, 1e-9 * sd);
  EXPECT_NEAR(std::stod(row.at("makespan_s_ci95")), 4.303 * sd / std::sqrt(3.0), 1e-3 * sd);
  EXPECT_NEAR(std::stod(row.at("makespan_s_ratio")), m / mean(makespan["static"]), 1e-12);
  EXPECT_NEAR(std::stod(row.at("makespan_s_ratio_mean")), mean(ratios), 1e-12);
  EXPECT_EQ(lines(read_file(dir.path("cmp/compare-seeds.csv"))), 1 + 2 * 3);
  EXPECT_EQ(read_json(dir.path("cmp/compare.json"))["seeds"], nlohmann::json::parse("[1,2,3]"));
  // The same folder compared again with one seed: the layout of one run per policy, and no stale per-seed table.
  const auto again = odcnsim(fmt::format("compare {} --policies static,tdm4 --iterations 1 --no-slowdown --out {}",
                                         inputs, dir.path("cmp")), dir);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(fs::exists(dir.path("cmp/runs/tdm4/summary.json")));
  EXPECT_FALSE(fs::exists(dir.path("cmp/runs/tdm4/seed-1")));
  EXPECT_FALSE(fs::exists(dir.path("cmp/compare-seeds.csv")));
  // Refusals: one line each.
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--seeds 1-3 --seed 2", "command line: --seeds: give --seed or --seeds, not both"},
           {"--seeds 3-1", "command line: --seeds: '3-1' runs backwards (write 1-3)"},
           {"--seeds 1-101", "command line: --seeds: lists more than 100 seeds"}}) {
    const auto bad = odcnsim(fmt::format("compare {} --policies static {} --out {}", inputs, args, dir.path("bad")), dir);
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(bad.err, message + "\n");
    EXPECT_FALSE(fs::exists(dir.path("bad")));
  }
}

// A grid on the command line is the GRID.yaml it stands for (the same sweep.csv), and with seeds sweep-stats.csv
// gathers each policy and set value over them: statistics worked here from the points' own summary.json.
TEST(Sweep, AnInlineGridWithSeedsEqualsItsYamlAndGathersStatistics) {
  TempDir dir;
  const std::string platform = std::string(ODCNSIM_SOURCE_DIR) + "/platforms/clos-32pod.yaml";
  const std::string workload = std::string(ODCNSIM_SOURCE_DIR) + "/workloads/small-models-120.yaml";
  const auto inl = odcnsim(fmt::format("sweep --platform {} --workload {} --policies static,tdm4 --seeds 1-2 --set "
                                       "ocs.reconfig_delay_us=1,1000 --iterations 1 --no-slowdown --quiet --out {}",
                                       platform, workload, dir.path("inline")), dir);
  ASSERT_EQ(inl.code, 0) << inl.err;
  const std::string grid = dir.write("grid.yaml", fmt::format("platform: {}\nworkload: {}\npolicies: [static, tdm4]\n"
                                                              "seeds: [1, 2]\niterations: 1\nslowdown: false\nset:\n"
                                                              "  ocs.reconfig_delay_us: [1, 1000]\n",
                                                              platform, workload));
  const auto yaml = odcnsim(fmt::format("sweep {} --quiet --out {}", grid, dir.path("yaml")), dir);
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  EXPECT_EQ(read_file(dir.path("inline/sweep.csv")), read_file(dir.path("yaml/sweep.csv")));
  const auto summary = [&](const std::string& delay, const std::string& policy, int seed) {
    return read_json(dir.path(fmt::format("inline/points/ocs.reconfig_delay_us={}+policy={}+seed={}/summary.json",
                                          delay, policy, seed)))["makespan_s"]
        .get<double>();
  };
  ASSERT_NE(summary("1", "static", 1), summary("1", "static", 2)) << "the seeds must give different workloads";
  // sweep-stats.csv: rows keyed by policy and delay.
  std::istringstream in(read_file(dir.path("inline/sweep-stats.csv")));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("policy,ocs.reconfig_delay_us,baseline,seeds,makespan_s,makespan_s_sd,makespan_s_ci95,", 0), 0u);
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) c.push_back(x);
    ASSERT_GE(c.size(), 7u);
    SCOPED_TRACE(line);
    const double a = summary(c[1], c[0], 1), b = summary(c[1], c[0], 2);
    EXPECT_EQ(c[2], "static");
    EXPECT_EQ(c[3], "2");
    EXPECT_NEAR(std::stod(c[4]), (a + b) / 2, 1e-12 * a);
    EXPECT_NEAR(std::stod(c[5]), std::abs(a - b) / std::sqrt(2.0), 1e-9 * a);  // two values: |a − b| / √2
    EXPECT_NEAR(std::stod(c[6]), 12.706 * std::abs(a - b) / 2, 1e-3 * a);      // t(0.975, 1) · sd / √2
    ++rows;
  }
  EXPECT_EQ(rows, 4);
  const auto bad = odcnsim(fmt::format("sweep {} --platform {} --out {}", grid, platform, dir.path("bad")), dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.rfind("command line: sweep: give a GRID.yaml or the grid's options", 0), 0u) << bad.err;
}

// --emit slurm gives every task a time limit and memory: as given, or estimated from probe runs here (4x the
// longest wall time, at least a minute; 2x the largest peak memory + 256 MiB).
TEST(Sweep, SlurmTasksCarryATimeLimitAndMemory) {
  TempDir dir;
  const std::string grid = "--platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policies "
                           "static,tdm4 --set ocs.reconfig_delay_us=1,1000 --iterations 1 --emit slurm";
  const auto given = odcnsim(fmt::format("sweep {} --slurm-time 7 --slurm-mem 300 --out {}", grid, dir.path("given")), dir);
  ASSERT_EQ(given.code, 0) << given.err;
  const std::string script = read_file(dir.path("given/sweep.sbatch"));
  EXPECT_NE(script.find("#SBATCH --time=7\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --mem=300M\n"), std::string::npos) << script;
  EXPECT_EQ(given.err.find("timing point"), std::string::npos) << "no probe run when both are given";
  const auto probed = odcnsim(fmt::format("sweep {} --out {}", grid, dir.path("probed")), dir);
  ASSERT_EQ(probed.code, 0) << probed.err;
  EXPECT_NE(probed.err.find("timing point ocs.reconfig_delay_us=1+policy=static "), std::string::npos) << probed.err;
  EXPECT_NE(probed.err.find("timing point ocs.reconfig_delay_us=1000+policy=tdm4 "), std::string::npos) << probed.err;
  const std::string estimated = read_file(dir.path("probed/sweep.sbatch"));
  EXPECT_NE(estimated.find("#SBATCH --time=1\n"), std::string::npos) << estimated;  // each run takes well under 15 s
  const auto at = estimated.find("#SBATCH --mem=");
  ASSERT_NE(at, std::string::npos);
  const int mib = std::stoi(estimated.substr(at + 14));
  EXPECT_GE(mib, 256 + 2 * 10);    // an odcnsim run holds more than 10 MiB
  EXPECT_LE(mib, 256 + 2 * 1024);  // and this one far less than 1 GiB
  EXPECT_FALSE(fs::exists(dir.path("probed/points"))) << "the probe runs are not points";
  const auto bad = odcnsim(fmt::format("sweep {} --slurm-mem 300 --out {}", grid.substr(0, grid.find(" --emit")),
                                       dir.path("bad")), dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "command line: --slurm-mem: goes with --emit slurm\n");
}

// The page of `odcnsim report` describes one comparison: a later compare into the folder removes it with the rest
// of the earlier result; a user's own report.html (not odcnsim's page) is kept.
TEST(Compare, ALaterCompareRemovesTheEarlierReportPageButNotAUsersFile) {
  TempDir dir;
  const std::string args = fmt::format("compare {} --policies static --iterations 1 --no-slowdown --quiet --out {}",
                                       kSmall, dir.path("cmp"));
  ASSERT_EQ(odcnsim(args, dir).code, 0);
  const auto page = odcnsim(fmt::format("report {} --quiet", dir.path("cmp")), dir);
  ASSERT_EQ(page.code, 0) << page.err;
  ASSERT_TRUE(fs::exists(dir.path("cmp/report.html")));
  ASSERT_EQ(odcnsim(args, dir).code, 0);
  EXPECT_FALSE(fs::exists(dir.path("cmp/report.html")));
  dir.write("cmp/report.html", "<html>my notes</html>\n");
  ASSERT_EQ(odcnsim(args, dir).code, 0);
  EXPECT_EQ(read_file(dir.path("cmp/report.html")), "<html>my notes</html>\n");
}
