// TopoOpt's TopologyFinder as released (systems/topox/topoopt.hpp), without SimGrid: the ring strides that the released
// code's rule gives (worked out again by hand below), the port-level circuits, routes, the degree split and the
// matchings.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <random>
#include <stdexcept>

#include "core/error.hpp"
#include "net/port_circuits.hpp"
#include "systems/topox/topoopt.hpp"

using namespace odcn;
using sched::DegreeSplit;
using sched::TopologyFinderInput;

namespace {

/// N servers with d ports on d OCSes of N ports, one DP group over all servers (DLRM's all-reduces).
TopologyFinderInput all_servers(int n, int d, Bytes bytes = 1e9) {
  TopologyFinderInput in;
  in.servers = n;
  in.degree = d;
  in.ocs_ports = n;
  sched::DpGroup g;
  for (int i = 0; i < n; ++i) g.members.push_back(i);
  g.bytes = bytes;
  in.dp_groups.push_back(g);
  return in;
}

spec::FlatOcsSpec platform(int n, int d) {
  spec::FlatOcsSpec f;
  f.file = "test";
  f.servers = n;
  f.nic_ports = d;
  f.port_bytes_per_s = 1e9;
  f.ocs_count = d;
  f.ocs_ports = n;
  return f;
}

/// Hop counts from src by a plain breadth-first search over the neighbour lists.
std::vector<int> bfs(const sched::TopoOptTopology& t, int src) {
  std::vector<int> dist(static_cast<std::size_t>(t.servers()), -1);
  std::queue<int> q;
  dist[static_cast<std::size_t>(src)] = 0;
  q.push(src);
  while (!q.empty()) {
    const int u = q.front();
    q.pop();
    for (int v : t.neighbours[static_cast<std::size_t>(u)])
      if (dist[static_cast<std::size_t>(v)] < 0) {
        dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
        q.push(v);
      }
  }
  return dist;
}

using Weights = std::vector<std::vector<std::int64_t>>;

/// The heaviest perfect matching's weight by dynamic programming over subsets (small n only).
std::int64_t brute_force_perfect(const Weights& w) {
  const int n = static_cast<int>(w.size());
  std::vector<std::int64_t> best(std::size_t{1} << n, -1);
  best[0] = 0;
  for (std::size_t m = 0; m < best.size(); ++m) {
    if (best[m] < 0) continue;
    int i = 0;
    while (i < n && (m >> i & 1)) ++i;
    if (i == n) continue;
    for (int j = i + 1; j < n; ++j)
      if (!(m >> j & 1)) {
        const auto next = m | (std::size_t{1} << i) | (std::size_t{1} << j);
        best[next] = std::max(best[next], best[m] + w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
      }
  }
  return best.back();
}

}  // namespace

TEST(TopologyFinder, RingStridesAreTheReleasedGeometricChoice) {
  // Step 3, re-run by hand: candidates for g = N are the strides coprime with N, ratio =
  // (max/min)^(1/n). N = 128, n = 2: ratio sqrt(127) = 11.3, so 1 then the first odd >= 11.3, 13. n = 3:
  // ratio 5.03, targets 1, 5.03, 25.3: 1, 7, 27. N = 16, n = 2: ratio sqrt(15) = 3.87: 1, 5. n = 4: ratio
  // 1.97, targets 1, 1.97, 3.87, 7.62: 1, 3, 5, 9.
  const auto strides = [](int n, int d) { return sched::topology_finder(all_servers(n, d)).strides; };
  EXPECT_EQ(strides(128, 4), (std::vector<int>{1, 13, 115, 127}));
  EXPECT_EQ(strides(128, 6), (std::vector<int>{1, 7, 27, 101, 121, 127}));
  EXPECT_EQ(strides(16, 4), (std::vector<int>{1, 5, 11, 15}));
  EXPECT_EQ(strides(16, 8), (std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15}));

