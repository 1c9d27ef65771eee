#pragma once
// Traffic at pod granularity: the flows between pods that cross the OCS and the bytes each pod exchanges with its
// ToR, all starting together. TDM-4's traffic model (Tang, Chen, Zhu, Eq. (4)-(5), systems/tdm4/traffic.hpp)
// produces it, and a controller may hand it to the engine as a collective's routing (policy/controller.hpp).
#include <vector>

#include "core/units.hpp"

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

}  // namespace odcn::workload
