#include "engine/simulation.hpp"

#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "engine/circuits.hpp"
#include "engine/inbox.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "engine/sim_platform.hpp"
#include "engine/task_trace.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"
#include "trace/writers.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;
using workload::TaskKind;

namespace {

/// On a terminal one line redrawn in place; in a log, a plain line at each tenth of the way and at the end.
void progress_line(const EngineOptions& o, const std::string& what, int done, int total) {
  if (!o.progress) return;
  if (o.progress_terminal) {
    std::cerr << fmt::format("\r{} {}/{}", what, done, total) << (done == total ? "\n" : "") << std::flush;
    return;
  }
  const auto tenth = [total](int n) { return total > 0 ? 10LL * n / total : 10; };
  if (done == total || tenth(done) != tenth(done - 1)) std::cerr << fmt::format("{} {}/{}\n", what, done, total) << std::flush;
}

/// SimGrid's run() also returns when no actor can make progress (a deadlock); the rows would then be
/// incomplete, so the run must fail rather than write them.
void require_completed(bool completed) {
  if (!completed)
    throw std::runtime_error("the simulation stopped before every job finished (SimGrid found no actor able to "
                             "proceed); the outputs would be incomplete, so none were written");
}

void finish_record(trace::RunRecord& rec) {
  std::stable_sort(rec.iterations.begin(), rec.iterations.end(), [](const auto& a, const auto& b) {
    return a.job != b.job ? a.job < b.job : a.iteration < b.iteration;
  });
  rec.makespan_s = sg4::Engine::get_clock();
}

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

/// A started task: its current step's activities and what it has used so far.
struct Flight {
  int task = 0;
  Seconds start_s = 0;
  std::vector<Step> later;      ///< steps still to issue, in order (a step starts when the previous one ends)
  std::size_t next = 0;
  std::vector<sg4::ActivityPtr> acts;  ///< the current step's (possibly shared with other tasks of a batch)
  std::vector<int> pairs;              ///< per activity: the circuit pair it crosses, or -1
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
  std::vector<std::unique_ptr<Flight>> flights;
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
Seconds union_length_sorting(std::vector<Span>& v) {
  std::stable_sort(v.begin(), v.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  Seconds total = 0;
  std::size_t i = 0;
  while (i < v.size()) {
    const std::size_t first = i;
    Seconds lo = v[i].start, hi = v[i].end;
    for (++i; i < v.size() && v[i].start < hi; ++i) hi = std::max(hi, v[i].end);
    total += i == first + 1 ? v[first].alone : hi - lo;
  }
  return total;
}
Seconds union_length(std::vector<Span> v) { return union_length_sorting(v); }

/// |a ∩ b| for two sets of spans, as |a| + |b| − |a ∪ b|; exactly 0 when no span of one overlaps one of the other
/// (the common case: a TDM-4 or parameter-server job never computes while it communicates), so that the
/// subtraction's rounding never shows where there is nothing to subtract.
Seconds overlap_length(const std::vector<Span>& a, const std::vector<Span>& b) {
  bool any = false;
  for (const auto& x : a)
    for (const auto& y : b) any = any || (x.start < y.end && y.start < x.end);
  if (!any) return 0;
  std::vector<Span> both = a;
  both.insert(both.end(), b.begin(), b.end());
  return std::max<Seconds>(0, union_length(a) + union_length(b) - union_length_sorting(both));
}

/// A trace record whose events stream to `sink` (set before anything can report an event).
trace::RunRecord record_for(trace::EventSink* sink) {
  trace::RunRecord r;
  r.event_sink = sink;
  return r;
}

class Executor {
 public:
  Executor(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
           const EngineOptions& options)
      : engine_(make_engine()),
        network_(network),
        controller_(controller),
        options_(options),
        record_(record_for(options.events)),
        platform_(network, controller.initial_circuits()),
        circuits_(platform_, network, controller.initial_circuits(), record_),
        task_trace_(record_, network.endpoint_word) {  // checked by run() first
    circuits_.on_error([this] { stop(); });
    jobs_.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      JobState& j = jobs_[i];
      j.spec = &jobs[i];
      j.index = static_cast<int>(i);
      const auto& g = *jobs[i].graph;
      const auto n = g.tasks.size();
      j.dependents.resize(n);
      j.dep_count.assign(n, 0);
      for (std::size_t t = 0; t < n; ++t)
        for (int d : g.tasks[t].deps) {
          j.dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(t));
          ++j.dep_count[t];
        }
      record_.thread_names.push_back(jobs[i].name);
      task_trace_.add_job(jobs[i]);
      record_.jobs.push_back({jobs[i].id, std::max(0.0, g.arrival_s), -1, -1, 0});
      if (g.arrival_s <= 0) begin_iteration(j);
    }
    unfinished_ = static_cast<int>(jobs.size());
  }

