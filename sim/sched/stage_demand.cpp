#include "sched/stage_demand.hpp"

#include <algorithm>
#include <map>

#include "sched/ring.hpp"

namespace odcn::sched {

using workload::JobType;

namespace {

/// A job's phase traffic in group-local indices, with both directions of a pair summed.
TrafficCache::LocalLoad to_local(const workload::PhaseTraffic& t, int first_pod, const GroupDemand& shape) {
  TrafficCache::LocalLoad l;
  std::map<int, Bytes> pairs;
  for (const auto& f : t.flows) pairs[shape.local_pair(f.src - first_pod, f.dst - first_pod)] += f.bytes;
  l.pairs.assign(pairs.begin(), pairs.end());
  for (const auto& v : t.tor) l.tor.emplace_back(v.pod - first_pod, v.bytes);
  return l;
}

/// Adds (sign = +1) or removes (sign = -1) one job's load. Every byte count is positive, so a pair is linked
/// exactly while its load is.
void add_local(GroupDemand& d, const TrafficCache::LocalLoad& l, int sign = 1) {
  for (const auto& [p, bytes] : l.pairs) {
    auto& load = d.pair_load[static_cast<std::size_t>(p)];
    load += sign * bytes;
    d.linked[static_cast<std::size_t>(p)] = load > 0;
  }
  for (const auto& [pod, bytes] : l.tor) d.tor_load[static_cast<std::size_t>(pod)] += sign * bytes;
}

}  // namespace

TrafficCache::TrafficCache(const std::vector<workload::Job>& jobs, const net::Fabric& fabric)
    : jobs_(&jobs), ring_memo_(jobs.size()) {
  const GroupDemand shape(fabric.pods_per_group());
  for (int t = 0; t < 2; ++t) {
    fixed_[t].reserve(jobs.size());
    local_[t].reserve(jobs.size());
  }
  for (const auto& j : jobs) {
    fixed_[0].push_back(workload::fixed_phase_traffic(j, 0));
    fixed_[1].push_back(j.type == JobType::ps ? workload::fixed_phase_traffic(j, 1) : fixed_[0].back());
    for (int t = 0; t < 2; ++t) local_[t].push_back(to_local(fixed_[t].back(), fabric.first_pod(j.group), shape));
    members_.push_back(j.type == JobType::rar ? workload::master_pods(j) : std::vector<int>{});
    ring_edge_.push_back(j.type == JobType::rar ? workload::ring_edge_bytes(j) : 0.0);
  }
}

const workload::PhaseTraffic& TrafficCache::fixed(int id, int phase) const {
  return fixed_[phase][static_cast<std::size_t>(id)];
}

const Arcs& TrafficCache::ring(int id, const std::vector<char>& linked) const {
  RingMemo& memo = ring_memo_[static_cast<std::size_t>(id)];
  if (!memo.valid || memo.linked != linked) {
    memo.ring = form_ring(ring_members(id), linked);
    memo.linked = linked;
    memo.valid = true;
  }
  return memo.ring;
}

const Arcs& GroupStage::ring_of(int id) const {
  static const Arcs none;
  for (const auto& [rid, arcs] : rings)
    if (rid == id) return arcs;
  return none;
}

GroupDemand fixed_demand(const net::Fabric& fabric, const std::vector<int>& job_ids, int phase,
                         const TrafficCache& cache) {
  GroupDemand d(fabric.pods_per_group());
  for (int id : job_ids)  // Alg. 2 lines 2-4
    if (cache.job(id).type != JobType::rar) add_local(d, cache.local(id, phase));
  return d;
}

void shift_fixed(GroupDemand& d, const TrafficCache& cache, int id, int phase, int sign) {
  add_local(d, cache.local(id, phase), sign);
}

void add_rings(GroupStage& gs, const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
               const TrafficCache& cache) {
  const int first = fabric.first_pod(group);
  std::vector<char> linked;
  for (int id : job_ids) {  // Alg. 2 lines 5-8
    if (cache.job(id).type != JobType::rar) continue;
    auto& d = gs.demand;
    const auto& members = cache.ring_members(id);
    const std::size_t m = members.size();
    linked.assign(m * m, 0);
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b)
        if (a != b) linked[a * m + b] = d.linked[static_cast<std::size_t>(d.local_pair(members[a] - first, members[b] - first))];
    const Arcs& ring = cache.ring(id, linked);
    add_local(d, cache.local(id, phase));  // gathers and ToR volumes
    for (const auto& [a, b] : ring) d.add_flow(a - first, b - first, cache.ring_edge(id));
    gs.rings.emplace_back(id, ring);
  }
}

GroupStage group_stage_demand(const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
                              const TrafficCache& cache) {
  GroupStage gs{fixed_demand(fabric, job_ids, phase, cache), {}};
  add_rings(gs, fabric, group, job_ids, phase, cache);
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
