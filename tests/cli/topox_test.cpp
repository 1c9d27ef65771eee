// TOPO-X (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training Parallelism") and its TopoOpt
// baseline as a user runs them: a ring all-reduce that takes its closed form under both, a small DLRM whose plan
// bounds the engine's iteration and whose MIP CBC solves, byte-identical reruns, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "cli/cli_support.hpp"

using namespace odcn::test;

namespace {

// 4 servers with 2 ports of 8 Gb/s (1e9 B/s), 2 OCSes of 4 ports, τ = δ = 1 ms.
constexpr const char* kPlatform = R"(kind: flat_ocs
servers: {count: 4, gpus_per_server: 4, nic_ports: 2, nic_gbps: 8}
ocs: {count: 2, ports: 4, reconfig_delay_ms: 1, duplex: full}
slot_ms: 1
)";

// 1 ms of compute on rank 0, a ring all-reduce of S = 4e6 B over the 4 ranks, then 0.5 ms on rank 3.
constexpr const char* kRingGraph = R"({"format": "odcnsim-job-graph", "version": 1, "name": "ring", "ranks": 4,
 "iterations": 1, "tasks": [
  {"id": "c0", "kind": "compute", "rank": 0, "duration_s": 0.001},
  {"id": "ar", "kind": "collective", "op": "all-reduce", "algorithm": "ring", "group": [0, 1, 2, 3],
   "bytes": 4000000, "deps": ["c0"]},
  {"id": "c3", "kind": "compute", "rank": 3, "duration_s": 0.0005, "deps": ["ar"]}]})";

std::string workload(const TempDir& dir, const std::string& graph_file, int jobs = 1) {
  std::string w = "job_graphs:\n";
  for (int j = 0; j < jobs; ++j) w += fmt::format("  - file: {}\n    endpoints: [0, 1, 2, 3]\n", graph_file);
  return dir.write(fmt::format("w{}.yaml", jobs), w);
}

Result run(const TempDir& dir, const std::string& w, const std::string& policy, const std::string& out,
           const std::string& extra = "") {
  return odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy {} --quiet --out '{}' {}",
                             dir.write("p.yaml", kPlatform), w, policy, dir.path(out), extra),
                 dir);
}

}  // namespace

