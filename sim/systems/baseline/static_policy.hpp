#pragma once
#include <vector>

#include "net/fabric.hpp"
#include "systems/tdm4/plan.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::sched {

/// Policy `static`. Demand is each pair's bytes summed over all jobs and phases; RAR rings come from Alg. 3;
/// circuits: one per pair with demand, then each remaining port pair at the longest transfer that can still
/// get a circuit (Fill::all_ports), until none can.
/// Raises ConfigError when some pod needs more circuits than it has ports.
StaticPlan plan_static(const net::Fabric& fabric, const std::vector<workload::Job>& jobs);

}  // namespace odcn::sched
