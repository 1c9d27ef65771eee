// `odcnsim run` with a workload of job graphs, on each platform kind: closed forms, and one-line refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

// A 4-rank job: 0.5 s of compute on every rank, then a ring all-reduce of S = 1.5e9 bytes.
const char* kGraph = R"({"format": "odcnsim-job-graph", "version": 1, "name": "ar4", "ranks": 4, "iterations": 2,
  "tasks": [
    {"id": "c0", "kind": "compute", "rank": 0, "duration_s": 0.5},
    {"id": "c1", "kind": "compute", "rank": 1, "duration_s": 0.5},
    {"id": "c2", "kind": "compute", "rank": 2, "duration_s": 0.5},
    {"id": "c3", "kind": "compute", "rank": 3, "duration_s": 0.5},
    {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2, 3],
     "bytes": 1.5e9, "deps": ["c0", "c1", "c2", "c3"]}]})";

const char* kWorkload = "job_graphs:\n  - file: g.json\n    endpoints: [0, 1, 2, 3]\n";

/// The iteration rows' end times of iterations.csv.
std::vector<double> ends(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<double> v;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (int i = 0; i < 6 && std::getline(row, cell, ','); ++i) {
    }
    v.push_back(std::stod(cell));
  }
  return v;
}

void expect_rel(double measured, double expected) { EXPECT_NEAR(measured, expected, 1e-9 * expected); }

}  // namespace

TEST(GraphRun, FlatOcsRingGetsTwoCircuitsPerEdge) {
  // 4 servers with 4 ports of 100 Gb/s: policy static gives each ring edge one circuit, then the spare two ports
  // of every server a second one (Eq. 7-10 hold: first fit over the 4 OCSes). Full duplex, so each step runs at
  // 2B: an iteration is 0.5 + 2·3/4·S/(2B).
  TempDir dir;
  dir.write("g.json", kGraph);
  const auto w = dir.write("w.yaml", kWorkload);
  const auto p = dir.write("p.yaml", "kind: flat_ocs\nservers: {count: 4, gpus_per_server: 4, nic_ports: 4, nic_gbps: 100}\n"
                                     "ocs: {count: 4, ports: 4, reconfig_delay_ms: 1}\nslot_ms: 1\n");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("o")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const double B = 100e9 / 8, S = 1.5e9, it = 0.5 + 2.0 * 3 / 4 * S / (2 * B);
  const auto e = ends(read_file(dir.path("o/iterations.csv")));
  ASSERT_EQ(e.size(), 2u);
  expect_rel(e[0], it);
  expect_rel(e[1], 2 * it);
  const auto run = read_json(dir.path("o/run.json"));
  EXPECT_EQ(run["platform"]["kind"], "flat_ocs");
  EXPECT_EQ(run["static_circuits"].size(), 4u);
  for (const auto& c : run["static_circuits"]) EXPECT_EQ(c["circuits"], 2);
}

TEST(GraphRun, ElectricalAndPhotonicRailTakeTheirClosedForms) {
  TempDir dir;
  dir.write("g.json", kGraph);
  const auto w = dir.write("w.yaml", kWorkload);
  const double S = 1.5e9;
  {  // 4 servers, NICs of 2 x 50 Gb/s behind one switch: 0.5 + 2·3/4·S/B_nic per iteration.
    const auto p = dir.write("e.yaml", "kind: electrical\nservers: {count: 4, gpus_per_server: 8, nic_ports: 2, nic_gbps: 50}\n"
                                       "switch: single\n");
    const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("e")), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    expect_rel(ends(read_file(dir.path("e/iterations.csv")))[0], 0.5 + 1.5 * S / (100e9 / 8));
  }
  {  // 4 GPUs of one scale-up domain at 3,600 Gb/s: the ring stays on scale-up, no circuits.
    const auto p = dir.write("r.yaml", "kind: photonic_rail\nscaleup: {domains: 2, gpus_per_domain: 4, gbps: 3600}\n"
                                       "nic: {split: 1x400}\nocs: {technology: piezo}\n");
    const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("r")), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    expect_rel(ends(read_file(dir.path("r/iterations.csv")))[0], 0.5 + 1.5 * S / (3600e9 / 8));
    EXPECT_EQ(read_json(dir.path("r/run.json"))["static_circuits"].size(), 0u);
  }
}