// Each server's two ports are its ring circuits (to i+1 and i-1), and both directions of the ring carry half of
// 2(N-1)/N·S = 6e6 B: 3e6 B at 1e9 B/s = 3 ms, the ring all-reduce's closed form 2(N-1)/N·S/(d·B). TopoOpt starts
// it at 1 ms, TOPO-X at slot 1 (1 ms) on circuits lit from the start: 1 + 3 + 0.5 = 4.5 ms under both.
TEST(TopoxCli, RingAllReduceTakesItsClosedFormUnderBothPolicies) {
  TempDir dir;
  const std::string w = workload(dir, dir.write("ring.json", kRingGraph));
  for (const std::string policy : {"topox", "topoopt"}) {
    const auto r = run(dir, w, policy, policy);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(dir.path(policy) + "/summary.json");
    EXPECT_NEAR(s["makespan_s"].get<double>(), 4.5e-3, 1e-12) << policy;
  }
  const auto x = read_json(dir.path("topox") + "/summary.json")["topox"];
  EXPECT_NEAR(x["planned_iteration_s"].get<double>(), 4.5e-3, 1e-12);
  EXPECT_EQ(x["late_releases"].get<int>(), 0);
  EXPECT_EQ(x["transfers"].get<int>(), 8);
  const auto t = read_json(dir.path("topoopt") + "/summary.json")["topoopt"];
  EXPECT_EQ(t["ring_strides"], nlohmann::json::parse("[1, 3]"));
  EXPECT_EQ(t["forwarded_transfers"].get<int>(), 0);
  EXPECT_EQ(read_file(dir.path("topox") + "/slots.csv").substr(0, 52),
            "slot,start_s,circuits,lit,set_up,torn_down,transfers");
  // The ring's 4 circuits ({0,1}, {1,2}, {2,3}, {0,3}) in slots 1, 2 and 3 (1 to 4 ms), none in slot 0.
  const std::string circuits = read_file(dir.path("topox") + "/slot_circuits.csv");
  EXPECT_EQ(std::count(circuits.begin(), circuits.end(), '\n'), 1 + 3 * 4) << circuits;
  EXPECT_EQ(circuits.find("\n0,"), std::string::npos);
  // FlexNet's estimate of the same topology: 1 ms, then the intra-server term 2·S/(4 GPUs · 25e9 B/s) = 80 µs,
  // then each direction's 3e6 B in three segments (2 of 1 MiB, 902,848 B) back to back on its own link, each
  // 1 µs + its bytes at 1e9 B/s: 3.003 ms; then 0.5 ms. With the platform's flexnet block (no hop latency, NVLink
  // at 800 Gb/s = 1e11 B/s): 1 + 0.02 + 3 + 0.5 ms.
  EXPECT_NEAR(t["flexnet_estimate_s"].get<double>(), 1e-3 + 80e-6 + 3.003e-3 + 0.5e-3, 1e-12);
  EXPECT_EQ(t["flexnet"]["segments"].get<int>(), 8 * 3);
  const auto flex = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy topoopt --quiet --out '{}'",
                                        dir.write("flex.yaml", std::string(kPlatform) +
                                                                   "flexnet: {hop_latency_us: 0, nvlink_gbps: 800}\n"),
                                        w, dir.path("flex")),
                            dir);
  ASSERT_EQ(flex.code, 0) << flex.err;
  const auto fs = read_json(dir.path("flex") + "/summary.json");
  EXPECT_NEAR(fs["topoopt"]["flexnet_estimate_s"].get<double>(), 1e-3 + 20e-6 + 3e-3 + 0.5e-3, 1e-12);
  EXPECT_NEAR(fs["makespan_s"].get<double>(), 4.5e-3, 1e-12);  // the engine's run does not change
  // With circuits that change for free at slot boundaries (reconfig_delay_ms: 0) the ring takes as long.
  const auto free = run(dir, w, "topox", "free", "--set ocs.reconfig_delay_ms=0");
  ASSERT_EQ(free.code, 0) << free.err;
  EXPECT_NEAR(read_json(dir.path("free") + "/summary.json")["makespan_s"].get<double>(), 4.5e-3, 1e-12);
}

// topox:paper plans by the paper's Eq. 6 (a lit circuit of the pair suffices, any number of transfers share it at
// full rate) with no reconfiguration term, and reports the plan beside what the fabric makes of it. Three
// independent transfers of 0.6e6 B from server 0 to 1 (0.6 ms each at 1e9 B/s): planned together on one circuit in
// slot 0, 0.6 ms; on the engine they share that circuit's 1e9 B/s, 3 × 0.6 = 1.8 ms. Policy topox gives each a
// circuit direction of its own: both OCSes join 0 and 1 in slot 0, two transfers start at 0 and the third (with
// continuous starts) when one ends, 0.6 + 0.6 = 1.2 ms planned; on the engine the third has both circuits of the
// pair to itself from 0.6 ms, 0.6e6 B / 2e9 B/s = 0.3 ms: 0.9 ms, within the plan.
TEST(TopoxCli, ThePapersReadingReportsItsPlanAndWhatTheFabricMakesOfIt) {
  TempDir dir;
  const std::string graph = R"({"format": "odcnsim-job-graph", "version": 1, "name": "three", "ranks": 4,
 "iterations": 1, "tasks": [
  {"id": "a", "kind": "transfer", "src": 0, "dst": 1, "bytes": 600000},
  {"id": "b", "kind": "transfer", "src": 0, "dst": 1, "bytes": 600000},
  {"id": "c", "kind": "transfer", "src": 0, "dst": 1, "bytes": 600000}]})";
  const std::string w = workload(dir, dir.write("three.json", graph));
  auto r = run(dir, w, "topox:paper", "paper", "--set ocs.reconfig_delay_ms=0");
  ASSERT_EQ(r.code, 0) << r.err;
  auto s = read_json(dir.path("paper") + "/summary.json");
  EXPECT_EQ(s["topox"]["reading"], "paper");
  EXPECT_NEAR(s["topox"]["planned_iteration_s"].get<double>(), 0.6e-3, 1e-12);
  EXPECT_NEAR(s["makespan_s"].get<double>(), 1.8e-3, 1e-12);
  r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy topox:paper --set ocs.reconfig_delay_ms=0 "
                          "--out '{}'", dir.path("p.yaml"), w, dir.path("shown")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("planned 0.000600 s, executed on the fabric's capacities 0.001800 s"), std::string::npos)
      << r.out;
  r = run(dir, w, "topox", "capacity", "--set ocs.reconfig_delay_ms=0");
  ASSERT_EQ(r.code, 0) << r.err;
  s = read_json(dir.path("capacity") + "/summary.json");
  EXPECT_EQ(s["topox"]["reading"], "capacity");
  EXPECT_NEAR(s["topox"]["planned_iteration_s"].get<double>(), 1.2e-3, 1e-12);
  EXPECT_NEAR(s["makespan_s"].get<double>(), 0.9e-3, 1e-12);
  // topox:aligned (Eq. 4's slot-aligned starts only): two in slot 0 on both OCSes, the third in slot 1 on one
  // circuit: 1.0 + 0.6 = 1.6 ms, planned and on the engine.
  r = run(dir, w, "topox:aligned", "aligned", "--set ocs.reconfig_delay_ms=0");
  ASSERT_EQ(r.code, 0) << r.err;
  s = read_json(dir.path("aligned") + "/summary.json");
  EXPECT_NEAR(s["topox"]["planned_iteration_s"].get<double>(), 1.6e-3, 1e-12);
  EXPECT_NEAR(s["makespan_s"].get<double>(), 1.6e-3, 1e-12);
  EXPECT_NEAR(s["topox"]["continuous_iteration_s"].get<double>(), 0.0, 0.0);  // not planned
}