  trace::RunRecord run() {
    // No actor per job: a job's tasks are waited for by pooled waiter actors, and whichever actor sees a task
    // end advances the job (pump). The scheduler calls on_start, then lets the jobs present at time 0 arrive.
    sg4::Actor::create("scheduler", platform_.control_host(), [this] {
      guarded([&] {
        sched::Actions act;
        controller_.on_start(sg4::Engine::get_clock(), act);
        process(act);
        for (auto& j : jobs_)
          if (!stopped_ && j.spec->graph->arrival_s <= 0) arrive(j);
      });
      if (!stopped_ && unfinished_ > 0) all_done_->acquire();
      completed_ = true;
    });
    for (auto& j : jobs_)
      if (j.spec->graph->arrival_s > 0) arrivals_.emplace(j.spec->graph->arrival_s, j.index);
    sg4::Actor::create("timer", platform_.control_host(), [this] { guarded([&] { timer_main(); }); })->daemonize();
    engine_.run();
    if (circuits_.error()) std::rethrow_exception(circuits_.error());  // the first: later writes fail after it
    if (error_) std::rethrow_exception(error_);
    if (failed()) throw ConfigError(fail_message_);
    if (!stopped_ && unfinished_ > 0) completed_ = false;
    require_completed(completed_);
    finish_record(record_);
    return std::move(record_);
  }

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

  /// An error of the inputs found inside an actor: recorded, the run ends, and run() raises it as a ConfigError
  /// (not thrown here: ASan misreads a throw on a SimGrid actor's stack, google/sanitizers#189).
  void fail(const std::string& why) {
    if (fail_message_.empty() && !error_) fail_message_ = why;
    stop();
  }
  bool failed() const { return !fail_message_.empty(); }

  net::Path path_or_fail(int a, int b) {
    net::Path p = net::Path::none;
    std::string why;
    if (!network_.route(a, b, p, why)) fail(why);
    return p;
  }

  void stop() {
    if (stopped_) return;
    stopped_ = true;
    all_done_->release();
  }

  const workload::Task& task_of(const JobState& j, int t) const {
    return j.spec->graph->tasks[static_cast<std::size_t>(t)];
  }

  void begin_iteration(JobState& j) {
    j.initialized = true;
    const auto n = j.spec->graph->tasks.size();
    j.missing = j.dep_count;
    j.status.assign(n, Status::waiting);
    j.done = 0;
    j.ungated.clear();
    for (std::size_t t = 0; t < n; ++t)
      if (j.missing[t] == 0) {
        j.status[t] = Status::ready;
        j.ungated.push_back(static_cast<int>(t));
      }
    j.open = j.warm = false;
    j.start_s = j.last_end = j.circuit_bytes = j.tor_bytes = 0;
    j.compute.clear();
    j.comm.clear();
    j.stalls.clear();
  }

  void mark_done(JobState& j, int t) {
    j.status[static_cast<std::size_t>(t)] = Status::done;
    ++j.done;
    for (int d : j.dependents[static_cast<std::size_t>(t)])
      if (--j.missing[static_cast<std::size_t>(d)] == 0) {
        j.status[static_cast<std::size_t>(d)] = Status::ready;
        j.ungated.push_back(d);
      }
  }

  void close_iteration(JobState& j, Seconds end_s) {
    trace::IterationRow row;
    row.job = j.spec->id;
    row.iteration = j.iteration;
    row.warm = j.warm;
    row.start_s = j.start_s;
    row.end_s = end_s;
    row.compute_s = union_length(j.compute);
    row.comm_s = union_length(j.comm);
    row.reconfig_stall_s = union_length(j.stalls);
    row.overlap_s = overlap_length(j.compute, j.comm);
    row.stall_overlap_s = overlap_length(j.compute, j.stalls);
    // Waiting is what the iteration's span leaves after compute and communication (counted once where they
    // overlap); differences below a nanosecond are rounding in that subtraction, not waiting.
    const Seconds wait = (end_s - j.start_s) - row.compute_s - row.comm_s + row.overlap_s;
    row.wait_s = wait > 1e-9 ? wait : 0.0;
    row.circuit_bytes = j.circuit_bytes;
    row.tor_bytes = j.tor_bytes;
    record_.iterations.push_back(row);
  }

  // ---- starting tasks ----

  std::vector<Step> steps_of(const JobState& j, const workload::Task& t, const sched::Routing* routing) {
    const auto& pods = j.spec->endpoint_of_rank;
    const auto pod_of = [&](int rank) { return pods[static_cast<std::size_t>(rank)]; };
    std::vector<Step> steps;
    if (t.kind == TaskKind::transfer) {
      if (routing) return {routing_step(*routing)};
      const int a = pod_of(t.src), b = pod_of(t.dst);
      if (a != b && t.bytes > 0) steps.push_back({{a, b, t.bytes, path_or_fail(a, b)}});
      return steps;
    }
    if (t.kind != TaskKind::collective) return steps;
    if (routing) return {routing_step(*routing)};
    if (on_servers(j, t)) return server_steps(j, t, false);
    const int n = static_cast<int>(t.group.size());
    if (n < 2 || t.bytes <= 0) return steps;
    for (const auto& step : workload::lower_collective(t.op, t.algorithm, n, t.bytes, t.root).steps) {
      Step s;
      for (const auto& f : step) {
        const int a = pod_of(t.group[static_cast<std::size_t>(f.src)]);
        const int b = pod_of(t.group[static_cast<std::size_t>(f.dst)]);
        if (a != b && f.bytes > 0) s.push_back({a, b, f.bytes, path_or_fail(a, b)});
      }
      if (!s.empty()) steps.push_back(std::move(s));
    }
    return steps;
  }

