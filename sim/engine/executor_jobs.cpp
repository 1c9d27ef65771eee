// The executor's jobs: iterations, task completion, showing ready tasks to the controller, arrival and admission.
#include "engine/executor.hpp"

#include <algorithm>

namespace odcn::engine::detail {

void Executor::begin_iteration(JobState& j) {
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

void Executor::mark_done(JobState& j, int t) {
  j.status[static_cast<std::size_t>(t)] = Status::done;
  ++j.done;
  for (int d : j.dependents[static_cast<std::size_t>(t)])
    if (--j.missing[static_cast<std::size_t>(d)] == 0) {
      j.status[static_cast<std::size_t>(d)] = Status::ready;
      j.ungated.push_back(d);
    }
}

void Executor::close_iteration(JobState& j, Seconds end_s) {
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

void Executor::complete(JobState& j, Flight* fp) {
  const auto it = j.flights.find(fp);
  std::unique_ptr<Flight> f = std::move(it->second);
  j.flights.erase(it);
  --flights_;
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
      --active_jobs_;
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
void Executor::gate(JobState& j) {
  // Thousands of one-transfer tasks ready at once (an all-to-all of transfer tasks) would each take a waiter
  // actor, and vm.max_map_count caps actors: they are sent kPerActor to a waiter instead (run_pooled).
  std::vector<std::pair<JobState*, Flight*>> pool;
  const bool pooling = pooled_ == nullptr && j.ungated.size() > kPoolFrom;
  if (pooling) pooled_ = &pool;
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
  if (!pooling) return;
  pooled_ = nullptr;
  for (std::size_t from = 0; from < pool.size() && !stopped_; from += kPerActor) {
    const auto first = pool.begin() + static_cast<std::ptrdiff_t>(from);
    const std::vector<std::pair<JobState*, Flight*>> share(first, first + static_cast<std::ptrdiff_t>(
                                                                              std::min(kPerActor, pool.size() - from)));
    if (!in_waiter([this, share] { run_pooled(share); })) return;
  }
}

/// A job arrives (c): the controller admits it now or later (Actions::admit).
void Executor::arrive(JobState& j) {
  j.arrived = true;
  sched::Actions act;
  const bool admitted = controller_.on_arrival(j.index, sg4::Engine::get_clock(), act);
  process(act);
  if (admitted) admit(j);
}

void Executor::admit(JobState& j) {
  if (j.admitted || stopped_) return;
  j.admitted = true;
  ++active_jobs_;
  record_.jobs[static_cast<std::size_t>(j.index)].admitted_s = sg4::Engine::get_clock();
  if (!j.initialized) begin_iteration(j);
  pump(j);
}

/// Advances a job: completes the tasks that ended (in the order they ended) and shows the controller the
/// tasks that became ready. One actor at a time does it; another that finds the job busy leaves it a note.
void Executor::pump(JobState& j) {
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

void Executor::finish_job(JobState& j) {
  sched::Actions act;
  controller_.on_job_done(j.index, sg4::Engine::get_clock(), act);
  process(act);
  ++finished_;
  progress_line(options_, "jobs finished", finished_, static_cast<int>(jobs_.size()));
  if (--unfinished_ == 0) all_done_->release();
}

}  // namespace odcn::engine::detail