// A paper's-reading plan stretches its slots on the engine rather than take a circuit from a running transfer.
// 3 servers of one port on one OCS, δ = 0: a and b (0 -> 1) share circuit 0-1 in slot 0, c (0 -> 2) waits for
// server 0's port until slot 1: planned 1.6 ms. On the engine a and b share 1e9 B/s and end at 1.2 ms; slot 1
// begins then (not at 1 ms, when a and b would lose their circuit with a third of their bytes left), and c runs
// from 1.2 to 1.8 ms. Two iterations: 3.6 ms.
TEST(TopoxCli, ThePapersPlanStretchesItsSlotsUntilTheirTransfersEnd) {
  TempDir dir;
  const std::string platform = dir.write("p1.yaml", R"(kind: flat_ocs
servers: {count: 3, gpus_per_server: 4, nic_ports: 1, nic_gbps: 8}
ocs: {count: 1, ports: 4, reconfig_delay_ms: 0, duplex: full}
slot_ms: 1
)");
  const std::string graph = dir.write("st.json", R"({"format": "odcnsim-job-graph", "version": 1, "name": "st",
 "ranks": 3, "iterations": 2, "tasks": [
  {"id": "a", "kind": "transfer", "src": 0, "dst": 1, "bytes": 600000},
  {"id": "b", "kind": "transfer", "src": 0, "dst": 1, "bytes": 600000},
  {"id": "c", "kind": "transfer", "src": 0, "dst": 2, "bytes": 600000}]})");
  const std::string w = dir.write("st.yaml", "job_graphs:\n  - file: " + graph + "\n    endpoints: [0, 1, 2]\n");
  const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy topox:paper --quiet --out '{}'",
                                     platform, w, dir.path("st")), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = read_json(dir.path("st") + "/summary.json");
  EXPECT_NEAR(s["topox"]["planned_iteration_s"].get<double>(), 1.6e-3, 1e-12);
  EXPECT_NEAR(s["makespan_s"].get<double>(), 3.6e-3, 1e-12);
  EXPECT_NEAR(s["mean_iteration_s"].get<double>(), 1.8e-3, 1e-12);
}

