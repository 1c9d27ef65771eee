// `odcnsim diff A B`: hand-made run folders whose ratios are worked out by hand, real runs, compare and sweep
// folders of the smallest scenario, and every refusal (one line, exit 2, nothing written).
#include <filesystem>
#include <map>

#include "cli/cli_support.hpp"

namespace odcn::test {
namespace {

namespace fs = std::filesystem;

/// The smallest shipped scenario: two 4-rank job graphs on 16 servers, one iteration, no trace, no baseline run.
const std::string kTiny = "--platform platforms/electrical-16.yaml --workload workloads/graphs-dp4.yaml";
const std::string kFast = "--iterations 1 --trace none --no-slowdown --quiet";

/// The words of the output line that starts with "  NAME " (a row of the metrics table), or none.
std::vector<std::string> row_of(const std::string& out, const std::string& name) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  " + name + " ", 0) == 0) {
      std::istringstream words(line);
      std::vector<std::string> row;
      for (std::string w; words >> w;) row.push_back(w);
      return row;
    }
  return {};
}

bool has_line(const std::string& out, const std::string& line) {
  return ("\n" + out).find("\n" + line + "\n") != std::string::npos;
}

/// Every file under `dir` with its bytes and modification time: what a read-only command must leave as it was.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto stamp = e.last_write_time().time_since_epoch().count();
    files[e.path().string()] = std::to_string(stamp) + ":" + (e.is_regular_file() ? read_file(e.path().string()) : "");
  }
  return files;
}

/// A run folder with the given run.json and summary.json.
std::string hand_made_run(const TempDir& scratch, const std::string& name, const std::string& run,
                          const std::string& summary) {
  fs::create_directories(scratch.path(name));
  scratch.write(name + "/run.json", run);
  scratch.write(name + "/summary.json", summary);
  return scratch.path(name);
}

/// run.json's jobs: twelve jobs whose "n" starts at `first`.
std::string twelve_jobs(int first) {
  std::string jobs;
  for (int i = 0; i < 12; ++i) jobs += fmt::format("{}{{\"n\": {}}}", i ? ", " : "", first + i);
  return "[" + jobs + "]";
}

