#pragma once
// The TDM-4 paper's policies (Tang, Chen, Zhu) as controllers of the one engine (sched/controller.hpp).
//
// static     one circuit configuration, lit before the run; every job iterates on its own, and each
//            collective takes the plan's routing (for RAR, the ring on the job's circuits).
// tdm4, aggregate, tdm4-ilp
//            a four-stage round (§II.C) replayed until every job has completed its iterations: at each stage
//            boundary (b) the controller applies the stage's circuits and releases, as one batch, the task
//            every unfinished job runs in that stage; the stage ends when all of them have completed (e).
//            Every other task is held (d). The fabric starts in the last stage's configuration (steady
//            state), and a job whose round begins with communication starts with a warm iteration (its
//            training counted as done before the run), which is not one of its `iterations`. A job that
//            has finished leaves its stage slots empty; the rounds go on for the others.
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
  bool complete_ = true;  ///< the current stage released every job planned in it
  net::CircuitConfig current_;
};

}  // namespace odcn::sched
