// The executor's run: building its jobs, the scheduler and timer actors, errors, and the pooled waiter actors.
#include "engine/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "core/error.hpp"
#include "policy/graph_static.hpp"

namespace odcn::engine::detail {

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

namespace {

/// The spans sorted by start, with those that overlap (not merely touch) merged: disjoint, so ends are sorted too.
std::vector<Span> merged(std::vector<Span> v) {
  std::sort(v.begin(), v.end(), [](const Span& x, const Span& y) { return x.start < y.start; });
  std::vector<Span> out;
  for (const auto& s : v)
    if (!out.empty() && s.start < out.back().end)
      out.back().end = std::max(out.back().end, s.end);
    else
      out.push_back(s);
  return out;
}

/// Whether a span of `a` overlaps (not merely touches) a span of `b`: one sweep over both, O((n + m) log(n + m)).
bool intersects(const std::vector<Span>& a, const std::vector<Span>& b) {
  const std::vector<Span> x = merged(a), y = merged(b);
  for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    if (x[i].end <= y[j].start)
      ++i;
    else if (y[j].end <= x[i].start)
      ++j;
    else
      return true;
  }
  return false;
}

}  // namespace

Seconds overlap_length(const std::vector<Span>& a, const std::vector<Span>& b) {
  if (!intersects(a, b)) return 0;
  std::vector<Span> both = a;
  both.insert(both.end(), b.begin(), b.end());
  return std::max<Seconds>(0, union_length(a) + union_length(b) - union_length_sorting(both));
}

/// Per candidate pair, whether `config` lights it.
std::vector<char> lit_pairs(const net::CircuitConfig& config) {
  std::vector<char> lit(config.circuits.size(), 0);
  for (std::size_t p = 0; p < lit.size(); ++p) lit[p] = config.circuits[p] > 0 ? 1 : 0;
  return lit;
}

/// What the jobs' own flows use of the network, from their transfers and collective lowerings as steps_of makes
/// them: the endpoint pairs that take net::Path::pxn (none on fabrics without such forwarding), and the pairs
/// that need a link: those lit at time 0 when the controller keeps its circuits, those the flows cross when it
/// sends only the jobs' own flows (Controller::sends_job_flows_only), else every one.
SimPlatform::Needs needs_of(const net::Network& network, const std::vector<JobToRun>& jobs,
                            const sched::Controller& controller) {
  SimPlatform::Needs needs;
  const bool fixed = controller.fixed_circuits();
  const bool own = !fixed && controller.sends_job_flows_only();
  if (network.pxn_stride <= 0 && !own) {
    if (fixed) needs.linked = lit_pairs(controller.initial_circuits());
    return needs;
  }
  std::set<std::pair<int, int>> pxn;
  if (own) needs.linked.assign(network.pairs.size(), 0);
  const auto add = [&](int a, int b) {
    net::Path p = net::Path::none;
    std::string why;
    if (a == b || !network.route(a, b, p, why)) return;  // (the engine refuses it when it is sent)
    if (p == net::Path::pxn) pxn.insert({a, b});
    if (const int pair = network.crossed_pair(a, b, p); own && pair >= 0) needs.linked[static_cast<std::size_t>(pair)] = 1;
  };
  for (const JobToRun& j : jobs) {
    if (!j.graph) continue;
    for (const workload::Task& t : j.graph->tasks) {
      if (t.kind == TaskKind::collective && t.bytes <= 0) continue;  // the engine sends nothing for it
      sched::for_each_endpoint_flow(network, t, j.endpoint_of_rank, [&](int a, int b, Bytes) { add(a, b); });
    }
  }
  needs.pxn_pairs.assign(pxn.begin(), pxn.end());
  if (fixed) needs.linked = lit_pairs(controller.initial_circuits());
  return needs;
}

/// A trace record whose events stream to `sink` (set before anything can report an event).
trace::RunRecord record_for(trace::EventSink* sink) {
  trace::RunRecord r;
  r.event_sink = sink;
  return r;
}

Executor::Executor(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
         const EngineOptions& options)
    : engine_(make_engine()),
      network_(network),
      controller_(controller),
      options_(options),
      record_(record_for(options.events)),
      platform_(network, controller.initial_circuits(), needs_of(network, jobs, controller)),
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
    if (g.arrival_s <= 0) {
      begin_iteration(j);
      ++time0_jobs_;
    }
  }
  unfinished_ = static_cast<int>(jobs.size());
}

