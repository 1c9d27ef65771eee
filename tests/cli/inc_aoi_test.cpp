// INC-AOI (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs") as a user runs it: a job's
// iteration time and inter-rack bytes against the closed forms with and without in-network aggregation, a
// three-job scripted case whose reconfigurations are counted by hand, the ToRs' INC capacity in every slot of the
// generated scenario under all five policies, byte-identical reruns, and the refusals.
#include <gtest/gtest.h>

#include <vector>

#include "cli/cli_support.hpp"
#include "cli/inc_support.hpp"

using namespace odcn::test;


TEST(IncAoi, AJobOverThreeRacksTakesTheClosedFormsWithAndWithoutInc) {
  TempDir dir;
  // W = 5, S = 5 GB: rack 0 holds the PS and one worker, rack 1 two workers, rack 2 one.
  const std::string w = "ps_jobs:\n  jobs:\n    - {name: five, push_gb: 5, compute_ms: 0, iterations: 1, "
                        "servers: [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]]}\n";
  // With INC: every NIC carries S (1 s); racks 1 and 2 each send one partial sum S over one circuit (1 s, the
  // first 50 ms dark while it is set up); the pull sends S back: 0.05 + 1 + 1 s.
  const auto inc = run(dir, w, "inc-ljf", "inc");
  EXPECT_NEAR(inc["makespan_s"].get<double>(), 2.05, 1e-9);
  // Without: the PS's NIC takes (W - 1)·S = 20 GB (4 s) each way; the circuits (2 for rack 1's 10 GB) are faster.
  const auto ps = run(dir, w, "noinc-ljf", "ps");
  EXPECT_NEAR(ps["makespan_s"].get<double>(), 8.0, 1e-9);
  // Inter-rack bytes of the iteration, push and pull: 2(R - 1)·S = 20 GB with INC, 2(W - w_r0)·S = 30 GB without.
  for (const auto& [name, bytes] : {std::pair<std::string, double>{"inc", 20e9}, {"ps", 30e9}}) {
    const auto it = csv(dir.path(name) + "/iterations.csv");
    EXPECT_DOUBLE_EQ(std::stod(it.at(1).at(static_cast<std::size_t>(column(it, "circuit_bytes")))), bytes) << name;
    const auto jobs = csv(dir.path(name) + "/ps_jobs.csv");
    const auto& row = jobs.at(1);
    EXPECT_DOUBLE_EQ(std::stod(row.at(static_cast<std::size_t>(column(jobs, "inter_rack_bytes")))), bytes) << name;
    EXPECT_DOUBLE_EQ(std::stod(row.at(static_cast<std::size_t>(column(jobs, name == "inc" ? "inter_rack_bytes_inc"
                                                                                            : "inter_rack_bytes_noinc")))),
                     bytes);
  }
  EXPECT_EQ(inc["inc_aoi"]["inc_collectives"].get<int>(), 2);
  EXPECT_EQ(ps["inc_aoi"]["inc_collectives"].get<int>(), 0);
}

TEST(IncAoi, ThreeScriptedJobsReconfigureTwiceCountedByHand) {
  TempDir dir;
  // a (racks 0-1) arrives at 0: slot 0 starts it and lights pair 0-1 (reconfiguration 1); it ends at
  //   0.05 + 1 + 1 = 2.05 s.
  // b (rack 2 only) arrives at 0.5: slot 1 starts it; it needs no circuit; it ends at 1 + 1 + 1 = 3 s.
  // c (racks 0-2) arrives at 1.5: slot 2 starts it; pair 0-2 has no circuit (reconfiguration 2, pair 0-1 kept
  //   for a, still running). Rack 2's ToR aggregates for b (earlier arrival, same size), so c pushes to its CPU PS:
  //   W = 2 gives the same 1 s each way; it ends at 2 + 0.05 + 1 + 1 = 4.05 s.
  const std::string w = R"(ps_jobs:
  jobs:
    - {name: a, arrival_s: 0, push_gb: 5, compute_ms: 0, iterations: 1, servers: [[0, 0], [1, 0]]}
    - {name: b, arrival_s: 0.5, push_gb: 5, compute_ms: 0, iterations: 1, servers: [[2, 0], [2, 1]]}
    - {name: c, arrival_s: 1.5, push_gb: 5, compute_ms: 0, iterations: 1, servers: [[0, 1], [2, 2]]}
)";
  for (const char* policy : {"inc-ljf", "inc-fcfs"}) {
    const auto s = run(dir, w, policy, policy);
    EXPECT_EQ(s["reconfigurations"].get<int>(), 2) << policy;
    EXPECT_EQ(s["circuits_changed"].get<int>(), 2) << policy;
    EXPECT_NEAR(s["makespan_s"].get<double>(), 4.05, 1e-9) << policy;
    const auto jobs = csv(dir.path(policy) + "/ps_jobs.csv");
    const auto done = static_cast<std::size_t>(column(jobs, "done_s"));
    const auto inc = static_cast<std::size_t>(column(jobs, "inc_collectives"));
    EXPECT_NEAR(std::stod(jobs.at(1).at(done)), 2.05, 1e-9);
    EXPECT_NEAR(std::stod(jobs.at(2).at(done)), 3.0, 1e-9);
    EXPECT_EQ(jobs.at(2).at(inc), "2") << policy;
    EXPECT_EQ(jobs.at(3).at(inc), "0") << policy;
    // slots.csv: the slots at 0, 1, 2 started one job each.
    const auto slots = csv(dir.path(policy) + "/slots.csv");
    const auto started = static_cast<std::size_t>(column(slots, "started"));
    EXPECT_EQ(slots.at(1).at(started), "1");
    EXPECT_EQ(slots.at(2).at(started), "1");
    EXPECT_EQ(slots.at(3).at(started), "1");
  }
}

