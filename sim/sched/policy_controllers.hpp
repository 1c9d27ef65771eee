#pragma once
// The TDM-4 paper's policies (Tang, Chen, Zhu) as controllers of the one engine (sched/controller.hpp).
//
// static     one circuit configuration, lit before the run; every job iterates on its own, and each
//            collective takes the plan's routing (for RAR, the ring on the job's circuits).
// tdm4, aggregate, tdm4-ilp
//            a four-stage round (§II.C) replayed `rounds` times: at each stage boundary (b) the controller
//            applies the stage's circuits and releases, as one batch, the task every job runs in that stage;
//            the stage ends when all of them have completed (e). Every other task is held (d). The fabric
//            starts in the last stage's configuration (steady state), and a job whose round begins with
//            communication starts its first iteration warm (its training counted as done before the run).
#include <vector>

#include "sched/controller.hpp"
#include "sched/plan.hpp"
#include "workload/job.hpp"
#include "workload/task_graph.hpp"

namespace odcn::sched {

class StaticController : public Controller {
 public:
  StaticController(const StaticPlan& plan, const std::vector<workload::Job>& jobs) : plan_(plan), jobs_(jobs) {}
  net::CircuitConfig initial_circuits() const override { return plan_.config; }
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;

 private:
  const StaticPlan& plan_;
  const std::vector<workload::Job>& jobs_;
};

class TdmController : public Controller {
 public:
  TdmController(const net::Fabric& fabric, const TdmPlan& plan, const std::vector<workload::Job>& jobs, int rounds);
  net::CircuitConfig initial_circuits() const override { return plan_.stages[3].config; }
  void on_start(Seconds now, Actions& act) override;
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;
  void on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end,
                    Actions& act) override;

  /// The iterations each job needs so that `rounds` rounds never run out of tasks.
  static int iterations_for(int rounds) { return 2 * rounds + 2; }

 private:
  void begin_stage(Seconds now, Actions& act);
  int task_of(const StageWork& w) const;

  const net::Fabric& fabric_;
  const TdmPlan& plan_;
  const std::vector<workload::Job>& jobs_;
  int rounds_;
  int round_ = 0;
  int stage_ = 0;
  int outstanding_ = 0;
  Seconds stage_start_ = 0;
  Seconds last_byte_ = 0;
  Seconds stage_end_ = 0;
  int changed_ = 0;
  net::CircuitConfig current_;
};

}  // namespace odcn::sched
