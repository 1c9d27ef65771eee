// TDM4's plan for a grouping: Alg. 2 per pod group and stage, idle compute, and each stage's timing.
#include "systems/tdm4/tdm4_policy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <set>

#include <fmt/format.h>

#include "systems/tdm4/stage_demand.hpp"

#include "systems/tdm4/tdm4_round.hpp"

namespace odcn::sched {

using workload::Job;
using workload::JobType;
using namespace tdm4_internal;

namespace {

// Which pod group, and which pair or ToR link in it, gives the stage its communication time, and the
// fractional optimum of Eq. (2) under Eq. (6) for the same demand (stages.csv).
void explain(StagePlan& st, const net::Fabric& fabric, int g, const GroupDemand& d, const GroupResult& r) {
  st.comm_lower_bound_s =
      std::max(st.comm_lower_bound_s, fractional_comm_bound(d, limits_of(fabric), fabric.spec().ports_per_oxc));
  if (st.bound_group >= 0 && r.comm <= st.comm_s) return;
  const Bottleneck b = bottleneck_of(d, r.circuits, limits_of(fabric));
  const int first = fabric.first_pod(g);
  st.bound_group = g;
  if (b.pair >= 0) {
    const auto [x, y] = d.pair_ends(b.pair);
    st.bound_at = fmt::format("pods {}-{}", first + x, first + y);
  } else {
    st.bound_at = b.tor_pod >= 0 ? fmt::format("tor {}", first + b.tor_pod) : "";
  }
}

/// A pod group's stage on the given rings and circuits (PlanOverrides).
void overridden_stage(StagePlan& st, GroupResult& rs, const net::Fabric& fabric, const TrafficCache& cache, int g,
                      const std::vector<int>& ids, const PlanOverrides& overrides) {
  // The given rings and circuits; the communication time is Eq. (2) on them.
  GroupDemand d(fabric.pods_per_group());
  const int first = fabric.first_pod(g);
  for (int id : ids) {
    st.work.push_back({id, Activity::communicate, st.t, 0,
                       job_traffic(cache, id, st.t, overrides.ring_of_job[static_cast<std::size_t>(id)])});
    for (const auto& f : st.work.back().traffic.flows) d.add_flow(f.src - first, f.dst - first, f.bytes);
    for (const auto& v : st.work.back().traffic.tor) d.tor_load[static_cast<std::size_t>(v.pod - first)] += v.bytes;
  }
  const auto& all = overrides.circuits_of_group[static_cast<std::size_t>(st.k)];
  rs.circuits.assign(all.begin() + g * fabric.pairs_per_group(), all.begin() + (g + 1) * fabric.pairs_per_group());
  for (std::size_t p = 0; p < d.pair_load.size(); ++p)
    if (d.pair_load[p] > 0)
      rs.comm = std::max(rs.comm, d.pair_load[p] / (rs.circuits[p] * fabric.port_bytes_per_s()));
  for (Bytes b : d.tor_load) rs.comm = std::max(rs.comm, b / fabric.tor_bytes_per_s());
  explain(st, fabric, g, d, rs);
  st.comm_s = std::max(st.comm_s, rs.comm);
}

/// Alg. 2 for pod group g in each stage; a pod group idle in a stage holds its previous circuits.
void plan_group(TdmPlan& plan, const net::Fabric& fabric, const TrafficCache& cache, int g,
                const std::array<std::vector<int>, 2>& members, const PlanOverrides* overrides) {
  StageResults r;
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    const auto& ids = members[static_cast<std::size_t>(st.k)];
    r[s].circuits.assign(static_cast<std::size_t>(fabric.pairs_per_group()), 0);
    if (ids.empty()) continue;
    r[s].idle = false;
    if (overrides) {
      overridden_stage(st, r[s], fabric, cache, g, ids, *overrides);
      continue;
    }
    const GroupStage gs = group_stage_demand(fabric, g, ids, st.t, cache);
    const GroupTopology topo = build_topology(gs.demand, limits_of(fabric));
    r[s].comm = topo.t_comm;
    r[s].circuits = topo.circuits;
    explain(st, fabric, g, gs.demand, r[s]);
    st.comm_s = std::max(st.comm_s, topo.t_comm);
    for (int id : ids) st.work.push_back({id, Activity::communicate, st.t, 0, job_traffic(cache, id, st.t, gs.ring_of(id))});
  }
  const auto held = held_circuits(r);
  for (int s = 0; s < kStages; ++s)
    std::copy(held[static_cast<std::size_t>(s)]->begin(), held[static_cast<std::size_t>(s)]->end(),
              plan.stages[static_cast<std::size_t>(s)].config.circuits.begin() + g * fabric.pairs_per_group());
}

/// Each stage's jobs that compute (train or aggregate) while the others communicate, and Eq. (3).
void add_idle_compute(TdmPlan& plan, const std::vector<Job>& jobs, const std::vector<int>& group_of_job) {
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    for (const auto& j : jobs) {
      const int grp = group_of_job[static_cast<std::size_t>(j.id)];
      if (grp == st.k) continue;
      const Seconds c = idle_compute_s(j, grp, s);
      st.work.push_back({j.id, idle_activity(j, grp, s), 0, c, {}});
      st.compute_s = std::max(st.compute_s, c);
    }
    std::sort(st.work.begin(), st.work.end(), [](const StageWork& x, const StageWork& y) { return x.job < y.job; });
    st.seed_s = std::max(st.comm_s, st.compute_s);  // Eq. (3)
  }
}

void time_stages(TdmPlan& plan, const net::Fabric& fabric) {
  // ε (Alg. 1 line 3) and the engine's view: only changed circuits stall, each for δ.
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    const auto& prev = plan.stages[static_cast<std::size_t>(prev_stage(s))].config;
    st.circuits_changed = net::CircuitConfig::changed(prev, st.config);
    if (prev != st.config) plan.epsilon_s += fabric.reconfig_delay_s();
    std::vector<const StageWork*> work;
    for (const auto& w : st.work) work.push_back(&w);
    const StageTiming timing = time_stage(fabric, work, prev, st.config);  // its compute is st.compute_s
    st.predicted_s = timing.predicted;
    st.bound = timing.bound;
    plan.round_s += st.predicted_s;
    plan.seed_round_s += st.seed_s;
  }
}

}  // namespace

TdmPlan plan_for_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs,
                          const std::vector<int>& group_of_job, const std::string& policy,
                          const PlanOverrides* overrides) {
  TdmPlan plan;
  plan.policy = policy;
  plan.group_of_job = group_of_job;
  const TrafficCache cache(jobs, fabric);
  std::vector<std::array<std::vector<int>, 2>> members(static_cast<std::size_t>(fabric.groups()));
  for (const auto& j : jobs) members[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(group_of_job[static_cast<std::size_t>(j.id)])].push_back(j.id);
  // Alg. 2 per pod group and stage; a pod group idle in a stage holds its previous circuits.
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    st.index = s;
    st.k = stage_k(s);
    st.t = stage_t(s);
    st.config = fabric.empty_config();
  }
  for (int g = 0; g < fabric.groups(); ++g)
    plan_group(plan, fabric, cache, g, members[static_cast<std::size_t>(g)], overrides);
  add_idle_compute(plan, jobs, group_of_job);
  time_stages(plan, fabric);
  plan.seed_round_s += plan.epsilon_s;  // Eq. (1) + ε
  return plan;
}

}  // namespace odcn::sched
