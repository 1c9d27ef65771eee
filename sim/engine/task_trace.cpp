#include "engine/task_trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "trace/writers.hpp"

namespace odcn::engine {

using trace::TraceEvent;

bool TaskTrace::rank_level(const JobToRun& job) const {
  const auto id = static_cast<std::size_t>(std::max(0, job.id));
  return id < rank_level_.size() && rank_level_[id];
}

int TaskTrace::endpoint(const JobToRun& job, int rank) const {
  const auto& where = job.endpoint_of_rank;
  return rank >= 0 && static_cast<std::size_t>(rank) < where.size() ? where[static_cast<std::size_t>(rank)] : -1;
}

void TaskTrace::add_job(const JobToRun& job) {
  const auto& tasks = job.graph->tasks;
  // Generated pod-level graphs compute on every rank at once (workload::kAllRanks); job-graph files name a rank.
  const bool per_rank = std::none_of(tasks.begin(), tasks.end(), [](const workload::Task& t) {
    return t.kind == workload::TaskKind::compute && t.rank == workload::kAllRanks;
  });
  const auto id = static_cast<std::size_t>(std::max(0, job.id));
  if (id >= rank_level_.size()) rank_level_.resize(id + 1, 0);
  rank_level_[id] = per_rank;
  if (!per_rank) return;
  for (int r = 0; r < job.graph->ranks; ++r) {
    const int e = endpoint(job, r);
    const std::string name = e >= 0 ? fmt::format("rank {} · {} {}", r, endpoint_word_, e) : fmt::format("rank {}", r);
    TraceEvent label{TraceEvent::Track::job, TraceEvent::Phase::label, job.id, name, "", 0, 0, ""};
    label.rank = r;
    record_.add_event(std::move(label));
  }
}

std::string TaskTrace::base_args(const Slice& s) const {
  return fmt::format("\"job\":{},\"iteration\":{},\"warm\":{}", s.job->id, s.iteration, s.warm);
}

void TaskTrace::add(const Slice& s, const char* category, int rank, const std::string& args) {
  TraceEvent e{TraceEvent::Track::job, TraceEvent::Phase::complete, s.job->id, s.task->name, category,
               s.start_s,          s.duration_s,                    args};
  e.rank = rank;
  record_.add_event(std::move(e));
}

void TaskTrace::compute(const Slice& s) {
  const int rank = rank_level(*s.job) ? std::max(0, s.task->rank) : -1;
  std::string args = base_args(s);
  if (rank >= 0) args += fmt::format(",\"rank\":{}", rank);
  add(s, "compute", rank, args);
}

/// A communication slice's args: the slice's, its bytes, the endpoints its ranks are on (the first
/// kTraceEndpoints, and how many there are when that is more) and its stall on circuits being set up. A
/// rank-level job's communication is on the thread of every rank it involves, each copy naming its rank.
void TaskTrace::comm(const Slice& s, Bytes bytes, Seconds stall_s) {
  constexpr std::size_t kTraceEndpoints = 16;
  const workload::Task& task = *s.task;
  auto& ranks = ranks_;  // members: this runs on a waiter's stack, which must stay small
  ranks.clear();
  if (task.kind == workload::TaskKind::transfer)
    ranks = {task.src, task.dst};
  else
    ranks.assign(task.group.begin(), task.group.end());
  auto& eps = endpoints_;
  eps.clear();
  for (int r : ranks) eps.push_back(endpoint(*s.job, r));
  std::sort(eps.begin(), eps.end());
  eps.erase(std::unique(eps.begin(), eps.end()), eps.end());
  const std::size_t shown = std::min(eps.size(), kTraceEndpoints);
  std::string args = base_args(s);
  args += fmt::format(",\"bytes\":{},\"{}s\":[{}]", trace::num(bytes), endpoint_word_,
                      fmt::join(eps.begin(), eps.begin() + static_cast<std::ptrdiff_t>(shown), ","));
  if (shown < eps.size()) args += fmt::format(",\"{}s_total\":{}", endpoint_word_, eps.size());
  args += fmt::format(",\"stall_s\":{}", trace::num(stall_s));
  if (!rank_level(*s.job)) return add(s, "comm", -1, args);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (int r : ranks) add(s, "comm", r, args + fmt::format(",\"rank\":{}", r));
}

}  // namespace odcn::engine
