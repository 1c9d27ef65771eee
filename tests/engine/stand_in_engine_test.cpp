// Steps whose transfers provably end together run as one transfer (docs/model.md, "Steps that end together"):
// the decision (SimPlatform::stand_in) against hand-worked cases, and whole runs against their closed forms, with
// the stand-in and with every transfer sent (EngineOptions::compact_steps). Each test is its own process.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/sim_platform.hpp"
#include "engine/simulation.hpp"
#include "graph/task_graph.hpp"
#include "net/network.hpp"
#include "policy/controller.hpp"

using namespace odcn;
using engine::SimPlatform;
using net::Path;

namespace {

constexpr double kB = 12.5e9;  // one circuit, 100 Gb/s

struct Fixed : sched::Controller {
  explicit Fixed(net::CircuitConfig c) : config(std::move(c)) {}
  net::CircuitConfig config;
  net::CircuitConfig initial_circuits() const override { return config; }
};

/// `n` servers whose candidate circuits are `pairs` (a < b), each a circuit of B per direction (full duplex) or
/// one circuit for both directions (half duplex).
net::Network servers(int n, const std::vector<std::pair<int, int>>& pairs, bool full_duplex) {
  net::Network net;
  net.kind = "flat_ocs";
  net.endpoint_word = "server";
  net.endpoints = n;
  net.pairs = pairs;
  net.pair_switch.assign(pairs.size(), 0);
  auto index = std::make_shared<std::map<std::pair<int, int>, int>>();
  for (std::size_t p = 0; p < pairs.size(); ++p) (*index)[pairs[p]] = static_cast<int>(p);
  net.pair_index_of = [index](int a, int b) {
    const auto it = index->find({std::min(a, b), std::max(a, b)});
    return it == index->end() ? -1 : it->second;
  };
  net.circuit_bytes_per_s = kB;
  net.pair_max_bytes_per_s = 8 * kB;
  net.full_duplex = full_duplex;
  return net;
}

std::vector<std::pair<int, int>> all_pairs(int n) {
  std::vector<std::pair<int, int>> p;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) p.emplace_back(a, b);
  return p;
}

const std::vector<std::pair<int, int>> kRing4{{0, 1}, {1, 2}, {2, 3}, {0, 3}};

/// One job of one collective over ranks 0..n-1 on endpoints 0..n-1.
struct OneCollective {
  workload::JobGraph graph;
  std::vector<engine::JobToRun> jobs;
  OneCollective(int n, workload::CollectiveOp op, workload::CollectiveAlgorithm alg, double bytes) {
    graph.name = "one";
    graph.ranks = n;
    std::vector<int> ranks;
    for (int r = 0; r < n; ++r) ranks.push_back(r);
    graph.tasks = {workload::collective_task("c", op, alg, ranks, bytes)};
    jobs.push_back({0, "one", &graph, ranks, {}, {}});
  }
};

engine::EngineOptions every_flow() {
  engine::EngineOptions o;
  o.compact_steps = false;
  return o;
}

}  // namespace

TEST(StandIn, DecidesFromTheLinksAsProgressiveFillingWould) {
  engine::make_engine();
  // Four servers, every pair a candidate, half duplex; circuits: 0-1 two, 2-3 one, 0-2 one, 1-3 one.
  const auto net = servers(4, all_pairs(4), false);
  auto config = net.empty_config();
  config.circuits[static_cast<std::size_t>(net.pair_index(0, 1))] = 2;
  config.circuits[static_cast<std::size_t>(net.pair_index(2, 3))] = 1;
  config.circuits[static_cast<std::size_t>(net.pair_index(0, 2))] = 1;
  config.circuits[static_cast<std::size_t>(net.pair_index(1, 3))] = 1;
  const SimPlatform p(net, config);
  const auto hop = [](int a, int b) { return SimPlatform::Hop{Path::circuit, a, b}; };
  // Independent (each alone on its circuit): 3 MB at 2B ends before 2 MB at B; 1 MB at B first of all.
  auto s = p.stand_in({hop(0, 1), hop(2, 3), hop(0, 2)}, {3e6, 2e6, 1e6});
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.factor, 1);
  // 0->1 and 1->0 share the half-duplex pair 0-1 (2B): B each, and 2->3 alone has B: all at B, together. The
  // first transfer crossing such a link that is its own bottleneck alone is 0->1 (pair 0-1: C = 2B, n = 2): sent
  // alone with twice its bytes at 2B, it ends when the three would.
  s = p.stand_in({hop(0, 1), hop(1, 0), hop(2, 3)}, {1e6, 1e6, 1e6});
  EXPECT_EQ(s.index, 0);
  EXPECT_EQ(s.factor, 2);
  // Unequal bytes on a shared bottleneck: no closed form by one transfer.
  EXPECT_EQ(p.stand_in({hop(0, 1), hop(1, 0)}, {1e6, 2e6}).index, -1);
  // 0->2 and 2->0 share pair 0-2 (B: B/2 each) while 2->3 alone runs at B: not together, and not independent.
  EXPECT_EQ(p.stand_in({hop(0, 2), hop(2, 0), hop(2, 3)}, {1e6, 1e6, 1e6}).index, -1);
}

