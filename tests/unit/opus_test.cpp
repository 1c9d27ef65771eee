// Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters"), without SimGrid: communication groups found
// from the traces' process groups and messages, the circuits each wants, and the window formula of §3.1.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "net/network.hpp"
#include "systems/opus/opus.hpp"
#include "systems/opus/torchtitan.hpp"

using namespace odcn;

namespace {

spec::PhotonicRailSpec rail(int domains = 4, int gpus = 4, int ports = 2) {
  spec::PhotonicRailSpec r;
  r.file = "test";
  r.domains = domains;
  r.gpus_per_domain = gpus;
  r.scaleup_bytes_per_s = gbps_to_bytes_per_s(2400);
  r.nic_ports = ports;
  r.port_bytes_per_s = gbps_to_bytes_per_s(400.0 / ports);
  r.ocs = {"test", 0.025, 576};
  return r;
}

std::vector<int> identity(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

workload::Task message(int src, int dst) {
  workload::Task t;
  t.name = "m" + std::to_string(src) + "-" + std::to_string(dst);
  t.kind = workload::TaskKind::transfer;
  t.src = src;
  t.dst = dst;
  t.bytes = 1e6;
  return t;
}

}  // namespace

// Llama3-8B, TP 4 x FSDP 2 x PP 2 (Opus §3.1): on rail 0 the FSDP groups {0,4} and {8,12} and the pipelines
// {0,8} and {4,12}; the same on every rail; TP stays in its domain. All-gathers, reduce-scatters and the FSDP
// gradient norm share one group, the pipeline's messages and its gradient norm another.
TEST(Opus, PhaseGroupsFollowTheProcessGroupsOfTheLlama3Preset) {
  const auto g = workload::build_torchtitan(workload::torchtitan_preset("llama3-8b"));
  const net::Network n = net::network_of(rail());
  const std::vector<sched::GraphJob> jobs{{"8b", &g, identity(16), "job_graphs[0]"}};
  const sched::RailGroups groups(n, jobs, 2, "w.yaml");
  ASSERT_EQ(groups.count(), 16);
  std::set<std::pair<int, int>> seen;
  for (int id = 0; id < groups.count(); ++id) {
    const auto& grp = groups.group(id);
    ASSERT_EQ(grp.edges.size(), 1u);
    const auto [a, b] = grp.edges[0];
    EXPECT_EQ(a % 4, b % 4);            // one rail
    EXPECT_EQ(grp.rail, a % 4);
    EXPECT_TRUE(b - a == 4 || b - a == 8) << a << "-" << b;  // FSDP peers or pipeline neighbours
    ASSERT_EQ(grp.circuits.size(), 1u);
    EXPECT_EQ(grp.circuits[0].second, 2);  // both NIC ports to the one peer: 400 Gb/s
    seen.insert(grp.edges[0]);
  }
  EXPECT_EQ(seen.size(), 16u);
  for (std::size_t t = 0; t < g.tasks.size(); ++t) {
    const auto& task = g.tasks[t];
    const int id = groups.group_of(0, static_cast<int>(t));
    if (task.kind == workload::TaskKind::compute || task.kind == workload::TaskKind::barrier) {
      EXPECT_EQ(id, -1) << task.name;
      continue;
    }
    if (task.name.find("gradnorm.tp") != std::string::npos || task.name.find(".tp.") != std::string::npos) {
      EXPECT_EQ(id, -1) << task.name;  // inside a scale-up domain: the norm's TP step, the TP collectives
      continue;
    }
    ASSERT_GE(id, 0) << task.name;
    const auto [a, b] = groups.group(id).edges[0];
    const bool fsdp = task.name.find(".ag.") != std::string::npos || task.name.find(".rs.") != std::string::npos ||
                      task.name.find("gradnorm.dp") != std::string::npos;
    EXPECT_EQ(b - a, fsdp ? 4 : 8) << task.name;
  }
}

// A pipeline of four stages on one rail: each hop is its own group (Opus §5, circuits per communication
// group). With whole-NIC hops (the default) each hop takes both ports of its two GPUs; with split hops each GPU
// shares its ports among its pipeline peers, so a middle stage keeps one circuit to each neighbour.
TEST(Opus, EveryPipelineHopIsItsOwnGroup) {
  workload::JobGraph g;
  g.name = "pp4";
  g.ranks = 4;
  g.tasks = {message(0, 1), message(1, 2), message(2, 3), message(3, 2)};
  g.tasks[1].deps = {0};
  g.tasks[2].deps = {1};
  g.tasks[3].deps = {2};
  const net::Network n = net::network_of(rail());
  const std::vector<sched::GraphJob> jobs{{"pp4", &g, {0, 4, 8, 12}, "job_graphs[0]"}};
  const std::vector<std::pair<int, int>> hops{{0, 4}, {4, 8}, {8, 12}, {8, 12}};
  for (const auto mode : {sched::HopCircuits::whole_nic, sched::HopCircuits::split}) {
    const sched::RailGroups groups(n, jobs, 2, "w.yaml", mode);
    ASSERT_EQ(groups.count(), 3);
    for (int t = 0; t < 4; ++t) {
      const auto& grp = groups.group(groups.group_of(0, t));
      EXPECT_EQ(grp.edges, (std::vector<std::pair<int, int>>{hops[static_cast<std::size_t>(t)]}));
      EXPECT_EQ(grp.endpoints, (std::vector<int>{hops[static_cast<std::size_t>(t)].first, hops[static_cast<std::size_t>(t)].second}));
      ASSERT_EQ(grp.circuits.size(), 1u);
      // whole NIC: 2; split: min over the hop's GPUs of 2 / peers, and every hop touches a middle stage (2 peers).
      EXPECT_EQ(grp.circuits[0].second, mode == sched::HopCircuits::whole_nic ? 2 : 1) << t;
    }
  }
  // With one port per GPU, whole-NIC hops still fit; split hops leave a middle stage no port for a neighbour.
  const net::Network one = net::network_of(rail(4, 4, 1));
  EXPECT_EQ(sched::RailGroups(one, jobs, 1, "w.yaml").count(), 3);
  try {
    sched::RailGroups bad(one, jobs, 1, "w.yaml", sched::HopCircuits::split);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "w.yaml: job_graphs[0].tasks[0]: gpus 0-4 links gpu 4 to 2 pipeline peers across scale-up domains, but "
              "a gpu has 1 NIC port(s) on its rail's OCS");
  }
  // A two-stage pipeline has no middle stage: split hops take both ports too.
  workload::JobGraph two;
  two.name = "pp2";
  two.ranks = 2;
  two.tasks = {message(0, 1), message(1, 0)};
  const std::vector<sched::GraphJob> pair{{"pp2", &two, {0, 4}, "job_graphs[0]"}};
  const sched::RailGroups split(n, pair, 2, "w.yaml", sched::HopCircuits::split);
  ASSERT_EQ(split.count(), 1);
  EXPECT_EQ(split.group(0).circuits[0].second, 2);
}

