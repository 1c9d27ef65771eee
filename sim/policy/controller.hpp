#pragma once
// Controllers: every policy of odcnsim is a plug-in behind this one interface (DESIGN.md §2). The engine
// (sim/engine) runs the jobs' task graphs on the fabric and asks the controller for decisions at five kinds of
// moments; the controller answers through an Actions list and never touches SimGrid.
//
//   (a) on_start          once, at time 0, before any task runs
//   (b) on_timer          at the times the controller asked for with Actions::wake_at (time slots)
//   (c) on_arrival        when a job arrives (it may be admitted now or later with Actions::admit)
//       on_job_done       when a job has finished its last iteration
//   (d) on_task_ready     when a task's inputs are done: start it now (optionally saying how its bytes are
//                         routed) or hold it until the controller releases it (e.g. until its circuits are up)
//   (e) on_task_done      when a task has completed (e.g. to set up the next group's circuits early)
//
// Actions are carried out in the order they were asked for, at the instant of the callback, after it returns.
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/circuit_config.hpp"
#include "trace/rows.hpp"
#include "graph/task_graph.hpp"
#include "graph/pod_traffic.hpp"

namespace odcn::sched {

/// A task of a job's current iteration.
struct TaskRef {
  int job = 0;
  int iteration = 0;
  int task = 0;
};

/// How a collective or transfer task crosses a clos_ocs fabric: flows between pods over circuits and the bytes
/// each pod exchanges with its own ToR, all starting together (TDM-4's pod-level traffic model, Eq. (4)-(5)).
/// Without one, the engine lowers a collective with the algorithm library (graph/collective.hpp).
using Routing = workload::PhaseTraffic;

/// One task to start, with its routing (null: the engine's default lowering).
struct Release {
  int job = 0;
  int task = 0;
  const Routing* routing = nullptr;  ///< must outlive the run
  /// Aggregate this collective (ps-push, ps-pull, all-reduce) in the ToRs (INC): each endpoint sends one
  /// stream of S towards the root's endpoint instead of one per rank, and the pull sends one back. The
  /// engine refuses it where ToRs cannot aggregate, or beyond a ToR's INC capacity (jobs at once).
  bool in_network = false;
};

/// What a controller asks the engine to do, in order.
class Actions {
 public:
  enum class Kind {
    configure, configure_changes, release, release_together, skip, wake_at, admit, stop, stage, event, progress
  };
  struct Action {
    Kind kind = Kind::stop;
    net::CircuitConfig config;       ///< configure
    std::vector<std::pair<int, int>> changes;  ///< configure_changes: (pair, circuits), ascending pairs
    std::string text;                ///< configure: reason; progress: what
    std::vector<Release> releases;   ///< release (one), release_together
    int job = 0, task = 0;           ///< skip, admit
    Seconds at_s = 0;                ///< wake_at
    int done = 0, total = 0;         ///< progress
    trace::StageRow stage;           ///< stage
    trace::TraceEvent event;         ///< event
  };

  /// Circuits become `config` now: circuits that stay keep carrying traffic, removed ones go dark at once and
  /// added ones light up after the fabric's reconfiguration delay. A configuration that breaks a port budget
  /// is an error (ConfigError), never clipped.
  void configure(net::CircuitConfig config, std::string reason);
  /// The same as configure(now with `changes` applied), for a few pairs (pair, circuits; ascending, each once)
  /// of a large fabric: the engine checks and applies only them.
  void configure_changes(std::vector<std::pair<int, int>> changes, std::string reason);
  /// Starts a held (or ready, not yet started) task of the job's current iteration now.
  void release(Release r);
  /// Starts these tasks now as one batch, TDM-4's stage (§II.C): flows of the batch that share a path travel as
  /// one aggregate transfer (its bytes summed, exact for the batch's last byte), so a task ends when the
  /// aggregates of its paths have drained. Each task keeps its own end time, but the controller and the jobs
  /// hear of the batch's tasks together, when the whole batch has ended (in release order). Tasks of several
  /// steps are not aggregated and start on their own.
  void release_together(std::vector<Release> batch);
  /// At start only: the job's iteration 0 begins in steady state, with this task already done.
  void skip(int job, int task);
  /// Calls on_timer at time t (>= now).
  void wake_at(Seconds t);
  /// Admits a job whose on_arrival returned false.
  void admit(int job);
  /// Ends the run now: unfinished iterations are not reported.
  void stop();
  /// Rows and trace events a controller reports (e.g. TDM-4's stages).
  void stage_row(trace::StageRow row);
  void event(trace::TraceEvent e);
  /// A progress line on stderr when the run shows progress.
  void progress(std::string what, int done, int total);

  std::vector<Action> take() { return std::exchange(list_, {}); }
  bool empty() const { return list_.empty(); }

 private:
  std::vector<Action> list_;
};

class Controller {
 public:
  virtual ~Controller() = default;
  /// The circuits lit at time 0 (pre-provisioned: no delay is paid for them).
  virtual net::CircuitConfig initial_circuits() const = 0;
  /// True when the controller never changes initial_circuits(): the engine then makes a SimGrid link only for
  /// each pair lit at time 0 (no transfer can use another), so the platform grows with the circuits, not with
  /// the candidate pairs.
  virtual bool fixed_circuits() const { return false; }
  /// True when every transfer the engine sends under this controller is one of the jobs' own flows (no
  /// Gate::routing, no forward_path): the engine then makes a SimGrid link only for the pairs those flows cross
  /// (the 405B Opus preset on 1,024-GPU photonic rails crosses 2,048 of 65,024 candidate pairs).
  virtual bool sends_job_flows_only() const { return false; }
  /// (a)
  virtual void on_start(Seconds /*now*/, Actions& /*act*/) {}
  /// (b)
  virtual void on_timer(Seconds /*now*/, Actions& /*act*/) {}
  /// (c) true admits the job now; false keeps it waiting until Actions::admit.
  virtual bool on_arrival(int /*job*/, Seconds /*now*/, Actions& /*act*/) { return true; }
  virtual void on_job_done(int /*job*/, Seconds /*now*/, Actions& /*act*/) {}
  /// (d)
  struct Gate {
    bool hold = false;
    const Routing* routing = nullptr;  ///< when started now; must outlive the run
    bool in_network = false;           ///< when started now: aggregate it in the ToRs (Release::in_network)
  };
  virtual Gate on_task_ready(const TaskRef& /*ref*/, const workload::Task& /*task*/, Seconds /*now*/,
                             Actions& /*act*/) {
    return {};
  }
  /// (e)
  virtual void on_task_done(const TaskRef& /*ref*/, const workload::Task& /*task*/, Seconds /*start*/,
                            Seconds /*end*/, Actions& /*act*/) {}
  /// The endpoints a parameter-server leg from `from` to `to` crosses when it starts now, ends included, when
  /// the controller forwards it through intermediate endpoints' ToRs (INC-AOI's base topology); empty: direct.
  /// Each hop carries the leg's bytes, as a leg of its own that starts with the others.
  virtual std::vector<int> forward_path(int /*from*/, int /*to*/) const { return {}; }
};

}  // namespace odcn::sched
