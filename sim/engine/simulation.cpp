#include "engine/simulation.hpp"

#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "engine/inbox.hpp"
#include "engine/ocs_actor.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "engine/sim_platform.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;
using workload::Job;
using workload::JobType;
using workload::PhaseTraffic;

namespace {

/// Waits for every comm or exec in `acts` and returns, for each, the time it finished.
std::vector<Seconds> wait_all_timed(std::vector<sg4::ActivityPtr> acts) {
  // Waiting on each in turn and then reading when each finished is linear in the number of activities;
  // wait_any in a loop rescans the remaining ones every time (quadratic for a job with many flows).
  std::vector<Seconds> end(acts.size(), sg4::Engine::get_clock());
  for (auto& a : acts) a->wait();
  for (std::size_t i = 0; i < acts.size(); ++i) end[i] = acts[i]->get_finish_time();
  return end;
}

/// A ToR actor sends its pod's inter-pod traffic onto the pod's circuits: either one transfer handed back to
/// a worker (forward), or a whole stage's batch of per-destination aggregates that it waits for itself.
class TorActor {
 public:
  TorActor(const SimPlatform& platform, int pod) : platform_(platform), pod_(pod) {}
  void start() {
    sg4::Actor::create(fmt::format("tor-{}", pod_), platform_.control_host(), [this] { run(); })->daemonize();
  }
  /// Called by a worker: the ToR starts the transfer towards `dst_pod` and hands it back to be waited on.
  sg4::CommPtr forward(int dst_pod, Bytes bytes) {
    auto req = std::make_shared<Request>();
    req->out = {{dst_pod, bytes}};
    req->ready = sg4::Semaphore::create(0);
    inbox_.put(req);
    req->ready->acquire();
    return req->comm;
  }
  /// Called by the scheduler: send every (destination, bytes) of `out`, record when each finished in
  /// `finish`, then release `done`.
  void send_batch(const std::vector<std::pair<int, Bytes>>* out, std::vector<Seconds>* finish,
                  const sg4::SemaphorePtr& done) {
    auto req = std::make_shared<Request>();
    req->batch = out;
    req->finish = finish;
    req->ready = done;
    inbox_.put(req);
  }

 private:
  struct Request {
    std::vector<std::pair<int, Bytes>> out;
    const std::vector<std::pair<int, Bytes>>* batch = nullptr;
    std::vector<Seconds>* finish = nullptr;
    sg4::CommPtr comm;
    sg4::SemaphorePtr ready;
  };
  void run() {
    while (true) {
      auto req = inbox_.take();
      if (!req->batch) {
        req->comm = platform_.send_over_circuit(pod_, req->out[0].first, req->out[0].second);
        req->ready->release();
        continue;
      }
      std::vector<sg4::ActivityPtr> comms;
      for (const auto& [dst, bytes] : *req->batch) comms.push_back(platform_.send_over_circuit(pod_, dst, bytes));
      *req->finish = wait_all_timed(std::move(comms));
      req->ready->release();
    }
  }
  const SimPlatform& platform_;
  int pod_;
  Inbox<std::shared_ptr<Request>> inbox_;
};

/// In TDM runs, a pod's worker aggregate: it trains (or aggregates) every job of the pod that computes in
/// a stage, each as an Exec on the pod host, and moves the pod's ToR <-> server bytes of the stage.
class PodWorker {
 public:
  PodWorker(const SimPlatform& platform, int pod) : platform_(platform), pod_(pod) {}
  void start() {
    sg4::Actor::create(fmt::format("pod-{}", pod_), platform_.pod_host(pod_), [this] { run(); })->daemonize();
  }
  struct Work {
    const std::vector<std::pair<int, Seconds>>* compute = nullptr;  ///< (job, seconds)
    Bytes tor_bytes = 0;
    std::vector<Seconds> compute_end;  ///< filled in, per compute item
    Seconds tor_end = 0;
    sg4::SemaphorePtr done;
  };
  void post(Work* w) { inbox_.put(w); }