TEST(GraphRun, RefusalsAreOneLineAndLeaveNoOutput) {
  TempDir dir;
  dir.write("g.json", kGraph);
  const auto flat = dir.write("p.yaml", "kind: flat_ocs\nservers: {count: 8, gpus_per_server: 4, nic_ports: 1, nic_gbps: 100}\n"
                                        "ocs: {count: 1, ports: 8, reconfig_delay_ms: 1}\nslot_ms: 1\n");
  const auto check = [&](const std::string& args, const std::string& expected_start) {
    const auto r = odcnsim(args + " --out " + dir.path("o"), dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err.rfind(expected_start, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("o")));
  };
  const auto w3 = dir.write("w3.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 1, 2]\n");
  check(fmt::format("run --platform {} --workload {}", flat, w3),
        w3 + ": job_graphs[0].endpoints: lists 3 endpoints, but the graph has 4 ranks");
  const auto w9 = dir.write("w9.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 1, 2, 9]\n");
  check(fmt::format("run --platform {} --workload {}", flat, w9),
        w9 + ": job_graphs[0].endpoints[3]: no server 9 (this flat_ocs platform has 8)");
  const auto w = dir.write("w.yaml", kWorkload);
  // One port per server cannot make a ring of four.
  check(fmt::format("run --platform {} --workload {}", flat, w), w + ": job_graphs: policy static gives every");
  check(fmt::format("run --platform {} --workload {} --policy tdm4", flat, w), "command line: --policy: policy tdm4 plans");
  check(fmt::format("run --platform {} --workload workloads/small-mix.yaml", flat),
        "workloads/small-mix.yaml: jobs: the TDM-4 paper's jobs run on clos_ocs platforms");
  const auto missing = dir.write("wm.yaml", "job_graphs:\n  - file: nowhere.json\n    endpoints: [0]\n");
  check(fmt::format("run --platform {} --workload {}", flat, missing), dir.path("nowhere.json") + ":");
  // 200 tasks x 1,000,000 iterations = 200,000,000 task runs: refused before anything runs (the limit is 10^8).
  std::string tasks;
  for (int t = 0; t < 200; ++t)
    tasks += fmt::format(R"({}{{"id": "c{}", "kind": "compute", "rank": 0, "duration_s": 0.001}})", t ? ", " : "", t);
  dir.write("long.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "long", "ranks": 1, "tasks": [)" +
                             tasks + "]}");
  const auto wl = dir.write("wl.yaml", "job_graphs:\n  - file: long.json\n    endpoints: [0]\n");
  check(fmt::format("run --platform {} --workload {} --iterations 1000000", flat, wl),
        wl + ": job_graphs: tasks x iterations is 200000000 over the jobs, above the limit of 100000000");
}