TEST(IncAoi, NoToRAggregatesForMoreJobsThanItsCapacityUnderAnyPolicy) {
  TempDir dir;
  for (const char* policy : {"inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"}) {
    const auto r = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                                       "--set ps_jobs.generator.jobs=300 --policy {} --trace none --quiet --out '{}'",
                                       policy, dir.path(policy)),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(dir.path(policy) + "/summary.json");
    const bool inc = std::string(policy).rfind("inc-", 0) == 0;
    EXPECT_LE(s["inc_aoi"]["peak_inc_jobs_per_tor"].get<int>(), 4) << policy;
    EXPECT_EQ(s["inc_aoi"]["peak_inc_jobs_per_tor"].get<int>() > 0, inc) << policy;
    EXPECT_EQ(s["inc_aoi"]["inc_collectives"].get<int>() > 0, inc) << policy;
    const auto slots = csv(dir.path(policy) + "/slots.csv");
    const auto at = static_cast<std::size_t>(column(slots, "inc_max_per_tor"));
    ASSERT_GT(slots.size(), 10u);
    for (std::size_t i = 1; i < slots.size(); ++i) EXPECT_LE(std::stoi(slots[i].at(at)), 4) << policy << " row " << i;
    const auto jobs = csv(dir.path(policy) + "/ps_jobs.csv");
    EXPECT_EQ(jobs.size(), 301u);
  }
}

TEST(IncAoi, TheSameSeedGivesByteIdenticalOutputs) {
  TempDir dir;
  for (const char* name : {"a", "b"}) {
    const auto r = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                                       "--set ps_jobs.generator.jobs=200 --seed 5 --policy inc-group --quiet --out '{}'",
                                       dir.path(name)),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  for (const char* f : {"summary.json", "jobs.csv", "iterations.csv", "circuits.csv", "ps_jobs.csv", "slots.csv",
                        "trace.json"})
    EXPECT_EQ(read_file(dir.path("a") + "/" + f), read_file(dir.path("b") + "/" + f)) << f;
  const auto other = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                                         "--set ps_jobs.generator.jobs=200 --seed 6 --policy inc-group --quiet --out '{}'",
                                         dir.path("c")),
                             dir);
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(read_file(dir.path("a") + "/ps_jobs.csv"), read_file(dir.path("c") + "/ps_jobs.csv"));
}

