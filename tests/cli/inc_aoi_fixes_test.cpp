// INC-AOI (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based DCNs"): the faults issue 24 found, each
// with a case whose times are worked out by hand from the platform's numbers (inc_support.hpp: NICs and circuits
// of 5 GB/s, δ = 50 ms, 4 ports and INC for one job per ToR). Each of these failed before its fix.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "cli/inc_support.hpp"

using namespace odcn::test;

TEST(IncAoiFixes, EveryJobArrivingAtTimeZeroStartsInSlotZeroUnderEveryPolicy) {
  TempDir dir;
  // Three jobs of 2 workers, each in a rack of its own, S = 5 GB, no compute: the push moves S through a NIC in 1 s
  // (with INC each worker's NIC; without, the PS's NIC takes (W - 1)·S = S), the pull the same: 2 s each. Before
  // the fix slot 0 saw only the first job (the timer ran between two arrivals) and the others ended at 3 s.
  const std::string w = R"(ps_jobs:
  jobs:
    - {name: a, push_gb: 5, compute_ms: 0, servers: [[0, 0], [0, 1]]}
    - {name: b, push_gb: 5, compute_ms: 0, servers: [[1, 0], [1, 1]]}
    - {name: c, push_gb: 5, compute_ms: 0, servers: [[2, 0], [2, 1]]}
)";
  for (const char* policy : {"inc-ljf", "inc-fcfs", "noinc-ljf", "noinc-fcfs", "inc-group"}) {
    const auto s = run(dir, w, policy, policy);
    const auto slots = csv(dir.path(policy) + "/slots.csv");
    EXPECT_EQ(cell(slots, 1, "started"), 3) << policy;
    // inc-group: b is cohort B (the cohorts alternate over jobs of equal ratio), so its push waits for B's turn
    // at half a slot: b ends at 2.5 s.
    const double makespan = std::string(policy) == "inc-group" ? 2.5 : 2.0;
    EXPECT_NEAR(s["makespan_s"].get<double>(), makespan, 1e-9) << policy;
  }
}

TEST(IncAoiFixes, CircuitsForAJobWithoutIncStopAtWhatItsParameterServersNicCanTake) {
  TempDir dir;
  // big: W = 5 over racks 0 (PS and one worker), 1 (three workers) and 2 (one). Without INC its PS's NIC moves
  // (W - 1)·S = 20 GB each way (4 s), so rack 1's 15 GB need only one circuit (3 s + 50 ms dark), not the three
  // that 3 NICs could fill. small (racks 0 and 3) then finds a free port at rack 0 and starts at 0 as well:
  // push 0.05 + 1 s, pull 1 s = 2.05 s. Before the fix big took all 4 ports of rack 0 (3 + 1) and small waited
  // for big's end (8 s) behind FCFS's head of line.
  const std::string w = R"(ps_jobs:
  jobs:
    - {name: big, push_gb: 5, compute_ms: 0, servers: [[0, 0], [1, 0], [1, 1], [1, 2], [2, 0]]}
    - {name: small, push_gb: 5, compute_ms: 0, servers: [[0, 1], [3, 0]]}
)";
  const auto fcfs = run(dir, w, "noinc-fcfs", "fcfs");
  const auto jobs = csv(dir.path("fcfs") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(jobs, 1, "done_s"), 8.0, 1e-9);
  EXPECT_NEAR(cell(jobs, 2, "done_s"), 2.05, 1e-9);
  EXPECT_NEAR(fcfs["makespan_s"].get<double>(), 8.0, 1e-9);
  // LJF lights one circuit per pair in use (3 at rack 0) and gives the spare port to no one: no stream could use it.
  run(dir, w, "noinc-ljf", "ljf");
  const auto slots = csv(dir.path("ljf") + "/slots.csv");
  EXPECT_EQ(cell(slots, 1, "circuits_lit"), 3);
}

