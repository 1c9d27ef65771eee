// Algorithm 2: one circuit per demand pair, then add at the bottleneck until the ToR dominates or the
// bottleneck pair runs out of ports.
#include <gtest/gtest.h>

#include "policy/topology.hpp"

using namespace odcn::sched;

namespace {
TopologyLimits limits(int ports, double tor) { return {ports, 1.0, tor}; }
}  // namespace

TEST(Alg2, AddsAtBottleneckUntilPortsRunOut) {
  GroupDemand d(3);
  d.add_flow(0, 1, 10);
  d.add_flow(2, 0, 1);
  const auto t = build_topology(d, limits(4, 1e18));
  // L(0,1): 1 -> 10 s, 2 -> 5 s, 3 -> 3.33 s; then pod 0 has used all 4 ports (3 + 1 to pod 2).
  EXPECT_EQ(t.circuits[static_cast<std::size_t>(d.local_pair(0, 1))], 3);
  EXPECT_EQ(t.circuits[static_cast<std::size_t>(d.local_pair(0, 2))], 1);
  EXPECT_EQ(t.circuits[static_cast<std::size_t>(d.local_pair(1, 2))], 0);
  EXPECT_DOUBLE_EQ(t.t_comm, 10.0 / 3.0);
}

TEST(Alg2, StopsWhenTorDominates) {
  GroupDemand d(3);
  d.add_flow(0, 1, 10);
  d.tor_load[0] = 4;  // T_tor = 4 s with B_tor = 1
  const auto t = build_topology(d, limits(8, 1.0));
  EXPECT_EQ(t.circuits[static_cast<std::size_t>(d.local_pair(0, 1))], 3);  // 3.33 s < 4 s: no 4th circuit
  EXPECT_DOUBLE_EQ(t.t_oxc, 10.0 / 3.0);
  EXPECT_DOUBLE_EQ(t.t_comm, 4.0);  // Eq. (2)
}

TEST(StaticFill, GivesRemainingPortsToTheLongestPairThatCanGrow) {
  // Pair (0,1) is the longest but pod 0 runs out of ports; Alg. 2 stops there, the static fill goes on to
  // (2,3), the longest pair that can still grow, until pods 2 and 3 are full too.
  GroupDemand d(4);
  d.add_flow(0, 1, 12);
  d.add_flow(0, 2, 1);
  d.add_flow(2, 3, 6);
  const auto alg2 = build_topology(d, limits(3, 1e18), Fill::alg2);
  EXPECT_EQ(alg2.circuits[static_cast<std::size_t>(d.local_pair(0, 1))], 2);
  EXPECT_EQ(alg2.circuits[static_cast<std::size_t>(d.local_pair(2, 3))], 1);
  const auto all = build_topology(d, limits(3, 1e18), Fill::all_ports);
  EXPECT_EQ(all.circuits[static_cast<std::size_t>(d.local_pair(0, 1))], 2);
  EXPECT_EQ(all.circuits[static_cast<std::size_t>(d.local_pair(0, 2))], 1);
  EXPECT_EQ(all.circuits[static_cast<std::size_t>(d.local_pair(2, 3))], 2);  // pod 2: 1 + 2 = 3 ports
  EXPECT_DOUBLE_EQ(all.t_comm, 6.0);
  EXPECT_DOUBLE_EQ(alg2.t_comm, 6.0);  // (0,1) at 12/2 and (2,3) at 6/1 tie
}

TEST(Alg2, HalfDuplexPairsPoolBothDirections) {
  GroupDemand d(2);
  d.add_flow(0, 1, 3);
  d.add_flow(1, 0, 5);
  const auto t = build_topology(d, limits(1, 1e18));
  EXPECT_DOUBLE_EQ(t.t_comm, 8.0);  // both directions share the one circuit
}

TEST(Alg2, InfeasibleWhenDemandPairsExceedPorts) {
  GroupDemand d(4);
  d.add_flow(0, 1, 1);
  d.add_flow(0, 2, 1);
  d.add_flow(0, 3, 1);
  const auto t = build_topology(d, limits(2, 1.0));
  EXPECT_FALSE(t.feasible);
  EXPECT_EQ(t.t_comm, kInfeasible);
}

TEST(StageBound, FractionalOptimumOfEq2UnderEq6) {
  // Pods 0-1 carry 3 B, 0-2 carry 1 B, two ports per pod at 1 B/s. Alg. 2 gives each pair one circuit (line 9)
  // and cannot grow 0-1 (pod 0 is full): 3 s. Fractionally pod 0 splits its 2 ports 1.5 / 0.5, so both pairs
  // finish at (3 + 1) / 2 = 2 s, the pod-0 bound Σ_j D_0j / (P·B).
  GroupDemand d(3);
  d.add_flow(0, 1, 3);
  d.add_flow(2, 0, 1);
  const auto t = build_topology(d, limits(2, 1e18));
  EXPECT_DOUBLE_EQ(t.t_comm, 3.0);
  EXPECT_DOUBLE_EQ(fractional_comm_bound(d, limits(2, 1e18), 0), 2.0);
  const Bottleneck b = bottleneck_of(d, t.circuits, limits(2, 1e18));
  EXPECT_EQ(d.pair_ends(b.pair), std::make_pair(0, 1));
  EXPECT_DOUBLE_EQ(b.t, 3.0);
  // An OXC of 4 ports holds 2 circuits in all: 2·(3 + 1)/(4·1) = 2 s as well; with 2 ports, 4 s.
  EXPECT_DOUBLE_EQ(fractional_comm_bound(d, limits(2, 1e18), 2), 4.0);
  // A ToR link slower than every pair: it is the bottleneck and the floor of the bound.
  d.tor_load[2] = 10;
  EXPECT_DOUBLE_EQ(fractional_comm_bound(d, limits(2, 2.0), 0), 5.0);
  const Bottleneck tor = bottleneck_of(d, t.circuits, limits(2, 2.0));
  EXPECT_EQ(tor.pair, -1);
  EXPECT_EQ(tor.tor_pod, 2);
}

TEST(StageBound, PairEndsInvertLocalPair) {
  GroupDemand d(6);
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) EXPECT_EQ(d.pair_ends(d.local_pair(a, b)), std::make_pair(a, b));
}
