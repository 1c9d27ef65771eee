#include "sched/stage_demand.hpp"

#include <algorithm>

#include "sched/ring.hpp"

namespace odcn::sched {

using workload::JobType;

TrafficCache::TrafficCache(const std::vector<workload::Job>& jobs) : jobs_(&jobs) {
  for (int t = 0; t < 2; ++t) fixed_[t].reserve(jobs.size());
  for (const auto& j : jobs) {
    fixed_[0].push_back(workload::fixed_phase_traffic(j, 0));
    fixed_[1].push_back(j.type == JobType::ps ? workload::fixed_phase_traffic(j, 1) : fixed_[0].back());
    members_.push_back(j.type == JobType::rar ? workload::master_pods(j) : std::vector<int>{});
  }
}

const workload::PhaseTraffic& TrafficCache::fixed(int id, int phase) const {
  return fixed_[phase][static_cast<std::size_t>(id)];
}

namespace {

/// Adds one job's traffic. Both directions of a pair are summed first and added once, so that a phase and
/// its transpose (PS push and pull) give bit-identical loads.
void add_traffic(GroupDemand& d, int first_pod, const workload::PhaseTraffic& t) {
  const auto& flows = t.flows;  // sorted by (src, dst)
  auto reverse_of = [&](const workload::PodFlow& f) -> const workload::PodFlow* {
    const auto it = std::lower_bound(flows.begin(), flows.end(), f, [](const auto& x, const auto& y) {
      return x.src != y.dst ? x.src < y.dst : x.dst < y.src;
    });
    return it != flows.end() && it->src == f.dst && it->dst == f.src ? &*it : nullptr;
  };
  for (const auto& f : flows) {
    const workload::PodFlow* r = reverse_of(f);
    if (r && f.src > f.dst) continue;  // counted with its reverse
    d.add_flow(f.src - first_pod, f.dst - first_pod, r ? f.bytes + r->bytes : f.bytes);
  }
  for (const auto& v : t.tor) d.tor_load[static_cast<std::size_t>(v.pod - first_pod)] += v.bytes;
}

}  // namespace

GroupStage group_stage_demand(const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
                              const TrafficCache& cache) {
  GroupStage gs{GroupDemand(fabric.pods_per_group()), {}};
  const int first = fabric.first_pod(group);
  for (int id : job_ids)  // Alg. 2 lines 2-4
    if (cache.job(id).type != JobType::rar) add_traffic(gs.demand, first, cache.fixed(id, phase));
  for (int id : job_ids) {  // Alg. 2 lines 5-8
    if (cache.job(id).type != JobType::rar) continue;
    const auto& d = gs.demand;
    const auto& members = cache.ring_members(id);
    const std::size_t m = members.size();
    std::vector<char> linked(m * m, 0);
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b)
        if (a != b) linked[a * m + b] = d.linked[static_cast<std::size_t>(d.local_pair(members[a] - first, members[b] - first))];
    Arcs ring = form_ring(members, linked);
    add_traffic(gs.demand, first, cache.fixed(id, phase));  // gathers and ToR volumes
    for (const auto& [a, b] : ring) gs.demand.add_flow(a - first, b - first, workload::ring_edge_bytes(cache.job(id)));
    gs.rings.emplace_back(id, std::move(ring));
  }
  return gs;
}

workload::PhaseTraffic job_traffic(const TrafficCache& cache, int id, int phase, const Arcs& ring) {
  const auto& j = cache.job(id);
  return j.type == JobType::rar ? workload::ring_traffic(j, ring) : cache.fixed(id, phase);
}

TopologyLimits limits_of(const net::Fabric& fabric) {
  return {fabric.ports_per_pod(), fabric.port_bytes_per_s(), fabric.tor_bytes_per_s()};
}

}  // namespace odcn::sched
