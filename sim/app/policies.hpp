#pragma once
// Wiring (the only place that pairs a controller with the engine): TDM-4's jobs become task graphs and run
// under the controller of their policy.
#include <vector>

#include "engine/simulation.hpp"
#include "sched/plan.hpp"
#include "workload/job.hpp"

namespace odcn::app {

/// Policy `static`: every job runs `iterations` iterations on the plan's circuits.
trace::RunRecord run_static_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                   const sched::StaticPlan& plan, int iterations,
                                   const engine::EngineOptions& options = {});

/// Policies `tdm4`, `aggregate`, `tdm4-ilp`: `rounds` rounds of the plan's four stages.
trace::RunRecord run_tdm_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                const sched::TdmPlan& plan, int rounds, const engine::EngineOptions& options = {});

}  // namespace odcn::app