  /// A pod-level routing as one step: each pod's ToR volume, then the flows it sends, pods ascending.
  Step routing_step(const sched::Routing& r) {
    Step s;
    std::size_t ti = 0, fi = 0;
    while (ti < r.tor.size() || fi < r.flows.size()) {
      const int pod = std::min(ti < r.tor.size() ? r.tor[ti].pod : INT_MAX, fi < r.flows.size() ? r.flows[fi].src : INT_MAX);
      for (; ti < r.tor.size() && r.tor[ti].pod == pod; ++ti) s.push_back({pod, pod, r.tor[ti].bytes, net::Path::uplink});
      for (; fi < r.flows.size() && r.flows[fi].src == pod; ++fi)
        s.push_back({pod, r.flows[fi].dst, r.flows[fi].bytes, path_or_fail(pod, r.flows[fi].dst)});
    }
    return s;
  }

  /// A parameter-server collective of a job placed on servers, on a fabric that models servers' NICs.
  bool on_servers(const JobState& j, const workload::Task& t) const {
    return network_.server_bytes_per_s > 0 && !j.spec->server_of_rank.empty() && t.kind == TaskKind::collective &&
           (t.op == workload::CollectiveOp::ps_push || t.op == workload::CollectiveOp::ps_pull);
  }

  /// INC-AOI's legs of a push or pull (systems/inc_aoi/ps_jobs.hpp): the workers' NICs (one transfer per rack standing
  /// for the NICs there, each of its own server, so each runs at the NIC's rate), the PS's NIC, and one flow per
  /// rack pair, all in one step.
  std::vector<Step> server_steps(const JobState& j, const workload::Task& t, bool inc) {
    const bool push = t.op == workload::CollectiveOp::ps_push;
    const auto legs = workload::ps_legs(t.group, t.root, t.bytes, j.spec->endpoint_of_rank, j.spec->server_of_rank, inc);
    const int r0 = j.spec->endpoint_of_rank[static_cast<std::size_t>(t.group[static_cast<std::size_t>(t.root)])];
    Step s;
    for (const auto& [rack, n] : legs.worker_nics)
      s.push_back({rack, rack, legs.worker_nic_bytes, net::Path::uplink, true, n});
    if (legs.ps_nic_bytes > 0) s.push_back({r0, r0, legs.ps_nic_bytes, net::Path::uplink, true, 1});
    for (const auto& [rack, bytes] : legs.racks) {
      const int a = push ? rack : r0, b = push ? r0 : rack;
      s.push_back({a, b, bytes, path_or_fail(a, b)});
    }
    if (s.empty()) return {};
    return {s};
  }

  sg4::ActivityPtr send(const FlowSpec& f) const {
    return platform_.send(f.path, f.src, f.dst, f.bytes);
  }

  void issue(Flight& f, const Step& step) {
    f.acts.clear();
    f.pairs.clear();
    for (const auto& flow : step) {
      f.acts.push_back(send(flow));
      f.pairs.push_back(flow.path == net::Path::circuit ? network_.pair_index(flow.src, flow.dst) : -1);
      (flow.local() ? f.tor_bytes : f.circuit_bytes) += flow.bytes * flow.copies;
    }
  }

  /// Takes task t (ready or held) into the running state; opens the iteration if it is its first task.
  Flight& admit_task(JobState& j, int t) {
    if (!j.initialized || t < 0 || t >= static_cast<int>(j.status.size()))
      throw std::logic_error(fmt::format("controller started task {} of job {}, which has not arrived or has no "
                                         "such task", t, j.spec->id));
    auto& st = j.status[static_cast<std::size_t>(t)];
    if (st != Status::ready && st != Status::held)
      throw std::logic_error(fmt::format("controller started task {} of job {} that is not ready (state {}, iteration {}, t={})", t, j.spec->id, static_cast<int>(st), j.iteration, sg4::Engine::get_clock()));
    if (st == Status::held) --j.held;
    if (st == Status::ready) {
      const auto it = std::find(j.ungated.begin(), j.ungated.end(), t);
      if (it != j.ungated.end()) j.ungated.erase(it);
    }
    st = Status::running;
    const Seconds now = sg4::Engine::get_clock();
    if (!j.open) {
      j.open = true;
      j.start_s = now;
    }
    auto f = std::make_unique<Flight>();
    f->task = t;
    f->start_s = now;
    j.flights.push_back(std::move(f));
    return *j.flights.back();
  }