// A DLRM of TOPO-X's Table II shape, shrunk to 4 servers and 4 tables: the engine's iteration never exceeds the
// plan, no transfer starts after its slot, and CBC's MIP reports an objective and a bound no larger than it.
TEST(TopoxCli, SmallDlrmPlanBoundsTheEngineAndTheMipReportsItsGap) {
  TempDir dir;
  const auto g = odcnsim(fmt::format("generate dlrm --preset table2-2 --set servers=4 --set tables=4 --set "
                                     "bottom_layers=2 --set top_layers=3 --quiet --out '{}'",
                                     dir.path("dlrm.json")),
                         dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string w = workload(dir, dir.path("dlrm.json"));
  const auto r = run(dir, w, "topox:mip", "mip", "--mip-seconds 5");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = read_json(dir.path("mip") + "/summary.json");
  const auto x = s["topox"];
  EXPECT_EQ(x["late_releases"].get<int>(), 0);
  EXPECT_LE(s["makespan_s"].get<double>(), x["planned_iteration_s"].get<double>() + 1e-12);
  EXPECT_LE(x["planned_iteration_s"].get<double>(), x["heuristic_iteration_s"].get<double>() + 1e-12);
  ASSERT_FALSE(x["mip_objective_s"].is_null()) << x.dump();
  EXPECT_LE(x["mip_bound_s"].get<double>(), x["mip_objective_s"].get<double>() + 1e-9);
}

TEST(TopoxCli, SameInputsGiveByteIdenticalOutputs) {
  TempDir dir;
  const auto g = odcnsim(fmt::format("generate dlrm --set servers=4 --set tables=4 --quiet --out '{}'",
                                     dir.path("dlrm.json")),
                         dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string w = workload(dir, dir.path("dlrm.json"));
  for (const std::string policy : {"topox:heuristic", "topoopt"}) {
    const std::string a = policy + "-a", b = policy + "-b";
    ASSERT_EQ(run(dir, w, policy, a).code, 0);
    ASSERT_EQ(run(dir, w, policy, b).code, 0);
    for (const std::string f : {"summary.json", "iterations.csv", "circuits.csv", "trace.json"})
      EXPECT_EQ(read_file(dir.path(a) + "/" + f), read_file(dir.path(b) + "/" + f)) << policy << " " << f;
    if (policy == "topox:heuristic") {
      EXPECT_EQ(read_file(dir.path(a) + "/slots.csv"), read_file(dir.path(b) + "/slots.csv"));
      EXPECT_EQ(read_file(dir.path(a) + "/slot_circuits.csv"), read_file(dir.path(b) + "/slot_circuits.csv"));
    }
  }
}

TEST(TopoxCli, Refusals) {
  TempDir dir;
  const std::string ring = dir.write("ring.json", kRingGraph);
  const auto two = run(dir, workload(dir, ring, 2), "topox", "two");
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(two.err.find("job_graphs: policy topox plans one training job on the whole fabric"), std::string::npos)
      << two.err;
  const auto secs = run(dir, workload(dir, ring), "topox", "secs", "--mip-seconds 0");
  EXPECT_EQ(secs.code, 2);
  EXPECT_NE(secs.err.find("command line: --mip-seconds: must be > 0"), std::string::npos) << secs.err;
  const auto nomip = run(dir, workload(dir, ring), "topoopt", "nomip", "--mip-seconds 5");
  EXPECT_EQ(nomip.code, 2);
  EXPECT_NE(nomip.err.find("command line: --mip-seconds: only policies topox and topox:mip solve a MIP"),
            std::string::npos)
      << nomip.err;
  std::string a2a = kRingGraph;
  a2a.replace(a2a.find("all-reduce"), 10, "all-to-all");
  a2a.replace(a2a.find("\"ring\", \"group\""), 6, "\"direct\"");
  const auto op = run(dir, workload(dir, dir.write("a2a.json", a2a)), "topoopt", "op");
  EXPECT_EQ(op.code, 2);
  EXPECT_NE(op.err.find("task 'ar': TOPO-X and TopoOpt schedule ring all-reduces only"), std::string::npos) << op.err;
  const auto clos = odcnsim(fmt::format("run --platform platforms/clos-8pod.yaml --workload workloads/graphs-dp4.yaml "
                                        "--policy topox --quiet --out '{}'",
                                        dir.path("clos")),
                            dir);
  EXPECT_EQ(clos.code, 2);
  EXPECT_NE(clos.err.find("command line: --policy: policy topox schedules circuits of a flat layer of OCSes"),
            std::string::npos)
      << clos.err;
  // Half-duplex circuits break the plan's assumption of B each way.
  std::string half = kPlatform;
  half.replace(half.find("duplex: full"), 12, "duplex: half");
  const auto hd = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy topox --quiet --out '{}'",
                                      dir.write("half.yaml", half), workload(dir, ring), dir.path("half")),
                          dir);
  EXPECT_EQ(hd.code, 2);
  EXPECT_NE(hd.err.find("half.yaml: ocs.duplex: policy topox needs full-duplex circuits"), std::string::npos) << hd.err;
  // topox:mip on Table III row 7 (about 135,000 columns) is refused instead of outlasting its time limit.
  const auto big = odcnsim(fmt::format("run --platform platforms/flat-ocs-16.yaml --workload workloads/dlrm-16.yaml "
                                       "--policy topox:mip --quiet --out '{}'",
                                       dir.path("big")),
                           dir);
  EXPECT_EQ(big.code, 2);
  EXPECT_NE(big.err.find("policy topox:mip: the MIP would have"), std::string::npos) << big.err;
  // topox:eq8 counts a circuit once in and once out: one port per server leaves no circuit at all.
  const auto eq8 = odcnsim(fmt::format("run --platform platforms/flat-ocs-16.yaml --workload workloads/dlrm-16.yaml "
                                       "--policy topox:eq8 --set servers.nic_ports=1 --set ocs.count=1 --quiet --out '{}'",
                                       dir.path("eq8")),
                           dir);
  EXPECT_EQ(eq8.code, 2);
  EXPECT_NE(eq8.err.find("platforms/flat-ocs-16.yaml: servers.nic_ports: policy topox:eq8 counts a circuit once in "
                         "and once out (Eq. 8, in + out <= d_S) and needs at least 2 ports per server, not 1"),
            std::string::npos)
      << eq8.err;
  for (const std::string out : {"two", "secs", "nomip", "op", "clos", "half", "big", "eq8"})
    EXPECT_FALSE(std::filesystem::exists(dir.path(out))) << out;
}

