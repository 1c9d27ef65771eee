// One output schema: every file and the console show the same partition of a job's time under the same names
// (compute, communication without the stall, reconfiguration stall, waiting, adding up to the job's time), with the
// communication hidden behind compute beside it, and summary.json and run.json say which schema they follow.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <regex>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

// 4 servers with one NIC port of 8 Gb/s (1e9 B/s) on one electrical switch.
constexpr const char* kPlatform = R"(kind: electrical
servers: {count: 4, gpus_per_server: 1, nic_ports: 1, nic_gbps: 8}
switch: single
)";

// Rank 0 computes 1 s while ranks 1 and 2 exchange 2e9 B (2 s at 1e9 B/s); then rank 3 computes 0.5 s.
// By hand: iteration 2.5 s; compute = |[0,1] ∪ [2,2.5]| = 1.5 s; communication [0,2], of which [0,1] is hidden
// behind rank 0's compute, so exposed communication 1 s, hidden 1 s; no stall; waiting 2.5 − 1.5 − 1 = 0.
constexpr const char* kGraph = R"({"format": "odcnsim-job-graph", "version": 1, "name": "overlap", "ranks": 4,
 "iterations": 1, "tasks": [
  {"id": "c0", "kind": "compute", "rank": 0, "duration_s": 1},
  {"id": "t12", "kind": "transfer", "src": 1, "dst": 2, "bytes": 2000000000},
  {"id": "c3", "kind": "compute", "rank": 3, "duration_s": 0.5, "deps": ["c0", "t12"]}]})";

}  // namespace

TEST(Schema, ThePartitionAddsUpAndHiddenCommunicationStandsBesideIt) {
  TempDir dir;
  const auto p = dir.write("p.yaml", kPlatform);
  dir.write("g.json", kGraph);
  const auto w = dir.write("w.yaml", "job_graphs:\n  - file: g.json\n    endpoints: [0, 1, 2, 3]\n");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --no-slowdown --out {}", p, w, dir.path("o")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto it = read_table(dir.path("o/iterations.csv"));
  ASSERT_EQ(it.rows.size(), 1u);
  EXPECT_NEAR(it.num(0, "duration_s"), 2.5, 1e-9);
  EXPECT_NEAR(it.num(0, "compute_s"), 1.5, 1e-9);
  EXPECT_NEAR(it.num(0, "communication_s"), 1.0, 1e-9);
  EXPECT_NEAR(it.num(0, "reconfiguration_stall_s"), 0.0, 1e-12);
  EXPECT_NEAR(it.num(0, "waiting_s"), 0.0, 1e-12);
  EXPECT_NEAR(it.num(0, "hidden_communication_s"), 1.0, 1e-9);
  const auto jobs = read_table(dir.path("o/jobs.csv"));
  for (const char* c : {"compute_s", "communication_s", "reconfiguration_stall_s", "waiting_s", "hidden_communication_s"})
    EXPECT_NEAR(jobs.num(0, c), it.num(0, c), 1e-12) << c;
  const auto s = read_json(dir.path("o/summary.json"));
  EXPECT_EQ(s["schema_version"], 2);
  EXPECT_NEAR(s["share_compute"].get<double>(), 0.6, 1e-9);
  EXPECT_NEAR(s["share_communication"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(s["share_hidden_communication"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(s["share_compute"].get<double>() + s["share_communication"].get<double>() +
                  s["share_reconfiguration_stall"].get<double>() + s["share_waiting"].get<double>(),
              1.0, 1e-12);
  EXPECT_EQ(read_json(dir.path("o/run.json"))["schema_version"], 2);
  // The console's four shares add up to 100 %, and the hidden share is said beside them.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(job time +([0-9.]+) % compute, ([0-9.]+) % communication, )"
                                                     R"(([0-9.]+) % reconfiguration stall, ([0-9.]+) % waiting)")))
      << r.out;
  EXPECT_NEAR(std::stod(m[1]) + std::stod(m[2]) + std::stod(m[3]) + std::stod(m[4]), 100.0, 0.05 * 4);
  EXPECT_NE(r.out.find("(and 40.0 % more communication hidden behind compute)"), std::string::npos) << r.out;
}