  /// An INC collective (Release::in_network): one stream of S per endpoint towards the root's endpoint (push)
  /// and back (pull), the ToRs aggregating at line rate (INC-AOI's model, Xie et al.).
  std::vector<Step> inc_steps(const JobState& j, const workload::Task& t, std::vector<int>& endpoints) {
    using workload::CollectiveOp;
    if (network_.inc_jobs <= 0) {
      fail(fmt::format("job {}: task '{}' asks for in-network aggregation, but this {} fabric has no INC-capable "
                       "ToRs (pods.inc_jobs)", j.spec->name, t.name, network_.kind));
      return {};
    }
    if (t.kind != TaskKind::collective ||
        (t.op != CollectiveOp::ps_push && t.op != CollectiveOp::ps_pull && t.op != CollectiveOp::all_reduce)) {
      fail(fmt::format("job {}: task '{}': in-network aggregation serves ps-push, ps-pull and all-reduce",
                       j.spec->name, t.name));
      return {};
    }
    const auto& pods = j.spec->endpoint_of_rank;
    const int root = pods[static_cast<std::size_t>(t.group[static_cast<std::size_t>(t.root)])];
    std::set<int> eps;
    for (int r : t.group) eps.insert(pods[static_cast<std::size_t>(r)]);
    endpoints.assign(eps.begin(), eps.end());
    if (on_servers(j, t)) return server_steps(j, t, true);
    Step push, pull;
    for (int e : eps)
      if (e != root) {
        push.push_back({e, root, t.bytes, path_or_fail(e, root)});
        pull.push_back({root, e, t.bytes, path_or_fail(root, e)});
      }
    if (push.empty()) return {};
    if (t.op == CollectiveOp::ps_push) return {push};
    if (t.op == CollectiveOp::ps_pull) return {pull};
    return {push, pull};
  }

  /// Takes INC slots on every endpoint of an INC collective; a ToR aggregates for at most inc_jobs jobs at once.
  bool take_inc(const JobState& j, const std::vector<int>& endpoints) {
    for (int e : endpoints) {
      const auto& users = inc_in_use_[e];
      if (!users.count(j.index) && static_cast<int>(users.size()) >= network_.inc_jobs) {
        fail(fmt::format("the ToR of {} {} would aggregate for {} jobs at once; its INC capacity is {} "
                         "(pods.inc_jobs)", network_.endpoint_word, e, users.size() + 1, network_.inc_jobs));
        return false;
      }
    }
    for (int e : endpoints) ++inc_in_use_[e][j.index];
    return true;
  }

  void release_inc(const JobState& j, const std::vector<int>& endpoints) {
    for (int e : endpoints) {
      auto& users = inc_in_use_[e];
      if (--users[j.index] == 0) users.erase(j.index);
    }
  }

  void start_task(JobState& j, int t, const sched::Routing* routing, bool in_network = false) {
    const auto& task = task_of(j, t);
    std::vector<int> inc_endpoints;
    std::vector<Step> steps;
    if (in_network) {
      steps = inc_steps(j, task, inc_endpoints);
      if (failed() || !take_inc(j, inc_endpoints)) return;
    } else if (task.kind != TaskKind::compute) {
      steps = steps_of(j, task, routing);
      if (failed()) return;
    }
    Flight& f = admit_task(j, t);
    f.inc_endpoints = std::move(inc_endpoints);
    if (in_network) {
      f.later = std::move(steps);
      if (!f.later.empty()) issue(f, f.later[f.next++]);
    } else if (task.kind == TaskKind::compute) {
      // The actor that waits for the task sleeps for it, at once (same instant): an Exec's end is recomputed
      // whenever another computation on its host starts or ends, which can move it by a rounding.
      f.sleep_s = task.duration_s;
    } else {
      f.later = std::move(steps);
      if (!f.later.empty()) issue(f, f.later[f.next++]);
    }
    Flight* fp = &f;
    in_waiter([this, &j, fp] {
      run_flight(*fp);
      if (!fp->inc_endpoints.empty()) {  // the ToRs are free as soon as the aggregation's bytes are through
        release_inc(j, fp->inc_endpoints);
        fp->inc_endpoints.clear();
      }
      j.finished.push_back(fp);
      pump(j);
    });
  }

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
    std::map<int, std::vector<sg4::ActivityPtr>> pod_acts;  ///< what each pod's issuer created
    int pending = 0;  ///< pods whose activities are still being created, then still running
  };