// The README's example, Table III row 7 (16 servers, 4 ports of 40 Gb/s, τ = δ = 1 ms): whatever the plan, the
// engine takes no longer than the planned iteration (shorter where a transfer runs alone on a pair that holds
// several circuits in its slot: the engine shares the pair's circuits among its transfers, the plan gives each
// one circuit, B), and both policies stay above two lower bounds: the compute path with
// free communication (12.0023 ms, docs/dlrm.md) and the ring all-reduce of the dense layers through each server's
// 4 ports, 2·15/16 · 306,343,940 B / (4 · 5e9 B/s) = 28.72 ms.
TEST(TopoxCli, TableThreeRowSevenStaysAboveItsLowerBounds) {
  TempDir dir;
  // validate reports what run reports under its default policy, static, which cannot give every pair of the
  // all-to-all a circuit; both say that topox and topoopt can run it.
  const auto v = odcnsim("validate platforms/flat-ocs-16.yaml workloads/dlrm-16.yaml", dir);
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("workloads/dlrm-16.yaml: job_graphs: policy static gives every communicating pair one circuit"),
            std::string::npos)
      << v.err;
  EXPECT_NE(v.err.find("; policies topox and topoopt can run it (docs/topox.md)"), std::string::npos) << v.err;
  for (const std::string policy : {"topox", "topoopt"}) {
    const auto r = odcnsim(fmt::format("run --platform platforms/flat-ocs-16.yaml --workload workloads/dlrm-16.yaml "
                                       "--policy {} --no-slowdown --trace none --quiet --out '{}'",
                                       policy, dir.path(policy)),
                           dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = read_json(dir.path(policy) + "/summary.json");
    const double t = s["makespan_s"].get<double>();
    EXPECT_GE(t, 28.72e-3) << policy;
    EXPECT_GE(t, 12.0023e-3) << policy;
    if (policy == "topox") {
      EXPECT_LE(t, s["topox"]["planned_iteration_s"].get<double>() + 1e-12);
      EXPECT_GE(s["topox"]["planned_iteration_s"].get<double>(), s["topox"]["lower_bound_s"].get<double>());
      EXPECT_EQ(s["topox"]["late_releases"].get<int>(), 0);
      EXPECT_EQ(s["topox"]["transfers"].get<int>(), 480 + 23 * 16 * 4);  // the all-to-alls, 23 rings x 16 x 4 paths
      EXPECT_EQ(s["topox"]["mip_status"].get<std::string>().rfind("not run: ", 0), 0u);
    } else {
      EXPECT_EQ(s["topoopt"]["ring_strides"], nlohmann::json::parse("[1, 5, 11, 15]"));
      EXPECT_EQ(s["reconfigurations"].get<int>(), 0);
    }
  }
}