 private:
  void run() {
    while (true) {
      Work* w = inbox_.take();
      std::vector<sg4::ActivityPtr> acts;
      for (const auto& [job, seconds] : *w->compute) acts.push_back(sg4::this_actor::exec_async(seconds));
      if (w->tor_bytes > 0) acts.push_back(platform_.send_to_tor(pod_, w->tor_bytes));
      auto end = wait_all_timed(std::move(acts));
      if (w->tor_bytes > 0) {
        w->tor_end = end.back();
        end.pop_back();
      }
      w->compute_end = std::move(end);
      w->done->release();
    }
  }
  const SimPlatform& platform_;
  int pod_;
  Inbox<Work*> inbox_;
};

/// The per-job state of a run: iteration book-keeping.
struct JobRun {
  const Job* job = nullptr;
  // Open iteration
  bool open = false;
  bool warm = false;
  Seconds start_s = 0, compute_s = 0, comm_s = 0, stall_s = 0;
  Bytes circuit_bytes = 0, tor_bytes = 0;
  int next_iteration = 0;
};

struct Summary {
  Seconds end_s = 0;
  Seconds stall_s = 0;
  Bytes circuit_bytes = 0;
  Bytes tor_bytes = 0;
};

void close_iteration(JobRun& jr, Seconds end_s, trace::RunRecord& rec) {
  trace::IterationRow row;
  row.job = jr.job->id;
  row.iteration = jr.next_iteration++;
  row.warm = jr.warm;
  row.start_s = jr.start_s;
  row.end_s = end_s;
  row.compute_s = jr.compute_s;
  row.comm_s = jr.comm_s;
  row.reconfig_stall_s = jr.stall_s;
  // Waiting is what the iteration's span leaves after compute and communication; differences below a
  // nanosecond are rounding in that subtraction, not waiting.
  const Seconds wait = (end_s - jr.start_s) - jr.compute_s - jr.comm_s;
  row.wait_s = wait > 1e-9 ? wait : 0.0;
  row.circuit_bytes = jr.circuit_bytes;
  row.tor_bytes = jr.tor_bytes;
  rec.iterations.push_back(row);
  jr.open = false;
  jr.compute_s = jr.comm_s = jr.stall_s = jr.circuit_bytes = jr.tor_bytes = 0;
}

void open_iteration(JobRun& jr, Seconds start_s, bool warm) {
  if (jr.open) return;
  jr.open = true;
  jr.warm = warm;
  jr.start_s = start_s;
}

/// Everything common to both runners: platform, OCS, ToRs, and the jobs' book-keeping.
struct World {
  sg4::Engine& engine;
  const net::Fabric& fabric;
  trace::RunRecord record;
  SimPlatform platform;
  OcsActor ocs;
  std::vector<std::unique_ptr<TorActor>> tors;
  std::vector<JobRun> jobs;

  World(const net::Fabric& f, const std::vector<Job>& job_list, const net::CircuitConfig& initial)
      : engine(make_engine()), fabric(f), platform(f, initial), ocs(platform, f, initial, record) {
    f.check(initial);
    for (int i = 0; i < f.pods(); ++i) tors.push_back(std::make_unique<TorActor>(platform, i));
    jobs.resize(job_list.size());
    for (std::size_t j = 0; j < job_list.size(); ++j) {
      jobs[j].job = &job_list[j];
      record.thread_names.push_back(job_list[j].name);
    }
  }

  void start_actors() {
    ocs.start();
    for (auto& t : tors) t->start();
  }
};

/// One communication phase of a job, issued by the job's own driver actor: every pod's ToR <-> server bytes
/// and every flow between pods start now, and the driver waits for the last byte. (No actor per job and pod:
/// SimGrid transfers are host to host, so one actor per job can start them all.)
Summary job_communicate(World& world, JobRun& jr, const PhaseTraffic& traffic) {
  const Seconds start = sg4::Engine::get_clock();
  std::vector<sg4::ActivityPtr> comms;
  std::vector<int> pairs;
  Summary s;
  for (const auto& [pod, gpus] : jr.job->placement) {
    for (const auto& v : traffic.tor)
      if (v.pod == pod) {
        comms.push_back(world.platform.send_to_tor(pod, v.bytes));
        pairs.push_back(-1);
        s.tor_bytes += v.bytes;
      }
    for (const auto& f : traffic.flows)
      if (f.src == pod) {
        comms.push_back(world.platform.send_over_circuit(f.src, f.dst, f.bytes));
        pairs.push_back(world.fabric.pair_index(f.src, f.dst));
        s.circuit_bytes += f.bytes;
      }
  }
  const auto end = wait_all_timed(std::move(comms));
  s.end_s = start;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    s.end_s = std::max(s.end_s, end[i]);
    if (pairs[i] >= 0) s.stall_s = std::max(s.stall_s, world.ocs.stall(pairs[i], start, end[i]));
  }
  return s;
}

void progress_line(bool enabled, const std::string& what, int done, int total) {
  if (!enabled) return;
  std::cerr << fmt::format("\r{} {}/{}", what, done, total) << (done == total ? "\n" : "") << std::flush;
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

}  // namespace