  void start_batch(const std::vector<sched::Release>& releases) {
    auto batch = std::make_shared<Batch>();
    for (const auto& r : releases) {
      JobState& j = jobs_.at(static_cast<std::size_t>(r.job));
      const auto& task = task_of(j, r.task);
      if (task.kind != TaskKind::compute) {
        if (r.in_network) {  // INC: the ToRs aggregate it; not part of the batch's aggregates
          start_task(j, r.task, r.routing, true);
          if (failed()) return;
          continue;
        }
        auto steps = steps_of(j, task, r.routing);
        if (failed()) return;
        const bool capped = !steps.empty() && std::any_of(steps[0].begin(), steps[0].end(), [](const FlowSpec& f) { return f.nic; });
        if (steps.size() > 1 || capped) {  // several steps, or NICs: not an aggregate; runs on its own
          start_task(j, r.task, r.routing);
          continue;
        }
        Flight& f = admit_task(j, r.task);
        batch->members.push_back({&j, &f, steps.empty() ? Step{} : std::move(steps[0])});
        for (const auto& flow : batch->members.back().step) {
          if (flow.uplink()) batch->uplink[flow.src] += flow.bytes;
          else batch->circuit[{flow.src, flow.dst}] += flow.bytes;
        }
      } else {
        Flight& f = admit_task(j, r.task);
        batch->members.push_back({&j, &f, {}});
        if (task.duration_s > 0) {
          const int rank = task.rank == workload::kAllRanks ? 0 : task.rank;
          batch->computes[j.spec->endpoint_of_rank[static_cast<std::size_t>(rank)]].emplace_back(
              batch->members.size() - 1, task.duration_s);
        }
      }
    }
    std::set<int> pods;
    for (const auto& [key, b] : batch->circuit) pods.insert(key.first);
    for (const auto& [p, b] : batch->uplink) pods.insert(p);
    for (const auto& [p, list] : batch->computes) pods.insert(p);
    if (pods.empty()) {
      finish_batch(batch);
      return;
    }
    // Each pod's activities are created by that pod's issuer actor: SimGrid 3.32 keeps an actor's activities
    // in a list it scans whenever one of them ends, so one actor creating a whole stage's would be quadratic.
    batch->pending = static_cast<int>(pods.size());
    for (int p : pods)
      issuer(p).put([this, batch, p] {
        Batch& b = *batch;
        auto& mine = b.pod_acts[p];
        for (auto it = b.circuit.lower_bound({p, INT_MIN}); it != b.circuit.end() && it->first.first == p; ++it) {
          b.circuit_act[it->first] = platform_.send(path_or_fail(p, it->first.second), p, it->first.second, it->second);
          mine.push_back(b.circuit_act[it->first]);
        }
        if (const auto c = b.computes.find(p); c != b.computes.end())
          for (const auto& [m, seconds] : c->second) {
            auto exec = sg4::Exec::init();
            exec->set_host(platform_.pod_host(p));
            exec->set_flops_amount(seconds);
            exec->start();
            b.members[m].f->acts.push_back(exec);
            b.members[m].f->pairs.push_back(-1);
            mine.push_back(exec);
          }
        if (const auto u = b.uplink.find(p); u != b.uplink.end()) {
          b.uplink_act[p] = platform_.send_to_tor(p, u->second);
          mine.push_back(b.uplink_act[p]);
        }
        if (--b.pending == 0) finish_batch(batch);
      });
  }

  /// Every activity of the batch exists: hand each task its own (shared) ones; one waiter per pod waits for
  /// that pod's activities (each activity is waited for once, however many tasks share it).
  void finish_batch(const std::shared_ptr<Batch>& batch) {
    Batch& b = *batch;
    for (auto& m : b.members)
      for (const auto& flow : m.step) {
        if (flow.uplink()) {
          m.f->acts.push_back(b.uplink_act.at(flow.src));
          m.f->pairs.push_back(-1);
          m.f->tor_bytes += flow.bytes;
        } else {
          m.f->acts.push_back(b.circuit_act.at({flow.src, flow.dst}));
          m.f->pairs.push_back(flow.path == net::Path::circuit ? network_.pair_index(flow.src, flow.dst) : -1);
          (flow.local() ? m.f->tor_bytes : m.f->circuit_bytes) += flow.bytes;
        }
      }
    if (b.pod_acts.empty()) {
      complete_batch(b);
      return;
    }
    b.pending = static_cast<int>(b.pod_acts.size());
    for (auto& [pod, acts] : b.pod_acts) {
      auto* list = &acts;
      in_waiter([this, batch, list] {
        for (auto& a : *list) a->wait();
        if (--batch->pending == 0) complete_batch(*batch);
      });
    }
  }

  /// The batch has ended: each task's end is when its own activities ended (its stall, when its circuits'
  /// set-up overlapped them); the controller hears of them now, in the order they were released.
  void complete_batch(Batch& b) {
    for (auto& m : b.members) {
      Flight& f = *m.f;
      f.end_s = settle_step(f, f.start_s, f.start_s);
      f.acts.clear();
    }
    for (auto& m : b.members) m.j->finished.push_back(m.f);
    for (auto& m : b.members) {
      if (stopped_) return;
      pump(*m.j);
    }
  }

