#pragma once
// The engine's executor (engine/simulation.hpp's run), private to the engine: it runs jobs' task graphs under a
// controller on SimGrid. Its parts live in executor.cpp (the run, errors, waiters, timers), executor_jobs.cpp
// (iterations, completion, gating, admission), executor_tasks.cpp (lowering and starting tasks),
// executor_batch.cpp (tasks released together) and executor_actions.cpp (the controller's actions).
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>

#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/circuits.hpp"
#include "engine/sim_platform.hpp"
#include "engine/simulation.hpp"
#include "engine/task_trace.hpp"

namespace odcn::engine::detail {

namespace sg4 = simgrid::s4u;
using workload::TaskKind;

/// On a terminal one line redrawn in place; in a log, a plain line at each tenth of the way and at the end.
void progress_line(const EngineOptions& o, const std::string& what, int done, int total);
/// SimGrid's run() also returns when no actor can make progress (a deadlock); the rows would then be
/// incomplete, so the run must fail rather than write them.
void require_completed(bool completed);
void finish_record(trace::RunRecord& rec);

/// A flow the engine sends between two endpoints along a path (net::Network::path), or on an endpoint's own
/// uplink (clos_ocs: the pod's ToR <-> server link).
struct FlowSpec {
  int src = 0;
  int dst = 0;
  Bytes bytes = 0;
  net::Path path = net::Path::circuit;
  bool nic = false;  ///< a server's NIC (the uplink of a clos_ocs fabric with servers): never aggregated
  int copies = 1;           ///< identical transfers on NICs of their own that it stands for (bytes counted × copies)
  bool uplink() const { return path == net::Path::uplink; }
  /// Bytes between endpoints (circuits, packet switch) count as circuit bytes; an endpoint's own links (ToR
  /// link, scale-up) as local ("tor") bytes.
  bool local() const { return path == net::Path::uplink || path == net::Path::scaleup; }
};
using Step = std::vector<FlowSpec>;

/// An activity's interval and the time it counts for when nothing overlaps it (a computation's own duration,
/// which its end minus its start can miss by a rounding).
struct Span {
  Seconds start = 0, end = 0, alone = 0;
};

struct JobState;

/// A started task: its current step's activities and what it has used so far.
struct Flight {
  const JobState* job = nullptr;
  int task = 0;
  Seconds start_s = 0;
  std::vector<Step> later;      ///< steps still to issue, in order (a step starts when the previous one ends)
  std::vector<int> repeat;      ///< how many times each step of `later` runs in a row (empty: once each)
  std::size_t next = 0;
  int repeat_of(std::size_t i) const { return i < repeat.size() ? repeat[i] : 1; }
  std::vector<sg4::ActivityPtr> acts;  ///< the current step's (possibly shared with other tasks of a batch)
  std::vector<int> pairs;              ///< per activity: the circuit pair it crosses, or -1
  /// The current step's server-NIC legs, as one closed form: each is alone on a NIC of its own (the FATPIPE ToR
  /// link of a clos_ocs fabric with servers), so it ends at bytes / server rate whatever else runs. The step
  /// lasts at least the longest of them (docs/model.md, "Server NICs are closed forms").
  Seconds nic_s = 0;
  std::vector<Span> stalls;  ///< when a circuit it used was being set up (dark) while it ran
  Bytes circuit_bytes = 0;
  Bytes tor_bytes = 0;
  Seconds end_s = 0;
  Seconds sleep_s = 0;  ///< a computation run by the actor that waits for the task (a timer, exact)
  std::vector<int> inc_endpoints;  ///< an INC collective: the endpoints whose ToRs aggregate for it
};

enum class Status : char { waiting, ready, held, running, done };

struct JobState {
  const JobToRun* spec = nullptr;
  int index = 0;
  std::vector<std::vector<int>> dependents;
  std::vector<int> dep_count;
  // The current iteration
  int iteration = 0;
  bool initialized = false;
  std::vector<int> missing;
  std::vector<Status> status;
  int done = 0;
  std::deque<int> ungated;  ///< ready, not yet shown to the controller
  std::unordered_map<const Flight*, std::unique_ptr<Flight>> flights;  ///< in flight (by address: O(1) to end)
  std::deque<Flight*> finished;  ///< completed under a waiter actor, to be handled by the job's actor
  int held = 0;
  bool admitted = false;
  bool arrived = false;
  bool busy = false;   ///< pump() is advancing this job (in some actor; SimGrid calls may let others run)
  bool again = false;  ///< something happened to the job while it was busy: pump once more
  // Iteration book-keeping
  bool open = false;
  bool warm = false;
  Seconds start_s = 0;
  Seconds last_end = 0;  ///< the latest end among the iteration's tasks
  std::vector<Span> compute, comm, stalls;  ///< the iteration's computations, communications, dark circuits
  Bytes circuit_bytes = 0, tor_bytes = 0;
  bool finished_all = false;  ///< every iteration done
  bool reported = false;      ///< on_job_done called
};

/// Time during which at least one of the spans ran. Spans that only touch are added separately, and a span
/// that overlaps no other counts for its `alone` time, so that a chain of phases sums exactly as its parts do.
/// Sorts `v` in place (no copy: it may run on a waiter's stack).
Seconds union_length_sorting(std::vector<Span>& v);
Seconds union_length(std::vector<Span> v);
/// |a ∩ b| for two sets of spans, as |a| + |b| − |a ∪ b|; exactly 0 when no span of one overlaps one of the other
/// (the common case: a TDM-4 or parameter-server job never computes while it communicates), so that the
/// subtraction's rounding never shows where there is nothing to subtract.
Seconds overlap_length(const std::vector<Span>& a, const std::vector<Span>& b);

/// A trace record whose events stream to `sink` (set before anything can report an event).
trace::RunRecord record_for(trace::EventSink* sink);

class Executor {
 public:
  Executor(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
           const EngineOptions& options);
  trace::RunRecord run();

