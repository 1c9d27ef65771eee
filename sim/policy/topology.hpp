#pragma once
#include <limits>
#include <utility>
#include <vector>

#include "core/units.hpp"

namespace odcn::sched {

/// Demand of one OXC pod group in one communication stage, in group-local pod indices 0..n-1.
/// Pair loads are unordered (D_ij + D_ji): circuits are half-duplex and shared by both directions.
struct GroupDemand {
  int n = 0;
  std::vector<Bytes> pair_load;   ///< by local_pair(a, b)
  std::vector<char> linked;       ///< LB: 1 where a pair has demand (or a RAR ring arc)
  std::vector<Bytes> tor_load;    ///< D_i: ToR ↔ server bytes per pod
  int linked_pairs = 0;           ///< how many entries of `linked` are 1 (all of them: every pair is linked)

  explicit GroupDemand(int pods = 0);
  int local_pair(int a, int b) const;  ///< a != b, any order
  std::pair<int, int> pair_ends(int p) const;  ///< the pods (a < b) of local pair p
  void add_flow(int a, int b, Bytes bytes);
};

/// Result of Alg. 2 for one group: circuits per local pair and the times of Eq. (2).
struct GroupTopology {
  std::vector<int> circuits;
  Seconds t_oxc = 0;   ///< max over pairs of load / (L·B)
  Seconds t_tor = 0;   ///< max over pods of D_i / B_tor
  Seconds t_comm = 0;  ///< Eq. (2): max(t_oxc, t_tor); +inf when the initial topology breaks Eq. (6)
  bool feasible = true;
};

struct TopologyLimits {
  int ports_per_pod = 0;
  BytesPerSecond port_bytes_per_s = 0;
  BytesPerSecond tor_bytes_per_s = 0;
};

/// How circuits beyond the first per demand pair are added.
enum class Fill {
  /// Algorithm 2 of seed 001, lines 11-17: add at the pair with the longest completion time until the ToR
  /// time dominates or that pair has no free port at either end.
  alg2,
  /// Policy static: add at the longest pair that can still grow, until no pair with demand can. Jobs are
  /// not synchronised there, so a circuit that shortens any transfer is worth its port.
  all_ports,
};

/// Start with one circuit on each pair with demand (LB, Alg. 2 line 9), then fill as `fill` says. Ties go to
/// the lowest pair index, so the result is deterministic.
GroupTopology build_topology(const GroupDemand& d, const TopologyLimits& limits, Fill fill = Fill::alg2);

/// Where a pod group's Eq. (2) time comes from with these circuits: the slowest pair (local index), or the
/// busiest ToR link (local pod) when it is strictly slower than every pair.
struct Bottleneck {
  Seconds t = 0;
  int pair = -1;
  int tor_pod = -1;
};
Bottleneck bottleneck_of(const GroupDemand& d, const std::vector<int>& circuits, const TopologyLimits& limits);

/// The fractional optimum of Eq. (2) under Eq. (6): the least T for which real circuit counts L_ij ≥ D_ij/(T·B)
/// fit every pod's port budget (Σ_j L_ij ≤ ports_per_pod) and the OXC's `oxc_ports` (Σ 2·L_ij), with the ToR
/// times as a floor. In closed form: max(max_i Σ_j D_ij / (ports_per_pod·B), 2·Σ D_ij / (oxc_ports·B),
/// max_i D_i / B_tor). A lower bound on Alg. 2's integer allocation (and on any other).
Seconds fractional_comm_bound(const GroupDemand& d, const TopologyLimits& limits, int oxc_ports);

constexpr Seconds kInfeasible = std::numeric_limits<double>::infinity();

}  // namespace odcn::sched
