// The engine's transfers beyond SimPlatform::kDirectInFlight (1,024) at once go through mailboxes, spread over
// actors (docs/model.md, "SimGrid behaviours that shaped the engine"); fabrics of many separate circuit groups get
// several zones, and one packet switch a star zone. Each test runs more transfers at once than the direct bound,
// of unequal sizes, against its closed form (1e-9 relative). Each test is its own process (SimGrid's Engine).
#include <gtest/gtest.h>

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

TEST(Flows, AllToAllOfThousandsOfTransferTasksSharesEachNicEvenly) {
  // One job, 48 servers behind one switch, a transfer of s per ordered pair (2,256 at once, each its own task):
  // every NIC sends and receives (m - 1) s, each of its m - 1 flows at B / (m - 1), so all end at (m - 1) s / B.
  const int m = 48;
  const net::Network n = net::one_switch(m, kB);
  Fixed c(n.empty_config());
  workload::JobGraph g;
  g.name = "a2a";
  g.ranks = m;
  const double s = 4e6;  // per pair: every NIC sends and receives (m - 1) s, all at once
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (a != b) g.tasks.push_back(transfer_task("t" + std::to_string(a) + "-" + std::to_string(b), a, b, s));
  std::vector<int> ranks(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) ranks[static_cast<std::size_t>(i)] = i;
  const auto rec = engine::run(n, {{0, "a2a", &g, ranks, {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  EXPECT_NEAR(rec.iterations[0].end_s, (m - 1) * s / kB, 1e-9 * (m - 1) * s / kB);
}
