#pragma once
// Wiring (the only place that pairs a controller with the engine): TDM-4's jobs become task graphs and run
// under the controller of their policy.
#include <vector>

#include "engine/simulation.hpp"
#include "policy/graph_static.hpp"
#include "systems/tdm4/plan.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::app {

/// Policy `static`: every job runs `iterations` iterations on the plan's circuits.
trace::RunRecord run_static_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                   const sched::StaticPlan& plan, int iterations,
                                   const engine::EngineOptions& options = {});

/// Policies `tdm4`, `aggregate`, `tdm4-ilp`: the plan's four stages, round after round, until every job has
/// completed `iterations` iterations (besides a warm one, systems/tdm4/tdm_controller.hpp).
trace::RunRecord run_tdm_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                const sched::TdmPlan& plan, int iterations, const engine::EngineOptions& options = {});

/// Policy `alone`: each job by itself on the empty fabric, one after another, `iterations` iterations on the
/// circuits policy static plans for it alone (sched::AloneController).
trace::RunRecord run_alone_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, int iterations,
                                  const engine::EngineOptions& options = {});

/// Policy `alone` for workloads of job graphs (any platform kind): each job alone on the circuits policy
/// static plans for it alone (policy/graph_static.hpp). Raises ConfigError as plan_graph_static does.
trace::RunRecord run_alone_graphs(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::vector<sched::GraphJob>& jobs, const std::vector<engine::JobToRun>& to_run,
                                  const std::string& file, const engine::EngineOptions& options = {});

}  // namespace odcn::app