trace::RunRecord Executor::run() {
  // No actor per job: a job's tasks are waited for by pooled waiter actors, and whichever actor sees a task
  // end advances the job (pump). The scheduler calls on_start, then lets the jobs present at time 0 arrive.
  sg4::Actor::create("scheduler", platform_.control_host(), [this] {
    guarded([&] {
      sched::Actions act;
      controller_.on_start(sg4::Engine::get_clock(), act);
      process(act);
      for (auto& j : jobs_)
        if (!stopped_ && j.spec->graph->arrival_s <= 0) arrive(j);
      time0_arrived_ = true;
      timer_wake_->release();
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

/// An error of the inputs found inside an actor: recorded, the run ends, and run() raises it as a ConfigError
/// (not thrown here: ASan misreads a throw on a SimGrid actor's stack, google/sanitizers#189).
void Executor::fail(const std::string& why) {
  if (fail_message_.empty() && !error_) fail_message_ = why;
  stop();
}

net::Path Executor::path_or_fail(int a, int b) {
  net::Path p = net::Path::none;
  std::string why;
  if (!network_.route(a, b, p, why)) {
    fail(why);
  } else if (const int pair = network_.crossed_pair(a, b, p); pair >= 0 && !platform_.linked(pair)) {
    const auto [x, y] = network_.pairs[static_cast<std::size_t>(pair)];
    const std::string what = fmt::format("a transfer from {0} {1} to {0} {2} crosses the circuit of {0}s {3} and {4}",
                                         network_.endpoint_word, a, b, x, y);
    if (controller_.fixed_circuits()) {
      fail(what + ", which this policy never lights");
    } else {  // not the inputs' fault: an internal error (exit 1), not a refusal of the workload
      if (!error_)
        error_ = std::make_exception_ptr(std::logic_error(
            what + ", which was not found to carry any job's flow before the run (an odcnsim bug; please report it)"));
      stop();
    }
  }
  return p;
}

void Executor::stop() {
  if (stopped_) return;
  stopped_ = true;
  all_done_->release();
}

/// Runs `work` in a pooled helper actor (created when none is idle). The idle ones form an intrusive list,
/// so that a waiter never grows a container on its own SimGrid stack (ASan misreads that, google/sanitizers#189).
bool Executor::in_waiter(std::function<void()> work) {
  Waiter* w = idle_waiters_;
  if (w == nullptr && waiters_.size() + platform_.receivers() + 16 > actor_limit()) {
    // Each SimGrid actor maps a stack and a guard page, and vm.max_map_count bounds the total: say so rather
    // than let SimGrid abort.
    fail(fmt::format("more than {} tasks would run at once, more actors than this machine allows "
                     "(vm.max_map_count = {}; an actor waits for each task in flight and for every 64 transfers of "
                     "a step); use fewer jobs or smaller collectives",
                     waiters_.size(), max_map_count()));
    return false;
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
  return true;
}

long Executor::max_map_count() {
  long max_maps = 65530;
  if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%ld", &max_maps) != 1) max_maps = 65530;
    std::fclose(f);
  }
  return max_maps;
}

std::size_t Executor::actor_limit() {
  static const auto limit = static_cast<std::size_t>(std::max(0L, max_map_count() - 4000) / 2);
  return limit;
}

/// Job arrivals after time 0, and the controller's wake-ups (b), in time order (arrivals first at a tie).
void Executor::timer_main() {
  while (!stopped_) {
    if (!time0_arrived_) {  // every job of time 0 arrives before the first wake-up (see time0_arrived_)
      timer_wake_->acquire();
      continue;
    }
    const bool arrival = !arrivals_.empty() && (wakes_.empty() || arrivals_.begin()->first <= *wakes_.begin());
    if (!arrival && wakes_.empty()) {
      timer_wake_->acquire();
      continue;
    }
    const Seconds t = arrival ? arrivals_.begin()->first : *wakes_.begin();
    const Seconds now = sg4::Engine::get_clock();
    // Due when the clock is within SimGrid's timing precision (1e-9 s) of it: a wait of t - now can end an ulp
    // early, and a shorter one would last 1e-9 s (CPU sleeps are at least that long), which made slot times
    // t + 1e-9. A wake-up is handed its own time t.
    if (t - now < kTimingPrecision) {
      ++handling_;  // (not alone() until the arrival or wake-up is handled: it may start work)
      if (arrival) {
        const int job = arrivals_.begin()->second;
        arrivals_.erase(arrivals_.begin());
        arrive(jobs_[static_cast<std::size_t>(job)]);
      } else {
        wakes_.erase(wakes_.begin());
        sched::Actions act;
        woken_at_ = std::max(now, t);
        controller_.on_timer(woken_at_, act);
        process(act);
        woken_at_ = -1;
      }
      --handling_;
      continue;
    }
    timer_wake_->acquire_timeout(t - now);
  }
}

}  // namespace odcn::engine::detail