 private:
 private:
  /// Exceptions must not cross SimGrid's contexts: keep the first, end the run, rethrow it after.
  template <class F>
  void guarded(F&& f) {
    bool caught = false;  // (no local with a destructor here: SimGrid unwinds a killed daemon through this frame)
    try {
      f();
    } catch (const std::exception&) {  // not catch (...): SimGrid ends daemon actors with its own exception
      if (!error_) error_ = std::current_exception();
      caught = true;
    }
    if (caught) stop();  // outside the handler: stop() switches actors, which share this thread's exception state
  }

  void fail(const std::string& why);
  bool failed() const { return !fail_message_.empty(); }
  net::Path path_or_fail(int a, int b);
  void stop();

  const workload::Task& task_of(const JobState& j, int t) const {
    return j.spec->graph->tasks[static_cast<std::size_t>(t)];
  }

  // ---- iterations and jobs (executor_jobs.cpp) ----

  void begin_iteration(JobState& j);
  void mark_done(JobState& j, int t);
  void close_iteration(JobState& j, Seconds end_s);
  void complete(JobState& j, Flight* fp);
  void gate(JobState& j);
  void arrive(JobState& j);
  void admit(JobState& j);
  void pump(JobState& j);
  void finish_job(JobState& j);

  // ---- starting tasks (executor_tasks.cpp) ----

  /// A task's steps. With `repeat`, a collective's consecutive identical steps are one Step run that many times
  /// (repeat has a count per step); without, every step is listed.
  std::vector<Step> steps_of(const JobState& j, const workload::Task& t, const sched::Routing* routing,
                             std::vector<int>* repeat = nullptr);
  Step routing_step(const sched::Routing& r);
  bool on_servers(const JobState& j, const workload::Task& t) const;
  std::vector<Step> server_steps(const JobState& j, const workload::Task& t, bool inc);
  sg4::CommPtr send(const FlowSpec& f) { return platform_.send(f.path, f.src, f.dst, f.bytes); }
  /// Runs one step of f: sends its transfers and waits until they have all ended.
  void run_step(Flight& f, const Step& step);
  /// Whether nothing but f can start a transfer or change a circuit until f's current step ends: every job of
  /// time 0 has arrived, f is the only task in flight of the only job admitted and unfinished, no task of it is
  /// ready or held, no controller wake-up or job arrival is to come or being handled, and no circuit is being
  /// set up. (Anything else starts only when a task ends, a job arrives or the controller wakes up.)
  bool alone(const Flight& f) const;
  /// For the step's transfers `sent`, when f is alone: the one transfer that ends when the last of them does
  /// (SimPlatform::stand_in; index -1: none, or not alone).
  SimPlatform::StandIn stand_in(const Flight& f, const std::vector<const FlowSpec*>& sent);
  struct StandInMemo {  ///< the last answer of SimPlatform::stand_in (a collective's steps repeat their pattern)
    std::vector<SimPlatform::Hop> hops;
    std::vector<Bytes> bytes;
    std::vector<double> capacities;  ///< of the pair each hop crosses, then (-1: none)
    SimPlatform::StandIn answer;
  } stand_in_memo_;
  Flight& admit_task(JobState& j, int t);
  std::vector<Step> inc_steps(const JobState& j, const workload::Task& t, std::vector<int>& endpoints);
  bool take_inc(const JobState& j, const std::vector<int>& endpoints);
  void release_inc(const JobState& j, const std::vector<int>& endpoints);
  void start_task(JobState& j, int t, const sched::Routing* routing, bool in_network = false);

  // ---- running and completing tasks (executor_tasks.cpp) ----

