// The engine's transfers beyond SimPlatform::kDirectInFlight (1,024) at once go through mailboxes, spread over
// actors (docs/model.md, "SimGrid behaviours that shaped the engine"); fabrics of many separate circuit groups get
// several zones, and one packet switch a star zone. Each test runs more transfers at once than the direct bound,
// of unequal sizes, against its closed form (1e-9 relative). Each test is its own process (SimGrid's Engine).
#include <gtest/gtest.h>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "graph/task_graph.hpp"
#include "net/network.hpp"
#include "policy/controller.hpp"

using namespace odcn;
using workload::Task;
using workload::TaskKind;
using workload::transfer_task;

namespace {

constexpr double kB = 12.5e9;  // 100 Gb/s

struct Fixed : sched::Controller {
  explicit Fixed(net::CircuitConfig c) : config(std::move(c)) {}
  net::CircuitConfig config;
  net::CircuitConfig initial_circuits() const override { return config; }
};

/// Bytes of transfer i: unequal, whole, and no two alike (so no two end together).
double bytes_of(int i) { return 1e6 + 7919.0 * i; }

/// F single-transfer jobs, job i sending bytes_of(i) from endpoint 2i to 2i+1: each ends at bytes_of(i) / rate.
struct PairJobs {
  std::vector<workload::JobGraph> graphs;
  std::vector<engine::JobToRun> jobs;
  explicit PairJobs(int f) {
    graphs.resize(static_cast<std::size_t>(f));
    for (int i = 0; i < f; ++i) {
      auto& g = graphs[static_cast<std::size_t>(i)];
      g.name = "pair-" + std::to_string(i);
      g.ranks = 2;
      g.tasks = {transfer_task("send", 0, 1, bytes_of(i))};
    }
    for (int i = 0; i < f; ++i)
      jobs.push_back({i, graphs[static_cast<std::size_t>(i)].name, &graphs[static_cast<std::size_t>(i)], {2 * i, 2 * i + 1}, {}, {}});
  }
};

void expect_each_ends_at_its_bytes_over(const trace::RunRecord& rec, int f, double rate) {
  ASSERT_EQ(rec.iterations.size(), static_cast<std::size_t>(f));
  for (const auto& row : rec.iterations)
    ASSERT_NEAR(row.end_s, bytes_of(row.job) / rate, 1e-9 * bytes_of(row.job) / rate) << "job " << row.job;
}

/// 2f endpoints whose only candidate circuits join 2i and 2i+1, each pair lit with one full-duplex circuit.
net::Network pairs_of_servers(int f) {
  net::Network n;
  n.kind = "flat_ocs";
  n.endpoint_word = "server";
  n.endpoints = 2 * f;
  for (int i = 0; i < f; ++i) {
    n.pairs.emplace_back(2 * i, 2 * i + 1);
    n.pair_switch.push_back(0);
  }
  n.pair_index_of = [](int a, int b) { return std::min(a, b) % 2 == 0 && std::max(a, b) == std::min(a, b) + 1 ? std::min(a, b) / 2 : -1; };
  n.circuit_bytes_per_s = kB;
  n.pair_max_bytes_per_s = kB;
  n.full_duplex = true;
  return n;
}

}  // namespace

TEST(Flows, ThousandsOfTransfersOnDisjointCircuitsEachTakeBytesOverB) {
  // 3,000 transfers at once (over the direct bound) on 3,000 pairs in 6 zones of at most 512 servers.
  const int f = 3000;
  const net::Network n = pairs_of_servers(f);
  auto config = n.empty_config();
  std::fill(config.circuits.begin(), config.circuits.end(), 1);
  Fixed c(config);
  PairJobs p(f);
  expect_each_ends_at_its_bytes_over(engine::run(n, p.jobs, c), f, kB);
}

TEST(Flows, ThousandsOfTransfersThroughOnePacketSwitchEachTakeBytesOverTheNic) {
  // One non-blocking switch (a star zone): disjoint sender and receiver NICs, so each runs at the NIC's rate.
  const int f = 3000;
  const net::Network n = net::one_switch(2 * f, kB);
  Fixed c(n.empty_config());
  PairJobs p(f);
  expect_each_ends_at_its_bytes_over(engine::run(n, p.jobs, c), f, kB);
}

namespace {

/// One job, m servers behind one switch, a transfer task of s per ordered pair, all ready at once.
trace::RunRecord all_to_all_of_transfer_tasks(int m, double s) {
  const net::Network n = net::one_switch(m, kB);
  Fixed c(n.empty_config());
  workload::JobGraph g;
  g.name = "a2a";
  g.ranks = m;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (a != b) g.tasks.push_back(transfer_task("t" + std::to_string(a) + "-" + std::to_string(b), a, b, s));
  std::vector<int> ranks(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) ranks[static_cast<std::size_t>(i)] = i;
  return engine::run(n, {{0, "a2a", &g, ranks, {}, {}}}, c);
}

}  // namespace

