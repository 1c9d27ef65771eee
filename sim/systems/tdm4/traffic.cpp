#include "systems/tdm4/traffic.hpp"

#include <cmath>

namespace odcn::workload {

UnitLayout unit_layout(const Job& job) {
  UnitLayout layout;
  const int u = job.gpus_per_unit;
  int position = 0;    // index of the next GPU in the job's pod-ordered GPU list
  int master_pod = -1;  // pod of the current unit's master
  for (const auto& [pod, gpus] : job.placement) {
    for (int g = 0; g < gpus; ++g, ++position) {
      if (position % u == 0) {
        master_pod = pod;
        layout.masters[pod] += 1;
      } else if (pod != master_pod) {
        layout.gather[{pod, master_pod}] += job.per_gpu_bytes;  // a member GPU sends its F to its master
      }
    }
  }
  return layout;
}

std::vector<int> master_pods(const Job& job) {
  std::vector<int> pods;
  for (const auto& [pod, n] : unit_layout(job).masters) pods.push_back(pod);
  return pods;
}

Bytes ring_edge_bytes(const Job& job) {
  const double e = job.units();
  return std::round(2.0 * (e - 1.0) / e * job.per_gpu_bytes * job.gpus_per_unit);
}

namespace {

/// The flows of a phase, and its ToR volumes: Eq. (5) (`tor_factor` × G_i·F) or, under the physical ToR
/// model, every byte of the flows out of and into each pod plus `local` (bytes that cross a pod's ToR without
/// leaving the pod).
PhaseTraffic finish(const Job& job, std::map<std::pair<int, int>, Bytes> flows, double tor_factor,
                    const std::map<int, Bytes>& local = {}) {
  PhaseTraffic t;
  for (const auto& [key, bytes] : flows)
    if (bytes > 0 && key.first != key.second) t.flows.push_back({key.first, key.second, bytes});
  if (job.tor == spec::TorModel::physical) {
    std::map<int, Bytes> through(local);
    for (const auto& f : t.flows) {
      through[f.src] += f.bytes;
      through[f.dst] += f.bytes;
    }
    for (const auto& [pod, bytes] : through)
      if (bytes > 0) t.tor.push_back({pod, bytes});
    return t;
  }
  for (const auto& [pod, gpus] : job.placement) {
    const Bytes b = std::round(gpus * job.per_gpu_bytes * tor_factor);  // Eq. (5)
    if (b > 0) t.tor.push_back({pod, b});
  }
  return t;
}

}  // namespace

PhaseTraffic fixed_phase_traffic(const Job& job, int phase) {
  const UnitLayout layout = unit_layout(job);
  std::map<std::pair<int, int>, Bytes> flows;
  const Bytes unit_bytes = job.per_gpu_bytes * job.gpus_per_unit;  // F_n · U_n
  switch (job.type) {
    case JobType::ps: {
      // Eq. (4): push: P_{i,I} = PN_i·F·U + FI_{i,I}; P_{i,m} = FI_{i,m}. Pull is the transpose.
      for (const auto& [pod, n] : layout.masters)
        if (pod != job.ps_pod) flows[{pod, job.ps_pod}] += n * unit_bytes;
      for (const auto& [key, bytes] : layout.gather) flows[key] += bytes;
      if (phase == 1) {
        std::map<std::pair<int, int>, Bytes> pull;
        for (const auto& [key, bytes] : flows) pull[{key.second, key.first}] += bytes;
        flows.swap(pull);
      }
      // Physical ToR: the server pod's own units send to (receive from) the server through its ToR too.
      std::map<int, Bytes> local;
      const auto own = layout.masters.find(job.ps_pod);
      if (own != layout.masters.end()) local[job.ps_pod] = own->second * unit_bytes;
      return finish(job, flows, 1.0, local);  // Eq. (5): P_i = G_i·F
    }
    case JobType::alltoall: {
      // Eq. (4): A_{i,j} = AN_i·AN_j·F·U + FI_{i,j}
      for (const auto& [a, na] : layout.masters)
        for (const auto& [b, nb] : layout.masters)
          if (a != b) flows[{a, b}] += static_cast<double>(na) * nb * unit_bytes;
      for (const auto& [key, bytes] : layout.gather) flows[key] += bytes;
      return finish(job, flows, 2.0 * (job.gpus_per_unit - 1));  // Eq. (5): A_i = 2·G_i·F·(U−1)
    }
    case JobType::rar:
      return ring_traffic(job, {});
  }
  return {};
}

PhaseTraffic ring_traffic(const Job& job, const std::vector<std::pair<int, int>>& ring_arcs) {
  const UnitLayout layout = unit_layout(job);
  std::map<std::pair<int, int>, Bytes> flows;
  const Bytes edge = ring_edge_bytes(job);
  for (const auto& arc : ring_arcs) flows[arc] += edge;  // Eq. (4): R_{i,j} = Ring_{i,j}·V + FI_{i,j}
  for (const auto& [key, bytes] : layout.gather) flows[key] += bytes;
  return finish(job, flows, 2.0);  // Eq. (5): R_i = 2·G_i·F
}

}  // namespace odcn::workload
