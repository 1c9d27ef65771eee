#include "systems/baseline/static_policy.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "systems/tdm4/stage_demand.hpp"

namespace odcn::sched {

StaticPlan plan_static(const net::Fabric& fabric, const std::vector<workload::Job>& jobs) {
  const TrafficCache cache(jobs, fabric);
  StaticPlan plan;
  plan.config = fabric.empty_config();
  plan.job_phases.resize(jobs.size());
  std::vector<std::vector<int>> by_group(static_cast<std::size_t>(fabric.groups()));
  for (const auto& j : jobs) by_group[static_cast<std::size_t>(j.group)].push_back(j.id);
  for (int g = 0; g < fabric.groups(); ++g) {
    const auto& ids = by_group[static_cast<std::size_t>(g)];
    if (ids.empty()) continue;
    // Phase 0 fixes every RAR ring; PS pulls are added on top (RAR/AllToAll have a single phase).
    GroupStage gs = group_stage_demand(fabric, g, ids, 0, cache);
    const int first = fabric.first_pod(g);
    for (int id : ids) {
      const auto& j = jobs[static_cast<std::size_t>(id)];
      for (int ph = 0; ph < j.comm_phases(); ++ph)
        plan.job_phases[static_cast<std::size_t>(id)].push_back(job_traffic(cache, id, ph, gs.ring_of(id)));
      if (j.type == workload::JobType::ps) shift_fixed(gs.demand, cache, id, 1, +1);  // the pull, too
    }
    const GroupTopology topo = build_topology(gs.demand, limits_of(fabric), Fill::all_ports);
    if (!topo.feasible) {
      std::vector<int> need(static_cast<std::size_t>(fabric.pods_per_group()), 0);
      for (int a = 0; a < gs.demand.n; ++a)
        for (int b = a + 1; b < gs.demand.n; ++b)
          if (gs.demand.linked[static_cast<std::size_t>(gs.demand.local_pair(a, b))]) {
            need[static_cast<std::size_t>(a)]++;
            need[static_cast<std::size_t>(b)]++;
          }
      for (int a = 0; a < gs.demand.n; ++a)
        if (need[static_cast<std::size_t>(a)] > fabric.ports_per_pod())
          throw ConfigError(fmt::format("port budget overflow: pod {} exchanges traffic with {} pods but has only "
                                        "{} OCS ports",
                                        first + a, need[static_cast<std::size_t>(a)], fabric.ports_per_pod()));
    }
    for (std::size_t p = 0; p < topo.circuits.size(); ++p)
      plan.config.circuits[static_cast<std::size_t>(g * fabric.pairs_per_group()) + p] = topo.circuits[p];
  }
  fabric.check(plan.config);
  return plan;
}

}  // namespace odcn::sched