TEST(IncAoiFixes, IterationsFromTheCommandLineAreKnownToThePlacementAndTheDefaultIsTwenty) {
  TempDir dir;
  const std::string base = "run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                           "--set ps_jobs.generator.jobs=200 --policy inc-ljf --trace none --quiet";
  const auto a = odcnsim(fmt::format("{} --iterations 5 --out '{}'", base, dir.path("a")), dir);
  const auto b = odcnsim(fmt::format("{} --set ps_jobs.generator.iterations=5 --out '{}'", base, dir.path("b")), dir);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(read_file(dir.path("a") + "/ps_jobs.csv"), read_file(dir.path("b") + "/ps_jobs.csv"));
  EXPECT_EQ(read_file(dir.path("a") + "/slots.csv"), read_file(dir.path("b") + "/slots.csv"));
  // A generator that does not say: 20 iterations a job, as docs/inc-aoi.md and the shipped workload say.
  const auto w = dir.write("g.yaml", "ps_jobs:\n  generator: {jobs: 4, seed: 3}\n");
  const auto c = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload '{}' --policy inc-ljf "
                                     "--trace none --quiet --out '{}'", w, dir.path("c")), dir);
  ASSERT_EQ(c.code, 0) << c.err;
  const auto jobs = csv(dir.path("c") + "/ps_jobs.csv");
  ASSERT_EQ(jobs.size(), 5u);
  for (std::size_t i = 1; i < jobs.size(); ++i) EXPECT_EQ(cell(jobs, i, "iterations"), 20);
}

TEST(IncAoiFixes, LargeJobFirstWithAReservationNoLongerStarvesTheLargestJob) {
  TempDir dir;
  // All in rack 0 (no circuits), S = 5 GB. s1, s2, s3: 2 workers, 0.5 s compute + 1 + 1 s = 2.5 s. big: 4
  // workers on s1's and s2's servers, 0.25 s + 3 + 3 s (its PS's NIC takes 3·S each way) = 6.25 s.
  //   without a reservation: s1 0-2.5; slot 1 passes big over (servers 0-1 busy) and starts s2 (1-3.5); slot 3
  //   passes it again and starts s3 (3-5.5); big starts only at slot 6 and ends at 12.25.
  //   with one: slot 1 keeps big's servers, so s2 waits; big starts at slot 3 (s1 ended at 2.5) and ends at
  //   9.25; s2 and s3 start at slot 10 and end at 12.5.
  const std::string jobs = R"(  jobs:
    - {name: s1, arrival_s: 0, push_gb: 5, compute_ms: 500, servers: [[0, 0], [0, 1]]}
    - {name: big, arrival_s: 0.5, push_gb: 5, compute_ms: 250, servers: [[0, 0], [0, 1], [0, 2], [0, 3]]}
    - {name: s2, arrival_s: 0.5, push_gb: 5, compute_ms: 500, servers: [[0, 2], [0, 3]]}
    - {name: s3, arrival_s: 1.5, push_gb: 5, compute_ms: 500, servers: [[0, 0], [0, 1]]}
)";
  const auto plain = run(dir, "ps_jobs:\n" + jobs, "noinc-ljf", "plain");
  const auto held = run(dir, "ps_jobs:\n  scheduler: {reserve: true}\n" + jobs, "noinc-ljf", "held");
  const auto p = csv(dir.path("plain") + "/ps_jobs.csv"), h = csv(dir.path("held") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(p, 2, "done_s"), 12.25, 1e-9);
  EXPECT_NEAR(cell(p, 3, "done_s"), 3.5, 1e-9);
  EXPECT_NEAR(cell(p, 4, "done_s"), 5.5, 1e-9);
  EXPECT_NEAR(cell(h, 2, "done_s"), 9.25, 1e-9);
  EXPECT_NEAR(cell(h, 3, "done_s"), 12.5, 1e-9);
  EXPECT_NEAR(cell(h, 4, "done_s"), 12.5, 1e-9);
  EXPECT_EQ(held["scheduler"]["reserve"], true);
}

TEST(IncAoiFixes, SlotAndCircuitTimesAreWholeSlots) {
  TempDir dir;
  // Before the fix a wake-up could end an ulp early and wait again for SimGrid's shortest sleep (1e-9 s):
  // slots.csv and circuits.csv showed 4.000000000999998 for the slot at 4 s.
  const auto r = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                                     "--policy inc-ljf --trace none --quiet --out '{}'", dir.path("o")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* file : {"slots.csv", "circuits.csv"}) {
    const auto rows = csv(dir.path("o") + "/" + file);
    ASSERT_GT(rows.size(), 5u) << file;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const double t = cell(rows, i, "time_s");
      EXPECT_EQ(t, std::round(t)) << file << " row " << i;
    }
  }
}

