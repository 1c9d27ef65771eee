// Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters"), without SimGrid: communication groups found
// from the traces' process groups and messages, the circuits each wants, and the window formula of §3.1.
#include <gtest/gtest.h>

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
    if (task.name.find("gradnorm.tp") != std::string::npos) {
      EXPECT_EQ(id, -1) << task.name;  // inside a scale-up domain
      continue;
    }
    ASSERT_GE(id, 0) << task.name;
    const auto [a, b] = groups.group(id).edges[0];
    const bool fsdp = task.name.find(".ag.") != std::string::npos || task.name.find(".rs.") != std::string::npos ||
                      task.name.find("gradnorm.dp") != std::string::npos;
    EXPECT_EQ(b - a, fsdp ? 4 : 8) << task.name;
  }
}

// A pipeline of four stages on one rail is one group, a chain: each middle GPU splits its two ports between
// the previous and the next stage.
TEST(Opus, APipelineIsOneChainGroup) {
  workload::JobGraph g;
  g.name = "pp4";
  g.ranks = 4;
  g.tasks = {message(0, 1), message(1, 2), message(2, 3), message(3, 2)};
  g.tasks[1].deps = {0};
  g.tasks[2].deps = {1};
  g.tasks[3].deps = {2};
  const net::Network n = net::network_of(rail());
  const std::vector<sched::GraphJob> jobs{{"pp4", &g, {0, 4, 8, 12}, "job_graphs[0]"}};
  const sched::RailGroups groups(n, jobs, 2, "w.yaml");
  ASSERT_EQ(groups.count(), 1);
  const auto& grp = groups.group(0);
  EXPECT_EQ(grp.edges, (std::vector<std::pair<int, int>>{{0, 4}, {4, 8}, {8, 12}}));
  for (const auto& [pair, circuits] : grp.circuits) EXPECT_EQ(circuits, 1);
  // With one port per GPU, the middle stages cannot reach both neighbours.
  const net::Network one = net::network_of(rail(4, 4, 1));
  try {
    sched::RailGroups bad(one, jobs, 1, "w.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "w.yaml: job_graphs[0].tasks[0]: gpus 0-4 4-8 8-12 links gpu 4 to 2 peers across scale-up domains, but "
              "a gpu has 1 NIC port(s) on its rail's OCS");
  }
}

// Ranks on different rails and domains have no path on photonic rails.
TEST(Opus, RefusesTrafficThatNoRailCarries) {
  workload::JobGraph g;
  g.name = "cross";
  g.ranks = 2;
  g.tasks = {message(0, 1)};
  const net::Network n = net::network_of(rail());
  const std::vector<sched::GraphJob> jobs{{"cross", &g, {0, 5}, "job_graphs[2]"}};
  try {
    sched::RailGroups bad(n, jobs, 2, "w.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("w.yaml: job_graphs[2].tasks[0]: no path from gpu 0 to gpu 5", 0), 0u);
  }
}

// §3.1: T_window = min_{c in P2} T_start(c) - max_{c in P1} T_end(c), per GPU. A hand-built trace of two GPUs:
// GPU 0 runs A [0, 1] and A [0.5, 2] (P1), B [2.5, 3] (P2), then A [3.25, 4]; GPU 4 runs A [0, 1] then C
// [0.75, 1.5], which overlaps it.
TEST(Opus, WindowFormulaOnAHandBuiltTwoRankTrace) {
  const int A = 0, B = 1, C = 2;
  std::vector<sched::PhaseRecord> r{
      {0, 0, 0, 1, A, 0.0, 1.0},  {0, 0, 0, 2, A, 0.5, 2.0}, {0, 0, 0, 3, B, 2.5, 3.0},
      {0, 0, 1, 1, A, 3.25, 4.0}, {4, 0, 0, 1, A, 0.0, 1.0}, {4, 0, 0, 5, C, 0.75, 1.5}};
  const auto w = sched::phase_windows(r);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].endpoint, 0);
  EXPECT_EQ(w[0].from_group, A);
  EXPECT_EQ(w[0].to_group, B);
  EXPECT_DOUBLE_EQ(w[0].opens_s, 2.0);   // the later end of P1's two tasks
  EXPECT_DOUBLE_EQ(w[0].length_s, 0.5);  // 2.5 - 2.0
  EXPECT_EQ(w[0].next_task, 3);
  EXPECT_DOUBLE_EQ(w[1].length_s, 0.25);  // B -> A across the iteration boundary
  EXPECT_EQ(w[1].iteration, 1);
  EXPECT_EQ(w[2].endpoint, 4);
  EXPECT_DOUBLE_EQ(w[2].length_s, -0.25);  // overlapping phases: no window
}

TEST(Opus, ModeNames) {
  sched::OpusMode m{};
  ASSERT_TRUE(sched::parse_opus_mode("on-demand", m));
  EXPECT_EQ(m, sched::OpusMode::on_demand);
  ASSERT_TRUE(sched::parse_opus_mode("provisioned", m));
  EXPECT_EQ(std::string(sched::to_string(m)), "provisioned");
  EXPECT_FALSE(sched::parse_opus_mode("eager", m));
}