TEST(Flows, AllToAllOfThousandsOfTransferTasksSharesEachNicEvenly) {
  // 48 servers, 2,256 tasks: every NIC sends and receives (m - 1) s, each of its m - 1 flows at B / (m - 1), so
  // all end at (m - 1) s / B.
  const int m = 48;
  const double s = 4e6;
  const auto rec = all_to_all_of_transfer_tasks(m, s);
  ASSERT_EQ(rec.iterations.size(), 1u);
  EXPECT_NEAR(rec.iterations[0].end_s, (m - 1) * s / kB, 1e-9 * (m - 1) * s / kB);
}

namespace {

/// Fixed, and says so: the engine then links only the pairs lit at time 0.
struct FixedForGood : Fixed {
  using Fixed::Fixed;
  bool fixed_circuits() const override { return true; }
};

/// 64 servers, every pair a candidate circuit (2,016 pairs, full duplex).
constexpr int kAllPairs = 64;
net::Network all_pairs_of_servers() {
  constexpr int m = kAllPairs;
  net::Network n = pairs_of_servers(1);
  n.endpoints = m;
  n.pairs.clear();
  n.pair_switch.clear();
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b) {
      n.pairs.emplace_back(a, b);
      n.pair_switch.push_back(0);
    }
  n.pair_index_of = [](int a, int b) {
    const int lo = std::min(a, b), hi = std::max(a, b);
    return lo == hi ? -1 : lo * m - lo * (lo + 1) / 2 + (hi - lo - 1);
  };
  return n;
}

/// Lights a ring of every server at time 0 and may change it later: it sends only the jobs' own flows.
struct OwnFlowsOnly : Fixed {
  using Fixed::Fixed;
  bool sends_job_flows_only() const override { return true; }
};

/// On all_pairs_of_servers, a ring of every server lit at time 0 by a controller `C`, and one job sending 1 GB
/// from 0 to 1 and from `b_from` to `b_to` at once, each alone on its circuit: it ends at 1 GB / B.
template <class C>
void two_transfers_on_a_lit_ring(int b_from, int b_to) {
  constexpr int m = kAllPairs;
  const net::Network n = all_pairs_of_servers();
  auto config = n.empty_config();
  for (int a = 0; a < m; ++a) config.circuits[static_cast<std::size_t>(n.pair_index(a, (a + 1) % m))] = 1;
  workload::JobGraph g;
  g.name = "two";
  g.ranks = m;
  g.tasks = {transfer_task("a", 0, 1, 1e9), transfer_task("b", b_from, b_to, 1e9)};
  std::vector<int> ranks(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) ranks[static_cast<std::size_t>(i)] = i;
  C c(config);
  const auto rec = engine::run(n, {{0, "two", &g, ranks, {}, {}}}, c);
  EXPECT_NEAR(rec.iterations.at(0).end_s, 1e9 / kB, 1e-12);
}

}  // namespace

TEST(Flows, CircuitsThatNeverChangeGetLinksOnlyWhereLit) {
  // A ring of 64 pairs lit for good: 128 circuit links (a full-duplex pair has one each way), not 4,032.
  two_transfers_on_a_lit_ring<FixedForGood>(5, 6);
  EXPECT_EQ(simgrid::s4u::Engine::get_instance()->get_link_count(), 2u * kAllPairs + 1);  // and SimGrid's loopback
}

TEST(Flows, APolicySendingOnlyTheJobsFlowsGetsLinksOnlyWhereTheyCross) {
  // The same ring lit, by a policy that may change it: only the two pairs the job's transfers cross get links
  // (4 and SimGrid's loopback, not 4,033).
  two_transfers_on_a_lit_ring<OwnFlowsOnly>(6, 5);
  EXPECT_EQ(simgrid::s4u::Engine::get_instance()->get_link_count(), 5u);
}

TEST(Flows, ATransferOverAPairAFixedPolicyNeverLightsIsRefused) {
  // Servers 0-3, pairs 0-1 and 2-3 candidates, only 0-1 lit, for good: a transfer from 2 to 3 could never end.
  net::Network n = pairs_of_servers(2);
  auto config = n.empty_config();
  config.circuits[0] = 1;
  workload::JobGraph g;
  g.name = "dark";
  g.ranks = 4;
  g.tasks = {transfer_task("t", 2, 3, 1e6)};
  FixedForGood c(config);
  try {
    engine::run(n, {{0, "dark", &g, {0, 1, 2, 3}, {}, {}}}, c);
    FAIL() << "ran";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "a transfer from server 2 to server 3 crosses the circuit of servers 2 and 3, which this "
                           "policy never lights");
  }
}

TEST(Flows, MoreOneTransferTasksAtOnceThanTheMachineHasActorsArePooled) {
  // 200 servers, 39,800 tasks ready at once, more than the actors vm.max_map_count allows (about 30,000), so
  // gate() pools them 64 to a waiter. Every NIC sends and receives (m - 1) s, each flow at B / (m - 1): all end
  // at (m - 1) s / B.
  const int m = 200;
  const double s = 1e6;
  const auto rec = all_to_all_of_transfer_tasks(m, s);
  ASSERT_EQ(rec.iterations.size(), 1u);
  EXPECT_NEAR(rec.iterations[0].end_s, (m - 1) * s / kB, 1e-9 * (m - 1) * s / kB);
  EXPECT_EQ(rec.iterations[0].circuit_bytes, m * (m - 1) * s);
  EXPECT_EQ(rec.transfers_sent, m * (m - 1));
}
