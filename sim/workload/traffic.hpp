#pragma once
#include <map>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "workload/job.hpp"

namespace odcn::workload {

/// Bytes one pod sends to another pod in one communication phase (crosses the OCS).
struct PodFlow {
  int src = 0;
  int dst = 0;
  Bytes bytes = 0;
};

/// Bytes a pod's GPUs exchange with their ToR in one phase (D_i of Eq. 2, crosses the ToR ↔ server link).
struct PodVolume {
  int pod = 0;
  Bytes bytes = 0;
};

struct PhaseTraffic {
  std::vector<PodFlow> flows;  ///< sorted by (src, dst), src != dst, bytes > 0
  std::vector<PodVolume> tor;  ///< sorted by pod, bytes > 0
  Bytes flow_bytes() const;
  Bytes tor_bytes() const;
};

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