  void add_stall(Flight& f, int pair, Seconds start, Seconds end) const;
  Seconds settle_step(Flight& f, Seconds step_start, Seconds end) const;
  void run_flight(Flight& f);
  /// One-transfer tasks gathered by gate (pooled_), sent by this actor and completed as each transfer ends.
  void run_pooled(const std::vector<std::pair<JobState*, Flight*>>& pool);
  /// gate() pools one-transfer tasks when more than this many of a job's tasks are ready at once.
  static constexpr std::size_t kPoolFrom = 1024;
  std::vector<std::pair<JobState*, Flight*>>* pooled_ = nullptr;  ///< while gate() pools them

  // ---- spreading activities over actors (executor_spread.cpp) ----

  /// Activities one actor creates and waits for, at most: SimGrid 3.32 keeps an actor's activities in a list it
  /// scans whenever one of them ends (sim_platform.hpp), so a step of F transfers costs O(F · kPerActor).
  static constexpr std::size_t kPerActor = 64;
  /// Creates acts.size() activities (acts[i] = make(i), made by the actor that waits for it) and returns when all
  /// have ended: the calling actor takes the first kPerActor, pooled waiters the others, kPerActor each. Within
  /// a share, every transfer must come before any computation (a transfer moves its actor, and SimGrid moves the
  /// actor's running computations with it).
  void run_spread(std::vector<sg4::ActivityPtr>& acts, const std::function<sg4::ActivityPtr(std::size_t)>& make);

  // ---- batches (executor_batch.cpp) ----

  /// A batch: single-step transfers that share a path travel as one aggregate.
  struct Member {
    JobState* j;
    Flight* f;
    Step step;
  };
  struct Batch {
    std::vector<Member> members;
    std::map<std::pair<int, int>, Bytes> circuit;  ///< (src, dst) -> bytes
    std::map<int, Bytes> uplink;
    std::map<int, std::vector<std::pair<std::size_t, Seconds>>> computes;  ///< pod -> (member, seconds)
    std::map<std::pair<int, int>, sg4::ActivityPtr> circuit_act;
    std::map<int, sg4::ActivityPtr> uplink_act;
    int pending = 0;  ///< pods whose activities are still running
  };

  void start_batch(const std::vector<sched::Release>& releases);
  void run_pod(Batch& b, int p);
  void complete_batch(Batch& b);

  // ---- waiters: actors that wait for a task while its job's actor waits for several ----

  struct Waiter {
    sg4::SemaphorePtr go = sg4::Semaphore::create(0);
    std::function<void()> work;
    Waiter* next_idle = nullptr;
  };

  /// False (and the run fails) when no waiter can be had: `work` will not run.
  bool in_waiter(std::function<void()> work);
  static long max_map_count();
  static std::size_t actor_limit();

  // ---- timers ----

  void timer_main();

  // ---- the controller's actions (executor_actions.cpp) ----

  void process(sched::Actions& act);
  void skip(const sched::Actions::Action& a);

  sg4::Engine& engine_;
  const net::Network& network_;
  sched::Controller& controller_;
  EngineOptions options_;
  trace::RunRecord record_;
  SimPlatform platform_;
  Circuits circuits_;
  TaskTrace task_trace_;  ///< the slices of job tasks in trace.json
  std::deque<JobState> jobs_;  // never moved: actors hold pointers into it
  std::vector<std::unique_ptr<Waiter>> waiters_;
  std::map<int, std::map<int, int>> inc_in_use_;  ///< endpoint -> (job -> INC collectives running)
  Waiter* idle_waiters_ = nullptr;
  std::multiset<Seconds> wakes_;
  std::multimap<Seconds, int> arrivals_;  ///< jobs arriving after time 0, by time then index
  sg4::SemaphorePtr timer_wake_ = sg4::Semaphore::create(0);
  /// Set once the scheduler has let every job of time 0 arrive: the timer handles no wake-up before, so that a
  /// controller waking at time 0 sees all of them (a release() is a simcall, which lets the timer run between two
  /// arrivals otherwise).
  bool time0_arrived_ = false;
  int time0_jobs_ = 0;  ///< jobs that arrive at time 0
  Seconds woken_at_ = -1;  ///< while the controller's wake-up is handled: its time (circuits.csv shows it)
  static constexpr Seconds kTimingPrecision = 1e-9;  ///< SimGrid's precision/timing (its default)
  sg4::SemaphorePtr all_done_ = sg4::Semaphore::create(0);
  int unfinished_ = 0;
  int finished_ = 0;
  int flights_ = 0;      ///< tasks admitted and not yet completed, over all jobs
  int active_jobs_ = 0;  ///< jobs admitted and not finished
  int handling_ = 0;     ///< the timer is handling an arrival or a wake-up (which may start work)
  bool stopped_ = false;
  bool completed_ = false;
  std::exception_ptr error_;
  std::string fail_message_;
};

}  // namespace odcn::engine::detail
