// Policy static's circuit choice for job graphs (policy/graph_static.hpp), without SimGrid.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "net/network.hpp"
#include "policy/graph_static.hpp"

using namespace odcn;

namespace {

spec::AnyPlatform flat(int servers, int ocs) {
  spec::FlatOcsSpec f;
  f.file = "test";
  f.servers = servers;
  f.gpus_per_server = 4;
  f.nic_ports = ocs;
  f.port_bytes_per_s = 1e9;
  f.ocs_count = ocs;
  f.ocs_ports = servers;
  f.reconfig_delay_s = 1e-3;
  spec::AnyPlatform p;
  p.kind = spec::PlatformKind::flat_ocs;
  p.flat = f;
  return p;
}

int circuits(const net::Network& n, const sched::GraphStaticPlan& plan, int a, int b) {
  return plan.config.circuits[static_cast<std::size_t>(n.pair_index(a, b))];
}

}  // namespace

TEST(GraphStatic, FlatOcsCoversEveryPairFirstThenAddsWhereBytesPerCircuitIsLargest) {
  // A triangle of servers on 3 OCSes: an odd cycle needs three matchings, one per OCS, to give each pair its
  // circuit; there is no spare port left. On 4 OCSes the fourth matching holds one edge: the heaviest pair's.
  const auto p3 = flat(3, 3);
  const auto n3 = net::network_of(*p3.flat);
  const std::map<int, Bytes> demand{{n3.pair_index(0, 1), 3e9}, {n3.pair_index(1, 2), 1e9}, {n3.pair_index(0, 2), 1e9}};
  const auto plan3 = sched::plan_graph_static(p3, n3, demand);
  EXPECT_EQ(circuits(n3, plan3, 0, 1), 1);
  EXPECT_EQ(circuits(n3, plan3, 1, 2), 1);
  EXPECT_EQ(circuits(n3, plan3, 0, 2), 1);
  EXPECT_NO_THROW(net::check_flat_ocs(*p3.flat, plan3.ports));
  const auto p4 = flat(3, 4);
  const auto n4 = net::network_of(*p4.flat);
  const auto plan4 = sched::plan_graph_static(p4, n4, demand);
  EXPECT_EQ(circuits(n4, plan4, 0, 1), 2);
  EXPECT_EQ(circuits(n4, plan4, 1, 2), 1);
  EXPECT_EQ(circuits(n4, plan4, 0, 2), 1);
  EXPECT_EQ(plan4.ports.size(), 4u);
  EXPECT_NO_THROW(net::check_flat_ocs(*p4.flat, plan4.ports));
}

TEST(GraphStatic, FlatOcsRefusesWhenAPairCanGetNoCircuit) {
  // The triangle on 2 OCSes: two matchings cover at most two of its three edges.
  const auto p = flat(3, 2);
  const auto n = net::network_of(*p.flat);
  const std::map<int, Bytes> demand{{n.pair_index(0, 1), 1e9}, {n.pair_index(1, 2), 1e9}, {n.pair_index(0, 2), 1e9}};
  EXPECT_THROW(sched::plan_graph_static(p, n, demand), ConfigError);
}

TEST(GraphStatic, PhotonicRailSparePortsGoToTheLongestTransfer) {
  // 3 domains of 1 GPU, 2 ports per GPU on the rail's OCS: pairs (0,1) with 4 GB and (0,2) with 1 GB each get
  // one circuit; GPU 0 is then full, so nothing more fits; GPUs 1 and 2 keep a spare port each.
  spec::PhotonicRailSpec r;
  r.domains = 3;
  r.gpus_per_domain = 1;
  r.scaleup_bytes_per_s = 1e11;
  r.nic_ports = 2;
  r.port_bytes_per_s = 1e9;
  r.ocs = {"test", 1e-3, 64};
  spec::AnyPlatform p;
  p.kind = spec::PlatformKind::photonic_rail;
  p.rail = r;
  const auto n = net::network_of(r);
  const auto plan = sched::plan_graph_static(p, n, {{n.pair_index(0, 1), 4e9}, {n.pair_index(0, 2), 1e9}});
  EXPECT_EQ(circuits(n, plan, 0, 1), 1);
  EXPECT_EQ(circuits(n, plan, 0, 2), 1);
  // With 3 ports, the spare one goes to the 4 GB pair (4 GB per circuit against 1 GB).
  r.nic_ports = 3;
  p.rail = r;
  const auto n3 = net::network_of(r);
  const auto plan3 = sched::plan_graph_static(p, n3, {{n3.pair_index(0, 1), 4e9}, {n3.pair_index(0, 2), 1e9}});
  EXPECT_EQ(circuits(n3, plan3, 0, 1), 2);
  EXPECT_EQ(circuits(n3, plan3, 0, 2), 1);
}