// A job-graph file given as the workload runs as one job with rank i on endpoint i, and says so; endpoint ranges
// and {start, count, stride} place ranks as the lists they stand for. On an electrical fabric of 8 servers behind
// one switch (NIC B), the ring all-reduce of ranks on any 4 servers takes 2·3/4·S/B: an iteration is 0.5 s plus it.
TEST(GraphRun, AJobGraphRunsDirectlyAndEndpointsTakeRanges) {
  TempDir dir;
  dir.write("g.json", kGraph);
  const auto p = dir.write("p.yaml", "kind: electrical\nservers: {count: 8, gpus_per_server: 1, nic_ports: 1, nic_gbps: 100}\n"
                                     "switch: single\n");
  const double B = 100e9 / 8, S = 1.5e9, it = 0.5 + 2.0 * 3 / 4 * S / B;
  const auto direct = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, dir.path("g.json"),
                                          dir.path("d")), dir);
  ASSERT_EQ(direct.code, 0) << direct.err;
  EXPECT_NE(direct.err.find("g.json is a job graph, run as one job with rank i on endpoint i (0-3)"), std::string::npos)
      << direct.err;
  const auto e = ends(read_file(dir.path("d/iterations.csv")));
  ASSERT_EQ(e.size(), 2u);
  expect_rel(e[1], 2 * it);
  // validate reads it as run does; with more ranks than endpoints, the graph's ranks are what does not fit.
  const auto v = odcnsim(fmt::format("validate {} {}", p, dir.path("g.json")), dir);
  EXPECT_EQ(v.code, 0) << v.err;
  const auto two = dir.write("p2.yaml", "kind: electrical\nservers: {count: 2, gpus_per_server: 1, nic_ports: 1, "
                                       "nic_gbps: 100}\nswitch: single\n");
  for (const char* command : {"run --out o2 --platform", "validate"}) {
    const auto small = odcnsim(fmt::format("{} {} {} {}", command, two, command[0] == 'r' ? "--workload" : "",
                                           dir.path("g.json")), dir);
    EXPECT_EQ(small.code, 2) << command;
    EXPECT_EQ(small.err, dir.path("g.json") + ": ranks: 4 ranks, one per server, but this electrical platform has 2 "
                                              "(a workload file places them otherwise: docs/job-graph.md)\n") << command;
    EXPECT_EQ(small.out, "") << command;  // nothing half-said on stdout
  }
  const auto job = read_json(dir.path("d/run.json"))["jobs"][0];
  EXPECT_EQ(job["endpoints"], nlohmann::json::parse("[0, 1, 2, 3]")) << job.dump();
  // The same placements written as a list, a range, pieces, and {start, count, stride}.
  int k = 0;
  for (const char* eps : {"[1, 3, 5, 7]", "{start: 1, count: 4, stride: 2}", "[\"4-7\"]", "\"4-7\"", "[0, \"1-2\", 3]"}) {
    const auto w = dir.write("w" + std::to_string(k) + ".yaml",
                             std::string("job_graphs:\n  - file: g.json\n    endpoints: ") + eps + "\n");
    const auto r = odcnsim(fmt::format("run --platform {} --workload {} --quiet --out {}", p, w,
                                       dir.path("r" + std::to_string(k))), dir);
    ASSERT_EQ(r.code, 0) << eps << ": " << r.err;
    expect_rel(ends(read_file(dir.path("r" + std::to_string(k) + "/iterations.csv")))[1], 2 * it);
    ++k;
  }
  for (const auto& [eps, message] : std::vector<std::pair<std::string, std::string>>{
           {"\"3-0\"", "endpoints: the range 3-0 runs backwards"},
           {"{start: 0, count: 4, stride: 0}", "endpoints.stride: "},
           {"{start: 0, count: 4, hop: 1}", "endpoints.hop: "},
           {"[\"0-999999999\"]", "endpoints[0]: "},
           {"{start: 5, count: 4}", "no server 8"},
           {"[]", "endpoints: must be a non-empty list of endpoint indices or ranges"},
           // Where a rank comes from a range or a map, the message names the item and the rank.
           {"[\"0-2\", 9]", "job_graphs[0].endpoints[1] (rank 3): no server 9"},
           {"{start: 6, count: 4}", "job_graphs[0].endpoints (rank 2): no server 8"}}) {
    const auto w = dir.write("bad.yaml", "job_graphs:\n  - file: g.json\n    endpoints: " + eps + "\n");
    const auto r = odcnsim(fmt::format("run --platform {} --workload {} --out {}", p, w, dir.path("bad")), dir);
    EXPECT_EQ(r.code, 2) << eps;
    EXPECT_NE(r.err.find(message), std::string::npos) << eps << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("bad")));
  }
}

// Issue 28: a job graph's collective flows x iterations are bounded before planning (docs/limits.md: 4e9; a
// ring all-reduce over n ranks has 2(n-1)n flows). Over 1,000 ranks that is 1,998,000 flows an iteration:
// 2,001 iterations (3,997,998,000) are taken, 2,003 (4,001,994,000) refused, by validate and by run alike.
TEST(GraphRun, CollectiveFlowsTimesIterationsAreBounded) {
  TempDir dir;
  std::string group;
  for (int r = 0; r < 1000; ++r) group += (r ? "," : "") + std::to_string(r);
  const auto graph = [&](int iterations) {
    return dir.write(fmt::format("ring-{}.json", iterations),
                     fmt::format(R"({{"format": "odcnsim-job-graph", "version": 1, "name": "ring", "ranks": 1000,
                                    "iterations": {}, "tasks": [{{"id": "ar", "kind": "collective", "op": "all-reduce",
                                    "algorithm": "ring", "bytes": 1e9, "group": [{}]}}]}})",
                                 iterations, group));
  };
  const auto platform = dir.write("p.yaml", "kind: electrical\nservers: {count: 1000, gpus_per_server: 1, "
                                            "nic_ports: 1, nic_gbps: 100}\nswitch: single\n");
  auto r = odcnsim(fmt::format("validate {} {}", platform, graph(2001)), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string refused = graph(2003);
  for (const std::string& cmd : {fmt::format("validate {} {}", platform, refused),
                                 fmt::format("run --platform {} --workload {} --out {}", platform, refused,
                                             dir.path("out"))}) {
    r = odcnsim(cmd, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, refused + ": job_graphs: the collectives' flows x iterations are 4001994000 over the jobs, above "
                               "the limit of 4000000000 (a ring all-reduce over n ranks has 2(n-1)n flows; a minute or "
                               "two of simulation; see docs/limits.md)\n");
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
}
