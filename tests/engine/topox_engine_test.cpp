// TOPO-X plans (systems/topox/topox.hpp; Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training
// Parallelism") replayed on the engine: the measured iteration equals the plan where every transfer has its circuit
// to itself, is never longer than the plan, and no transfer starts after its slot. With a time slot longer than the
// iteration, TOPO-X can do no better than one static topology.
#include <gtest/gtest.h>

#include <vector>

#include "engine/simulation.hpp"
#include "net/network.hpp"
#include "policy/graph_static.hpp"
#include "systems/topox/topoopt.hpp"
#include "systems/topox/topox.hpp"
#include "support/fabrics.hpp"
#include "graph/task_graph.hpp"

using namespace odcn;
using workload::JobGraph;
using workload::Task;
using workload::TaskKind;

namespace {

constexpr double kB = 1e9;  // the port rate of test::flat_ocs: 1e6 bytes take 1 ms

spec::FlatOcsSpec flat(int servers, int ports, Seconds slot, Seconds delay = 0) {
  return test::flat_ocs(servers, ports, slot, delay);
}

int add(JobGraph& g, TaskKind kind, int a, int b, double amount, std::vector<int> deps) {
  Task t;
  t.kind = kind;
  t.name = "t" + std::to_string(g.tasks.size());
  if (kind == TaskKind::compute) {
    t.rank = a;
    t.duration_s = amount;
  } else {
    t.src = a;
    t.dst = b;
    t.bytes = amount * kB;
  }
  t.deps = std::move(deps);
  g.tasks.push_back(t);
  return static_cast<int>(g.tasks.size()) - 1;
}

struct Replay {
  trace::RunRecord rec;
  int late = 0;
};

Replay replay(const spec::FlatOcsSpec& f, const JobGraph& g, const sched::TopoxPlan& plan) {
  const net::Network network = net::network_of(f);
  sched::TopoxController c(f, network, plan);
  std::vector<int> servers;
  for (int s = 0; s < g.ranks; ++s) servers.push_back(s);
  Replay r;
  r.rec = engine::run(network, {{0, "job", &g, servers, {}, {}}}, c);
  r.late = c.late_releases();
  return r;
}

sched::TopoxOptions options(const spec::FlatOcsSpec& f) {
  sched::TopoxOptions o;
  o.slot_s = f.slot_s;
  o.reconfig_delay_s = f.reconfig_delay_s;
  o.mip = "never";
  return o;
}

/// Two phases on 4 servers of 2 ports: 0->1 and 2->3, compute, then 0->2 and 1->3, compute; then 0->3 and 1->2.
JobGraph phases(int iterations) {
  JobGraph g;
  g.ranks = 4;
  g.iterations = iterations;
  const int a = add(g, TaskKind::transfer, 0, 1, 1.5e-3, {});
  const int b = add(g, TaskKind::transfer, 2, 3, 0.7e-3, {});
  const int c1 = add(g, TaskKind::compute, 1, 0, 0.4e-3, {a});
  const int c3 = add(g, TaskKind::compute, 3, 0, 0.9e-3, {b});
  const int d = add(g, TaskKind::transfer, 0, 2, 2.2e-3, {c1});
  const int e = add(g, TaskKind::transfer, 1, 3, 1.0e-3, {c3});
  const int h = add(g, TaskKind::transfer, 0, 3, 0.6e-3, {d, e});
  const int i = add(g, TaskKind::transfer, 1, 2, 1.3e-3, {e});
  add(g, TaskKind::compute, 3, 0, 0.3e-3, {h, i});
  return g;
}

}  // namespace

