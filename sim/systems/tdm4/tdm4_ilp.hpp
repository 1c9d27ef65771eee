#pragma once
#include <vector>

#include "net/fabric.hpp"
#include "systems/tdm4/plan.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::sched {

struct IlpOptions {
  int max_jobs = 10;           ///< larger instances are refused
  double time_limit_s = 60;    ///< CBC wall-clock limit
};

/// Policy `tdm4-ilp`: the ILP of seed 001 §II.D, linearised, solved exactly by CBC. See docs/ilp.md.
/// Raises ConfigError for instances above `max_jobs` jobs or spanning more than one pod group.
TdmPlan plan_tdm4_ilp(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, const IlpOptions& options);

}  // namespace odcn::sched