  EXPECT_EQ(sched::totient_strides(16, 16), (std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_EQ(sched::totient_strides(12, 6), (std::vector<int>{2, 10}));  // (12/6) k for k in {1, 5}
  EXPECT_EQ(sched::choose_geometric(sched::totient_strides(128, 128), 2), (std::vector<int>{1, 13}));
  EXPECT_EQ(sched::choose_geometric({1, 3, 5, 7}, 1), (std::vector<int>{1}));

  const auto t = sched::topology_finder(all_servers(128, 6));
  EXPECT_EQ(t.dp_degree, 6);
  EXPECT_EQ(t.mp_degree, 0);
}

TEST(TopologyFinder, CircuitsAreOneMatchingPerOcsAndFillEveryPort) {
  for (const auto& [n, d] : {std::pair{128, 4}, {128, 6}, {16, 4}, {16, 8}, {2, 2}, {4, 2}}) {
    SCOPED_TRACE(testing::Message() << "N=" << n << " d=" << d);
    const auto t = sched::topology_finder(all_servers(n, d));
    EXPECT_NO_THROW(net::check_flat_ocs(platform(n, d), t.circuits));
    EXPECT_EQ(t.circuits.size(), static_cast<std::size_t>(n * d / 2));
    std::vector<int> per_ocs(static_cast<std::size_t>(d), 0);
    for (const auto& c : t.circuits) ++per_ocs[static_cast<std::size_t>(c.ocs)];
    for (int count : per_ocs) EXPECT_EQ(count, n / 2);  // a perfect matching on every OCS
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(t.neighbours[static_cast<std::size_t>(s)].size(), static_cast<std::size_t>(d));
      EXPECT_TRUE(std::is_sorted(t.neighbours[static_cast<std::size_t>(s)].begin(),
                                 t.neighbours[static_cast<std::size_t>(s)].end()));
      // Each ring stride s (and its reverse) joins i to i + s.
      for (int stride : t.strides) EXPECT_GE(t.circuits_between(s, (s + stride) % n), 1);
    }
  }
}

TEST(TopologyFinder, CircuitsBetween) {
  // N = 16, strides 1, 5, 11, 15: server 0's neighbours are 1, 5, 11 and 15, once each.
  const auto t = sched::topology_finder(all_servers(16, 4));
  EXPECT_EQ(t.neighbours[0], (std::vector<int>{1, 5, 11, 15}));
  EXPECT_EQ(t.circuits_between(0, 1), 1);
  EXPECT_EQ(t.circuits_between(1, 0), 1);
  EXPECT_EQ(t.circuits_between(0, 5), 1);
  EXPECT_EQ(t.circuits_between(0, 11), 1);
  EXPECT_EQ(t.circuits_between(0, 2), 0);
  EXPECT_EQ(t.circuits_between(3, 8), 1);
  // The stride-1 ring on 2 servers, 0 -> 1 -> 0, is two parallel circuits (TopoOpt's add_ring counts both).
  const auto two = sched::topology_finder(all_servers(2, 2));
  EXPECT_EQ(two.circuits_between(0, 1), 2);
  EXPECT_EQ(two.neighbours[0], (std::vector<int>{1, 1}));
  EXPECT_THROW(t.circuits_between(0, 16), ConfigError);
}

TEST(TopologyFinder, RoutesOnTheSixteenServerRings) {
  // Strides +-1 and +-5 on 16 servers: every step is odd, so an even offset needs an even number of hops.
  const auto t = sched::topology_finder(all_servers(16, 4));
  EXPECT_EQ(t.route(0, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(t.route(0, 5), (std::vector<int>{0, 5}));
  EXPECT_EQ(t.route(3, 3), (std::vector<int>{3}));
  // 2 = 1 + 1 is the only two-step sum of +-1, +-5 (mod 16) equal to 2.
  EXPECT_EQ(t.route(0, 2), (std::vector<int>{0, 1, 2}));
  // 10 = 5 + 5 = -5 - 1 = -1 - 5: next hops 5, 11 and 15 are each one hop from 10. The rule takes index
  // (src * 16 + dst) mod 3 = 10 mod 3 = 1 of {5, 11, 15}: 11.
  EXPECT_EQ(t.route(0, 10), (std::vector<int>{0, 11, 10}));
  // 8: the two-step sums are 0, +-2, +-4, +-6, 10 (= -6) and no 8; three steps give odd offsets; four
  // (5 + 1 + 1 + 1) reach it.
  EXPECT_EQ(t.route(0, 8).size(), 5u);
  // Offsets 3, 7, 9, 13 need 3 hops (odd, not 1, 5, 11, 15), 8 needs 4: the diameter is 4.
  EXPECT_EQ(t.diameter(), 4);
  EXPECT_EQ(sched::topology_finder(all_servers(16, 8)).diameter(), 2);  // every odd offset is one hop
  EXPECT_THROW(t.route(-1, 2), ConfigError);
}

TEST(TopologyFinder, EveryRouteIsAShortestPathOverCircuits) {
  for (const auto& [n, d] : {std::pair{16, 4}, {16, 8}, {128, 4}, {128, 6}}) {
    SCOPED_TRACE(testing::Message() << "N=" << n << " d=" << d);
    const auto t = sched::topology_finder(all_servers(n, d));
    int longest = 0;
    for (int src = 0; src < n; ++src) {
      const auto dist = bfs(t, src);
      for (int dst = 0; dst < n; ++dst) {
        const auto path = t.route(src, dst);
        ASSERT_EQ(path.size(), static_cast<std::size_t>(dist[static_cast<std::size_t>(dst)] + 1));
        EXPECT_EQ(path.front(), src);
        EXPECT_EQ(path.back(), dst);
        for (std::size_t h = 0; h + 1 < path.size(); ++h) EXPECT_GT(t.circuits_between(path[h], path[h + 1]), 0);
        longest = std::max(longest, dist[static_cast<std::size_t>(dst)]);
      }
    }
    EXPECT_EQ(t.diameter(), longest);
  }
  // Measured here and checked by the brute force above: 10 and 6 hops on 128 servers.
  EXPECT_EQ(sched::topology_finder(all_servers(128, 4)).diameter(), 10);
  EXPECT_EQ(sched::topology_finder(all_servers(128, 6)).diameter(), 6);
}

TEST(TopologyFinder, ReleasedSplitKeepsTheRingsAndReportsMpBytesOnThem) {
  // The released code evaluates one candidate stride set, the geometric one, whatever the MP demand; it
  // reports compute_mp_satisfied: MP bytes between servers that a ring joins directly.
  auto in = all_servers(16, 4);
  in.mp_demand[{0, 5}] = 100;  // offset 5: on a ring
  in.mp_demand[{0, 8}] = 50;   // offset 8: not
  in.mp_demand[{3, 2}] = 7;    // offset 15: on a ring
  const auto t = sched::topology_finder(in);
  EXPECT_EQ(t.dp_degree, 4);
  EXPECT_EQ(t.mp_degree, 0);
  EXPECT_EQ(t.strides, (std::vector<int>{1, 5, 11, 15}));
  EXPECT_DOUBLE_EQ(t.mp_bytes_on_ring_links, 107);
  EXPECT_DOUBLE_EQ(sched::topology_finder(all_servers(16, 4)).mp_bytes_on_ring_links, 0);
}

TEST(TopologyFinder, ProportionalSplitAddsMatchingsForModelParallelDemand) {
  // N = 4, d = 4. DP: one group of 4 with S = 2 bytes, T_DP = S (2g - 1) = 14; MP: 10 bytes between 0 and 1
  // (7 + 3, both ways) and 6 between 0 and 2, T_MP = 16. dp = round(14/30 * 4) = round(1.87) = 2, mp = 2.
  // Ring: candidates {1, 3}, one stride: 1 (OCS 0: 0-1, 2-3; OCS 1: 1-2, 3-0).
  // Matching 1: {0-1, 2-3} weighs 10, {0-2, 1-3} 6, {0-3, 1-2} 0: 0-1 and 2-3 on OCS 2; 0-1's demand becomes
  // 10 * 1/2 = 5. Matching 2: {0-2, 1-3} (6) now beats {0-1, 2-3} (5): on OCS 3.
  auto in = all_servers(4, 4, 2);
  in.split = DegreeSplit::proportional;
  in.mp_demand[{0, 1}] = 7;
  in.mp_demand[{1, 0}] = 3;
  in.mp_demand[{0, 2}] = 6;
  const auto t = sched::topology_finder(in);
  EXPECT_EQ(t.dp_degree, 2);
  EXPECT_EQ(t.mp_degree, 2);
  EXPECT_EQ(t.strides, (std::vector<int>{1, 3}));
  EXPECT_EQ(t.circuits_between(0, 1), 2);  // ring + matching 1
  EXPECT_EQ(t.circuits_between(2, 3), 2);
  EXPECT_EQ(t.circuits_between(0, 2), 1);  // matching 2
  EXPECT_EQ(t.circuits_between(1, 3), 1);
  EXPECT_EQ(t.circuits_between(1, 2), 1);
  EXPECT_EQ(t.circuits_between(0, 3), 1);
  const auto on = [&](int ocs, int a, int b) {
    return std::any_of(t.circuits.begin(), t.circuits.end(), [&](const net::PortCircuit& c) {
      return c.ocs == ocs && std::min(c.a, c.b) == a && std::max(c.a, c.b) == b;
    });
  };
  EXPECT_TRUE(on(2, 0, 1));
  EXPECT_TRUE(on(2, 2, 3));
  EXPECT_TRUE(on(3, 0, 2));
  EXPECT_TRUE(on(3, 1, 3));
  EXPECT_NO_THROW(net::check_flat_ocs(platform(4, 4), t.circuits));
  EXPECT_DOUBLE_EQ(t.mp_bytes_on_ring_links, 10);  // 0 <-> 1 is a ring link; 0 -> 2 is not

  // Mostly DP traffic: every port on rings, as released.
  auto dp_heavy = all_servers(16, 4, 1e9);
  dp_heavy.split = DegreeSplit::proportional;
  dp_heavy.mp_demand[{0, 8}] = 1;
  EXPECT_EQ(sched::topology_finder(dp_heavy).mp_degree, 0);
  // Mostly MP traffic: the ring keeps 2 ports so that every server is reachable; an odd d_S leaves the
  // matchings an odd count, each on its own OCS.
  auto mp_heavy = all_servers(8, 5, 1);
  mp_heavy.split = DegreeSplit::proportional;
  mp_heavy.mp_demand[{0, 4}] = 1e9;
  const auto m = sched::topology_finder(mp_heavy);
  EXPECT_EQ(m.dp_degree, 2);
  EXPECT_EQ(m.mp_degree, 3);
  EXPECT_EQ(m.circuits_between(0, 4), 3);
  EXPECT_LE(m.diameter(), 4);  // the stride-1 ring of 8 (diameter 4) plus chords
  EXPECT_NO_THROW(net::check_flat_ocs(platform(8, 5), m.circuits));
}

TEST(TopologyFinder, GroupsNotSpanningEveryServerStillGetAConnectedTopology) {
  // Only groups over all N servers shape the rings; without one, the rings through all servers still start
  // at stride 1 (the released code's reserved connectivity ring), and smaller groups route over them.
  TopologyFinderInput in;
  in.servers = 8;
  in.degree = 4;
  in.ocs_ports = 8;
  in.dp_groups.push_back({{0, 2, 4, 6}, 1e9});
  const auto t = sched::topology_finder(in);
  EXPECT_EQ(t.strides, (std::vector<int>{1, 3, 5, 7}));  // candidates 1, 3, 5, 7; ratio sqrt(7) = 2.65
  EXPECT_GT(t.diameter(), 0);
  EXPECT_EQ(t.route(0, 2).size(), 3u);  // 0 -> 2 by two hops (1 + 1, or 3 - 1, ...)
  in.dp_groups.clear();
  EXPECT_EQ(sched::topology_finder(in).strides, t.strides);
}

TEST(TopologyFinder, SameInputSameTopology) {
  auto in = all_servers(16, 6, 3);
  in.split = DegreeSplit::proportional;
  for (int i = 0; i < 16; ++i) in.mp_demand[{i, (i * 7 + 3) % 16}] = 5 + i;  // 6i + 3 is odd: never i itself
  const auto a = sched::topology_finder(in), b = sched::topology_finder(in);
  ASSERT_EQ(a.circuits.size(), b.circuits.size());
  for (std::size_t i = 0; i < a.circuits.size(); ++i) {
    EXPECT_EQ(a.circuits[i].ocs, b.circuits[i].ocs);
    EXPECT_EQ(a.circuits[i].a, b.circuits[i].a);
    EXPECT_EQ(a.circuits[i].b, b.circuits[i].b);
  }
  EXPECT_EQ(a.neighbours, b.neighbours);
  EXPECT_GT(a.mp_degree, 0);
}

TEST(TopologyFinder, RefusesWhatTheFlatOcsLayerCannotHold) {
  EXPECT_THROW(sched::topology_finder(all_servers(15, 4)), ConfigError);   // odd N: odd rings
  EXPECT_THROW(sched::topology_finder(all_servers(16, 3)), ConfigError);   // odd d, every port on rings
  EXPECT_THROW(sched::topology_finder(all_servers(16, 18)), ConfigError);  // 9 strides, only 8 coprime with 16
  EXPECT_THROW(sched::topology_finder(all_servers(1, 2)), ConfigError);
  EXPECT_THROW(sched::topology_finder(all_servers(16, 0)), ConfigError);
  auto few_ports = all_servers(16, 4);
  few_ports.ocs_ports = 14;  // a perfect matching of 16 servers needs 16
  EXPECT_THROW(sched::topology_finder(few_ports), ConfigError);
  auto bad_member = all_servers(16, 4);
  bad_member.dp_groups.push_back({{0, 16}, 1});
  EXPECT_THROW(sched::topology_finder(bad_member), ConfigError);
  auto twice = all_servers(16, 4);
  twice.dp_groups.push_back({{3, 3}, 1});
  EXPECT_THROW(sched::topology_finder(twice), ConfigError);
  auto self = all_servers(16, 4);
  self.mp_demand[{2, 2}] = 1;
  EXPECT_THROW(sched::topology_finder(self), ConfigError);
  auto negative = all_servers(16, 4);
  negative.mp_demand[{2, 3}] = -1;
  EXPECT_THROW(sched::topology_finder(negative), ConfigError);
  auto one_port = all_servers(16, 1);
  one_port.split = DegreeSplit::proportional;
  EXPECT_THROW(sched::topology_finder(one_port), ConfigError);            // no room for the connecting ring
  EXPECT_THROW(sched::choose_geometric({1, 2, 3, 100}, 3), ConfigError);  // targets 1, 4.6, 21.5: 100 twice
  EXPECT_THROW(sched::totient_strides(16, 3), ConfigError);
}

TEST(TopologyFinder, MatchingIsTheHeaviestPerfectOne) {
  // Against subset dynamic programming on random complete graphs: dense, sparse (mostly zero, where Boost
  // 1.74's maximum_weighted_matching can loop forever), tiny weights (many ties) and near the 2^40 limit.
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 400; ++iter) {
    const int n = 2 + 2 * static_cast<int>(rng() % 6);
    const int mode = static_cast<int>(rng() % 4);
    Weights w(static_cast<std::size_t>(n), std::vector<std::int64_t>(static_cast<std::size_t>(n), 0));
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        std::int64_t x = 0;
        if (mode == 0) x = static_cast<std::int64_t>(rng() % 1000);
        if (mode == 1) x = rng() % 5 == 0 ? static_cast<std::int64_t>(rng() % 1000) : 0;
        if (mode == 2) x = static_cast<std::int64_t>(rng() % 3);
        if (mode == 3) x = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 40));
        w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
            w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = x;
      }
    const auto mate = sched::max_weight_perfect_matching(w);
    std::int64_t total = 0;
    for (int v = 0; v < n; ++v) {
      const int m = mate[static_cast<std::size_t>(v)];
      ASSERT_NE(m, v);
      ASSERT_EQ(mate[static_cast<std::size_t>(m)], v);
      if (m > v) total += w[static_cast<std::size_t>(v)][static_cast<std::size_t>(m)];
    }
    EXPECT_EQ(total, brute_force_perfect(w)) << "n=" << n << " mode=" << mode;
  }
  EXPECT_THROW(sched::max_weight_perfect_matching(Weights(3, std::vector<std::int64_t>(3, 0))), std::invalid_argument);
}