// `generate dlrm --search`: the same seed writes the same file; the searched graph runs under both policies;
// what cannot be searched is refused in one line, with no file written.
TEST(TopoxCli, StrategySearchIsReproducibleRunsAndRefusesWhatItCannotSearch) {
  TempDir dir;
  const std::string flat16 = std::string(ODCNSIM_SOURCE_DIR) + "/platforms/flat-ocs-16.yaml";
  const auto search = [&](const std::string& out, const std::string& extra) {
    return odcnsim(fmt::format("generate dlrm --search '{}' --search-budget 30 {} --out '{}'", flat16, extra,
                               dir.path(out)),
                   dir);
  };
  const auto a = search("a.json", "");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("search            simulated annealing, seed 1, over FlexNet measures/dlrm16.json"),
            std::string::npos) << a.out;
  EXPECT_NE(a.out.find("cost              hybrid "), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("planned           hybrid "), std::string::npos) << a.out;
  ASSERT_EQ(search("b.json", "--quiet").code, 0);
  EXPECT_EQ(read_file(dir.path("a.json")), read_file(dir.path("b.json")));
  const auto t = search("t.json", "--search-cost topoopt --search-mode flexnet --quiet");
  ASSERT_EQ(t.code, 0) << t.err;
  std::string w = "job_graphs:\n  - file: " + dir.path("a.json") + "\n    endpoints: [";
  for (int i = 0; i < 16; ++i) w += (i ? ", " : "") + std::to_string(i);
  const std::string workload16 = dir.write("w16.yaml", w + "]\n");
  for (const std::string policy : {"topox", "topoopt"}) {
    const auto r = odcnsim(fmt::format("run --platform '{}' --workload '{}' --policy {} --no-slowdown --quiet --out '{}'",
                                       flat16, workload16, policy, dir.path("run-" + policy)),
                           dir);
    ASSERT_EQ(r.code, 0) << policy << ": " << r.err;
  }
  const auto s = read_json(dir.path("run-topox") + "/summary.json");
  EXPECT_LE(s["topox"]["lower_bound_s"].get<double>(), s["topox"]["planned_iteration_s"].get<double>() + 1e-12);

  const std::string electrical = std::string(ODCNSIM_SOURCE_DIR) + "/platforms/electrical-16.yaml";
  const std::vector<Refusal> cases{
      {"generate dlrm --search '" + electrical + "' --out x.json", electrical + ": kind: is electrical"},
      {"generate dlrm --search '" + flat16 + "' --set servers=8 --out x.json",
       "command line: --set servers: cannot be combined with --search"},
      {"generate dlrm --search '" + flat16 + "' --preset table2-1 --out x.json", flat16 + ": servers.count: is 16"},
      {"generate dlrm --search '" + flat16 + "' --search-mode greedy --out x.json",
       "command line: --search-mode: 'greedy' is not anneal or flexnet"},
      {"generate dlrm --search '" + flat16 + "' --search-cost htsim --out x.json",
       "command line: --search-cost: 'htsim' is not topox or topoopt"},
      {"generate torchtitan --search '" + flat16 + "' --out x.json", "command line: --search: searches a DLRM"},
      {"generate dlrm --search-seed 3 --out x.json", "command line: generate: --search-seed requires --search"},
      {"generate dlrm --search '" + flat16 + "' --search-cost topoopt --search-finalists 2 --out x.json",
       "command line: --search-finalists: applies to --search-cost topox only"},
  };
  expect_refusals(cases, dir);
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.json")));
}
