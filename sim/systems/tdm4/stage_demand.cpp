#include "systems/tdm4/stage_demand.hpp"

#include <algorithm>
#include <map>

#include "policy/ring.hpp"

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
    const char now = load > 0;
    d.linked_pairs += now - d.linked[static_cast<std::size_t>(p)];
    d.linked[static_cast<std::size_t>(p)] = now;
  }
  for (const auto& [pod, bytes] : l.tor) d.tor_load[static_cast<std::size_t>(pod)] += sign * bytes;
}

}  // namespace

TrafficCache::TrafficCache(const std::vector<workload::Job>& jobs, const net::Fabric& fabric)
    : jobs_(&jobs) {
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
    const auto& m = members_.back();
    const int first = fabric.first_pod(j.group);
    std::vector<int> pairs(m.size() * m.size(), -1);
    for (std::size_t a = 0; a < m.size(); ++a)
      for (std::size_t b = 0; b < m.size(); ++b)
        if (a != b) pairs[a * m.size() + b] = shape.local_pair(m[a] - first, m[b] - first);
    member_pairs_.push_back(std::move(pairs));
    // The ring Alg. 3 forms when every pair among the members is linked, and the job's whole load with it.
    if (j.type == JobType::rar) {
      full_ring_.push_back(form_ring(m, std::vector<char>(m.size() * m.size(), 1)));
      for (int t = 0; t < 2; ++t) {
        std::map<int, Bytes> pairs_load;
        for (const auto& [p, bytes] : local_[t].back().pairs) pairs_load[p] += bytes;
        for (const auto& [a, b] : full_ring_.back()) pairs_load[shape.local_pair(a - first, b - first)] += ring_edge_.back();
        full_local_[t].push_back({{pairs_load.begin(), pairs_load.end()}, local_[t].back().tor});
      }
    } else {
      full_ring_.emplace_back();
      for (int t = 0; t < 2; ++t) full_local_[t].emplace_back();
    }
  }
}

const workload::PhaseTraffic& TrafficCache::fixed(int id, int phase) const {
  return fixed_[phase][static_cast<std::size_t>(id)];
}

namespace {
thread_local int memo_slot = 0;
}  // namespace

void TrafficCache::use_slot(int slot) { memo_slot = slot; }

const Arcs& TrafficCache::ring(int id, const std::vector<char>& linked) const {
  auto& memos = ring_memo_[memo_slot];
  if (memos.empty()) memos.resize(jobs_->size());
  RingMemo& memo = memos[static_cast<std::size_t>(id)];
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
  add_ring_loads(gs.demand, fabric, group, job_ids, phase, cache, &gs.rings);
}

int add_ring_loads(GroupDemand& d, const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
                   const TrafficCache& cache, std::vector<std::pair<int, Arcs>>* rings) {
  const int first = fabric.first_pod(group);
  const int all_pairs = static_cast<int>(d.linked.size());
  int saturated_after = d.linked_pairs == all_pairs ? -1 : kNeverSaturated;
  std::vector<char> linked;
  for (int id : job_ids) {  // Alg. 2 lines 5-8
    if (cache.job(id).type != JobType::rar) continue;
    if (d.linked_pairs == all_pairs) {
      // Every pair of the pod group is linked, so Alg. 3 sees all its members linked: the full ring, whose
      // load (gathers, ToR volumes and ring arcs, summed per pair) is precomputed. Whole byte counts: exact.
      add_local(d, cache.full_local(id, phase));
      if (rings) rings->emplace_back(id, cache.full_ring(id));
      continue;
    }
    const std::size_t m = cache.ring_members(id).size();
    const auto& pairs = cache.member_pairs(id);
    linked.assign(m * m, 0);
    for (std::size_t x = 0; x < m * m; ++x)
      if (pairs[x] >= 0) linked[x] = d.linked[static_cast<std::size_t>(pairs[x])];
    const Arcs& ring = cache.ring(id, linked);
    add_local(d, cache.local(id, phase));  // gathers and ToR volumes
    for (const auto& [a, b] : ring) d.add_flow(a - first, b - first, cache.ring_edge(id));
    if (rings) rings->emplace_back(id, ring);
    if (d.linked_pairs == all_pairs) saturated_after = id;
  }
  return saturated_after;
}

void shift_full(GroupDemand& d, const TrafficCache& cache, int id, int phase, int sign) {
  add_local(d, cache.full_local(id, phase), sign);
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