  Inbox<std::function<void()>>& issuer(int pod) {
    auto& slot = issuers_[pod];
    if (!slot) {
      slot = std::make_unique<Inbox<std::function<void()>>>();
      auto* inbox = slot.get();
      sg4::Actor::create(fmt::format("issuer-{}", pod), platform_.control_host(), [this, inbox] {
        guarded([&] {
          while (true) inbox->take()();
        });
      })->daemonize();
    }
    return *slot;
  }

  // ---- running and completing tasks ----

  /// The part of [start, end] during which `pair`'s latest set-up kept added circuits dark.
  void add_stall(Flight& f, int pair, Seconds start, Seconds end) const {
    const auto [lo, hi] = circuits_.stall_window(pair, start, end);
    if (hi > lo) f.stalls.push_back({lo, hi, hi - lo});
  }

  /// For a step whose activities have all ended: the latest end (at least `end`), with the step's dark-circuit
  /// intervals added to the flight.
  Seconds settle_step(Flight& f, Seconds step_start, Seconds end) const {
    for (std::size_t i = 0; i < f.acts.size(); ++i) {
      const Seconds e = f.acts[i]->get_finish_time();
      end = std::max(end, e);
      if (f.pairs[i] >= 0) add_stall(f, f.pairs[i], step_start, e);
    }
    return end;
  }

  /// Waits for every step of f (the calling actor blocks) and fills in its end and stall.
  void run_flight(Flight& f) {
    Seconds end = f.start_s;
    if (f.sleep_s > 0) {
      const Seconds now = sg4::Engine::get_clock();  // the task's start, unless a waiter took it up later
      sg4::this_actor::sleep_for(now == f.start_s ? f.sleep_s : f.start_s + f.sleep_s - now);
      end = sg4::Engine::get_clock();
    }
    while (true) {
      const Seconds step_start = sg4::Engine::get_clock();
      for (auto& a : f.acts) a->wait();
      end = settle_step(f, step_start, end);
      if (f.next >= f.later.size()) break;
      issue(f, f.later[f.next++]);
    }
    f.acts.clear();
    f.end_s = end;
  }

  void complete(JobState& j, Flight* fp) {
    const auto it = std::find_if(j.flights.begin(), j.flights.end(), [fp](const auto& p) { return p.get() == fp; });
    std::unique_ptr<Flight> f = std::move(*it);
    j.flights.erase(it);
    const auto& task = task_of(j, f->task);
    if (!f->inc_endpoints.empty()) release_inc(j, f->inc_endpoints);
    if (task.kind == TaskKind::compute) {
      j.compute.push_back({f->start_s, f->end_s, task.duration_s});
      task_trace_.compute({j.spec, &task, j.iteration, j.warm, f->start_s, task.duration_s});
    } else if (task.kind != TaskKind::barrier) {
      j.comm.push_back({f->start_s, f->end_s, f->end_s - f->start_s});
      j.stalls.insert(j.stalls.end(), f->stalls.begin(), f->stalls.end());
      j.circuit_bytes += f->circuit_bytes;
      j.tor_bytes += f->tor_bytes;
      const Seconds stall = union_length_sorting(f->stalls);
      task_trace_.comm({j.spec, &task, j.iteration, j.warm, f->start_s, f->end_s - f->start_s},
                       f->circuit_bytes + f->tor_bytes, stall);
    }
    mark_done(j, f->task);
    j.last_end = std::max(j.last_end, f->end_s);
    const sched::TaskRef ref{j.index, j.iteration, f->task};
    // The iteration ends with its last task, before the controller hears of it, so that it can start the next
    // iteration's first task at once.
    if (j.done == static_cast<int>(j.status.size())) {
      close_iteration(j, j.last_end);
      auto& times = record_.jobs[static_cast<std::size_t>(j.index)];
      ++times.iterations;
      if (++j.iteration >= j.spec->graph->iterations) {
        j.finished_all = true;
        times.done_s = j.last_end;
      } else {
        begin_iteration(j);
      }
    }
    sched::Actions act;
    controller_.on_task_done(ref, task, f->start_s, f->end_s, act);
    process(act);
    if (j.finished_all && !j.reported) {
      j.reported = true;
      finish_job(j);
    }
  }

  /// A job task slice's args: which job, iteration, and whether the iteration is warm.
  void gate(JobState& j) {
    while (!j.ungated.empty() && !stopped_) {
      const int t = j.ungated.front();
      j.ungated.pop_front();
      if (j.status[static_cast<std::size_t>(t)] != Status::ready) continue;
      j.ungated.push_front(t);  // stays findable (and startable) while the controller decides
      sched::Actions act;
      const auto g = controller_.on_task_ready({j.index, j.iteration, t}, task_of(j, t), sg4::Engine::get_clock(), act);
      process(act);
      if (j.status[static_cast<std::size_t>(t)] != Status::ready) continue;  // the controller started it
      if (g.hold) {
        j.ungated.erase(std::find(j.ungated.begin(), j.ungated.end(), t));
        j.status[static_cast<std::size_t>(t)] = Status::held;
        ++j.held;
      } else {
        start_task(j, t, g.routing, g.in_network);
      }
    }
  }

