// `run` for a workload of parameter-server jobs (spec/ps_workload.hpp) under one of INC-AOI's policies
// (systems/inc_aoi/inc_aoi.hpp), on a clos_ocs platform with servers.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <stdexcept>

#include "app/graph_inputs.hpp"
#include "app/run_common.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "spec/overrides.hpp"
#include "spec/ps_workload.hpp"
#include "systems/inc_aoi/inc_outputs.hpp"
#include "systems/inc_aoi/ps_from_graphs.hpp"
#include "spec/graph_workload.hpp"
#include "systems/tdm4/tdm4_outputs.hpp"

namespace odcn::app {

namespace {

class PsJobsRun : public PlannedRun {
 public:
  explicit PsJobsRun(const RunInputs& in) : o_(in.o) {
    if (!sched::parse_inc_policy(o_.policy, policy_))  // the table gives this pipeline INC-AOI's rows only
      throw std::logic_error("policy " + o_.policy + " is not one of INC-AOI's");
    pspec_ = *in.platform.clos;  // the table accepts clos_ocs only
    pspec_.hash = in.platform_hash;
    if (in.kind == WorkloadKind::job_graphs)
      read_graphs(in);
    else
      read_ps_jobs(in);
    check_rows();
    fabric_ = std::make_unique<net::Fabric>(pspec_);
    network_ = net::network_of(*fabric_);
    graphs_.reserve(jobs_.size());
    for (const auto& j : jobs_) graphs_.push_back(workload::ps_job_graph(j));
    try {
      controller_ = std::make_unique<sched::IncAoiController>(network_, pspec_.ports_per_pod, jobs_, policy_, w_.slot_s,
                                                              w_.scheduler);
    } catch (const ConfigError& e) {
      throw InputError(w_.file, "ps_jobs", e.what());
    }
  }
  std::vector<std::string> job_names() const override {
    std::vector<std::string> names;
    for (const auto& j : jobs_) names.push_back(j.name);
    return names;
  }
  int iterations() const override { return o_.iterations; }
  double plan_wall_s() const override { return -1; }  // the controller decides online: nothing is planned ahead
  trace::RunRecord simulate(const engine::EngineOptions& eo) override {
    std::vector<engine::JobToRun> to_run;
    for (std::size_t i = 0; i < jobs_.size(); ++i)
      to_run.push_back({jobs_[i].id, jobs_[i].name, &graphs_[i], jobs_[i].rack_of_rank, jobs_[i].server_of_rank,
                        jobs_[i].ps});
    try {
      return engine::run(network_, to_run, *controller_, eo);
    } catch (const ConfigError& e) {
      throw InputError(w_.file, "ps_jobs", e.what());
    }
  }
  Json run_json() const override {
    return {{"platform", {{"file", o_.platform}, {"hash", pspec_.hash}, {"spec", sched::platform_json(pspec_)}}},
            {"workload",
             {{"file", o_.workload},
              {"hash", w_.hash},
              {"slot_s", w_.slot_s},
              {"ps_server", spec::to_string(w_.ps_server)},
              {"scheduler", scheduler_json()},
              {"seed", w_.generator ? Json(o_.seed.value_or(w_.generator->seed)) : Json(nullptr)}}},
            {"overrides", overrides_json(o_)},
            {"policy", o_.policy},
            {"jobs", sched::ps_jobs_json(jobs_)}};
  }
  Json summary_head(const trace::RunRecord& rec) const override {
    return {{"policy", o_.policy},
            {"platform_kind", network_.kind},
            {"jobs", jobs_.size()},
            {"iterations", o_.iterations > 0 ? Json(o_.iterations) : Json(nullptr)},
            {"iteration_rows", rec.iterations.size()},
            {"ps_server", spec::to_string(w_.ps_server)},
            {"scheduler", scheduler_json()}};
  }
  Json scheduler_json() const {
    const auto& s = w_.scheduler;
    return {{"ljf_key", s.ljf_by_volume ? "volume" : "workers"},
            {"reserve", s.reserve},
            {"group_delay", s.group_delay},
            {"group_gate", s.group_every_iteration ? "every-iteration" : "once"},
            {"group_cohorts", s.group_by_arrival ? "arrival" : "ratio"},
            {"base_topology", network_.base_topology}};
  }
  Json extras(trace::OutputDir& out, const trace::RunRecord& rec, std::vector<std::string>&) override {
    return sched::inc_extras(out, jobs_, *controller_, network_, rec, w_.slot_s);
  }
  void print(const RunMetrics& m, const Json& extras, const trace::RunRecord& rec, double sim_wall_s) const override {
    std::cout << fmt::format("odcnsim {} | policy {} (INC-AOI: Xie, Tang, Chen, Zhu) | {} parameter-server jobs on "
                             "{} racks of {} servers\n",
                             ODCNSIM_VERSION, o_.policy, jobs_.size(), network_.endpoints,
                             network_.servers_per_endpoint);
    print_metrics(m);
    sched::print_inc(extras, rec, network_);
    print_wall_and_outputs(o_, -1, sim_wall_s, false);
    std::cout << fmt::format("  per job, per slot {0}/ps_jobs.csv, {0}/slots.csv\n", escape_line(o_.out));
  }

