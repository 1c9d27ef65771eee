// TDM4's Alg. 1 hill climbing: single moves, and pair moves for the multistart search.
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

namespace odcn::sched::tdm4_internal {

namespace {

/// Runs body(0..count-1) on up to `threads` threads (0: the hardware's, at most TrafficCache::kMemoSlots);
/// below 64 items, or with one thread, on this one. Items are handed out one by one.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
  int t = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  t = std::clamp(t, 1, TrafficCache::kMemoSlots);
  if (t == 1 || count < 64) {
    for (std::size_t k = 0; k < count; ++k) body(k);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&](int slot) {
    TrafficCache::use_slot(slot);
    for (std::size_t k; (k = next.fetch_add(1)) < count;) body(k);
    TrafficCache::use_slot(0);
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < t; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& th : pool) th.join();
}

/// Marks the neighbours of the moved job's pod group for re-planning.
void invalidate(const std::vector<Job>& jobs, std::vector<char>& valid, int moved) {
  const auto n = jobs.size();
  const int g = jobs[static_cast<std::size_t>(moved)].group;
  for (std::size_t i = 0; i < n; ++i)
    if (jobs[i].group == g) valid[i] = 0;
}

/// The neighbours marked for re-planning, planned again.
void refresh_neighbours(RoundState& state, const Tdm4Options& options, HillClimbStats& stats,
                        std::vector<RoundState::Neighbour>& cached, std::vector<char>& valid, std::vector<int>& todo) {
  const auto n = valid.size();
  // The neighbours to re-plan (those of the last moved pod group), on several threads: each is a pure
  // function of the state, so the results do not depend on the threads.
  todo.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (!valid[i]) todo.push_back(static_cast<int>(i));
  parallel_for(todo.size(), options.threads, [&](std::size_t k) {
    cached[static_cast<std::size_t>(todo[k])] = state.neighbour_group(todo[k]);
  });
  for (int i : todo) {
    valid[static_cast<std::size_t>(i)] = 1;
    stats.group_rebuilds += cached[static_cast<std::size_t>(i)].rebuilds;
  }
}

/// Alg. 1 lines 8-12: the single move with the best objective (job -1: none).
std::pair<Objective, int> best_single_move(RoundState& state, const net::Fabric& fabric, const std::vector<Job>& jobs,
                                           const Tdm4Options& options, HillClimbStats& stats,
                                           const std::vector<RoundState::Neighbour>& cached) {
  const auto n = jobs.size();
  Objective best{kInfeasible, kInfeasible};
  int best_job = -1;
  for (std::size_t i = 0; i < n; ++i) {  // lines 8-12
    Objective v;
    if (options.incremental) {
      v = state.neighbour_objective(static_cast<int>(i), cached[i], best);
    } else {
      std::vector<int> assign = state.assign();
      assign[i] = 1 - assign[i];
      v = RoundState(fabric, jobs, TrafficCache(jobs, fabric), assign, stats).objective();
    }
    ++stats.evaluations;
    if (v < best) {
      best = v;
      best_job = static_cast<int>(i);
    }
  }
  return {best, best_job};
}

/// A pair move that lowers the round, taken when found. Returns whether one was.
bool pair_move(RoundState& state, const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options,
               HillClimbStats& stats, Objective& feasible, std::vector<std::vector<int>>& members_of_group,
               std::vector<char>& valid) {
  const auto n = jobs.size();
  // Two jobs of one pod group at once (they interact through that group's Alg. 2): move i, evaluate
  // every j of its pod group from there, move i back. Moving twice restores the state exactly.
  if (members_of_group.empty()) {
    members_of_group.resize(static_cast<std::size_t>(fabric.groups()));
    for (std::size_t i = 0; i < n; ++i) members_of_group[static_cast<std::size_t>(jobs[i].group)].push_back(static_cast<int>(i));
  }
  // Only pod groups that can lower the round are tried (RoundState::critical_groups).
  const std::vector<char> critical = state.critical_groups();
  int best_first = -1;
  for (std::size_t i = 0; i < n && best_first < 0; ++i) {
    const auto& mates = members_of_group[static_cast<std::size_t>(jobs[i].group)];
    if (mates.size() < 2 || mates.size() > kPairMoveGroupJobs || !critical[static_cast<std::size_t>(jobs[i].group)])
      continue;
    state.move(static_cast<int>(i));
    Objective pair_best = feasible;
    int second = -1;
    for (int jj : mates) {
      const auto j = static_cast<std::size_t>(jj);
      if (j == i) continue;
      const RoundState::Neighbour nb = state.neighbour_group(jj);
      stats.group_rebuilds += nb.rebuilds;
      const Objective v = state.neighbour_objective(jj, nb, pair_best);
      ++stats.evaluations;
      if (v < pair_best && v.round < feasible.round) {
        pair_best = v;
        second = static_cast<int>(j);
      }
    }
    if (second >= 0) {
      state.move(second);
      feasible = pair_best;
      stats.moves += 2;
      ++stats.pair_moves;
      if (options.on_move) options.on_move(stats.moves, feasible.round);
      invalidate(jobs, valid, static_cast<int>(i));
      invalidate(jobs, valid, second);
      best_first = static_cast<int>(i);
    } else {
      state.move(static_cast<int>(i));
    }
  }
  return best_first >= 0;
}

}  // namespace

/// Alg. 1 lines 5-13 from `state`: repeatedly move the single job whose move gives the best objective, until
/// no move improves it. With `pairs` (multistart), a stall is followed by a pass over moves of two jobs of the
/// same pod group at once (i, then the best j given i; pod groups of at most kPairMoveGroupJobs jobs that can
/// lower the round); the first pair that lowers the round itself (not only the tie-breaker) is taken and the
/// single moves resume. Returns the final objective.
Objective climb(RoundState& state, const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options,
                HillClimbStats& stats, bool pairs) {
  Objective feasible = state.objective();  // lines 2-4
  const auto n = jobs.size();
  std::vector<RoundState::Neighbour> cached(n);
  std::vector<char> valid(n, 0);
  std::vector<std::vector<int>> members_of_group;  // filled at the first pair pass
  std::vector<int> todo;
  while (true) {  // lines 5-13
    if (options.incremental) refresh_neighbours(state, options, stats, cached, valid, todo);
    const auto [best, best_job] = best_single_move(state, fabric, jobs, options, stats, cached);
    const bool improves = best_job >= 0 && best < feasible && (options.break_ties || best.round < feasible.round);
    if (improves) {
      state.move(best_job);  // line 7
      feasible = best;
      ++stats.moves;
      if (options.on_move) options.on_move(stats.moves, feasible.round);
      invalidate(jobs, valid, best_job);
      continue;
    }
    if (!pairs) break;  // line 5: no neighbour is better
    if (!pair_move(state, fabric, jobs, options, stats, feasible, members_of_group, valid)) break;
  }
  return feasible;
}

}  // namespace odcn::sched::tdm4_internal