TEST(IncAoi, MismatchedPoliciesWorkloadsAndPlatformsAreRefusedInOneLine) {
  TempDir dir;
  const auto one_line = [&](const std::string& args, const std::string& expected) {
    const auto r = odcnsim(args + " --quiet --out " + dir.path("x"), dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, expected + "\n") << args;
  };
  one_line("run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy inc-ljf",
           "command line: --policy: policy inc-ljf schedules INC-AOI's parameter-server jobs on racks of servers "
           "(docs/inc-aoi.md), and workloads/small-mix.yaml holds the TDM-4 paper's jobs (policies that accept it here: "
           "static, tdm4, aggregate, tdm4-ilp, alone)");
  one_line("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml --policy static",
           "command line: --policy: policy static lights one configuration for the TDM-4 paper's jobs or for job "
           "graphs, and workloads/inc-aoi-800.yaml holds ps_jobs (policies that accept it here: inc-ljf, inc-fcfs, "
           "noinc-ljf, noinc-fcfs, inc-group)");
  one_line("run --platform platforms/clos-8pod.yaml --workload workloads/inc-aoi-800.yaml --policy inc-ljf",
           "platforms/clos-8pod.yaml: pods.servers_per_pod: workloads/inc-aoi-800.yaml's parameter-server jobs are "
           "placed on servers: give the platform's pods.servers_per_pod and pods.server_gbps");
  EXPECT_FALSE(std::ifstream(dir.path("x")).good());
  // validate reads ps_jobs and places them on the platform, as run does.
  const auto ok = odcnsim("validate platforms/inc-aoi-64rack.yaml workloads/inc-aoi-800.yaml", dir);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, "platforms/inc-aoi-64rack.yaml: ok (platform, 64 pods)\nworkloads/inc-aoi-800.yaml: ok (workload, 800 "
                    "generated parameter-server jobs, placed on the platform)\n");
}