  /// A job arrives (c): the controller admits it now or later (Actions::admit).
  void arrive(JobState& j) {
    j.arrived = true;
    sched::Actions act;
    const bool admitted = controller_.on_arrival(j.index, sg4::Engine::get_clock(), act);
    process(act);
    if (admitted) admit(j);
  }

  void admit(JobState& j) {
    if (j.admitted || stopped_) return;
    j.admitted = true;
    record_.jobs[static_cast<std::size_t>(j.index)].admitted_s = sg4::Engine::get_clock();
    if (!j.initialized) begin_iteration(j);
    pump(j);
  }

  /// Advances a job: completes the tasks that ended (in the order they ended) and shows the controller the
  /// tasks that became ready. One actor at a time does it; another that finds the job busy leaves it a note.
  void pump(JobState& j) {
    if (!j.admitted) return;
    if (j.busy) {
      j.again = true;
      return;
    }
    j.busy = true;
    do {
      j.again = false;
      while (!j.finished.empty() && !stopped_) {
        Flight* f = j.finished.front();
        j.finished.pop_front();
        complete(j, f);
      }
      if (!stopped_ && !j.finished_all) gate(j);
    } while ((j.again || !j.finished.empty()) && !stopped_);
    j.busy = false;
  }

  void finish_job(JobState& j) {
    sched::Actions act;
    controller_.on_job_done(j.index, sg4::Engine::get_clock(), act);
    process(act);
    ++finished_;
    progress_line(options_, "jobs finished", finished_, static_cast<int>(jobs_.size()));
    if (--unfinished_ == 0) all_done_->release();
  }

  // ---- waiters: actors that wait for a task while its job's actor waits for several ----

  struct Waiter {
    sg4::SemaphorePtr go = sg4::Semaphore::create(0);
    std::function<void()> work;
    Waiter* next_idle = nullptr;
  };

  /// Runs `work` in a pooled helper actor (created when none is idle). The idle ones form an intrusive list,
  /// so that a waiter never grows a container on its own SimGrid stack (ASan misreads that, google/sanitizers#189).
  void in_waiter(std::function<void()> work) {
    Waiter* w = idle_waiters_;
    if (w == nullptr && waiters_.size() + issuers_.size() + 16 > actor_limit()) {
      // Each SimGrid actor maps a stack and a guard page, and vm.max_map_count bounds the total: say so rather
      // than let SimGrid abort.
      fail(fmt::format("more than {} tasks would run at once, more actors than this machine allows "
                       "(vm.max_map_count = {}); use fewer jobs",
                       waiters_.size(), max_map_count()));
      return;
    }
    if (w == nullptr) {
      waiters_.push_back(std::make_unique<Waiter>());
      w = waiters_.back().get();
      sg4::Actor::create("waiter", platform_.control_host(), [this, w] {
        guarded([&] {
          while (true) {
            w->go->acquire();
            w->work();
            w->work = nullptr;
            w->next_idle = idle_waiters_;
            idle_waiters_ = w;
          }
        });
      })->daemonize();
    } else {
      idle_waiters_ = w->next_idle;
    }
    w->work = std::move(work);
    w->go->release();
  }