// One transfer on its own circuit: the engine's iteration is the plan's 4.5 ms (hand-computed in
// tests/unit/topox_test.cpp: A 2 ms, slot 2, 1.5 ms transfer, B 1 ms).
TEST(TopoxEngine, SingleTransferMatchesThePlanExactly) {
  JobGraph g;
  g.ranks = 2;
  const int a = add(g, TaskKind::compute, 0, 0, 2e-3, {});
  const int t = add(g, TaskKind::transfer, 0, 1, 1.5e-3, {a});
  add(g, TaskKind::compute, 1, 0, 1e-3, {t});
  const auto f = flat(2, 1, 1e-3, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  ASSERT_NEAR(plan.makespan_s, 4.5e-3, 1e-15);
  const Replay r = replay(f, g, plan);
  ASSERT_EQ(r.rec.iterations.size(), 1u);
  EXPECT_NEAR(r.rec.iterations[0].end_s - r.rec.iterations[0].start_s, 4.5e-3, 1e-12);
  EXPECT_EQ(r.late, 0);
}

// One port, two circuits, a reconfiguration delay of one slot: the engine sets 0-1 up during the dark slot and
// ends at the planned 3 ms; one reconfiguration changed two circuits (0-2 down, 0-1 up).
TEST(TopoxEngine, ReconfigurationDuringTheDarkSlotKeepsThePlan) {
  JobGraph g;
  g.ranks = 3;
  add(g, TaskKind::transfer, 0, 1, 1e-3, {});
  const int second = add(g, TaskKind::transfer, 0, 2, 1e-3, {});
  add(g, TaskKind::compute, 2, 0, 0.5e-3, {second});
  const auto f = flat(3, 1, 1e-3, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  ASSERT_NEAR(plan.makespan_s, 3e-3, 1e-15);
  const Replay r = replay(f, g, plan);
  EXPECT_NEAR(r.rec.iterations[0].end_s, 3e-3, 1e-12);
  EXPECT_EQ(r.late, 0);
  EXPECT_EQ(r.rec.reconfigurations, 1);
}

// Several iterations of a graph whose transfers share servers' ports: every iteration is at most the plan (plus the
// reconfiguration slots before a later iteration whose first circuits differ), and no transfer is late. (SimGrid's
// engine is one per process: one run per test.)
void expect_iterations_within_plan(Seconds delay, bool aligned = true) {
  const JobGraph g = phases(3);
  const auto f = flat(4, 2, 1e-3, delay);
  auto o = options(f);
  o.aligned = aligned;
  const auto plan = sched::plan_topox_heuristic(f, g, o);
  ASSERT_EQ(sched::plan_violation(f, g, plan), "");
  const Replay r = replay(f, g, plan);
  ASSERT_EQ(r.rec.iterations.size(), 3u);
  EXPECT_EQ(r.late, 0);
  EXPECT_NEAR(r.rec.iterations[0].end_s, plan.makespan_s, 1e-12);
  for (const auto& row : r.rec.iterations)
    EXPECT_LE(row.end_s - row.start_s, plan.makespan_s + plan.reconfig_slots * plan.slot_s + 1e-12);
}
TEST(TopoxEngine, EveryIterationWithinThePlanWithoutDelay) { expect_iterations_within_plan(0.0); }
TEST(TopoxEngine, EveryIterationWithinThePlanWithADelayOfOneSlot) { expect_iterations_within_plan(1e-3); }
TEST(TopoxEngine, EveryIterationWithinTheContinuousPlan) { expect_iterations_within_plan(1e-3, false); }

// τ = 10 s, far longer than the iteration: the transfers ready at time 0 share slot 0's one configuration, and the
// later ones wait for slot 1, so TOPO-X takes more than 10 s; TopoOpt's static topology with forwarding on the
// same graph takes milliseconds (next test): TOPO-X can do no better than one static topology.
TEST(TopoxEngine, WithAVeryLongSlotLaterTransfersWaitForTheNextSlot) {
  const JobGraph g = phases(1);
  const auto f = flat(4, 2, 10.0, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  const Replay topox = replay(f, g, plan);
  EXPECT_GE(topox.rec.iterations[0].end_s, 10.0);
  EXPECT_EQ(topox.late, 0);
}

TEST(TopoxEngine, TopoOptStaticTopologyOnTheSameGraph) {
  const JobGraph g = phases(1);
  const auto f = flat(4, 2, 10.0, 1e-3);
  // TopoOpt on the same graph: one ring of strides {1, 3} on 4 servers, forwarding where no circuit exists.
  sched::TopologyFinderInput in;
  in.servers = 4;
  in.degree = 2;
  in.ocs_ports = 4;
  in.dp_groups.push_back({{0, 1, 2, 3}, 1e6});
  const auto topo = sched::topology_finder(in);
  const auto hops = sched::multi_hop(
      g, [&](int a, int b) { return topo.circuits_between(a, b) > 0; }, [&](int a, int b) { return topo.route(a, b); });
  EXPECT_EQ(hops.forwarded, 2);  // 0->2 and 1->3 cross the ring's diagonals
  const net::Network network = net::network_of(f);
  sched::GraphStaticController fixed(net::counts_of(f, network, topo.circuits));
  const auto rec = engine::run(network, {{0, "job", &hops.graph, {0, 1, 2, 3}, {}, {}}}, fixed);
  EXPECT_LT(rec.iterations[0].end_s, 0.1);
}

// When every transfer is ready at time 0 and τ is longer than the iteration, TOPO-X's plan is one configuration
// (slot 0's): replayed on the engine it takes 3.1 ms (0->2, 2.2 ms, then 0.9 ms on server 2), exactly as long as
// that configuration lit statically (next test).
JobGraph one_phase() {
  JobGraph g;
  g.ranks = 4;
  const int a = add(g, TaskKind::transfer, 0, 1, 1.5e-3, {});
  const int b = add(g, TaskKind::transfer, 2, 3, 0.7e-3, {});
  const int c = add(g, TaskKind::transfer, 0, 2, 2.2e-3, {});
  const int d = add(g, TaskKind::transfer, 3, 1, 1.0e-3, {});
  add(g, TaskKind::compute, 1, 0, 0.4e-3, {a, d});
  add(g, TaskKind::compute, 2, 0, 0.9e-3, {b, c});
  return g;
}

TEST(TopoxEngine, WithAVeryLongSlotItIsOneConfiguration) {
  const JobGraph g = one_phase();
  const auto f = flat(4, 2, 10.0, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  ASSERT_EQ(plan.slots.size(), 1u);
  const Replay topox = replay(f, g, plan);
  EXPECT_NEAR(topox.rec.iterations[0].end_s, 3.1e-3, 1e-12);
}

TEST(TopoxEngine, ItsSlotZeroConfigurationLitStatically) {
  const JobGraph g = one_phase();
  const auto f = flat(4, 2, 10.0, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  const net::Network network = net::network_of(f);
  sched::GraphStaticController fixed(net::counts_of(f, network, plan.slots[0]));
  const auto rec = engine::run(network, {{0, "job", &g, {0, 1, 2, 3}, {}, {}}}, fixed);
  EXPECT_NEAR(rec.iterations[0].end_s, 3.1e-3, 1e-12);
}

// A circuit set up by slot 1's configuration lights at 2 ms even though slot 2's configuration, at that same
// instant, adds a second circuit to the same pair (which lights at 3 ms): T1 (0->1, 2 ms, ready at 2 ms) runs from
// 2 to 4 ms at B, T2 (0->1, 1 ms, ready at 3 ms) from 3 to 4 ms on the second circuit. (The engine once restarted
// the first circuit's set-up when the second was added, and T1 crawled for a millisecond.)
TEST(TopoxEngine, ACircuitBeingSetUpKeepsItsTimeWhenTheNextIsAdded) {
  JobGraph g;
  g.ranks = 2;
  const int c1 = add(g, TaskKind::compute, 0, 0, 2e-3, {});
  const int c2 = add(g, TaskKind::compute, 0, 0, 3e-3, {});
  add(g, TaskKind::transfer, 0, 1, 2e-3, {c1});
  add(g, TaskKind::transfer, 0, 1, 1e-3, {c2});
  const auto f = flat(2, 2, 1e-3, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  ASSERT_NEAR(plan.makespan_s, 4e-3, 1e-15);
  ASSERT_TRUE(plan.lit_during(0).empty());
  ASSERT_EQ(plan.lit_during(1).size(), 1u);
  ASSERT_EQ(plan.lit_during(2).size(), 2u);
  const Replay r = replay(f, g, plan);
  EXPECT_NEAR(r.rec.iterations[0].end_s, 4e-3, 1e-12);
  EXPECT_EQ(r.late, 0);
}

// Between iterations, circuits that are only torn down cost nothing. One port per server, δ = τ = 1 ms:
// 0->1 (slot 0), 1 ms of compute on 1, then 2->3 and 1->0 (slot 2): 3 ms. The fabric ends iteration 0 holding
// {0,1} and {2,3}; iteration 1's first slots need {0,1} only, so it starts at once: 2 x 3 = 6 ms in all.
TEST(TopoxEngine, ALaterIterationWaitsOnlyForCircuitsSetUp) {
  JobGraph g;
  g.ranks = 4;
  g.iterations = 2;
  const int t1 = add(g, TaskKind::transfer, 0, 1, 1e-3, {});
  const int c = add(g, TaskKind::compute, 1, 0, 1e-3, {t1});
  add(g, TaskKind::transfer, 2, 3, 1e-3, {c});
  add(g, TaskKind::transfer, 1, 0, 1e-3, {c});
  const auto f = flat(4, 1, 1e-3, 1e-3);
  const auto plan = sched::plan_topox_heuristic(f, g, options(f));
  ASSERT_NEAR(plan.makespan_s, 3e-3, 1e-15);
  const Replay r = replay(f, g, plan);
  ASSERT_EQ(r.rec.iterations.size(), 2u);
  EXPECT_NEAR(r.rec.iterations[1].start_s, 3e-3, 1e-12);
  EXPECT_NEAR(r.rec.iterations[1].end_s, 6e-3, 1e-12);
  EXPECT_EQ(r.late, 0);
}
