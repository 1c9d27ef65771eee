#include "systems/baseline/baseline_controllers.hpp"

#include <fmt/format.h>

#include "systems/tdm4/tdm4_graph.hpp"

namespace odcn::sched {

Controller::Gate StaticController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds /*now*/,
                                                 Actions& /*act*/) {
  const auto& job = jobs_[static_cast<std::size_t>(ref.job)];
  const int phase = workload::tdm4_comm_phase(job, ref.task);
  if (phase < 0) return {};
  return {false, &plan_.job_phases[static_cast<std::size_t>(ref.job)][static_cast<std::size_t>(phase)]};
}
AloneController::AloneController(std::vector<JobPlan> plans, Seconds reconfig_delay_s)
    : plans_(std::move(plans)), delay_(reconfig_delay_s), arrived_(plans_.size(), 0) {
  if (!plans_.empty()) lit_ = plans_.front().config;
}

net::CircuitConfig AloneController::initial_circuits() const { return lit_; }

bool AloneController::on_arrival(int job, Seconds now, Actions& act) {
  arrived_[static_cast<std::size_t>(job)] = 1;
  if (static_cast<std::size_t>(job) != current_ || running_) return false;
  return launch(now, act);
}

void AloneController::on_job_done(int job, Seconds now, Actions& act) {
  if (static_cast<std::size_t>(job) != current_) return;
  ++current_;
  running_ = false;
  if (current_ < plans_.size() && arrived_[current_] && launch(now, act)) act.admit(static_cast<int>(current_));
}

bool AloneController::launch(Seconds now, Actions& act) {
  running_ = true;
  const net::CircuitConfig& want = plans_[current_].config;
  if (net::CircuitConfig::changed(lit_, want) == 0) return true;  // nothing to light: it starts now
  act.configure(want, fmt::format("alone: job {} of {}", current_ + 1, plans_.size()));
  lit_ = want;
  lighting_ = true;
  act.wake_at(now + delay_);
  return false;
}

void AloneController::on_timer(Seconds /*now*/, Actions& act) {
  if (!lighting_) return;
  lighting_ = false;
  act.admit(static_cast<int>(current_));
}

Controller::Gate AloneController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds /*now*/,
                                                Actions& /*act*/) {
  const auto& r = plans_[static_cast<std::size_t>(ref.job)].routing;
  return {false, static_cast<std::size_t>(ref.task) < r.size() ? r[static_cast<std::size_t>(ref.task)] : nullptr};
}

}  // namespace odcn::sched