std::vector<std::string> simgrid_settings() {
  auto settings = exact_fluid_settings();
  settings.emplace_back("all link latencies 0");
  return settings;
}

std::string simgrid_version() {
  return fmt::format("{}.{}.{}", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
}

trace::RunRecord run_static(const net::Fabric& fabric, const std::vector<Job>& jobs, const sched::StaticPlan& plan,
                            int iterations, const EngineOptions& options) {
  // Each SimGrid actor maps a stack and a guard page; the kernel's vm.max_map_count bounds the total. Say so
  // before SimGrid aborts half-way.
  // One driver actor per job, one ToR actor per pod, the OCS and the scheduler.
  const std::size_t actors = jobs.size() + static_cast<std::size_t>(fabric.pods()) + 8;
  long max_maps = 65530;
  if (std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(f, "%ld", &max_maps) != 1) max_maps = 65530;
    std::fclose(f);
  }
  const auto limit = static_cast<std::size_t>(std::max(0L, max_maps - 4000) / 2);
  if (actors > limit)
    throw ConfigError(fmt::format("policy static runs one actor per job: these {} jobs need {} actors, more "
                                  "than the {} this machine allows (vm.max_map_count = {}); use fewer jobs or a TDM "
                                  "policy, whose actors do not grow with the number of jobs",
                                  jobs.size(), actors, limit, max_maps));
  World world(fabric, jobs, plan.config);
  world.record.event_sink = options.events;
  world.start_actors();
  int finished = 0;
  bool completed = false;
  const int total = static_cast<int>(jobs.size());
  auto all_done = sg4::Semaphore::create(0);
  for (auto& jr_ref : world.jobs) {
    JobRun* jr = &jr_ref;
    // The job's driver: it sequences the phases of each iteration over the job's workers.
    sg4::Actor::create(fmt::format("job{}", jr->job->id), world.platform.control_host(), [&world, jr, &plan,
                                                                                          iterations, all_done] {
      const Job& job = *jr->job;
      const auto& phases = plan.job_phases[static_cast<std::size_t>(job.id)];
      for (int it = 0; it < iterations; ++it) {
        const Seconds t0 = sg4::Engine::get_clock();
        open_iteration(*jr, t0, false);
        sg4::this_actor::sleep_for(job.train_s);
        jr->compute_s += job.train_s;
        world.record.add_event({"train", "compute", 1, job.id, t0, job.train_s});
        for (int ph = 0; ph < job.comm_phases(); ++ph) {
          const Seconds c0 = sg4::Engine::get_clock();
          const Summary s = job_communicate(world, *jr, phases[static_cast<std::size_t>(ph)]);
          jr->comm_s += s.end_s - c0;
          jr->stall_s += s.stall_s;
          jr->circuit_bytes += s.circuit_bytes;
          jr->tor_bytes += s.tor_bytes;
          world.record.add_event({job.type == JobType::ps ? (ph == 0 ? "push" : "pull") : "collective", "comm",
                                         1, job.id, c0, s.end_s - c0});
          if (job.type == JobType::ps && ph == 0) {
            const Seconds a0 = sg4::Engine::get_clock();
            sg4::this_actor::sleep_for(job.aggregate_s);
            jr->compute_s += job.aggregate_s;
            world.record.add_event({"aggregate", "compute", 1, job.id, a0, job.aggregate_s});
          }
        }
        close_iteration(*jr, sg4::Engine::get_clock(), world.record);
      }
      all_done->release();
    });
  }
  sg4::Actor::create("scheduler", world.platform.control_host(), [&] {
    for (int j = 0; j < total; ++j) {
      all_done->acquire();
      progress_line(options.progress, "jobs finished", ++finished, total);
    }
    completed = true;
  });
  world.engine.run();
  require_completed(completed);
  finish_record(world.record);
  return std::move(world.record);
}

namespace {

/// One stage's activity, summed over jobs per pod and per pod pair, with what each job used of it.
struct StageLoad {
  std::vector<std::vector<std::pair<int, Bytes>>> out;          ///< [src pod] → (dst pod, bytes), by dst
  std::vector<Bytes> tor;                                       ///< [pod] → ToR <-> server bytes
  std::vector<std::vector<std::pair<int, Seconds>>> compute;    ///< [pod] → (work index, seconds)
  std::vector<int> pods;                                        ///< pods with anything to do
  struct Use {
    std::vector<std::pair<int, std::size_t>> out;  ///< (src pod, index into out[src]) the job sends on
    std::vector<int> pairs;                         ///< fabric pair indices it sends on
    std::vector<int> tor_pods;
    std::vector<std::pair<int, std::size_t>> compute;  ///< (pod, index into compute[pod])
    Bytes circuit_bytes = 0;
    Bytes tor_bytes = 0;
  };
  std::vector<Use> use;  ///< by work index

