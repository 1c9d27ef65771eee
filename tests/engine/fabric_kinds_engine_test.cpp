// One oracle per fabric kind beyond clos_ocs: a job graph runs on flat_ocs, photonic_rail and electrical, and
// each collective takes its closed form (collective.hpp's table) on the links it crosses.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "engine/simulation.hpp"
#include "net/network.hpp"
#include "policy/controller.hpp"
#include "graph/collective.hpp"
#include "graph/task_graph.hpp"

using namespace odcn;
using workload::CollectiveAlgorithm;
using workload::CollectiveOp;
using workload::Task;
using workload::TaskKind;
using workload::collective_task;

namespace {

void expect_rel(double measured, double expected) { EXPECT_NEAR(measured, expected, 1e-9 * expected); }

/// Lights a fixed configuration at time 0 and starts every task as soon as it is ready.
struct Fixed : sched::Controller {
  explicit Fixed(net::CircuitConfig c) : config(std::move(c)) {}
  net::CircuitConfig config;
  net::CircuitConfig initial_circuits() const override { return config; }
};

std::vector<int> iota(int n, int from = 0) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

spec::FlatOcsSpec flat(spec::Duplex duplex) {
  spec::FlatOcsSpec f;
  f.file = "test";
  f.servers = 4;
  f.gpus_per_server = 4;
  f.nic_ports = 4;  // d_S
  f.port_bytes_per_s = 100e9 / 8;
  f.ocs_count = 4;
  f.ocs_ports = 4;
  f.reconfig_delay_s = 1e-3;
  f.duplex = duplex;
  return f;
}

/// The ring 0-1-2-3-0 with two circuits per edge, each server's four ports on four OCSes (Eq. 7-10 hold).
std::vector<net::PortCircuit> ring_ports() {
  return {{0, 0, 1}, {0, 2, 3}, {1, 0, 1}, {1, 2, 3}, {2, 1, 2}, {2, 3, 0}, {3, 1, 2}, {3, 3, 0}};
}

}  // namespace

