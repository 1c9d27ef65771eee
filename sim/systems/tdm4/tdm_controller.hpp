#pragma once
// The TDM-4 paper's policies (Tang, Chen, Zhu) as a controller of the one engine (policy/controller.hpp).
//
// tdm4, aggregate, tdm4-ilp
//            a four-stage round (§II.C) replayed until every job has completed its iterations: at each stage
//            boundary (b) the controller applies the stage's circuits and releases, as one batch, the task
//            every unfinished job runs in that stage; the stage ends when all of them have completed (e).
//            Every other task is held (d). The fabric starts in the last stage's configuration (steady
//            state), and a job whose round begins with communication starts with a warm iteration (its
//            training counted as done before the run), which is not one of its `iterations`. A job that
//            has finished leaves its stage slots empty; the rounds go on for the others, and a pod group in
//            which nobody communicates in a stage keeps its circuits (the plan's rule, docs/model.md).
#include <vector>

#include "policy/controller.hpp"
#include "systems/tdm4/job.hpp"
#include "systems/tdm4/plan.hpp"
#include "graph/task_graph.hpp"

namespace odcn::sched {

class TdmController : public Controller {
 public:
  /// Every job completes `iterations` iterations (besides a warm one).
  TdmController(const net::Fabric& fabric, const TdmPlan& plan, const std::vector<workload::Job>& jobs,
                int iterations);
  net::CircuitConfig initial_circuits() const override { return plan_.stages[3].config; }
  void on_start(Seconds now, Actions& act) override;
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;
  void on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end,
                    Actions& act) override;

  /// Job j's graph holds `iterations` + warm(j) iterations.
  bool warm(int job) const { return warm_[static_cast<std::size_t>(job)]; }
  /// Rounds until every job has completed its iterations.
  int rounds() const { return rounds_; }

 private:
  void begin_stage(Seconds now, Actions& act);
  int task_of(const StageWork& w) const;
  /// Every iteration of job j (its warm one too) has had its last task released.
  bool finished(std::size_t j) const { return closed_[j] >= iterations_ + warm_[j]; }

  const net::Fabric& fabric_;
  const TdmPlan& plan_;
  const std::vector<workload::Job>& jobs_;
  int iterations_;
  std::vector<char> warm_;
  std::vector<int> closed_;  ///< per job: iterations whose last task has been released
  int rounds_ = 0;
  int round_ = 0;
  int stage_ = 0;
  int outstanding_ = 0;
  Seconds stage_start_ = 0;
  Seconds last_byte_ = 0;
  Seconds stage_end_ = 0;
  int changed_ = 0;
  std::vector<const StageWork*> ran_;  ///< the current stage's work that runs (its job had not finished)
  bool as_planned_ = true;  ///< the current stage runs every job planned in it, from the planned circuits
  net::CircuitConfig before_;   ///< the circuits before the current stage
  net::CircuitConfig current_;  ///< the circuits it holds
};

}  // namespace odcn::sched