  StageLoad(const net::Fabric& fabric, const std::vector<JobRun>& runs, const sched::StagePlan& st) {
    const auto pods_n = static_cast<std::size_t>(fabric.pods());
    out.resize(pods_n);
    tor.assign(pods_n, 0.0);
    compute.resize(pods_n);
    use.resize(st.work.size());
    std::vector<std::map<int, Bytes>> sums(pods_n);
    for (const auto& w : st.work)
      for (const auto& f : w.traffic.flows) sums[static_cast<std::size_t>(f.src)][f.dst] += f.bytes;
    for (std::size_t p = 0; p < pods_n; ++p)
      for (const auto& [dst, bytes] : sums[p]) out[p].emplace_back(dst, bytes);
    for (std::size_t i = 0; i < st.work.size(); ++i) {
      const auto& w = st.work[i];
      Use& u = use[i];
      for (const auto& f : w.traffic.flows) {
        const auto& row = out[static_cast<std::size_t>(f.src)];
        const auto at = std::lower_bound(row.begin(), row.end(), std::make_pair(f.dst, 0.0),
                                         [](const auto& x, const auto& y) { return x.first < y.first; });
        u.out.emplace_back(f.src, static_cast<std::size_t>(at - row.begin()));
        u.pairs.push_back(fabric.pair_index(f.src, f.dst));
        u.circuit_bytes += f.bytes;
      }
      for (const auto& v : w.traffic.tor) {
        tor[static_cast<std::size_t>(v.pod)] += v.bytes;
        u.tor_pods.push_back(v.pod);
        u.tor_bytes += v.bytes;
      }
      if (w.activity == sched::Activity::communicate) continue;
      const Job& job = *runs[static_cast<std::size_t>(w.job)].job;
      for (const auto& [pod, gpus] : job.placement) {
        if (w.activity == sched::Activity::aggregate && pod != job.ps_pod) continue;
        auto& list = compute[static_cast<std::size_t>(pod)];
        u.compute.emplace_back(pod, list.size());
        list.emplace_back(w.job, w.compute_s);
      }
    }
    for (std::size_t p = 0; p < pods_n; ++p)
      if (!out[p].empty() || tor[p] > 0 || !compute[p].empty()) pods.push_back(static_cast<int>(p));
  }
};

}  // namespace