TEST(FabricKinds, FlatOcsRingAllReduceOnRingCircuitsFullDuplex) {
  // Each ring edge has 2 circuits, full duplex: every step's flow i -> i+1 runs at 2B, so ring all-reduce
  // takes 2(n-1)/n · S / (2B).
  const auto spec = flat(spec::Duplex::full);
  const net::Network n = net::network_of(spec);
  Fixed c(net::counts_of(spec, n, ring_ports()));
  workload::JobGraph g;
  g.name = "ring";
  g.ranks = 4;
  const double S = 8e9, B = spec.port_bytes_per_s;
  g.tasks = {collective_task("all-reduce", CollectiveOp::all_reduce, CollectiveAlgorithm::ring, iota(4), S)};
  const auto rec = engine::run(n, {{0, "ring", &g, iota(4), {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, 2.0 * 3 / 4 * S / (2 * B));
  expect_rel(rec.iterations[0].end_s, workload::textbook_seconds(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 4, S, 2 * B));
}

TEST(FabricKinds, FlatOcsHalfDuplexCircuitsShareBothDirections) {
  // Half duplex: a reduce-scatter ring on 2 servers sends S/2 each way over the same circuit pair, which
  // carries both directions on 2B in total: (S/2 + S/2) / (2B).
  const auto spec = flat(spec::Duplex::half);
  const net::Network n = net::network_of(spec);
  Fixed c(net::counts_of(spec, n, {{0, 0, 1}, {1, 0, 1}}));
  workload::JobGraph g;
  g.name = "rs";
  g.ranks = 2;
  const double S = 6e9, B = spec.port_bytes_per_s;
  g.tasks = {collective_task("reduce-scatter", CollectiveOp::reduce_scatter, CollectiveAlgorithm::ring, iota(2), S)};
  const auto rec = engine::run(n, {{0, "rs", &g, {0, 1}, {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, S / (2 * B));
}

TEST(FabricKinds, FlatOcsPortLevelConfigurationsMustRespectEq7To10) {
  const auto spec = flat(spec::Duplex::full);
  const net::Network n = net::network_of(spec);
  // Server 0 twice on OCS 0 (it has one port there).
  EXPECT_THROW(net::counts_of(spec, n, {{0, 0, 1}, {0, 0, 2}}), ConfigError);
  // A pair count over a server's d_S ports.
  auto c = n.empty_config();
  c.circuits[static_cast<std::size_t>(n.pair_index(0, 1))] = 3;
  c.circuits[static_cast<std::size_t>(n.pair_index(0, 2))] = 2;
  EXPECT_THROW(n.check(c), ConfigError);
}

TEST(FabricKinds, PhotonicRailTensorParallelOnScaleUpThenDataParallelOnRails) {
  // 2 domains of 4 GPUs, NICs split 2x200 Gb/s on each rail's OCS, 900 GB/s scale-up. TP all-reduce of S_tp
  // inside domain 0 and domain 1 (ring over scale-up: 2·3/4·S_tp/B_su), then on every rail the two GPUs
  // all-reduce S_dp over their 2 circuits (ring of 2: 2·1/2·S_dp/(2B)). The iteration is their sum.
  spec::PhotonicRailSpec r;
  r.file = "test";
  r.domains = 2;
  r.gpus_per_domain = 4;
  r.scaleup_bytes_per_s = 900e9;
  r.nic_ports = 2;
  r.port_bytes_per_s = 200e9 / 8;
  r.ocs = {"test", 10e-3, 64};
  r.duplex = spec::Duplex::full;
  const net::Network n = net::network_of(r);
  std::vector<net::PortCircuit> pcs;
  for (int g = 0; g < 4; ++g)
    for (int k = 0; k < 2; ++k) pcs.push_back({g, 0, 1});
  Fixed c(net::counts_of(r, n, pcs));
  workload::JobGraph g;
  g.name = "3d";
  g.ranks = 8;
  const double Stp = 2e9, Sdp = 4e9;
  g.tasks = {collective_task("tp0", CollectiveOp::all_reduce, CollectiveAlgorithm::ring, {0, 1, 2, 3}, Stp),
             collective_task("tp1", CollectiveOp::all_reduce, CollectiveAlgorithm::ring, {4, 5, 6, 7}, Stp)};
  for (int l = 0; l < 4; ++l)
    g.tasks.push_back(collective_task("dp" + std::to_string(l), CollectiveOp::all_reduce, CollectiveAlgorithm::ring,
                                 {l, 4 + l}, Sdp, {0, 1}));
  const auto rec = engine::run(n, {{0, "3d", &g, iota(8), {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  const double tp = 2.0 * 3 / 4 * Stp / r.scaleup_bytes_per_s;
  const double dp = 2.0 * 1 / 2 * Sdp / (2 * r.port_bytes_per_s);
  expect_rel(rec.iterations[0].end_s, tp + dp);
  EXPECT_DOUBLE_EQ(rec.iterations[0].tor_bytes, 2 * 6 * 4 * Stp / 4);  // scale-up bytes: 2 rings, 6 steps, 4 flows
}

// NCCL's PXN on photonic rails (2 domains of 2 GPUs; GPU = 2 domain + rail): GPU 0 (domain 0, rail 0) reaches
// GPU 3 (domain 1, rail 1) over the scale-up domain to GPU 1, then on GPU 1's circuit to GPU 3. With one circuit
// lit on (1, 3) and GPU 1 sending M to GPU 3 at the same time, the two transfers share that circuit: 2M / B.
TEST(FabricKinds, PhotonicRailForwardsAcrossRailsOnTheProxysCircuit) {
  spec::PhotonicRailSpec r;
  r.domains = 2;
  r.gpus_per_domain = 2;
  r.scaleup_bytes_per_s = 900e9;
  r.nic_ports = 1;
  r.port_bytes_per_s = 400e9 / 8;
  r.ocs = {"test", 10e-3, 64};
  const net::Network n = net::network_of(r);
  EXPECT_EQ(n.path(0, 1), net::Path::scaleup);
  EXPECT_EQ(n.path(0, 2), net::Path::circuit);
  EXPECT_EQ(n.path(0, 3), net::Path::pxn);
  Fixed c(net::counts_of(r, n, {{1, 0, 1}}));  // rail 1: domain 0 to domain 1
  workload::JobGraph g;
  g.name = "pxn";
  g.ranks = 4;
  const double M = 1e9;
  g.tasks = {workload::transfer_task("forwarded", 0, 3, M), workload::transfer_task("direct", 1, 3, M)};
  const auto rec = engine::run(n, {{0, "pxn", &g, iota(4), {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  expect_rel(rec.iterations[0].end_s, 2 * M / r.port_bytes_per_s);
}

TEST(FabricKinds, ElectricalAllToAllAndParameterServerTakeTheirTextbookTimes) {
  // 4 servers with 2x100 Gb/s NICs behind one switch: all-to-all (direct) takes (n-1)/n · S / B_nic, then a
  // PS push to rank 0 is an incast of 3 S on its NIC: 3 S / B_nic; the pull mirrors it.
  spec::ElectricalSpec e;
  e.servers = 4;
  e.gpus_per_server = 4;
  e.nic_ports = 2;
  e.port_bytes_per_s = 100e9 / 8;
  const net::Network n = net::network_of(e);
  Fixed c(n.empty_config());
  workload::JobGraph g;
  g.name = "e";
  g.ranks = 4;
  const double S = 3e9, Bn = 2 * e.port_bytes_per_s;
  g.tasks = {collective_task("a2a", CollectiveOp::all_to_all, CollectiveAlgorithm::direct, iota(4), S),
             collective_task("push", CollectiveOp::ps_push, CollectiveAlgorithm::parameter_server, iota(4), S, {0}),
             collective_task("pull", CollectiveOp::ps_pull, CollectiveAlgorithm::parameter_server, iota(4), S, {1})};
  const auto rec = engine::run(n, {{0, "e", &g, iota(4), {}, {}}}, c);
  ASSERT_EQ(rec.iterations.size(), 1u);
  const double a2a = workload::textbook_seconds(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, 4, S, Bn);
  const double push = workload::textbook_seconds(CollectiveOp::ps_push, CollectiveAlgorithm::parameter_server, 4, S, Bn);
  expect_rel(a2a, 3.0 / 4 * S / Bn);
  expect_rel(push, 3 * S / Bn);
  expect_rel(rec.iterations[0].end_s, a2a + 2 * push);
  EXPECT_EQ(rec.reconfigurations, 0);
}

TEST(FabricKinds, ElectricalFabricsRefuseCircuits) {
  spec::ElectricalSpec e;
  e.servers = 2;
  e.nic_ports = 1;
  e.port_bytes_per_s = 1e9;
  const net::Network n = net::network_of(e);
  EXPECT_TRUE(n.pairs.empty());
  EXPECT_NO_THROW(n.check(n.empty_config()));
}
