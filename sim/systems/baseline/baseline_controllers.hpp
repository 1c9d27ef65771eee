#pragma once
// The generic policies as controllers of the one engine (policy/controller.hpp), for TDM-4's jobs and job graphs.
//
// static     one circuit configuration, lit before the run; every job iterates on its own, and each
//            collective of a TDM-4 job takes the plan's routing (for RAR, the ring on the job's circuits).
// alone      each job by itself on the empty fabric, one after another: the baseline of every run's slowdown.
#include <vector>

#include "policy/controller.hpp"
#include "systems/tdm4/job.hpp"
#include "systems/tdm4/plan.hpp"
#include "graph/task_graph.hpp"

namespace odcn::sched {

class StaticController : public Controller {
 public:
  StaticController(const StaticPlan& plan, const std::vector<workload::Job>& jobs) : plan_(plan), jobs_(jobs) {}
  net::CircuitConfig initial_circuits() const override { return plan_.config; }
  bool fixed_circuits() const override { return true; }
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;

 private:
  const StaticPlan& plan_;
  const std::vector<workload::Job>& jobs_;
};

/// Policy `alone`: each job by itself on the empty fabric, one after another in the order given, on circuits
/// planned for it alone (the baseline of slowdown). A job is admitted once the one before it has finished and
/// its own circuits are lit (after the reconfiguration delay when any changed); its time from admission to
/// its end is its time alone.
class AloneController : public Controller {
 public:
  struct JobPlan {
    net::CircuitConfig config;
    std::vector<const Routing*> routing;  ///< per task (empty, or null entries: the engine's default lowering)
  };
  AloneController(std::vector<JobPlan> plans, Seconds reconfig_delay_s);
  net::CircuitConfig initial_circuits() const override;
  bool on_arrival(int job, Seconds now, Actions& act) override;
  void on_job_done(int job, Seconds now, Actions& act) override;
  void on_timer(Seconds now, Actions& act) override;
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;

 private:
  /// Lights current_'s circuits; true when they already are (it may start now).
  bool launch(Seconds now, Actions& act);
  std::vector<JobPlan> plans_;
  net::CircuitConfig lit_;
  Seconds delay_;
  std::vector<char> arrived_;
  std::size_t current_ = 0;  ///< the job running or next to run
  bool running_ = false;     ///< current_ is admitted, or its circuits are being lit
  bool lighting_ = false;    ///< waiting for current_'s circuits
};

}  // namespace odcn::sched
