#pragma once
#include <map>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "graph/pod_traffic.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::workload {

/// Master-node counts and intra-unit cross-pod traffic of a job (Table I: PN_i^n / AN_i^n, RN_n, FI_{i,j}^n).
struct UnitLayout {
  std::map<int, int> masters;                   ///< pod → number of unit masters in it
  std::map<std::pair<int, int>, Bytes> gather;  ///< FI: (pod of a GPU, pod of its unit master) → bytes
};
UnitLayout unit_layout(const Job& job);

/// RN_n: the pods holding at least one unit master, ascending. A RAR ring runs over these pods.
std::vector<int> master_pods(const Job& job);

/// Bytes carried by each inter-pod edge of a RAR ring. Eq. (4) writes F·U; odcnsim uses the exact
/// ring all-reduce volume 2(E−1)/E · F·U, where E is the number of units (reduce-scatter + all-gather).
Bytes ring_edge_bytes(const Job& job);

/// Eq. (4)–(5) for PS (phase 0 = push, 1 = pull) and AllToAll (phase 0). RAR jobs: use ring_traffic.
PhaseTraffic fixed_phase_traffic(const Job& job, int phase);

/// Eq. (4)–(5) for a RAR job whose ring (directed pod arcs, from Alg. 3) is given.
PhaseTraffic ring_traffic(const Job& job, const std::vector<std::pair<int, int>>& ring_arcs);

}  // namespace odcn::workload
