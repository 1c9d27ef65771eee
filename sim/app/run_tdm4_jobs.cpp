// `run` for a workload of the TDM-4 paper's jobs (explicit or generated, deployed on a clos_ocs platform) under
// static, alone, or one of TDM-4's policies (tdm4, aggregate, tdm4-ilp).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <functional>
#include <iostream>

#include "app/policies.hpp"
#include "app/run_common.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "spec/overrides.hpp"
#include "systems/baseline/static_policy.hpp"
#include "systems/tdm4/scenario.hpp"
#include "systems/tdm4/tdm4_ilp.hpp"
#include "systems/tdm4/tdm4_outputs.hpp"
#include "systems/tdm4/tdm4_policy.hpp"

namespace odcn::app {

namespace {

/// The policies that replay TDM-4's four-stage round.
bool is_tdm(PolicyId id) { return id == PolicyId::tdm4 || id == PolicyId::aggregate || id == PolicyId::tdm4_ilp; }

/// The TDM-4 paper's jobs, read and deployed (check_accepts has refused any platform but clos_ocs).
workload::Scenario read_scenario(const RunInputs& in) {
  const RunOptions& o = in.o;
  spec::PlatformSpec platform_spec = in.platform.clos.value();
  platform_spec.hash = in.platform_hash;
  spec::WorkloadSpec workload_spec =
      spec::read_with_overrides(o.overrides, false, [&] { return spec::parse_workload(*in.workload_doc, o.workload); });
  workload_spec.hash = in.workload_hash;
  return spec::read_with_overrides(o.overrides, false, [&] {
    return workload::make_scenario(std::move(platform_spec), std::move(workload_spec), o.seed);
  });
}

/// tdm4's hill climbing reports its moves on stderr when the run shows progress.
std::function<void(int, double)> climb_progress(const RunOptions& o) {
  if (!shows_progress(o)) return {};
  const bool terminal = isatty(STDERR_FILENO);
  return [terminal](int moves, double round) {  // in a log: a line per 250 moves
    if (terminal && moves % 25 == 0)
      std::cerr << fmt::format("\rtdm4 hill climbing: {} moves, round {:.3f} s", moves, round) << std::flush;
    else if (!terminal && moves % 250 == 0)
      std::cerr << fmt::format("tdm4 hill climbing: {} moves, round {:.3f} s\n", moves, round) << std::flush;
  };
}

class TdmJobsRun : public PlannedRun {
 public:
  explicit TdmJobsRun(const RunInputs& in) : o_(in.o), in_(read_scenario(in)) {
    iterations_ = o_.iterations > 0 ? o_.iterations : kDefaultIterations;
    check_rows();
    const auto t0 = Clock::now();
    try {  // a plan the fabric cannot carry is a property of these inputs
      plan();
    } catch (const ConfigError& e) {
      throw InputError(o_.workload, "jobs", e.what());
    }
    plan_wall_ = seconds_since(t0);
  }
  std::vector<std::string> job_names() const override {
    std::vector<std::string> names;
    for (const auto& j : in_.jobs) names.push_back(j.name);
    return names;
  }
  /// trace.json: a process per TDM group, or per pod group (the OXCs a job's pods reach) for static and alone.
  std::vector<std::string> job_groups() const override {
    std::vector<std::string> groups;
    if (is_tdm(o_.id))
      for (int g : tdm_.group_of_job) groups.emplace_back(g == 0 ? "group A" : "group B");
    else
      for (const auto& j : in_.jobs) groups.push_back(fmt::format("pod group {}", j.group));
    return groups;
  }
  int iterations() const override { return iterations_; }
  double plan_wall_s() const override { return plan_wall_; }
  trace::RunRecord simulate(const engine::EngineOptions& eo) override {
    try {
      if (o_.id == PolicyId::static_circuits) return run_static_policy(*in_.fabric, in_.jobs, static_, iterations_, eo);
      if (o_.id == PolicyId::alone) return run_alone_policy(*in_.fabric, in_.jobs, iterations_, eo, o_.alone_by_shape);
      return run_tdm_policy(*in_.fabric, in_.jobs, tdm_, iterations_, eo);  // checks every stage's configuration
    } catch (const ConfigError& e) {
      throw InputError(o_.workload, "jobs", e.what());
    }
  }
  Json run_json() const override {
    const auto& w = in_.workload;
    return {{"platform", {{"file", o_.platform}, {"hash", in_.platform.hash}, {"spec", sched::platform_json(in_.platform)}}},
            {"workload", {{"file", o_.workload}, {"hash", w.hash}}},
            {"overrides", overrides_json(o_)},
            {"policy", o_.policy},
            {"iterations", iterations_},
            {"seed", w.generator ? Json(w.generator->seed) : Json(nullptr)},
            {"training", sched::training_json(w.training)},
            {"unplaced_jobs", in_.unplaced},
            {"jobs", sched::jobs_json(in_.jobs)}};
  }
  Json summary_head(const trace::RunRecord& rec) const override {
    return {{"policy", o_.policy},           {"platform_kind", "clos_ocs"}, {"jobs", in_.jobs.size()},
            {"unplaced_jobs", in_.unplaced.size()}, {"iterations", iterations_}, {"iteration_rows", rec.iterations.size()}};
  }
  Json extras(trace::OutputDir& out, const trace::RunRecord& rec, std::vector<std::string>& notes) override {
    return is_tdm(o_.id) ? sched::tdm_extras(out, tdm_, rec, in_.jobs, notes) : Json::object();
  }
  void print(const RunMetrics& m, const Json& extras, const trace::RunRecord&, double sim_wall_s) const override {
    std::cout << fmt::format("odcnsim {} | policy {} | {} jobs on {} ({} pods)\n", ODCNSIM_VERSION, o_.policy,
                             in_.jobs.size(), escape_line(in_.platform.name), in_.platform.pods);
    if (is_tdm(o_.id)) sched::print_tdm(tdm_, extras, o_.id == PolicyId::tdm4);
    print_metrics(m);
    print_wall_and_outputs(o_, plan_wall_, sim_wall_s, is_tdm(o_.id));
  }
  std::vector<std::string> notes() const override {
    std::vector<std::string> notes;
    if (o_.seed && !in_.workload.generator) notes.emplace_back("note: --seed has no effect on a workload of explicit jobs");
    if (!in_.unplaced.empty())
      notes.push_back(fmt::format("warning: {} of {} generated jobs do not fit the platform and were left out (listed "
                                  "in run.json, unplaced_jobs; the first: {})",
                                  in_.unplaced.size(), in_.unplaced.size() + in_.jobs.size(), in_.unplaced.front()));
    return notes;
  }