// Ranks on different rails and domains talk as NCCL's PXN does (net::Path::pxn): over the scale-up domain to the
// proxy (the source domain's GPU on the destination's rail), then on the proxy's rail circuit. On 4 domains of 4
// GPUs (GPU = 4 domain + rail), 0 -> 5 goes through GPU 1 on rail 1, and 5 -> 0 through GPU 4 on rail 0.
TEST(Opus, CrossRailTrafficTakesTheProxysCircuit) {
  workload::JobGraph g;
  g.name = "cross";
  g.ranks = 2;
  g.tasks = {message(0, 1), message(1, 0)};
  const net::Network n = net::network_of(rail());
  EXPECT_EQ(n.path(0, 5), net::Path::pxn);
  EXPECT_EQ(n.proxy(0, 5), 1);
  EXPECT_EQ(n.proxy(5, 0), 4);
  const std::vector<sched::GraphJob> jobs{{"cross", &g, {0, 5}, "job_graphs[2]"}};
  const sched::RailGroups groups(n, jobs, 2, "w.yaml");
  ASSERT_EQ(groups.count(), 2);
  const auto& there = groups.group(groups.group_of(0, 0));
  EXPECT_EQ(there.edges, (std::vector<std::pair<int, int>>{{0, 5}}));
  EXPECT_EQ(there.endpoints, (std::vector<int>{0, 5}));
  EXPECT_EQ(there.holders, (std::vector<int>{0, 1, 5}));
  EXPECT_EQ(there.circuits, (std::vector<std::pair<int, int>>{{n.pair_index(1, 5), 2}}));  // both of GPU 1's ports
  EXPECT_EQ(there.rail, 1);
  EXPECT_EQ(there.label, "gpus 0-5 via 1-5");
  const auto& back = groups.group(groups.group_of(0, 1));
  EXPECT_EQ(back.holders, (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(back.circuits, (std::vector<std::pair<int, int>>{{n.pair_index(0, 4), 2}}));
  EXPECT_EQ(back.rail, 0);
}

// A ring all-reduce over all 16 GPUs in rank order runs as two counter-rotating rings. Its flows leave a domain
// at 3 -> 4, 7 -> 8, 11 -> 12, 15 -> 0 (proxies 0, 4, 8, 12 on rail 0) and 4 -> 3, 8 -> 7, 12 -> 11, 0 -> 15
// (proxies 7, 11, 15, 3 on rail 3): a ring of four circuits on each of rails 0 and 3, so every proxy links two
// peers and gets one circuit to each (2 ports / 2).
TEST(Opus, ARingOverEveryGpuTakesTheProxiesCircuitsOnTwoRails) {
  workload::JobGraph g;
  g.name = "all";
  g.ranks = 16;
  workload::Task ar;
  ar.name = "ar";
  ar.kind = workload::TaskKind::collective;
  ar.op = workload::CollectiveOp::all_reduce;
  ar.algorithm = workload::CollectiveAlgorithm::ring;
  ar.group = identity(16);
  ar.bytes = 1.6e10;
  g.tasks = {ar};
  const net::Network n = net::network_of(rail());
  const std::vector<sched::GraphJob> jobs{{"all", &g, identity(16), "job_graphs[0]"}};
  const sched::RailGroups groups(n, jobs, 2, "w.yaml");
  ASSERT_EQ(groups.count(), 1);
  const auto& grp = groups.group(0);
  std::vector<std::pair<int, int>> expected;
  for (const auto& [a, b] : std::vector<std::pair<int, int>>{{0, 4}, {4, 8}, {8, 12}, {0, 12},
                                                             {3, 7}, {7, 11}, {11, 15}, {3, 15}})
    expected.emplace_back(n.pair_index(a, b), 1);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(grp.circuits, expected);
  EXPECT_EQ(grp.rail, -1);  // across rails
  // The GPUs whose ring edges leave their domain; here the proxies are the same GPUs.
  const std::vector<int> crossing{0, 3, 4, 7, 8, 11, 12, 15};
  EXPECT_EQ(grp.endpoints, crossing);
  EXPECT_EQ(grp.holders, crossing);
}

// §3.1: T_window = min_{c in P2} T_start(c) - max_{c in P1} T_end(c), per GPU. A hand-built trace of two GPUs:
// GPU 0 runs A [0, 1] and A [0.5, 2] (P1), B [2.5, 3] (P2), then A [3.25, 4]; GPU 4 runs A [0, 1] then C
// [0.75, 1.5], which overlaps it: no idle time, so no window, counted as an overlap.
TEST(Opus, WindowFormulaOnAHandBuiltTwoRankTrace) {
  const int A = 0, B = 1, C = 2;
  std::vector<sched::PhaseRecord> r{
      {0, 0, 0, 1, A, 0.0, 1.0, 10},  {0, 0, 0, 2, A, 0.5, 2.0, 20}, {0, 0, 0, 3, B, 2.5, 3.0, 30},
      {0, 0, 1, 1, A, 3.25, 4.0, 10}, {4, 0, 0, 1, A, 0.0, 1.0, 10}, {4, 0, 0, 5, C, 0.75, 1.5, 50}};
  const auto pw = sched::phase_windows(r);
  const auto& w = pw.windows;
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(pw.overlaps, 1);
  EXPECT_EQ(w[0].endpoint, 0);
  EXPECT_EQ(w[0].from_group, A);
  EXPECT_EQ(w[0].to_group, B);
  EXPECT_DOUBLE_EQ(w[0].opens_s, 2.0);   // the later end of P1's two tasks
  EXPECT_DOUBLE_EQ(w[0].length_s, 0.5);  // 2.5 - 2.0
  EXPECT_EQ(w[0].next_task, 3);
  EXPECT_DOUBLE_EQ(w[0].next_bytes, 30);  // P2 is B alone
  EXPECT_DOUBLE_EQ(w[1].length_s, 0.25);  // B -> A across the iteration boundary
  EXPECT_EQ(w[1].iteration, 1);
  EXPECT_DOUBLE_EQ(w[1].next_bytes, 10);
}

// The steady state starts at the first iteration from which every iteration lasts as long as the job's last:
// never iteration 0; a provisioned run that settles over 0.840 / 0.762 / 0.738 / 0.738 s starts at 2; one job
// still settling delays every job's steady state; one iteration has none.
TEST(Opus, SteadyStateLeavesOutIterationZeroAndSettling) {
  EXPECT_EQ(sched::steady_from({{0.840, 0.762, 0.738, 0.738}}), 2);
  EXPECT_EQ(sched::steady_from({{0.9, 0.5, 0.5}}), 1);
  EXPECT_EQ(sched::steady_from({{0.5, 0.5, 0.5}}), 1);
  EXPECT_EQ(sched::steady_from({{0.9, 0.5}}), 1);
  EXPECT_EQ(sched::steady_from({{0.9, 0.6, 0.5}}), 2);  // only the last: a one-iteration steady state
  EXPECT_EQ(sched::steady_from({{0.9, 0.5, 0.5}, {1.0, 0.8, 0.7, 0.6}}), 3);
  EXPECT_EQ(sched::steady_from({{0.9}}), -1);
}

TEST(Opus, ModeNames) {
  sched::OpusMode m{};
  ASSERT_TRUE(sched::parse_opus_mode("on-demand", m));
  EXPECT_EQ(m, sched::OpusMode::on_demand);
  ASSERT_TRUE(sched::parse_opus_mode("provisioned", m));
  EXPECT_EQ(std::string(sched::to_string(m)), "provisioned");
  EXPECT_FALSE(sched::parse_opus_mode("eager", m));
}