TEST(IncAoiFixes, WhereTheParameterServerSitsDecidesTheBytesAndTheTimeAsTheClosedFormsSay) {
  TempDir dir;
  // W = 3, S = 5 GB: two workers in rack 0 ([0, 0], [0, 1]) and one in rack 1 ([1, 0]); no compute, one iteration.
  const std::string servers = "servers: [[0, 0], [0, 1], [1, 0]]";
  struct Case {
    const char* name;
    std::string head, ps;
    double makespan, inter_rack;
  };
  const std::vector<Case> cases{
      // colocated (rank 0's server): the PS's NIC takes (W - 1)·S = 10 GB each way (2 s); rack 1's S crosses one
      // circuit (0.05 + 1 s). 2 + 2 s; between racks 2·S a push and pull.
      {"colocated", "", "", 4.0, 10e9},
      // dedicated at [2, 0]: the PS's NIC takes W·S = 15 GB (3 s); racks 0 and 1 send 2·S and S to rack 2, one
      // circuit each (0.05 + 2 s at most). 3 + 3 s; between racks 2·W·S.
      {"dedicated", "  ps_server: dedicated\n", ", ps: [2, 0]", 6.0, 30e9},
      // sharded, R = 2 shards of S/2 on [0, 0] and [1, 0]: each shard takes S/2 from the 2 other workers (1 s),
      // [0, 1] sends S (1 s); rack 0 sends 2·S/2 = S to rack 1 over a duplex circuit (0.05 + 1 s), rack 1 S/2
      // back. Push 1.05 s, pull 1 s; between racks 2·W·S·(R - 1)/R = 15 GB.
      {"sharded", "  ps_server: sharded\n", "", 2.05, 15e9},
  };
  for (const auto& c : cases)
    for (const char* policy : {"noinc-ljf", "noinc-fcfs"}) {
      const std::string w = "ps_jobs:\n" + c.head + "  jobs:\n    - {name: j, push_gb: 5, compute_ms: 0, " + servers +
                            c.ps + "}\n";
      const std::string name = std::string(c.name) + "-" + policy;
      const auto s = run(dir, w, policy, name);
      EXPECT_NEAR(s["makespan_s"].get<double>(), c.makespan, 1e-9) << name;
      EXPECT_EQ(s["ps_server"], c.name) << name;
      const auto jobs = csv(dir.path(name) + "/ps_jobs.csv");
      EXPECT_NEAR(cell(jobs, 1, "inter_rack_bytes"), c.inter_rack, 1e-3) << name;
      EXPECT_NEAR(cell(jobs, 1, "inter_rack_bytes_noinc"), c.inter_rack, 1e-3) << name;
    }
}

TEST(IncAoiFixes, ADedicatedParameterServerIsGivenForEachJobAndNeverOnAWorkersServer) {
  TempDir dir;
  const auto refuse = [&](const std::string& w, const std::string& expected) {
    const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy noinc-ljf --quiet --out '{}'",
                                       dir.write("p.yaml", kPlatform), dir.write("w.yaml", w), dir.path("x")),
                           dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, dir.path("w.yaml") + ": " + expected + "\n");
  };
  refuse("ps_jobs:\n  ps_server: dedicated\n  jobs:\n    - {name: j, push_gb: 5, compute_ms: 0, servers: [[0, 0], [1, 0]]}\n",
         "ps_jobs.jobs[0].ps: ps_server is dedicated: give each job's parameter server as ps: [rack, server]");
  refuse("ps_jobs:\n  ps_server: dedicated\n  jobs:\n    - {name: j, push_gb: 5, compute_ms: 0, servers: [[0, 0], [1, 0]], ps: [1, 0]}\n",
         "ps_jobs.jobs[0].ps: the parameter server's server also runs a worker");
  refuse("ps_jobs:\n  jobs:\n    - {name: j, push_gb: 5, compute_ms: 0, servers: [[0, 0], [1, 0]], ps: [2, 0]}\n",
         "ps_jobs.jobs[0].ps: a server of its own for the parameter server is for ps_server: dedicated (this "
         "workload's is colocated)");
  refuse("ps_jobs:\n  ps_server: elsewhere\n  jobs:\n    - {name: j, push_gb: 5, compute_ms: 0, servers: [[0, 0], [1, 0]]}\n",
         "ps_jobs.ps_server: must be colocated, dedicated or sharded (got 'elsewhere')");
}

