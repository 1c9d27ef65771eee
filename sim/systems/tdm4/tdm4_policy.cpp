// TDM4's searches over groupings (paper, threshold, multistart) and the aggregate baseline.
#include "systems/tdm4/tdm4_policy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <set>

#include <fmt/format.h>

#include "systems/tdm4/stage_demand.hpp"

#include "systems/tdm4/tdm4_round.hpp"

namespace odcn::sched {

using workload::Job;
using workload::JobType;
using namespace tdm4_internal;

namespace {

/// The threshold groupings: B = every job whose training time is below a threshold, for every threshold
/// between two distinct training times. One sweep moves the jobs to B in order of training time, so each
/// grouping costs one pod group's Alg. 2 runs. Returns the best one (the first on a tie); `aggregate_comm`, when
/// given, receives stage 1's communication with every job in A (where the sweep starts).
std::vector<int> best_threshold_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs,
                                         const TrafficCache& cache, HillClimbStats& stats,
                                         Seconds* aggregate_comm = nullptr) {
  const auto n = jobs.size();
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return jobs[static_cast<std::size_t>(x)].train_s < jobs[static_cast<std::size_t>(y)].train_s;
  });
  RoundState state(fabric, jobs, cache, std::vector<int>(n, 0), stats);
  if (aggregate_comm) *aggregate_comm = state.stage_comm(0);
  Objective best = state.objective();
  std::size_t best_count = 0;
  for (std::size_t i = 0; i + 1 < n;) {  // all in B is all in A with the labels swapped: skipped
    const Seconds t = jobs[static_cast<std::size_t>(order[i])].train_s;
    while (i < n && jobs[static_cast<std::size_t>(order[i])].train_s == t) state.move(order[i++]);
    if (i == n) break;
    const Objective o = state.objective();
    if (o < best) {
      best = o;
      best_count = i;
    }
  }
  std::vector<int> assign(n, 0);
  for (std::size_t i = 0; i < best_count; ++i) assign[static_cast<std::size_t>(order[i])] = 1;
  return assign;
}

/// Each pod group's jobs split so that A and B carry about the same bytes: the jobs by decreasing bytes (over
/// both phases; ties by id), each to the side with fewer so far (longest processing time first). The round
/// takes each stage's maximum over pod groups, so every group's communication is halved at once, which no
/// sequence of single moves that each must lower the round can reach when many pod groups tie.
std::vector<int> balanced_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs, const TrafficCache& cache) {
  std::vector<Bytes> bytes(jobs.size(), 0.0);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (int t = 0; t < 2; ++t) {
      const auto& l = jobs[i].type == JobType::rar ? cache.full_local(static_cast<int>(i), t) : cache.local(static_cast<int>(i), t);
      for (const auto& [p, b] : l.pairs) bytes[i] += b;
    }
  std::vector<int> order(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return bytes[static_cast<std::size_t>(x)] > bytes[static_cast<std::size_t>(y)];
  });
  std::vector<std::array<Bytes, 2>> load(static_cast<std::size_t>(fabric.groups()), {0.0, 0.0});
  std::vector<int> assign(jobs.size(), 0);
  for (int id : order) {
    auto& l = load[static_cast<std::size_t>(jobs[static_cast<std::size_t>(id)].group)];
    const int side = l[1] < l[0] ? 1 : 0;
    assign[static_cast<std::size_t>(id)] = side;
    l[static_cast<std::size_t>(side)] += bytes[static_cast<std::size_t>(id)];
  }
  return assign;
}

}  // namespace

Activity idle_activity(const Job& job, int group, int stage) {
  // A PS job pushes in stage `group` and pulls two stages later; it aggregates in the stage between.
  if (job.type == JobType::ps && stage == group + 1) return Activity::aggregate;
  return Activity::train;
}

Seconds idle_compute_s(const Job& job, int group, int stage) {
  return idle_activity(job, group, stage) == Activity::aggregate ? job.aggregate_s : job.train_s;
}

const char* to_string(Tdm4Search s) {
  switch (s) {
    case Tdm4Search::paper: return "paper";
    case Tdm4Search::threshold: return "threshold";
    case Tdm4Search::multistart: return "multistart";
  }
  return "?";
}

bool parse_search(const std::string& name, Tdm4Search& out) {
  for (auto s : {Tdm4Search::paper, Tdm4Search::threshold, Tdm4Search::multistart})
    if (name == to_string(s)) {
      out = s;
      return true;
    }
  return false;
}

TdmPlan plan_tdm4(const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options) {
  HillClimbStats stats;
  const TrafficCache cache(jobs, fabric);  // per-job traffic, shared by every climb
  std::vector<int> assign;
  std::string start = "aggregate";
  Seconds aggregate_comm = 0;  // stage 1's communication with every job in A, from the first RoundState
  if (options.search == Tdm4Search::threshold) {
    assign = best_threshold_grouping(fabric, jobs, cache, stats, &aggregate_comm);
    start = "threshold";
  } else {
    RoundState paper(fabric, jobs, cache, std::vector<int>(jobs.size(), 0), stats);  // Alg. 1 line 1: A = J, B = ∅
    aggregate_comm = paper.stage_comm(0);
    const bool pairs = options.search == Tdm4Search::multistart;
    const Objective from_paper = climb(paper, fabric, jobs, options, stats, pairs);
    assign = paper.assign();
    if (options.search == Tdm4Search::multistart) {
      // More climbs, from the best threshold grouping and from the balanced grouping; the best end point wins
      // (the earlier one on a tie).
      Objective best = from_paper;
      const std::pair<const char*, std::vector<int>> starts[] = {
          {"threshold", best_threshold_grouping(fabric, jobs, cache, stats)},
          {"balanced", balanced_grouping(fabric, jobs, cache)}};
      for (const auto& [name, grouping] : starts) {
        RoundState other(fabric, jobs, cache, grouping, stats);
        const Objective end = climb(other, fabric, jobs, options, stats, pairs);
        if (end < best) {
          best = end;
          assign = other.assign();
          start = name;
        }
      }
    }
  }
  TdmPlan plan = plan_for_grouping(fabric, jobs, assign, "tdm4");
  plan.stats = stats;
  plan.search = to_string(options.search);
  plan.search_start = start;
  plan.aggregate_comm_s = aggregate_comm;
  return plan;
}

TdmPlan plan_aggregate(const net::Fabric& fabric, const std::vector<Job>& jobs) {
  TdmPlan plan = plan_for_grouping(fabric, jobs, std::vector<int>(jobs.size(), 0), "aggregate");
  plan.aggregate_comm_s = plan.stages[0].comm_s;
  return plan;
}

}  // namespace odcn::sched