trace::RunRecord run_tdm(const net::Fabric& fabric, const std::vector<Job>& jobs, const sched::TdmPlan& plan, int rounds,
                         const EngineOptions& options) {
  for (const auto& st : plan.stages) fabric.check(st.config);
  World world(fabric, jobs, plan.stages[3].config);  // steady state: as the last stage left it
  world.record.event_sink = options.events;
  std::vector<std::unique_ptr<PodWorker>> pod_workers;
  for (int p = 0; p < fabric.pods(); ++p) pod_workers.push_back(std::make_unique<PodWorker>(world.platform, p));
  std::vector<StageLoad> loads;
  for (const auto& st : plan.stages) loads.emplace_back(fabric, world.jobs, st);
  world.start_actors();
  for (auto& w : pod_workers) w->start();
  bool completed = false;
  sg4::Actor::create("scheduler", world.platform.control_host(), [&] {
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t si = 0; si < plan.stages.size(); ++si) {
        const auto& st = plan.stages[si];
        const StageLoad& load = loads[si];
        const Seconds start = sg4::Engine::get_clock();
        const int changes_before = world.record.circuits_changed;
        world.ocs.request(st.config, fmt::format("round {} stage {}", r + 1, st.index + 1));
        const int changed = world.record.circuits_changed - changes_before;
        // Every pod's ToR sends its stage aggregate and every pod's workers compute, all at once.
        auto done = sg4::Semaphore::create(0);
        std::vector<std::vector<Seconds>> out_end(static_cast<std::size_t>(fabric.pods()));
        std::vector<PodWorker::Work> work(static_cast<std::size_t>(fabric.pods()));
        int posted = 0;
        for (int p : load.pods) {
          const auto pi = static_cast<std::size_t>(p);
          if (!load.out[pi].empty()) {
            world.tors[pi]->send_batch(&load.out[pi], &out_end[pi], done);
            ++posted;
          }
          if (load.tor[pi] > 0 || !load.compute[pi].empty()) {
            work[pi].compute = &load.compute[pi];
            work[pi].tor_bytes = load.tor[pi];
            work[pi].done = done;
            pod_workers[pi]->post(&work[pi]);
            ++posted;
          }
        }
        for (int i = 0; i < posted; ++i) done->acquire();
        const Seconds end = sg4::Engine::get_clock();
        Seconds last_byte = start;
        for (std::size_t i = 0; i < st.work.size(); ++i) {
          const auto& w = st.work[i];
          const auto& u = load.use[i];
          JobRun& jr = world.jobs[static_cast<std::size_t>(w.job)];
          if (w.activity == sched::Activity::communicate) {
            // A job's communication ends when the last link it uses has drained.
            Seconds job_end = start, stall = 0;
            for (std::size_t k = 0; k < u.out.size(); ++k) {
              const Seconds e = out_end[static_cast<std::size_t>(u.out[k].first)][u.out[k].second];
              job_end = std::max(job_end, e);
              stall = std::max(stall, world.ocs.stall(u.pairs[k], start, e));
            }
            for (int p : u.tor_pods) job_end = std::max(job_end, work[static_cast<std::size_t>(p)].tor_end);
            open_iteration(jr, 0.0, true);  // communicating with no compute in this run: a warm iteration
            jr.comm_s += job_end - start;
            jr.stall_s += stall;
            jr.circuit_bytes += u.circuit_bytes;
            jr.tor_bytes += u.tor_bytes;
            last_byte = std::max(last_byte, job_end);
            world.record.add_event({jr.job->type == JobType::ps ? (w.phase == 0 ? "push" : "pull") : "collective",
                                           "comm", 1, w.job, start, job_end - start});
            if (jr.job->type != JobType::ps || w.phase == 1) close_iteration(jr, job_end, world.record);
          } else {
            if (w.activity == sched::Activity::train) open_iteration(jr, start, false);
            else open_iteration(jr, 0.0, true);
            jr.compute_s += w.compute_s;
            world.record.add_event({sched::to_string(w.activity), "compute", 1, w.job, start, w.compute_s});
          }
        }
        trace::StageRow row;
        row.round = r + 1;
        row.stage = st.index + 1;
        row.k = st.k;
        row.t = st.t;
        row.start_s = start;
        row.end_s = end;
        row.predicted_s = st.predicted_s;
        row.comm_s = last_byte - start;
        row.compute_s = st.compute_s;
        row.bound = st.bound;
        row.circuits_changed = changed;
        row.reconfig_s = changed > 0 ? fabric.reconfig_delay_s() : 0.0;
        world.record.stages.push_back(row);
        world.record.add_event({fmt::format("stage {} (group {} communicates)", st.index + 1, st.k == 0 ? "A" : "B"),
                                       "stage", 3, 0, start, end - start});
      }
      progress_line(options.progress, "rounds", r + 1, rounds);
    }
    completed = true;
  });
  world.engine.run();
  require_completed(completed);
  finish_record(world.record);
  return std::move(world.record);
}

ScriptResult run_script(const net::Fabric& fabric, const net::CircuitConfig& initial,
                        const std::vector<ScriptTransfer>& transfers, const std::vector<ScriptReconfig>& reconfigs) {
  World world(fabric, {}, initial);
  world.start_actors();
  ScriptResult result;
  result.finish_s.assign(transfers.size(), -1.0);
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    sg4::Actor::create(fmt::format("transfer{}", i), world.platform.control_host(), [&world, &transfers, &result, i] {
      const auto& t = transfers[i];
      sg4::this_actor::sleep_until(t.start_s);
      sg4::CommPtr c = t.kind == ScriptTransfer::Kind::tor
                           ? world.platform.send_to_tor(t.src_pod, t.bytes)
                           : world.tors[static_cast<std::size_t>(t.src_pod)]->forward(t.dst_pod, t.bytes);
      c->wait();
      result.finish_s[i] = sg4::Engine::get_clock();
    });
  }
  sg4::Actor::create("scheduler", world.platform.control_host(), [&] {
    for (std::size_t i = 0; i < reconfigs.size(); ++i) {
      sg4::this_actor::sleep_until(reconfigs[i].at_s);
      world.ocs.request(reconfigs[i].config, fmt::format("script {}", i + 1));
    }
  });
  world.engine.run();
  result.record = std::move(world.record);
  return result;
}

}  // namespace odcn::engine
