// TopoOpt's TopologyFinder: the degree split, ring strides (TotientPerms) and MP matchings.
#include "systems/topox/topoopt.hpp"

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "spec/fabric_kinds.hpp"

#include "systems/topox/topoopt_internal.hpp"

namespace odcn::sched {

using topoopt_internal::kWho;

namespace {

void check_input(const TopologyFinderInput& in) {
  const int n = in.servers;
  if (n < 2) throw ConfigError(fmt::format("{}: needs at least 2 servers (got {})", kWho, n));
  if (n % 2 != 0)
    throw ConfigError(
        fmt::format("{}: {} servers is odd: a ring through all of them is an odd cycle, which two "
                    "OCSes (one port per server each) cannot hold, and no perfect matching exists",
                    kWho, n));
  if (n > 4096) throw ConfigError(fmt::format("{}: at most 4096 servers (got {})", kWho, n));
  if (in.degree < 1) throw ConfigError(fmt::format("{}: degree d_S must be >= 1 (got {})", kWho, in.degree));
  if (in.ocs_ports < n)
    throw ConfigError(
        fmt::format("{}: every OCS holds a perfect matching of the {} servers, which needs {} ports, "
                    "but d_OCS = {}",
                    kWho, n, n, in.ocs_ports));
  for (std::size_t g = 0; g < in.dp_groups.size(); ++g) {
    const auto& grp = in.dp_groups[g];
    if (!(grp.bytes >= 0) || !std::isfinite(grp.bytes))
      throw ConfigError(fmt::format("{}: DP group {} has bytes {} (must be finite and >= 0)", kWho, g, grp.bytes));
    std::set<int> seen;
    for (int m : grp.members) {
      if (m < 0 || m >= n)
        throw ConfigError(fmt::format("{}: DP group {} names server {} ({} servers)", kWho, g, m, n));
      if (!seen.insert(m).second) throw ConfigError(fmt::format("{}: DP group {} names server {} twice", kWho, g, m));
    }
  }
  for (const auto& [pair, bytes] : in.mp_demand) {
    const auto [a, b] = pair;
    if (a < 0 || b < 0 || a >= n || b >= n || a == b)
      throw ConfigError(fmt::format("{}: MP demand ({}, {}) must join two different servers below {}", kWho, a, b, n));
    if (!(bytes >= 0) || !std::isfinite(bytes))
      throw ConfigError(
          fmt::format("{}: MP demand ({}, {}) has bytes {} (must be finite and >= 0)", kWho, a, b, bytes));
  }
}

/// Step 1, get_dp_mp_degree.
std::pair<int, int> split_degree(const TopologyFinderInput& in) {
  const int d = in.degree;
  if (in.split == DegreeSplit::released) {
    // The released code: `dp_degree = if_cnt; mp_degree = 0;`, every port on rings.
    if (d % 2 != 0)
      throw ConfigError(
          fmt::format("{}: d_S = {} is odd, but with the released degree split every port goes to "
                      "bidirectional rings, which take two ports per server each",
                      kWho, d));
    return {d, 0};
  }
  // The proportional split as the released code carries it commented out: the ring all-reduce traffic
  // counts S(2g-1) per group (its `total_dp_traffic += xfer_size * (2 * group_size - 1)`; the /g of
  // dpgrpsz_xfersize, which step 2 uses, is not applied here), the MP traffic all bytes. The DP share is
  // rounded, made even for bidirectional rings (up, unless that exceeds d), and kept >= 2 so that a ring
  // connects every server; MP takes the rest (the code rounds both shares separately and asserts that they
  // sum to d, which rounding can break; here mp = d - dp).
  if (d < 2)
    throw ConfigError(
        fmt::format("{}: d_S = {} leaves no room for the one bidirectional ring that connects the "
                    "servers (2 ports)",
                    kWho, d));
  double dp_traffic = 0, mp_traffic = 0;
  for (const auto& g : in.dp_groups)
    if (g.members.size() >= 2) dp_traffic += g.bytes * (2.0 * static_cast<double>(g.members.size()) - 1.0);
  for (const auto& [pair, bytes] : in.mp_demand) mp_traffic += bytes;
  int dp = d;
  if (dp_traffic + mp_traffic > 0) dp = static_cast<int>(std::lround(dp_traffic / (dp_traffic + mp_traffic) * d));
  if (dp % 2 != 0) dp = dp + 1 <= d ? dp + 1 : dp - 1;
  dp = std::max(dp, 2);
  return {dp, d - dp};
}

/// compute_mp_satified (step 3): MP bytes whose two servers a ring joins directly.
Bytes mp_on_rings(const TopologyFinderInput& in, const std::vector<int>& strides) {
  Bytes sum = 0;
  for (const auto& [pair, bytes] : in.mp_demand) {
    const int offset = ((pair.second - pair.first) % in.servers + in.servers) % in.servers;
    if (std::find(strides.begin(), strides.end(), offset) != strides.end()) sum += bytes;
  }
  return sum;
}

// Port level: the ring of stride s is gcd(N, s) cycles of N / gcd(N, s) servers (one cycle here, s being
// coprime with N), each of even length since N is even; alternate edges go to OCS 2i and OCS 2i+1, so each
// server has one port on each of the two. (N = 2: the "ring" 0 -> 1 -> 0 is two parallel circuits, as
// TopoOpt's add_ring counts it.)
void add_ring_circuits(TopoOptTopology& t, const std::vector<int>& chosen, int n) {
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const int s = chosen[i];
    const int cycles = std::gcd(n, s), length = n / cycles;
    for (int start = 0; start < cycles; ++start)
      for (int e = 0; e < length; ++e) {
        const int a = (start + e * s) % n;
        t.circuits.push_back({static_cast<int>(2 * i) + e % 2, a, (a + s) % n});
      }
  }
}

// Step 5, generate_mp_matching: mp_degree maximum-weight perfect matchings on the complete graph, weight =
// demand(i, j) + demand(j, i); after each, a matched pair's remaining demand is scaled by c / (c + 1), c =
// the MP links it now has (ring links do not count: the released code keeps MP links in a connection matrix
// of their own). (The released code builds the graph with AddEdge(i, j) for both orders, which
// keeps one edge per pair, and sets its cost twice, the second time from demand(j, i) with j > i: for the
// symmetric all-to-all demand of DLRM that is half of this weight, the same matchings.) Weights are
// quantised to 2^30 steps of the largest remaining demand, so that the matching works on exact integers.
void add_mp_matchings(TopoOptTopology& t, const TopologyFinderInput& in, int n) {
  std::vector<std::vector<double>> residual(static_cast<std::size_t>(n),
                                            std::vector<double>(static_cast<std::size_t>(n), 0.0));
  for (const auto& [pair, bytes] : in.mp_demand) {
    const auto a = static_cast<std::size_t>(std::min(pair.first, pair.second));
    const auto b = static_cast<std::size_t>(std::max(pair.first, pair.second));
    residual[a][b] += bytes;
  }
  std::vector<std::vector<int>> links(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
  for (int r = 0; r < t.mp_degree; ++r) {
    double heaviest = 0;
    for (const auto& row : residual) heaviest = std::max(heaviest, *std::max_element(row.begin(), row.end()));
    std::vector<std::vector<std::int64_t>> weight(static_cast<std::size_t>(n),
                                                  std::vector<std::int64_t>(static_cast<std::size_t>(n), 0));
    if (heaviest > 0)
      for (std::size_t a = 0; a < weight.size(); ++a)
        for (std::size_t b = a + 1; b < weight.size(); ++b)
          weight[a][b] = weight[b][a] = std::llround(residual[a][b] / heaviest * static_cast<double>(1 << 30));
    const auto mate = max_weight_perfect_matching(weight);
    for (int a = 0; a < n; ++a) {
      const int b = mate[static_cast<std::size_t>(a)];
      if (b < a) continue;
      t.circuits.push_back({t.dp_degree + r, a, b});
      const int c = ++links[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      residual[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] *= static_cast<double>(c) / (c + 1);
    }
  }
}

/// Each server's neighbours, ascending (a server twice when two circuits join them).
void fill_neighbours(TopoOptTopology& t, int n) {
  t.neighbours.assign(static_cast<std::size_t>(n), {});
  for (const auto& c : t.circuits) {
    t.neighbours[static_cast<std::size_t>(c.a)].push_back(c.b);
    t.neighbours[static_cast<std::size_t>(c.b)].push_back(c.a);
  }
  for (auto& near : t.neighbours) std::sort(near.begin(), near.end());
}

}  // namespace

DegreeSplit parse_degree_split(const std::string& variant) {
  return variant == "proportional" ? DegreeSplit::proportional : DegreeSplit::released;
}

std::vector<int> totient_strides(int servers, int group_size) {
  if (servers < 2 || group_size < 2 || servers % group_size != 0)
    throw ConfigError(fmt::format("{}: ring strides need a group size g >= 2 dividing N (got N = {}, g = {})", kWho,
                                  servers, group_size));
  std::vector<int> strides;
  for (int k = 1; k <= group_size; ++k)
    if (std::gcd(k, group_size) == 1) strides.push_back(servers / group_size * k);
  return strides;
}

std::vector<int> choose_geometric(const std::vector<int>& candidates, int count) {
  if (count < 1 || static_cast<std::size_t>(count) > candidates.size())
    throw ConfigError(
        fmt::format("{}: {} ring strides asked, but only {} exist (the strides coprime with N: d_S/2 "
                    "rings at most)",
                    kWho, count, candidates.size()));
  if (count == 1) return {candidates.front()};
  // choose_n_geo with bidir = true: the exponent is 1/n (1/(n-1) for unidirectional rings), so the last
  // target stays below the largest candidate.
  const double ratio = std::pow(static_cast<double>(candidates.back()) / candidates.front(), 1.0 / count);
  std::set<int> chosen;
  double current = candidates.front();
  for (int i = 0; i < count; ++i) {
    auto it = std::lower_bound(candidates.begin(), candidates.end(), current);
    while (it != candidates.end() && chosen.count(*it)) ++it;
    // The released code walks past the end here (undefined behaviour); no stride set of this size exists.
    if (it == candidates.end())
      throw ConfigError(
          fmt::format("{}: the geometric choice of {} ring strides among {} candidates runs past the "
                      "largest one",
                      kWho, count, candidates.size()));
    chosen.insert(*it);
    current *= ratio;
  }
  return {chosen.begin(), chosen.end()};
}

TopoOptTopology topology_finder(const TopologyFinderInput& in) {
  check_input(in);
  const int n = in.servers;
  TopoOptTopology t;
  std::tie(t.dp_degree, t.mp_degree) = split_degree(in);

  // Step 2, ring budget. The released code gives every ring link to the DP group size with the most traffic
  // (its `nlink = total_traffic * dp_degree / traffic_g` is >= dp_degree for every group, then clipped), and,
  // when that size is not N, keeps 2 links for a stride-1 ring through all servers. Here only groups that
  // span all N servers get rings (TopologyFinderInput::dp_groups says why), so all dp_degree links go to
  // rings through all servers: exactly the released code when the heaviest groups span N (DLRM: every
  // all-reduce is over all servers), and otherwise a superset of its connectivity ring, since the geometric
  // choice always starts at stride 1.
  //
  // Step 3, TotientPerms: candidates for g = N are the strides coprime with N; dp_degree / 2 of them, chosen
  // geometrically. The released code evaluates one candidate set only (its loop over rotations with
  // choose_n is commented out), keeps it whatever compute_mp_satisfied says, and reports that value: so
  // does this code, in mp_bytes_on_ring_links.
  const auto chosen = choose_geometric(totient_strides(n, n), t.dp_degree / 2);
  for (int s : chosen) {
    t.strides.push_back(s);
    t.strides.push_back(n - s);  // the same ring, walked the other way
  }
  std::sort(t.strides.begin(), t.strides.end());
  t.mp_bytes_on_ring_links = mp_on_rings(in, t.strides);

  add_ring_circuits(t, chosen, n);
  if (t.mp_degree > 0) add_mp_matchings(t, in, n);
  fill_neighbours(t, n);

  spec::FlatOcsSpec platform;
  platform.servers = n;
  platform.nic_ports = in.degree;
  platform.ocs_count = in.degree;
  platform.ocs_ports = in.ocs_ports;
  net::check_flat_ocs(platform, t.circuits);  // Eq. (7)-(10): one port per server on each OCS
  return t;
}

}  // namespace odcn::sched