TEST(TopologyFinder, GeneralMatchingIsTheHeaviestOne) {
  // max_weight_matching (TOPO-X's per-slot circuits) on random sparse graphs, odd and even, against the perfect
  // matching by subset dynamic programming of the complete graph where a missing edge weighs 0 (plus a vertex
  // joined by nothing when n is odd): both are the heaviest matching.
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 400; ++iter) {
    const int n = 1 + static_cast<int>(rng() % 11);
    const int even = n + n % 2;
    Weights w(static_cast<std::size_t>(even), std::vector<std::int64_t>(static_cast<std::size_t>(even), 0));
    std::vector<sched::WeightedEdge> edges;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 3 == 0) {
          const auto x = static_cast<std::int64_t>(1 + rng() % (iter % 2 ? 3 : 1000));
          edges.push_back({i, j, x});
          w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = x;
        }
    const auto mate = sched::max_weight_matching(n, edges);
    ASSERT_EQ(mate.size(), static_cast<std::size_t>(n));
    std::int64_t total = 0;
    for (int v = 0; v < n; ++v) {
      const int m = mate[static_cast<std::size_t>(v)];
      if (m < 0) continue;
      ASSERT_EQ(mate[static_cast<std::size_t>(m)], v);
      ASSERT_GT(w[static_cast<std::size_t>(v)][static_cast<std::size_t>(m)], 0) << "matched along a missing edge";
      if (m > v) total += w[static_cast<std::size_t>(v)][static_cast<std::size_t>(m)];
    }
    EXPECT_EQ(total, brute_force_perfect(w)) << "n=" << n;
  }
  EXPECT_THROW(sched::max_weight_matching(3, {{0, 0, 1}}), std::invalid_argument);
  EXPECT_THROW(sched::max_weight_matching(3, {{0, 1, 0}}), std::invalid_argument);
}
