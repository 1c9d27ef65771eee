#pragma once
// TopoOpt's TopologyFinder as its released code implements it (Wang et al., "TopoOpt: Co-optimizing Network
// Topology and Parallelization Strategy for Distributed Training Jobs", NSDI 2023; class SpMulMat in
// src/runtime/network.cc of FlexNet, hipersys-team/FlexFlow @ b1526834). TOPO-X (Hu et al., "TOPO-X:
// Co-optimize Flow Scheduling, Topology, and ML Training Parallelism") compares against it: one static
// topology of degree d_S, chosen once from the traffic of one training iteration, on a flat OCS layer where
// server port r is cabled to OCS r. The steps, numbered as in docs/topox.md ("TopoOpt"), as read from the
// released code:
//
//   1. degree split: d_S = dp_degree (ring links for data parallelism) + mp_degree (matchings for the rest);
//   2.-3. TotientPerms rings: for the DP groups that span all N servers, dp_degree/2 ring strides coprime with
//      N, chosen geometrically between 1 and N-1; each stride s is a bidirectional ring i <-> i+s (mod N);
//   4. DP groups that do not span N get no links of their own (see TopologyFinderInput::dp_groups);
//   5. MP links: mp_degree maximum-weight perfect matchings on the remaining model-parallel demand;
//   6. routing: shortest paths (hop count) over the result, spread over equal-cost next hops.
//
// Pure code: no SimGrid. The result is port-level (which OCS holds which circuit) and passes
// net::check_flat_ocs for a platform of N servers, d_S OCSes and d_OCS ports per OCS.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/port_circuits.hpp"

namespace odcn::sched {

/// One data-parallel group: a ring all-reduce of `bytes` among `members` every iteration.
struct DpGroup {
  std::vector<int> members;
  Bytes bytes = 0;
};

/// Step 1. `released`: dp_degree = d, mp_degree = 0, the split in TopoOpt's released code, which
/// gives its published numbers. `proportional`: the split the released code carries commented out (see
/// topology_finder).
enum class DegreeSplit { released, proportional };
/// The variant of policy topoopt (topoopt:released, topoopt:proportional) as a split; released otherwise.
DegreeSplit parse_degree_split(const std::string& variant);

struct TopologyFinderInput {
  int servers = 0;    ///< N
  int degree = 0;     ///< d_S, also the number of OCSes: server port r is cabled to OCS r
  int ocs_ports = 0;  ///< d_OCS; every OCS holds a perfect matching, so it needs >= N
  DegreeSplit split = DegreeSplit::released;
  /// Only groups that span all N servers shape the rings. A smaller group gets no ring of its own (TopoOpt
  /// gives rings to groups of size g | N laid out as residue classes mod N/g, FlexFlow's placement, and
  /// otherwise multi-hop "coin change" rings over the chosen strides, step 4): its ring all-reduce must be
  /// lowered by the caller onto TopoOptTopology::route() between consecutive members.
  std::vector<DpGroup> dp_groups;
  std::map<std::pair<int, int>, Bytes> mp_demand;  ///< directed (src, dst) bytes of model-parallel transfers
};

struct TopoOptTopology {
  int dp_degree = 0, mp_degree = 0;
  /// Every ring stride used, with its reverse N-s (links are bidirectional), ascending.
  std::vector<int> strides;
  /// Port-level: the ring of the i-th stride of the geometric choice (ascending, before the reverses are
  /// added: 1, 3, 5, 9 for N = 16, d_S = 8) alternates between OCSes 2i and 2i+1; then the MP matchings, one
  /// per OCS, on OCSes dp_degree .. d_S-1.
  std::vector<net::PortCircuit> circuits;
  /// Per server, its neighbours over the circuits, sorted, with multiplicity (a multigraph adjacency).
  std::vector<std::vector<int>> neighbours;
  /// compute_mp_satisfied of the chosen rings (step 3): model-parallel bytes whose source and
  /// destination are joined by a ring link.
  Bytes mp_bytes_on_ring_links = 0;

  int servers() const { return static_cast<int>(neighbours.size()); }
  /// Circuits joining servers a and b (either way). Like route(), raises ConfigError for a server that does
  /// not exist.
  int circuits_between(int a, int b) const;
  /// Servers from src to dst inclusive on a shortest path (hop count) of the static topology; {src} when
  /// src == dst, empty when dst is unreachable. Among the neighbours one hop closer to dst (distinct servers,
  /// ascending) each step takes the one at index (src * N + dst) mod count: deterministic, and spread over
  /// flows like ECMP's hashing of a flow's addresses. Parallel circuits between two servers count once.
  std::vector<int> route(int src, int dst) const;
  /// The longest shortest path in hops; -1 when some server cannot reach another.
  int diameter() const;
};

/// Steps 1-5. Raises ConfigError (core/error.hpp) with the reason when no such topology exists on
/// the flat OCS layer (odd N, odd ring degree, too few ports per OCS, more strides asked than exist, bad
/// input).
TopoOptTopology topology_finder(const TopologyFinderInput& in);

/// TotientPerms (step 3, construct_candidate_jumps): the ring strides (N/g)k, k in [1, g] with
/// gcd(k, g) = 1, of groups of size g | N; ascending.
std::vector<int> totient_strides(int servers, int group_size);

/// The geometric choice (choose_n_geo): `count` distinct candidates, the first at candidates[0], then the
/// first unused candidate >= the current value, which grows by ratio (last/first)^(1/count) each time.
/// Ascending. Raises ConfigError when fewer than `count` candidates exist.
std::vector<int> choose_geometric(const std::vector<int>& candidates, int count);

/// A maximum-weight perfect matching of the complete graph on n vertices (n even, n >= 2), weight[i][j] =
/// weight[j][i] >= 0 for i != j: mate[v] for every vertex. Edmonds' blossom algorithm with integer duals,
/// O(n^3) (the structure of J. van Rantwijk's mwmatching, after Z. Galil, "Efficient Algorithms for Finding
/// Maximum Matching in Graphs", ACM Computing Surveys 1986); perfection is forced by adding a constant larger
/// than every non-perfect matching's possible gain to every edge. Weights must stay below 2^40.
std::vector<int> max_weight_perfect_matching(const std::vector<std::vector<std::int64_t>>& weight);

/// A maximum-weight matching of the graph on n vertices with `edges` (weights in (0, 2^40), no two edges on the same
/// pair): mate[v], or -1 for a vertex left unmatched. The same blossom algorithm, without forcing perfection.
struct WeightedEdge {
  int i = 0, j = 0;
  std::int64_t w = 0;
};
std::vector<int> max_weight_matching(int n, const std::vector<WeightedEdge>& edges);

}  // namespace odcn::sched
