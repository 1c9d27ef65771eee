// TOPO-X's slot-aligned serial schedule generation scheme with perturbed priorities (topox_slots.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "systems/topox/topox_slots.hpp"

namespace odcn::sched::topox_internal {

/// The serial schedule generation scheme of RCPSP heuristics, slot-aligned: tasks in an order that respects
/// precedence (among those whose inputs are placed, the highest `key` first), each transfer at the earliest slot
/// from its ready time where its pair gets a circuit direction for its k_j slots, even before slots that later
/// transfers already hold (so its schedules are *active*: among them is an optimal one, for some order).
namespace {

TopoxPlan plan_serial(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options, const Timing& tm,
                      const std::vector<double>& key) {
  const auto n = static_cast<std::size_t>(tm.n);
  TopoxPlan plan = heuristic_plan(options, tm);
  SlotPorts ports = ports_for(flat, options, plan);
  std::vector<int> missing(n);
  std::vector<Seconds> finish(n, 0), ready(n, 0);
  std::priority_queue<std::pair<double, int>> eligible;  // (key, -task): the highest key, then the lowest index
  for (std::size_t i = 0; i < n; ++i) {
    missing[i] = static_cast<int>(flows.tasks[i].deps.size());
    if (missing[i] == 0) eligible.emplace(key[i], -static_cast<int>(i));
  }
  int last = 0;
  while (!eligible.empty()) {
    const int i = -eligible.top().second;
    eligible.pop();
    const auto u = static_cast<std::size_t>(i);
    if (tm.network[u]) {
      const Task& task = flows.tasks[u];
      int t = slot_at_or_after(ready[u], tm.tau);
      while (!ports.take(task.src, task.dst, t, tm.k[u]))
        if (++t > limits::kMaxTopoxSlots)
          throw ConfigError(fmt::format("TOPO-X: no schedule within {} time slots (docs/limits.md): use a longer slot",
                                        limits::kMaxTopoxSlots));
      plan.start_slot[u] = t;
      finish[u] = t * tm.tau + tm.p[u];
      last = std::max(last, t + tm.k[u]);
    } else {
      finish[u] = ready[u] + tm.p[u];
    }
    for (int s : tm.succ[u]) {
      const auto v = static_cast<std::size_t>(s);
      ready[v] = std::max(ready[v], finish[u]);
      if (--missing[v] == 0) eligible.emplace(key[v], -s);
    }
  }
  for (int s = 0; s < last; ++s) plan.slots.push_back(ports.circuits_of(s));
  settle_times(flows, tm, plan);
  return plan;
}

}  // namespace

/// The best of serial passes: the bottom level as the key, then keys perturbed at random (a fixed seed, so the
/// plan is the same on every run), as many passes as fit 200,000 task visits (at most 64).
TopoxPlan plan_serial_passes(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options,
                             const Timing& tm) {
  std::vector<double> key(tm.bottom.begin(), tm.bottom.end());
  TopoxPlan best = plan_serial(flat, flows, options, tm, key);
  const int passes = static_cast<int>(std::min<std::int64_t>(64, 200'000 / std::max(1, tm.n)));
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> noise(0.5, 1.5);
  for (int pass = 1; pass < passes; ++pass) {
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = tm.bottom[i] * noise(rng);
    TopoxPlan plan = plan_serial(flat, flows, options, tm, key);
    if (plan.makespan_s < best.makespan_s - kTimeEps) best = std::move(plan);
  }
  return best;
}


}  // namespace odcn::sched::topox_internal
