#include "systems/tdm4/tdm_controller.hpp"

#include <fmt/format.h>

#include "spec/workload_spec.hpp"
#include "trace/writers.hpp"
#include "systems/tdm4/tdm4_graph.hpp"

namespace odcn::sched {

using workload::TaskKind;

namespace {

/// The task that ends a job's iteration.
int last_task(const workload::Job& job) { return workload::tdm4_comm_task(job, job.type == spec::JobType::ps ? 1 : 0); }

}  // namespace
TdmController::TdmController(const net::Fabric& fabric, const TdmPlan& plan, const std::vector<workload::Job>& jobs,
                             int iterations)
    : fabric_(fabric),
      plan_(plan),
      jobs_(jobs),
      iterations_(iterations),
      warm_(jobs.size(), 0),
      closed_(jobs.size(), 0),
      current_(plan.stages[3].config) {
  for (const auto& st : plan.stages) fabric.check(st.config);
  // A job is warm when its round begins with a task after training (on_start skips the ones before it).
  for (const auto& w : plan.stages[0].work)
    if (task_of(w) != workload::Tdm4Task::train) warm_[static_cast<std::size_t>(w.job)] = 1;
  // Iterations a round completes per job: the times its last task runs in the four stages.
  std::vector<int> per_round(jobs.size(), 0);
  for (const auto& st : plan.stages)
    for (const auto& w : st.work)
      if (task_of(w) == last_task(jobs[static_cast<std::size_t>(w.job)])) ++per_round[static_cast<std::size_t>(w.job)];
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (per_round[j] == 0)
      throw std::logic_error(fmt::format("TDM plan never completes an iteration of job {}", jobs[j].id));
    rounds_ = std::max(rounds_, (iterations + warm_[j] + per_round[j] - 1) / per_round[j]);
  }
}

int TdmController::task_of(const StageWork& w) const {
  const auto& job = jobs_[static_cast<std::size_t>(w.job)];
  switch (w.activity) {
    case Activity::train: return workload::Tdm4Task::train;
    case Activity::aggregate: return workload::Tdm4Task::aggregate;
    case Activity::communicate: return workload::tdm4_comm_task(job, w.phase);
  }
  return workload::Tdm4Task::train;
}

void TdmController::on_start(Seconds now, Actions& act) {
  // Steady state: a job whose first activity of the round is not training starts after the tasks before it.
  for (const auto& w : plan_.stages[0].work) {
    const int first = task_of(w);
    for (int t = 0; t < first; ++t) act.skip(w.job, t);
  }
  begin_stage(now, act);
}

void TdmController::begin_stage(Seconds now, Actions& act) {
  const StagePlan& st = plan_.stages[static_cast<std::size_t>(stage_)];
  std::vector<Release> batch;
  batch.reserve(st.work.size());
  ran_.clear();
  for (const auto& w : st.work) {
    const auto j = static_cast<std::size_t>(w.job);
    if (finished(j)) continue;  // its slot stays empty
    const int task = task_of(w);
    if (task == last_task(jobs_[j])) ++closed_[j];
    batch.push_back({w.job, task, w.activity == Activity::communicate ? &w.traffic : nullptr});
    ran_.push_back(&w);
  }
  // Every job works in every stage, so an empty batch means that every job has finished: no empty stages
  // (nor reconfigurations) after the last one.
  if (batch.empty()) {
    act.stop();
    return;
  }
  stage_start_ = now;
  last_byte_ = now;
  stage_end_ = now;
  before_ = current_;
  current_ = held_config(fabric_, jobs_, st, ran_, before_);
  const auto& planned_before = plan_.stages[static_cast<std::size_t>((stage_ + 3) % 4)].config;
  as_planned_ = ran_.size() == st.work.size() && before_ == planned_before;
  changed_ = net::CircuitConfig::changed(before_, current_);
  if (changed_ > 0) act.configure(current_, fmt::format("round {} stage {}", round_ + 1, st.index + 1));
  outstanding_ = static_cast<int>(batch.size());
  act.release_together(std::move(batch));
}

Controller::Gate TdmController::on_task_ready(const TaskRef&, const workload::Task&, Seconds, Actions&) {
  return {true, nullptr};  // every task waits for its stage
}

void TdmController::on_task_done(const TaskRef& /*ref*/, const workload::Task& task, Seconds /*start*/, Seconds end,
                                 Actions& act) {
  if (task.kind == TaskKind::collective || task.kind == TaskKind::transfer) last_byte_ = std::max(last_byte_, end);
  stage_end_ = std::max(stage_end_, end);
  if (--outstanding_ > 0) return;
  end = stage_end_;
  const StagePlan& st = plan_.stages[static_cast<std::size_t>(stage_)];
  trace::StageRow row;
  row.round = round_ + 1;
  row.stage = st.index + 1;
  row.k = st.k;
  row.t = st.t;
  row.start_s = stage_start_;
  row.end_s = end;
  row.comm_s = last_byte_ - stage_start_;
  row.circuits_changed = changed_;
  row.reconfig_s = changed_ > 0 ? fabric_.reconfig_delay_s() : 0.0;
  row.complete = ran_.size() == st.work.size();
  describe_stage(fabric_, jobs_, st, ran_, before_, current_, as_planned_, row);
  act.stage_row(row);
  act.event({trace::TraceEvent::Track::scheduler, trace::TraceEvent::Phase::complete, 0,
             fmt::format("stage {} (group {} communicates)", st.index + 1, st.k == 0 ? "A" : "B"), "stage",
             stage_start_, end - stage_start_,
             fmt::format("\"round\":{},\"predicted_s\":{},\"bound\":{},\"circuits_changed\":{},\"reconfig_s\":{}",
                         row.round, trace::num(row.predicted_s), trace::json_string(row.bound), row.circuits_changed,
                         trace::num(row.reconfig_s))});
  if (++stage_ == static_cast<int>(plan_.stages.size())) {
    stage_ = 0;
    act.progress("rounds", ++round_, rounds_);
    if (round_ == rounds_) {
      act.stop();
      return;
    }
  }
  begin_stage(end, act);
}

}  // namespace odcn::sched