namespace {

/// Ring all-reduce of S over 4 servers, full-duplex ring circuits 0-1: 2, 1-2: 1, 2-3: 2, 3-0: 1. Each of the
/// 2(n-1) = 6 steps sends S/4 to the next server; a step ends with its one-circuit pairs, (S/4)/B: 6 (S/4)/B.
constexpr double kRingS = 4e9;
constexpr double kRingSeconds = 6 * (kRingS / 4) / kB;

trace::RunRecord ring_on_unequal_pairs(const engine::EngineOptions& options) {
  const auto net = servers(4, kRing4, true);
  auto config = net.empty_config();
  config.circuits = {2, 1, 2, 1};
  OneCollective job(4, workload::CollectiveOp::all_reduce, workload::CollectiveAlgorithm::ring, kRingS);
  Fixed c(config);
  return engine::run(net, job.jobs, c, options);
}

}  // namespace

TEST(StandIn, ARingWhosePairsDifferEndsEachStepWithItsSlowestPair) {
  const auto rec = ring_on_unequal_pairs({});
  ASSERT_EQ(rec.iterations.size(), 1u);
  EXPECT_NEAR(rec.iterations[0].end_s, kRingSeconds, 1e-12 * kRingSeconds);
  EXPECT_EQ(rec.iterations[0].circuit_bytes, 6 * kRingS);  // every transfer's bytes, though one was sent a step
  EXPECT_EQ(rec.steps_stood_in, 6);
  EXPECT_EQ(rec.transfers_sent, 6);
}

TEST(StandIn, TheRingSentTransferByTransferTakesTheSameTime) {
  const auto rec = ring_on_unequal_pairs(every_flow());
  EXPECT_NEAR(rec.iterations.at(0).end_s, kRingSeconds, 1e-12 * kRingSeconds);
  EXPECT_EQ(rec.steps_stood_in, 0);
  EXPECT_EQ(rec.transfers_sent, 24);
}

TEST(StandIn, AnAllToAllOnHalfDuplexCircuitsSendsOneTransferOfTwiceTheBytes) {
  // All-to-all of S over 6 servers, one half-duplex circuit per pair: each pair carries S/6 each way, B/2 each:
  // 2 (S/6) / B, in one transfer of 2 S/6 standing in for 30.
  const double S = 6e9;
  const auto net = servers(6, all_pairs(6), false);
  auto config = net.empty_config();
  std::fill(config.circuits.begin(), config.circuits.end(), 1);
  OneCollective job(6, workload::CollectiveOp::all_to_all, workload::CollectiveAlgorithm::direct, S);
  const double expect = 2 * (S / 6) / kB;
  Fixed c(config);
  const auto rec = engine::run(net, job.jobs, c);
  EXPECT_NEAR(rec.iterations.at(0).end_s, expect, 1e-12 * expect);
  EXPECT_EQ(rec.steps_stood_in, 1);
  EXPECT_EQ(rec.transfers_sent, 1);
}

TEST(StandIn, NotWhenAnotherJobMayArriveDuringTheStep) {
  // The all-to-all above, and a second job arriving at t = (S/6)/B sending S/6 from 0 to 1 over pair 0-1: the
  // first job's step cannot stand in (an arrival is to come). Closed form, by max-min sharing: until t every
  // transfer runs at B/2 and has S/12 left; then pair 0-1 (B) carries three, B/3 each, while the other 28 keep
  // B/2 and end at t + (S/12)/(B/2) = 2t.
  const double S = 6e9;
  const double t = (S / 6) / kB;
  const auto net = servers(6, all_pairs(6), false);
  auto config = net.empty_config();
  std::fill(config.circuits.begin(), config.circuits.end(), 1);
  OneCollective first(6, workload::CollectiveOp::all_to_all, workload::CollectiveAlgorithm::direct, S);
  workload::JobGraph late;
  late.name = "late";
  late.ranks = 2;
  late.arrival_s = t;
  late.tasks = {workload::transfer_task("send", 0, 1, S / 6)};
  std::vector<engine::JobToRun> jobs = first.jobs;
  jobs.push_back({1, "late", &late, {0, 1}, {}, {}});
  // From t, on pair 0-1: 0->1 and 1->0 of the first job with S/12 left each, and the late S/6: B/3 each. The
  // first job's two end after (S/12)/(B/3) = 1.5 t, at 2.5 t (its other 28 ended at 2t). The late transfer has
  // S/6 - S/12 = S/12 left, alone at B: t/2 more, at 3 t.
  Fixed c(config);
  const auto rec = engine::run(net, jobs, c);
  ASSERT_EQ(rec.iterations.size(), 2u);
  for (const auto& row : rec.iterations) {
    const double expect = row.job == 0 ? 2.5 * t : 3 * t - t;  // the late job's row starts at its arrival
    EXPECT_NEAR(row.end_s - row.start_s, expect, 1e-9 * expect) << "job " << row.job;
  }
  EXPECT_EQ(rec.steps_stood_in, 0);
}

TEST(StandIn, SendsWholeBytesAsEachTransferWould) {
  // SimGrid moves whole bytes: S/6 = 1e9 + 0.4 is sent as 1e9 by each of the 30 transfers, so the stand-in of
  // factor 2 sends 2e9 (not the 2e9 + 1 that 2 (1e9 + 0.4) rounds to): 2e9 / B, as transfer by transfer.
  const double S = 6e9 + 2.4;
  const auto net = servers(6, all_pairs(6), false);
  auto config = net.empty_config();
  std::fill(config.circuits.begin(), config.circuits.end(), 1);
  OneCollective job(6, workload::CollectiveOp::all_to_all, workload::CollectiveAlgorithm::direct, S);
  Fixed c(config);
  const auto rec = engine::run(net, job.jobs, c);
  EXPECT_EQ(rec.steps_stood_in, 1);
  EXPECT_NEAR(rec.iterations.at(0).end_s, 2e9 / kB, 1e-12 * 2e9 / kB);
}
