#include "graph/pod_traffic.hpp"

namespace odcn::workload {

Bytes PhaseTraffic::flow_bytes() const {
  Bytes b = 0;
  for (const auto& f : flows) b += f.bytes;
  return b;
}

Bytes PhaseTraffic::tor_bytes() const {
  Bytes b = 0;
  for (const auto& v : tor) b += v.bytes;
  return b;
}

}  // namespace odcn::workload