 private:
  void check_rows() const {
    // A TDM job may add a warm iteration.
    const std::int64_t rows = static_cast<std::int64_t>(in_.jobs.size()) * (iterations_ + (is_tdm(o_.id) ? 1 : 0));
    if (rows > limits::kMaxIterationRows)
      throw InputError("command line", "--iterations",
                       fmt::format("{} iterations of {} jobs give up to {} iteration rows, above the limit of {} (see "
                                   "docs/limits.md)",
                                   iterations_, in_.jobs.size(), rows, limits::kMaxIterationRows));
  }
  void plan() {
    if (o_.id == PolicyId::static_circuits) {
      static_ = sched::plan_static(*in_.fabric, in_.jobs);
    } else if (o_.id == PolicyId::tdm4) {
      sched::Tdm4Options to;
      to.incremental = !o_.full_eval;
      to.threads = o_.planner_threads;
      if (!o_.search.empty()) sched::parse_search(o_.search, to.search);  // the table checked the name
      to.on_move = climb_progress(o_);
      tdm_ = sched::plan_tdm4(*in_.fabric, in_.jobs, to);
      if (to.on_move && isatty(STDERR_FILENO) && tdm_.stats.moves >= 25) std::cerr << "\n";
    } else if (o_.id == PolicyId::aggregate) {
      tdm_ = sched::plan_aggregate(*in_.fabric, in_.jobs);
    } else if (o_.id == PolicyId::tdm4_ilp) {
      tdm_ = sched::plan_tdm4_ilp(*in_.fabric, in_.jobs, {});
    }
  }

  RunOptions o_;
  workload::Scenario in_;
  int iterations_ = 0;
  sched::StaticPlan static_;
  sched::TdmPlan tdm_;
  double plan_wall_ = 0;
};

}  // namespace

std::unique_ptr<PlannedRun> plan_tdm4_jobs(const RunInputs& in) { return std::make_unique<TdmJobsRun>(in); }

}  // namespace odcn::app