  static long max_map_count() {
    long max_maps = 65530;
    if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      if (std::fscanf(f, "%ld", &max_maps) != 1) max_maps = 65530;
      std::fclose(f);
    }
    return max_maps;
  }
  static std::size_t actor_limit() {
    static const auto limit = static_cast<std::size_t>(std::max(0L, max_map_count() - 4000) / 2);
    return limit;
  }

  // ---- timers ----

  /// Job arrivals after time 0, and the controller's wake-ups (b), in time order (arrivals first at a tie).
  void timer_main() {
    while (!stopped_) {
      const bool arrival = !arrivals_.empty() && (wakes_.empty() || arrivals_.begin()->first <= *wakes_.begin());
      if (!arrival && wakes_.empty()) {
        timer_wake_->acquire();
        continue;
      }
      const Seconds t = arrival ? arrivals_.begin()->first : *wakes_.begin();
      const Seconds now = sg4::Engine::get_clock();
      if (t <= now) {
        if (arrival) {
          const int job = arrivals_.begin()->second;
          arrivals_.erase(arrivals_.begin());
          arrive(jobs_[static_cast<std::size_t>(job)]);
        } else {
          wakes_.erase(wakes_.begin());
          sched::Actions act;
          controller_.on_timer(now, act);
          process(act);
        }
        continue;
      }
      timer_wake_->acquire_timeout(t - now);
    }
  }

  // ---- the controller's actions ----

  void process(sched::Actions& act) {
    for (auto& a : act.take()) {
      if (stopped_) return;
      switch (a.kind) {
        case sched::Actions::Kind::configure:
          if (auto v = network_.violation ? network_.violation(a.config) : std::string(); !v.empty()) {
            fail(v);
            return;
          }
          circuits_.apply(a.config, a.text);
          break;
        case sched::Actions::Kind::release: {
          const auto& r = a.releases.at(0);
          start_task(jobs_.at(static_cast<std::size_t>(r.job)), r.task, r.routing, r.in_network);
          break;
        }
        case sched::Actions::Kind::release_together:
          start_batch(a.releases);
          break;
        case sched::Actions::Kind::skip: {
          JobState& j = jobs_.at(static_cast<std::size_t>(a.job));
          const auto st = j.initialized ? j.status.at(static_cast<std::size_t>(a.task)) : Status::waiting;
          if (sg4::Engine::get_clock() > 0 || j.iteration > 0 || (st != Status::ready && st != Status::held))
            throw std::logic_error(fmt::format("a controller may skip only ready tasks of iteration 0, at the start "
                                               "(job {}, task {})", j.spec->id, a.task));
          if (st == Status::held) --j.held;
          if (const auto it = std::find(j.ungated.begin(), j.ungated.end(), a.task); it != j.ungated.end())
            j.ungated.erase(it);
          mark_done(j, a.task);
          j.open = j.warm = true;
          j.start_s = 0;
          break;
        }
        case sched::Actions::Kind::wake_at:
          wakes_.insert(a.at_s);
          timer_wake_->release();
          break;
        case sched::Actions::Kind::admit: {
          JobState& j = jobs_.at(static_cast<std::size_t>(a.job));
          if (!j.arrived)
            throw std::logic_error(fmt::format("controller admitted job {} before it arrived", j.spec->id));
          admit(j);
          break;
        }
        case sched::Actions::Kind::stop:
          stop();
          break;
        case sched::Actions::Kind::stage:
          record_.stages.push_back(a.stage);
          break;
        case sched::Actions::Kind::event:
          record_.add_event(a.event);
          break;
        case sched::Actions::Kind::progress:
          progress_line(options_, a.text, a.done, a.total);
          break;
      }
    }
  }

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
  std::map<int, std::unique_ptr<Inbox<std::function<void()>>>> issuers_;
  std::map<int, std::map<int, int>> inc_in_use_;  ///< endpoint -> (job -> INC collectives running)
  Waiter* idle_waiters_ = nullptr;
  std::multiset<Seconds> wakes_;
  std::multimap<Seconds, int> arrivals_;  ///< jobs arriving after time 0, by time then index
  sg4::SemaphorePtr timer_wake_ = sg4::Semaphore::create(0);
  sg4::SemaphorePtr all_done_ = sg4::Semaphore::create(0);
  int unfinished_ = 0;
  int finished_ = 0;
  bool stopped_ = false;
  bool completed_ = false;
  std::exception_ptr error_;
  std::string fail_message_;
};

}  // namespace

std::vector<std::string> simgrid_settings() {
  auto settings = exact_fluid_settings();
  settings.emplace_back("all link latencies 0");
  return settings;
}

std::string simgrid_version() {
  return fmt::format("{}.{}.{}", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
}

trace::RunRecord run(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options) {
  network.check(controller.initial_circuits());  // before SimPlatform reads it
  Executor executor(network, jobs, controller, options);
  return executor.run();
}

trace::RunRecord run(const net::Fabric& fabric, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options) {
  const net::Network network = net::network_of(fabric);
  return run(network, jobs, controller, options);
}

ScriptResult run_script(const net::Fabric& fabric, const net::CircuitConfig& initial,
                        const std::vector<ScriptTransfer>& transfers, const std::vector<ScriptReconfig>& reconfigs) {
  sg4::Engine& engine = make_engine();
  const net::Network network = net::network_of(fabric);
  network.check(initial);
  ScriptResult result;
  SimPlatform platform(network, initial);
  Circuits circuits(platform, network, initial, result.record);
  result.finish_s.assign(transfers.size(), -1.0);
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    sg4::Actor::create(fmt::format("transfer{}", i), platform.control_host(), [&platform, &transfers, &result, i] {
      const auto& t = transfers[i];
      sg4::this_actor::sleep_until(t.start_s);
      sg4::CommPtr c = t.kind == ScriptTransfer::Kind::tor ? platform.send_to_tor(t.src_pod, t.bytes)
                                                           : platform.send_over_circuit(t.src_pod, t.dst_pod, t.bytes);
      c->wait();
      result.finish_s[i] = sg4::Engine::get_clock();
    });
  }
  sg4::Actor::create("scheduler", platform.control_host(), [&] {
    for (std::size_t i = 0; i < reconfigs.size(); ++i) {
      sg4::this_actor::sleep_until(reconfigs[i].at_s);
      circuits.apply(reconfigs[i].config, fmt::format("script {}", i + 1));
    }
  });
  engine.run();
  return result;
}

}  // namespace odcn::engine
