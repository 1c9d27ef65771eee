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
/// circuits policy static plans for it alone (sched::AloneController). With `by_shape` (the slowdown baseline's
/// run), only the first job of each shape (alone_shape) is simulated, and every other job of that shape gets its
/// records: alone on an empty fabric whose OXC groups and pods are all alike, jobs of one shape take the same time.
trace::RunRecord run_alone_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, int iterations,
                                  const engine::EngineOptions& options = {}, bool by_shape = false);

/// What decides a TDM-4 job's time alone on the empty fabric: everything but its id, name, arrival, OXC group and
/// which pods of the group it has (its pods' GPU counts in pod order, and which of them holds the PS, are kept).
std::string alone_shape(const workload::Job& job);

/// Policy `alone` for workloads of job graphs (any platform kind): each job alone on the circuits policy
/// static plans for it alone (policy/graph_static.hpp). Raises ConfigError as plan_graph_static does.
trace::RunRecord run_alone_graphs(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::vector<sched::GraphJob>& jobs, const std::vector<engine::JobToRun>& to_run,
                                  const std::string& file, const engine::EngineOptions& options = {});

}  // namespace odcn::app
