#include "sched/policy_controllers.hpp"

#include <fmt/format.h>

#include "workload/tdm4_graph.hpp"

namespace odcn::sched {

using workload::TaskKind;

Controller::Gate StaticController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds /*now*/,
                                                 Actions& /*act*/) {
  const auto& job = jobs_[static_cast<std::size_t>(ref.job)];
  const int phase = workload::tdm4_comm_phase(job, ref.task);
  if (phase < 0) return {};
  return {false, &plan_.job_phases[static_cast<std::size_t>(ref.job)][static_cast<std::size_t>(phase)]};
}

TdmController::TdmController(const net::Fabric& fabric, const TdmPlan& plan, const std::vector<workload::Job>& jobs,
                             int rounds)
    : fabric_(fabric), plan_(plan), jobs_(jobs), rounds_(rounds), current_(plan.stages[3].config) {
  for (const auto& st : plan.stages) fabric.check(st.config);
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
  stage_start_ = now;
  last_byte_ = now;
  stage_end_ = now;
  changed_ = net::CircuitConfig::changed(current_, st.config);
  if (changed_ > 0) act.configure(st.config, fmt::format("round {} stage {}", round_ + 1, st.index + 1));
  current_ = st.config;
  std::vector<Release> batch;
  batch.reserve(st.work.size());
  for (const auto& w : st.work)
    batch.push_back({w.job, task_of(w), w.activity == Activity::communicate ? &w.traffic : nullptr});
  outstanding_ = static_cast<int>(batch.size());
  act.release_together(std::move(batch));
  if (outstanding_ == 0) on_task_done({}, workload::Task{}, now, now, act);
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
  row.predicted_s = st.predicted_s;
  row.comm_s = last_byte_ - stage_start_;
  row.compute_s = st.compute_s;
  row.bound = st.bound;
  row.circuits_changed = changed_;
  row.reconfig_s = changed_ > 0 ? fabric_.reconfig_delay_s() : 0.0;
  act.stage_row(row);
  act.event({fmt::format("stage {} (group {} communicates)", st.index + 1, st.k == 0 ? "A" : "B"), "stage", 3, 0,
             stage_start_, end - stage_start_});
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