TEST(Diff, HandMadeRunsGiveTheHandComputedRatios) {
  TempDir dir;
  const std::string a = hand_made_run(
      dir, "w/a",
      R"({"odcnsim_version": "0.1.0", "policy": "static", "seed": 1, "jobs": )" + twelve_jobs(0) + "}",
      R"({"policy": "static", "makespan_s": 2.0, "reconfigurations": 4, "circuits_changed": 0,
          "slowdown_mean": null, "share_waiting": 0.0})");
  const std::string b = hand_made_run(
      dir, "w/b",
      R"({"odcnsim_version": "0.1.0", "policy": "tdm4", "seed": 2, "jobs": )" + twelve_jobs(1) + "}",
      R"({"policy": "tdm4", "makespan_s": 3.0, "reconfigurations": 4, "circuits_changed": 5,
          "slowdown_mean": 1.5, "share_waiting": 0.0, "rounds": 7})");
  const auto before = snapshot(dir.path("w"));
  const auto r = odcnsim(fmt::format("diff {} {}", a, b), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Inputs: the fields that differ, aligned after the widest shown; ten lines per top-level field at most.
  EXPECT_TRUE(has_line(r.out, "inputs (run.json)")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  policy:    static -> tdm4")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  seed:      1 -> 2")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  jobs[0].n: 0 -> 1")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  jobs[9].n: 9 -> 10")) << r.out;
  EXPECT_EQ(r.out.find("jobs[10]"), std::string::npos) << r.out;
  EXPECT_TRUE(has_line(r.out, "  ... and 2 more under jobs (odcnsim diff --json lists every one)")) << r.out;
  // Metrics: 3/2 = 1.5 and 3-2 = 1; 4/4 = 1; 0 -> 5 has no ratio; null and missing have neither; 0/0 is 1.
  using Row = std::vector<std::string>;
  EXPECT_EQ(row_of(r.out, "metric"), (Row{"metric", "A", "B", "B/A", "B-A"}));
  EXPECT_EQ(row_of(r.out, "makespan_s"), (Row{"makespan_s", "2", "3", "1.5", "1"}));
  EXPECT_EQ(row_of(r.out, "reconfigurations"), (Row{"reconfigurations", "4", "4", "1", "0"}));
  EXPECT_EQ(row_of(r.out, "circuits_changed"), (Row{"circuits_changed", "0", "5", "n/a", "5"}));
  EXPECT_EQ(row_of(r.out, "slowdown_mean"), (Row{"slowdown_mean", "null", "1.5", "n/a", "n/a"}));
  EXPECT_EQ(row_of(r.out, "share_waiting"), (Row{"share_waiting", "0", "0", "1", "0"}));
  EXPECT_EQ(row_of(r.out, "rounds"), (Row{"rounds", "(missing)", "7", "n/a", "n/a"}));
  // The comparable metrics in compare's order, then the others; a string that differs is listed apart.
  EXPECT_LT(r.out.find("  makespan_s"), r.out.find("  slowdown_mean"));
  EXPECT_LT(r.out.find("  slowdown_mean"), r.out.find("  reconfigurations"));
  EXPECT_LT(r.out.find("  share_waiting"), r.out.find("  rounds"));
  EXPECT_TRUE(has_line(r.out, "other fields of summary.json that differ")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  policy: static -> tdm4")) << r.out;
  EXPECT_EQ(r.out.find("nan"), std::string::npos);
  EXPECT_EQ(r.out.find("inf"), std::string::npos);

  // --json: the same, exact, every field listed; a side that lacks a value has no key.
  const auto j = odcnsim(fmt::format("diff --json {} {}", a, b), dir);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto d = nlohmann::json::parse(j.out);
  EXPECT_EQ(d["kind"], "run");
  EXPECT_EQ(d["inputs"].size(), 14u);  // policy, seed and the twelve jobs
  EXPECT_EQ(d["inputs"][1], (nlohmann::json{{"field", "seed"}, {"a", 1}, {"b", 2}}));
  std::map<std::string, nlohmann::json> metric;
  for (const auto& m : d["metrics"]) metric[m["metric"]] = m;
  EXPECT_EQ(metric["makespan_s"]["ratio"], 1.5);
  EXPECT_EQ(metric["makespan_s"]["difference"], 1.0);
  EXPECT_EQ(metric["share_waiting"]["ratio"], 1.0);
  EXPECT_TRUE(metric["circuits_changed"]["ratio"].is_null());
  EXPECT_EQ(metric["circuits_changed"]["difference"], 5);
  EXPECT_FALSE(metric["rounds"].contains("a"));
  EXPECT_EQ(metric["rounds"]["b"], 7);
  EXPECT_EQ(d["other"], (nlohmann::json::array({{{"field", "policy"}, {"a", "static"}, {"b", "tdm4"}}})));
  EXPECT_EQ(snapshot(dir.path("w")), before);  // diff wrote nothing
}

