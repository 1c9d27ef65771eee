#include "app/policies.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "systems/baseline/baseline_controllers.hpp"
#include "systems/tdm4/tdm_controller.hpp"
#include "systems/baseline/static_policy.hpp"
#include "systems/tdm4/tdm4_graph.hpp"

namespace odcn::app {

namespace {

struct EngineJobs {
  std::vector<workload::JobGraph> graphs;
  std::vector<engine::JobToRun> jobs;
};

/// The jobs' graphs, job i with iterations_of(i) iterations.
template <class IterationsOf>
EngineJobs engine_jobs(const std::vector<workload::Job>& jobs, IterationsOf iterations_of) {
  EngineJobs e;
  e.graphs.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) e.graphs.push_back(workload::tdm4_job_graph(jobs[i], iterations_of(i)));
  for (std::size_t i = 0; i < jobs.size(); ++i)
    e.jobs.push_back({jobs[i].id, jobs[i].name, &e.graphs[i], workload::tdm4_rank_pods(jobs[i]), {}, {}});
  return e;
}

}  // namespace

trace::RunRecord run_static_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                   const sched::StaticPlan& plan, int iterations,
                                   const engine::EngineOptions& options) {
  const EngineJobs e = engine_jobs(jobs, [iterations](std::size_t) { return iterations; });
  sched::StaticController controller(plan, jobs);
  return engine::run(fabric, e.jobs, controller, options);
}

trace::RunRecord run_tdm_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                const sched::TdmPlan& plan, int iterations, const engine::EngineOptions& options) {
  sched::TdmController controller(fabric, plan, jobs, iterations);  // checks every stage's configuration
  const EngineJobs e = engine_jobs(
      jobs, [&](std::size_t i) { return iterations + (controller.warm(static_cast<int>(i)) ? 1 : 0); });
  return engine::run(fabric, e.jobs, controller, options);
}

std::string alone_shape(const workload::Job& j) {
  std::string key = fmt::format("{}|{}|{:a}|{}|{:a}|{:a}|{:a}|{}|", static_cast<int>(j.type), j.model, j.model_bytes,
                                j.gpus_per_unit, j.train_s, j.aggregate_s, j.per_gpu_bytes, static_cast<int>(j.tor));
  for (const auto& [pod, gpus] : j.placement) key += fmt::format("{}{},", pod == j.ps_pod ? "ps:" : "", gpus);
  return key;
}

namespace {

trace::RunRecord run_alone_each(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, int iterations,
                                const engine::EngineOptions& options) {
  std::vector<sched::StaticPlan> plans;  // each job's plan, alone on the fabric; routings point into it
  plans.reserve(jobs.size());
  std::vector<sched::AloneController::JobPlan> alone;
  const EngineJobs e = engine_jobs(jobs, [iterations](std::size_t) { return iterations; });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    workload::Job only = jobs[i];
    only.id = 0;  // plans index jobs by id
    plans.push_back(sched::plan_static(fabric, {only}));
    sched::AloneController::JobPlan p{plans.back().config, {}};
    for (std::size_t t = 0; t < e.graphs[i].tasks.size(); ++t) {
      const int phase = workload::tdm4_comm_phase(jobs[i], static_cast<int>(t));
      p.routing.push_back(phase < 0 ? nullptr : &plans.back().job_phases[0][static_cast<std::size_t>(phase)]);
    }
    alone.push_back(std::move(p));
  }
  sched::AloneController controller(std::move(alone), fabric.reconfig_delay_s());
  return engine::run(fabric, e.jobs, controller, options);
}

}  // namespace

trace::RunRecord run_alone_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, int iterations,
                                  const engine::EngineOptions& options, bool by_shape) {
  if (!by_shape) return run_alone_each(fabric, jobs, iterations, options);
  std::map<std::string, std::size_t> rep_of_shape;  // shape -> index among the representatives
  std::vector<std::size_t> rep(jobs.size());
  std::vector<workload::Job> reps;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto [it, added] = rep_of_shape.emplace(alone_shape(jobs[i]), reps.size());
    if (added) {
      reps.push_back(jobs[i]);
      reps.back().id = static_cast<int>(reps.size() - 1);
    }
    rep[i] = it->second;
  }
  const trace::RunRecord r = run_alone_each(fabric, reps, iterations, options);
  trace::RunRecord all;
  std::vector<std::vector<const trace::IterationRow*>> rows(reps.size());
  for (const auto& row : r.iterations) rows.at(static_cast<std::size_t>(row.job)).push_back(&row);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    trace::JobTimes t = r.jobs.at(rep[i]);
    t.job = jobs[i].id;
    all.jobs.push_back(t);
    all.thread_names.push_back(jobs[i].name);
    for (const auto* row : rows[rep[i]]) {
      all.iterations.push_back(*row);
      all.iterations.back().job = jobs[i].id;
    }
  }
  all.makespan_s = r.makespan_s;
  return all;
}

trace::RunRecord run_alone_graphs(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::vector<sched::GraphJob>& jobs, const std::vector<engine::JobToRun>& to_run,
                                  const std::string& file, const engine::EngineOptions& options) {
  std::vector<sched::AloneController::JobPlan> alone;
  for (const auto& j : jobs)
    alone.push_back({sched::plan_graph_static(platform, network, sched::circuit_demand(network, {j}, file)).config, {}});
  sched::AloneController controller(std::move(alone), network.reconfig_delay_s);
  return engine::run(network, to_run, controller, options);
}

}  // namespace odcn::app