// INC-AOI's policies on a workload of job graphs: parameter-server graphs arriving over time on the racks are the
// INC-AOI jobs they describe. The three scripted jobs above as job graphs (endpoints are racks; a rack's ranks
// take its servers after the earlier jobs', so the placement is the one written out above), each computing 1 ms:
// a ends at 0.05 + 1 + 1 = 2.05 s (its compute hides under the circuit's set-up), b at 1 + 0.001 + 1 + 1 =
// 3.001 s, c at 2 + 0.05 + 1 + 1 = 4.05 s; two reconfigurations. The same jobs written as ps_jobs give the same
// files. A graph of another shape is refused in one line naming its task.
TEST(IncAoi, ParameterServerJobGraphsRunAsTheJobsTheyDescribe) {
  TempDir dir;
  const auto graph = [&](const std::string& name, double arrival) {
    return dir.write(name + ".json",
                     R"({"format": "odcnsim-job-graph", "version": 1, "name": ")" + name +
                         R"(", "ranks": 2, "iterations": 1, "arrival_s": )" + std::to_string(arrival) + R"(, "tasks": [
  {"id": "c0", "kind": "compute", "rank": 0, "duration_s": 0.001},
  {"id": "c1", "kind": "compute", "rank": 1, "duration_s": 0.001},
  {"id": "push", "kind": "collective", "op": "ps-push", "algorithm": "parameter-server", "group": [0, 1], "root": 0,
   "bytes": 5000000000, "deps": ["c0", "c1"]},
  {"id": "pull", "kind": "collective", "op": "ps-pull", "algorithm": "parameter-server", "group": [0, 1], "root": 0,
   "bytes": 5000000000, "deps": ["push"]}]})");
  };
  graph("a", 0);
  graph("b", 0.5);
  graph("c", 1.5);
  const std::string graphs = "job_graphs:\n  - {file: a.json, endpoints: [0, 1]}\n  - {file: b.json, endpoints: [2, 2]}\n"
                             "  - {file: c.json, endpoints: [0, 2]}\n";
  const std::string explicit_jobs = R"(ps_jobs:
  jobs:
    - {name: a, arrival_s: 0, push_gb: 5, compute_ms: 1, iterations: 1, servers: [[0, 0], [1, 0]]}
    - {name: b, arrival_s: 0.5, push_gb: 5, compute_ms: 1, iterations: 1, servers: [[2, 0], [2, 1]]}
    - {name: c, arrival_s: 1.5, push_gb: 5, compute_ms: 1, iterations: 1, servers: [[0, 1], [2, 2]]}
)";
  for (const char* policy : {"inc-ljf", "inc-fcfs"}) {
    SCOPED_TRACE(policy);
    const auto s = run(dir, graphs, policy, std::string("g-") + policy);
    EXPECT_EQ(s["reconfigurations"].get<int>(), 2);
    EXPECT_NEAR(s["makespan_s"].get<double>(), 4.05, 1e-9);
    const auto jobs = csv(dir.path(std::string("g-") + policy) + "/ps_jobs.csv");
    const auto done = static_cast<std::size_t>(column(jobs, "done_s"));
    EXPECT_NEAR(std::stod(jobs.at(1).at(done)), 2.05, 1e-9);
    EXPECT_NEAR(std::stod(jobs.at(2).at(done)), 3.001, 1e-9);
    run(dir, explicit_jobs, policy, std::string("p-") + policy);
    for (const char* f : {"jobs.csv", "iterations.csv", "slots.csv", "circuits.csv"})
      EXPECT_EQ(read_file(dir.path(std::string("g-") + policy) + "/" + f),
                read_file(dir.path(std::string("p-") + policy) + "/" + f))
          << f;
  }
  // A pull rooted on another rank, or a graph whose push does not wait for the compute, is not the iteration
  // INC-AOI schedules.
  const auto refused = [&](const std::string& name, const std::string& tasks, const std::string& why) {
    dir.write(name + ".json", R"({"format": "odcnsim-job-graph", "version": 1, "name": ")" + name +
                                  R"(", "ranks": 2, "tasks": [)" + tasks + "]}");
    const auto wl = dir.write(name + ".yaml", "job_graphs:\n  - {file: " + name + ".json, endpoints: [0, 1]}\n");
    const auto res = odcnsim(fmt::format("run --platform {} --workload {} --policy inc-ljf --out {}",
                                         dir.path("p.yaml"), wl, dir.path("x")),
                             dir);
    EXPECT_EQ(res.code, 2) << name;
    EXPECT_NE(res.err.find(why), std::string::npos) << res.err;
  };
  const std::string compute = R"({"id": "c0", "kind": "compute", "rank": 0, "duration_s": 0.001},
    {"id": "c1", "kind": "compute", "rank": 1, "duration_s": 0.001},)";
  refused("otherroot", compute + R"({"id": "push", "kind": "collective", "op": "ps-push", "algorithm": "parameter-server",
    "group": [0, 1], "root": 0, "bytes": 1000, "deps": ["c0", "c1"]},
    {"id": "pull", "kind": "collective", "op": "ps-pull", "algorithm": "parameter-server", "group": [1, 0], "root": 0,
    "bytes": 1000, "deps": ["push"]})",
          "do not span every rank with one root and one size");
  refused("nodeps", compute + R"({"id": "push", "kind": "collective", "op": "ps-push", "algorithm": "parameter-server",
    "group": [0, 1], "root": 0, "bytes": 1000},
    {"id": "pull", "kind": "collective", "op": "ps-pull", "algorithm": "parameter-server", "group": [0, 1], "root": 0,
    "bytes": 1000, "deps": ["push"]})",
          "does not start its push after compute task 'c0'");
  const auto ring = dir.write("r.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "ring", "ranks": 2,
 "tasks": [{"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1], "bytes": 1000}]})");
  const auto w = dir.write("rw.yaml", "job_graphs:\n  - {file: r.json, endpoints: [0, 1]}\n");
  const auto r = odcnsim(fmt::format("run --platform {} --workload {} --policy inc-ljf --out {}", dir.path("p.yaml"), w,
                                     dir.path("x")),
                         dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, w + ": job_graphs[0]: INC-AOI's policies schedule parameter-server jobs (every rank computes, then "
                       "a ps-push of S to one root, then a ps-pull of S): job graph 'ring' has task 'ar', which is "
                       "neither the compute, the push nor the pull\n");
}

// Issue 28: INC-AOI's controller decides every slot until the last job can end (arrival + iterations x compute),
// so that lower bound is refused above 10,000,000 slots (docs/limits.md) by validate and run alike. 10
// iterations of 1 s: 10 s, so slots of 1.000001 us give 9,999,990 slots (taken), 0.999999 us 10,000,010.00001,
// begun in 10,000,011 slots (refused).
TEST(IncAoi, SlotsUntilTheLastJobCanEndAreBounded) {
  TempDir dir;
  const auto workload = [&](const char* slot) {
    return dir.write(std::string("w-") + slot + ".yaml",
                     std::string("ps_jobs:\n  slot_s: ") + slot +
                         "\n  jobs:\n    - {name: a, push_gb: 1, compute_ms: 1000, iterations: 10, servers: [[0, 0], "
                         "[1, 0]]}\n");
  };
  auto r = odcnsim("validate platforms/inc-aoi-64rack.yaml " + workload("1.000001e-6"), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto refused = workload("0.999999e-6");
  for (const std::string& cmd : {"validate platforms/inc-aoi-64rack.yaml " + refused,
                                 "run --platform platforms/inc-aoi-64rack.yaml --policy inc-ljf --workload " + refused +
                                     " --out " + dir.path("out")}) {
    r = odcnsim(cmd, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, refused + ": ps_jobs.slot_s: job a ends no earlier than 10 s (arrival + iterations x compute), at "
                               "least 10000011 slots of 9.99999e-07 s, above the limit of 10000000 slots (see "
                               "docs/limits.md)\n");
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
}