TEST(Diff, TheSameRunTwiceHasIdenticalInputsAndRatioOne) {
  TempDir dir;
  for (const char* name : {"a", "b"}) {
    const auto r = odcnsim(fmt::format("run {} {} --out {}", kTiny, kFast, dir.path(name)), dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const std::string args = fmt::format("diff {} {}", dir.path("a"), dir.path("b"));
  const auto r = odcnsim(args, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has_line(r.out, "inputs (run.json): identical")) << r.out;
  EXPECT_EQ(r.out.find("other fields"), std::string::npos) << r.out;
  for (const char* m : {"makespan_s", "job_completion_mean_s", "throughput_iterations_per_hour", "share_compute"}) {
    const auto row = row_of(r.out, m);
    ASSERT_EQ(row.size(), 5u) << m << "\n" << r.out;
    EXPECT_EQ(row[1], row[2]) << m;
    EXPECT_EQ(row[3], "1") << m;
    EXPECT_EQ(row[4], "0") << m;
  }
  // --no-slowdown leaves the slowdowns null: shown as such, with no ratio.
  EXPECT_EQ(row_of(r.out, "slowdown_mean"), (std::vector<std::string>{"slowdown_mean", "null", "null", "n/a", "n/a"}));
  EXPECT_EQ(odcnsim(args, dir).out, r.out);  // byte-identical when run again
}

TEST(Diff, RunsWithAnotherSetAndIterationsShowBothAndTheRatios) {
  TempDir dir;
  ASSERT_EQ(odcnsim(fmt::format("run {} {} --out {}", kTiny, kFast, dir.path("a")), dir).code, 0);
  const auto rb = odcnsim(fmt::format("run {} --iterations 2 --trace none --no-slowdown --quiet "
                                      "--set servers.nic_gbps=80 --out {}",
                                      kTiny, dir.path("b")),
                          dir);
  ASSERT_EQ(rb.code, 0) << rb.err;
  const auto r = odcnsim(fmt::format("diff {} {}", dir.path("a"), dir.path("b")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(R"( [] -> [{"file":"platforms/electrical-16.yaml","path":"servers.nic_gbps","value":"80"}])"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" --iterations 1 --trace none -> odcnsim run "), std::string::npos) << r.out;  // command
  EXPECT_NE(r.out.find("  jobs[0].iterations: 1 -> 2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  jobs[1].iterations: 1 -> 2\n"), std::string::npos) << r.out;
  // Two iterations of two jobs: 4 rows instead of 2.
  EXPECT_EQ(row_of(r.out, "iterations"), (std::vector<std::string>{"iterations", "1", "2", "2", "1"}));
  EXPECT_EQ(row_of(r.out, "iteration_rows"), (std::vector<std::string>{"iteration_rows", "2", "4", "2", "2"}));
  // The makespans' ratio, from the two summary.json files themselves.
  const double ma = read_json(dir.path("a/summary.json"))["makespan_s"];
  const double mb = read_json(dir.path("b/summary.json"))["makespan_s"];
  const auto d = nlohmann::json::parse(odcnsim(fmt::format("diff --json {} {}", dir.path("a"), dir.path("b")), dir).out);
  EXPECT_EQ(d["metrics"][0]["metric"], "makespan_s");
  EXPECT_EQ(d["metrics"][0]["ratio"].get<double>(), mb / ma);
  EXPECT_EQ(d["metrics"][0]["difference"].get<double>(), mb - ma);
  EXPECT_EQ(row_of(r.out, "makespan_s")[3], fmt::format("{:.6g}", mb / ma));
}

TEST(Diff, CompareFoldersPerPolicyBothRan) {
  TempDir dir;
  ASSERT_EQ(odcnsim(fmt::format("compare {} --policies static,alone {} --out {}", kTiny, kFast, dir.path("a")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("compare {} --policies static {} --set servers.nic_gbps=80 --out {}", kTiny, kFast,
                                dir.path("b")),
                    dir)
                .code,
            0);
  const auto before = snapshot(dir.path("a"));
  const auto r = odcnsim(fmt::format("diff {} {}", dir.path("a"), dir.path("b")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has_line(r.out, "odcnsim diff: two compare folders")) << r.out;
  EXPECT_TRUE(has_line(r.out, "compare (compare.json)")) << r.out;
  EXPECT_TRUE(has_line(r.out, R"(  overrides: [] -> ["servers.nic_gbps=80"])")) << r.out;
  EXPECT_TRUE(has_line(r.out, "policies only in A: alone")) << r.out;
  EXPECT_EQ(r.out.find("only in B"), std::string::npos) << r.out;
  EXPECT_TRUE(has_line(r.out, "== policy static ==")) << r.out;
  EXPECT_EQ(r.out.find("== policy alone"), std::string::npos) << r.out;
  const auto d = nlohmann::json::parse(odcnsim(fmt::format("diff --json {} {}", dir.path("a"), dir.path("b")), dir).out);
  ASSERT_EQ(d["policies"].size(), 1u);
  EXPECT_EQ(d["policies"][0]["policy"], "static");
  EXPECT_EQ(d["only_in_a"], nlohmann::json::array({"alone"}));
  const double ma = read_json(dir.path("a/runs/static/summary.json"))["makespan_s"];
  const double mb = read_json(dir.path("b/runs/static/summary.json"))["makespan_s"];
  EXPECT_EQ(d["policies"][0]["metrics"][0]["ratio"].get<double>(), mb / ma);
  EXPECT_EQ(snapshot(dir.path("a")), before);
}

TEST(Diff, SweepFoldersPerPointBothFinished) {
  TempDir dir;
  const auto grid = [&](const std::string& name, const std::string& values, int iterations) {
    return dir.write(name, fmt::format("platform: {0}/platforms/electrical-16.yaml\nworkload: "
                                       "{0}/workloads/graphs-dp4.yaml\npolicies: [static]\niterations: {1}\n"
                                       "slowdown: false\nset:\n  servers.nic_gbps: [{2}]\n",
                                       ODCNSIM_SOURCE_DIR, iterations, values));
  };
  ASSERT_EQ(odcnsim(fmt::format("sweep {} --out {} --quiet -j 2", grid("a.yaml", "40, 80", 1), dir.path("a")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("sweep {} --out {} --quiet -j 2", grid("b.yaml", "80, 160", 2), dir.path("b")), dir).code, 0);
  const std::string args = fmt::format("diff {} {}", dir.path("a"), dir.path("b"));
  const auto r = odcnsim(args, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has_line(r.out, "sweep (sweep.json)")) << r.out;
  EXPECT_TRUE(has_line(r.out, "  base.iterations: 1 -> 2")) << r.out;
  EXPECT_TRUE(has_line(r.out, fmt::format("  grid:            {} -> {}", dir.path("a.yaml"), dir.path("b.yaml")))) << r.out;
  EXPECT_TRUE(has_line(r.out, "points only in A: servers.nic_gbps=40+policy=static")) << r.out;
  EXPECT_TRUE(has_line(r.out, "points only in B: servers.nic_gbps=160+policy=static")) << r.out;
  EXPECT_TRUE(has_line(r.out, "== point servers.nic_gbps=80+policy=static ==")) << r.out;
  EXPECT_EQ(row_of(r.out, "iterations"), (std::vector<std::string>{"iterations", "1", "2", "2", "1"}));
  // A point without a result on one side (not run yet) is named, not compared.
  fs::remove(dir.path("b/points/servers.nic_gbps=80+policy=static/summary.json"));
  const auto partial = odcnsim(args, dir);
  ASSERT_EQ(partial.code, 0) << partial.err;
  EXPECT_TRUE(has_line(partial.out, "points without a result in B: servers.nic_gbps=80+policy=static")) << partial.out;
  EXPECT_EQ(partial.out.find("== point"), std::string::npos) << partial.out;
}

TEST(Diff, BadInputIsOneLineNamingFileAndFieldAndNothingIsWritten) {
  TempDir dir;
  const std::string run_json = R"({"odcnsim_version": "0.1.0"})", summary = R"({"makespan_s": 1.0})";
  const std::string good = hand_made_run(dir, "w/good", run_json, summary);
  const std::string bad_run = hand_made_run(dir, "w/bad-run", "{\"odcnsim_version\": ", summary);
  const std::string list_summary = hand_made_run(dir, "w/list-summary", run_json, "[1, 2]");
  const std::string foreign = hand_made_run(dir, "w/foreign", R"({"name": "x"})", summary);
  const std::string no_metrics = hand_made_run(dir, "w/no-metrics", run_json, R"({"policy": "static"})");
  fs::create_directories(dir.path("w/no-summary"));
  const std::string no_summary = dir.write("w/no-summary/run.json", run_json);
  fs::create_directories(dir.path("w/empty"));
  const std::string file = dir.write("w/file.txt", "x");
  for (const char* c : {"cmp-a", "cmp-b", "cmp-bad"}) fs::create_directories(dir.path(std::string("w/") + c));
  dir.write("w/cmp-a/compare.json", R"({"policies": [{"policy": "static", "run": "runs/static"}]})");
  dir.write("w/cmp-b/compare.json", R"({"policies": [{"policy": "static", "run": "runs/static"}]})");
  dir.write("w/cmp-bad/compare.json", R"({"policies": [{"policy": "static"}, {"run": "runs/x"}]})");
  fs::create_directories(dir.path("w/sweep-bad"));
  dir.write("w/sweep-bad/sweep.json", R"({"keys": [], "base": {"platform": "p.yaml", "workload": "w.yaml"},
                                          "points": [{"id": "../x", "policy": "static", "seed": null, "set": {}}]})");
  const auto before = snapshot(dir.path("w"));
  const std::string w = dir.path("w");
  expect_refusals(
      {
          {"diff", "command line: diff: a is required"},
          {fmt::format("diff {}", good), "command line: diff: b is required"},
          {fmt::format("diff {} {}/missing", good, w), w + "/missing: (folder): does not exist"},
          {fmt::format("diff {} {}", file, good), file + ": (folder): is not a folder"},
          {fmt::format("diff {} {}/empty", good, w), w + "/empty: (folder): is not an odcnsim output"},
          {fmt::format("diff {} {}", good, bad_run), bad_run + "/run.json: (file): is not an odcnsim JSON result"},
          {fmt::format("diff {} {}", list_summary, good),
           list_summary + "/summary.json: (file): is not an odcnsim JSON result"},
          {fmt::format("diff {} {}", good, foreign), foreign + "/run.json: odcnsim_version: is missing"},
          {fmt::format("diff {} {}", good, no_metrics), no_metrics + "/summary.json: makespan_s: is missing"},
          {fmt::format("diff {} {}/no-summary", good, w), w + "/no-summary/summary.json: (file): is missing"},
          {fmt::format("diff {} {}/cmp-a", good, w), w + "/cmp-a: (folder): is a compare folder but A"},
          {fmt::format("diff {0}/cmp-a {0}/sweep-bad", w), w + "/sweep-bad: (folder): is a sweep folder but A"},
          {fmt::format("diff {0}/cmp-a {0}/cmp-bad", w), w + "/cmp-bad/compare.json: policies[1].policy: must be a string"},
          {fmt::format("diff {0}/cmp-a {0}/cmp-b", w), w + "/cmp-a/runs/static/run.json: (file): is missing"},
          {fmt::format("diff {0}/sweep-bad {0}/sweep-bad", w), w + "/sweep-bad/sweep.json: points[0].id: '../x' is not"},
          {fmt::format("diff --jsn {0} {0}", good), "command line: --jsn: unknown option of 'odcnsim diff'"},
      },
      dir);
  // Nothing on stdout either, and every folder exactly as it was.
  EXPECT_EQ(odcnsim(fmt::format("diff {} {}", good, bad_run), dir).out, "");
  EXPECT_EQ(snapshot(dir.path("w")), before);
}

TEST(Diff, HelpSaysWhatIsComparedWithAnExample) {
  TempDir dir;
  const auto r = odcnsim("diff --help", dir);
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"run.json", "summary.json", "B/A", "--json", "runs/POLICY", "point", "odcnsim diff out/a out/b"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_NE(odcnsim("--help", dir).out.find("  diff "), std::string::npos);
}

// Compares over seeds (compare --seeds) side by side run by run, each policy per seed both ran; one over seeds and
// one not are refused.
TEST(Diff, CompareFoldersOverSeedsPerPolicyAndSeed) {
  TempDir dir;
  const std::string gen = "--platform platforms/clos-32pod.yaml --workload workloads/small-models-120.yaml "
                          "--iterations 1 --no-slowdown --quiet --policies static";
  ASSERT_EQ(odcnsim(fmt::format("compare {} --seeds 1-2 --out {}", gen, dir.path("a")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("compare {} --seeds 2-3 --set ocs.port_gbps=100 --out {}", gen, dir.path("b")), dir).code, 0);
  ASSERT_EQ(odcnsim(fmt::format("compare {} --out {}", gen, dir.path("one")), dir).code, 0);
  const auto r = odcnsim(fmt::format("diff --json {} {}", dir.path("a"), dir.path("b")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto d = nlohmann::json::parse(r.out);
  EXPECT_EQ(d["only_in_a"], nlohmann::json::array({"static/seed-1"}));
  EXPECT_EQ(d["only_in_b"], nlohmann::json::array({"static/seed-3"}));
  ASSERT_EQ(d["policies"].size(), 1u);
  EXPECT_EQ(d["policies"][0]["policy"], "static/seed-2");
  const double ma = read_json(dir.path("a/runs/static/seed-2/summary.json"))["makespan_s"];
  const double mb = read_json(dir.path("b/runs/static/seed-2/summary.json"))["makespan_s"];
  EXPECT_EQ(d["policies"][0]["metrics"][0]["ratio"].get<double>(), mb / ma);
  const auto mixed = odcnsim(fmt::format("diff {} {}", dir.path("a"), dir.path("one")), dir);
  EXPECT_EQ(mixed.code, 2);
  EXPECT_EQ(mixed.err, fmt::format("{}: (folder): does not compare over seeds (compare --seeds) and A ({}) does: diff "
                                   "compares like with like\n", dir.path("one"), dir.path("a")));
}

}  // namespace
}  // namespace odcn::test