 private:
  void read_ps_jobs(const RunInputs& in) {
    w_ = spec::read_with_overrides(o_.overrides, false, [&] {
      return spec::parse_ps_workload(*in.workload_doc, o_.workload, in.workload_hash);
    });
    if (o_.iterations > 0) {  // before placement: the service layer places by each job's estimated run time
      if (w_.generator) w_.generator->iterations = o_.iterations;
      for (auto& j : w_.jobs) j.iterations = o_.iterations;
    }
    jobs_ = workload::make_ps_jobs(w_, pspec_, o_.seed);
  }
  /// Job graphs that are parameter-server iterations, as INC-AOI's jobs (systems/inc_aoi/ps_from_graphs.hpp), with
  /// INC-AOI's slot of 1 s (§II.B).
  void read_graphs(const RunInputs& in) {
    const spec::GraphWorkloadSpec gw = spec::read_with_overrides(o_.overrides, false, [&] {
      return spec::parse_graph_workload(*in.workload_doc, o_.workload, in.workload_hash);
    });
    if (o_.seed) throw InputError("command line", "--seed", "a workload of job graphs has nothing random to seed");
    if (pspec_.servers_per_pod <= 0)
      throw InputError(o_.platform, "pods.servers_per_pod",
                       "INC-AOI's policies place a job's ranks on servers: give the platform's pods.servers_per_pod "
                       "and pods.server_gbps");
    w_.file = gw.file;
    w_.hash = gw.hash;
    graph_inputs_ = load_graph_inputs(in.platform, gw, o_.iterations);
    std::vector<workload::PlacedGraph> placed;
    for (std::size_t i = 0; i < graph_inputs_->graphs.size(); ++i)
      placed.push_back({&graph_inputs_->graphs[i], graph_inputs_->jobs[i].endpoints, gw.jobs[i].field});
    jobs_ = workload::ps_jobs_from_graphs(placed, pspec_, gw.file);
  }
  void check_rows() {
    std::int64_t rows = 0;
    for (const auto& j : jobs_) rows += j.iterations;
    if (rows > limits::kMaxIterationRows)
      throw InputError(w_.file, "ps_jobs", fmt::format("{} iteration rows, above the limit of {} (see docs/limits.md)",
                                                       rows, limits::kMaxIterationRows));
    spec::read_with_overrides(o_.overrides, false, [&] {  // a slot_s given by --set is named as the --set
      workload::check_slots(jobs_, w_.slot_s, w_.file, graph_inputs_ ? "job_graphs" : "ps_jobs.slot_s");
      return 0;
    });
  }

  RunOptions o_;
  spec::PsWorkloadSpec w_;
  sched::IncPolicy policy_{};
  spec::PlatformSpec pspec_;
  std::vector<workload::PsJob> jobs_;
  std::unique_ptr<net::Fabric> fabric_;
  net::Network network_;
  std::vector<workload::JobGraph> graphs_;
  std::unique_ptr<sched::IncAoiController> controller_;
  std::unique_ptr<GraphInputs> graph_inputs_;  ///< a workload of job graphs, read
};

}  // namespace

std::unique_ptr<PlannedRun> plan_ps_jobs(const RunInputs& in) { return std::make_unique<PsJobsRun>(in); }

}  // namespace odcn::app