TEST(IncAoiFixes, GroupingDelaysCohortBByItsOptionAndGatesEveryPushOrOnlyTheFirst) {
  TempDir dir;
  // a (rack 0) and b (rack 1), 2 workers each, INC in their own ToRs, S = 2.5 GB (push and pull 0.5 s each),
  // 0.2 s compute, 2 iterations; both start at 0, a in cohort A, b in cohort B (equal ratios: the order of ids).
  // group_delay 0.3: B's turns begin at k + 0.3 s, A's at k s.
  //   every push gated: a 0.2-0.7-1.2 | compute to 1.4, B's turn since 1.3: waits for 2.0 | 2.5 | 3.0.
  //                     b waits for 0.3 | 0.8 | 1.3 | compute to 1.5, B's turn | 2.0 | 2.5.
  //   once: a's second push goes at 1.4 | 1.9 | 2.4; b as above, 2.5.
  // The default delay, half a slot, gated every time: a's second push at 1.4 falls in A's turn (1.0-1.5): 2.4;
  // b waits for 0.5 | 1.0 | 1.5 | compute to 1.7, B's turn | 2.2 | 2.7.
  const std::string jobs = R"(  jobs:
    - {name: a, push_gb: 2.5, compute_ms: 200, iterations: 2, servers: [[0, 0], [0, 1]]}
    - {name: b, push_gb: 2.5, compute_ms: 200, iterations: 2, servers: [[1, 0], [1, 1]]}
)";
  struct Case {
    const char* name;
    std::string scheduler;
    double a, b;
  };
  for (const auto& c : {Case{"every", "{group_delay: 0.3}", 3.0, 2.5}, Case{"once", "{group_delay: 0.3, group_gate: once}", 2.4, 2.5},
                        Case{"half", "{}", 2.4, 2.7}}) {
    run(dir, "ps_jobs:\n  scheduler: " + c.scheduler + "\n" + jobs, "inc-group", c.name);
    const auto rows = csv(dir.path(c.name) + "/ps_jobs.csv");
    EXPECT_NEAR(cell(rows, 1, "done_s"), c.a, 1e-9) << c.name;
    EXPECT_NEAR(cell(rows, 2, "done_s"), c.b, 1e-9) << c.name;
  }
}

