#include "app/policies.hpp"

#include "sched/policy_controllers.hpp"
#include "workload/tdm4_graph.hpp"

namespace odcn::app {

namespace {

struct EngineJobs {
  std::vector<workload::JobGraph> graphs;
  std::vector<engine::JobToRun> jobs;
};

EngineJobs engine_jobs(const std::vector<workload::Job>& jobs, int iterations) {
  EngineJobs e;
  e.graphs.reserve(jobs.size());
  for (const auto& j : jobs) e.graphs.push_back(workload::tdm4_job_graph(j, iterations));
  for (std::size_t i = 0; i < jobs.size(); ++i)
    e.jobs.push_back({jobs[i].id, jobs[i].name, &e.graphs[i], workload::tdm4_rank_pods(jobs[i])});
  return e;
}

}  // namespace

trace::RunRecord run_static_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                   const sched::StaticPlan& plan, int iterations,
                                   const engine::EngineOptions& options) {
  const EngineJobs e = engine_jobs(jobs, iterations);
  sched::StaticController controller(plan, jobs);
  return engine::run(fabric, e.jobs, controller, options);
}

trace::RunRecord run_tdm_policy(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                                const sched::TdmPlan& plan, int rounds, const engine::EngineOptions& options) {
  sched::TdmController controller(fabric, plan, jobs, rounds);  // checks every stage's configuration
  const EngineJobs e = engine_jobs(jobs, sched::TdmController::iterations_for(rounds));
  return engine::run(fabric, e.jobs, controller, options);
}

}  // namespace odcn::app