TEST(IncAoiFixes, DedicatedParameterServersNeverAskARackForMorePortsThanItHas) {
  TempDir dir;
  // 1,000 generated jobs, each PS on a server of its own in another rack, under the LJF policies (whose INC
  // changes every slot): a job keeps the circuits of both its INC and its PS pairs, as its admission counted
  // them. Before, a change of INC could light a PS pair at a rack without a free port, which the engine refused
  // ("pod 4 needs 25 OCS ports but has 24 (Eq. 6)").
  for (const char* policy : {"inc-ljf", "inc-group"}) {
    const auto r = odcnsim(fmt::format("run --platform platforms/inc-aoi-64rack.yaml --workload workloads/inc-aoi-800.yaml "
                                       "--set ps_jobs.generator.jobs=1000 --set ps_jobs.ps_server=dedicated --policy {} "
                                       "--trace none --quiet --no-slowdown --out '{}'", policy, dir.path(policy)),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(dir.path(policy) + "/summary.json");
    // Every job without INC needs circuits to its PS, and under LJF every job keeps them.
    EXPECT_EQ(s["inc_aoi"]["reconfiguration_readings"]["spanning_jobs"].get<int>(), 1000) << policy;
  }
}

TEST(IncAoiFixes, ABaseRingForwardsThroughToRsAndLightsACircuitOnlyWhenItPaysBackItsDelay) {
  TempDir dir;
  // ocs.base_topology: ring over the 4 racks (0-1, 1-2, 2-3, 3-0: 2 ports each, lit at time 0, no delay).
  // No INC; W = 2 each, so the PS's NIC takes S and each stream is S each way.
  const auto jobs = [](double gb) {
    const std::string s = fmt::format("push_gb: {}, compute_ms: 0", gb);
    return "ps_jobs:\n  jobs:\n    - {name: a, " + s +
           ", servers: [[0, 0], [2, 0]]}\n    - {name: b, " + s + ", servers: [[0, 1], [1, 0]]}\n";
  };
  const auto alone = [](double gb) {
    return fmt::format("ps_jobs:\n  jobs:\n    - {{name: a, push_gb: {}, "
                       "compute_ms: 0, servers: [[0, 0], [2, 0]]}}\n", gb);
  };
  // a alone, racks 2 and 0 (no ring edge): forwarded through rack 1 (a tie: the way from the lower rack up), both
  // hops at 5 GB/s at once:
  // push 1 s, pull 1 s, no reconfiguration; 5 GB on each of 2 hops each way: 20 GB between racks.
  const std::string ring = with_base("ring");
  auto s = run(dir, alone(5), "noinc-ljf", "alone", ring);
  EXPECT_NEAR(s["makespan_s"].get<double>(), 2.0, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
  EXPECT_NEAR(cell(csv(dir.path("alone") + "/ps_jobs.csv"), 1, "inter_rack_bytes"), 20e9, 1e-3);
  // With b on the ring edge 0-1, a's forwarded stream would share that hop (h = 2): its B = 2·5 GB would take
  // B·(h - 1)/c = 2 s more than on a circuit of its own, more than δ = 50 ms, so LJF lights 0-2 at once: a takes
  // 0.05 + 1 + 1 s, b alone on its edge 1 + 1 s.
  s = run(dir, jobs(5), "noinc-ljf", "pays", ring);
  auto rows = csv(dir.path("pays") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 2.05, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 2.0, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 1);
  // 0.1 GB each: 2·0.1 GB more over a shared hop is 0.04 s, less than δ: forwarded. On edge 0-1 a's and b's
  // 0.1 GB share 5 GB/s: 0.04 s each way, for both jobs.
  s = run(dir, jobs(0.1), "noinc-ljf", "small", ring);
  rows = csv(dir.path("small") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 0.08, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 0.08, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
  // FCFS decides a's pair when a starts, before b, so it sees no contention and forwards it for good: a and b
  // then share edge 0-1, 5 GB each at 2.5 GB/s, 2 s each way.
  s = run(dir, jobs(5), "noinc-fcfs", "fcfs", ring);
  rows = csv(dir.path("fcfs") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 4.0, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 4.0, 1e-9);
  EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
}

TEST(IncAoiFixes, AForwardedPairThatPaysBackTakesTheLastFreePortOfItsRacks) {
  TempDir dir;
  // The case above with 3 ports a rack: the base ring takes 2 at every rack, so racks 0 and 2 have one port left
  // each, which a's pair 0-2 may take. Before the fix LJF counted the pair being decided as already holding a
  // port and asked for one more: a stayed forwarded, sharing edge 0-1 with b (both ended at 3.0 s), instead of
  // 2.05 / 2.0 s.
  std::string platform = with_base("ring");
  platform.replace(platform.find("ports_per_pod: 4"), 16, "ports_per_pod: 3");
  platform.replace(platform.find("ports_per_oxc: 16"), 17, "ports_per_oxc: 12");
  const auto w = dir.write("w.yaml", "ps_jobs:\n  jobs:\n"
                                     "    - {name: a, push_gb: 5, compute_ms: 0, servers: [[0, 0], [2, 0]]}\n"
                                     "    - {name: b, push_gb: 5, compute_ms: 0, servers: [[0, 1], [1, 0]]}\n");
  const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy noinc-ljf --quiet --out '{}'",
                                     dir.write("p3.yaml", platform), w, dir.path("o")),
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv(dir.path("o") + "/ps_jobs.csv");
  EXPECT_NEAR(cell(rows, 1, "done_s"), 2.05, 1e-9);
  EXPECT_NEAR(cell(rows, 2, "done_s"), 2.0, 1e-9);
  EXPECT_EQ(read_json(dir.path("o") + "/summary.json")["reconfigurations"].get<int>(), 1);
}
