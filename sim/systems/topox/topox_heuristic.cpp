// TOPO-X's heuristics (systems/topox/topox.hpp): the slot-aligned list heuristic, beside the serial scheme
// (topox_serial.cpp), and the continuous-start variants (topox_continuous.cpp); the shortest plan is kept.
#include "systems/topox/topox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "systems/topox/topox_slots.hpp"

namespace odcn::sched {

using workload::JobGraph;
using workload::Task;
using namespace topox_internal;

TopoxPlan plan_topox_heuristic(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options) {
  check_options(flat, options);
  const Timing tm = timing_of(flat, flows, options.slot_s);
  if (!options.aligned) {
    // With and without the straddle rule (two readings) and the matchings; the shortest plan (the first on a tie).
    // The first is the plain list heuristic, which fails only on an impossible input; a variant that has not
    // finished after 1,000 attempts per task (a livelock of yielding transfers) is left out.
    TopoxPlan plan = plan_continuous(flat, flows, options, tm, Yield::none, false, 200'000'000);
    for (const auto& [yield_ports, match] :
         {std::pair{Yield::straddle, false}, std::pair{Yield::none, true}, std::pair{Yield::straddle, true},
          std::pair{Yield::straddle_or_light, false}, std::pair{Yield::straddle_or_light, true}}) {
      try {
        TopoxPlan other = plan_continuous(flat, flows, options, tm, yield_ports, match, 1'000'000 + 1'000 * std::int64_t{tm.n});
        if (other.makespan_s < plan.makespan_s - kTimeEps) plan = std::move(other);
      } catch (const ConfigError&) {
      }
    }
    keep_needed_circuits(flows, tm, plan);
    plan.heuristic_makespan_s = plan.makespan_s;
    plan.mip.status = "not run";
    return plan;
  }
  const auto n = static_cast<std::size_t>(tm.n);
  TopoxPlan plan = heuristic_plan(options, tm);
  SlotPorts ports = ports_for(flat, options, plan);

  Readiness readiness(flows, tm);
  std::vector<int> pending;  // network transfers whose inputs are done, not yet given a slot
  const auto run_settle = [&] { readiness.settle([&](int i) { pending.push_back(i); }); };
  run_settle();
  int t = 0;
  int placed = 0;
  const int to_place = static_cast<int>(std::count(tm.network.begin(), tm.network.end(), true));
  const auto priority = [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (tm.bottom[ua] != tm.bottom[ub]) return tm.bottom[ua] > tm.bottom[ub];
    return a < b;
  };
  while (placed < to_place) {
    bool progress = true;
    bool waiting = false;
    while (progress) {  // zero-length chains can make more transfers ready within the same slot
      progress = false;
      std::vector<int> now;
      std::vector<int> later;
      for (int i : pending)
        (slot_at_or_after(readiness.ready(i), tm.tau) <= t ? now : later).push_back(i);
      std::sort(now.begin(), now.end(), priority);
      pending = std::move(later);
      for (int i : now) {
        const auto u = static_cast<std::size_t>(i);
        const Task& task = flows.tasks[u];
        if (ports.take(task.src, task.dst, t, tm.k[u])) {
          plan.start_slot[u] = t;
          ++placed;
          readiness.done(i, t * tm.tau + tm.p[u]);
          progress = true;
        } else {
          pending.push_back(i);
          waiting = true;
        }
      }
      run_settle();
    }
    if (placed == to_place) break;
    int next = waiting ? t + 1 : INT32_MAX;
    for (int i : pending) next = std::min(next, slot_at_or_after(readiness.ready(i), tm.tau));
    if (next == INT32_MAX) throw ConfigError("TOPO-X: a transfer's inputs never finish (the graph has a cycle)");
    t = std::max(t + 1, next);
    if (t > limits::kMaxTopoxSlots)
      throw ConfigError(fmt::format("TOPO-X: no schedule within {} time slots (docs/limits.md): use a longer slot",
                                    limits::kMaxTopoxSlots));
  }
  int last = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i]) last = std::max(last, plan.start_slot[i] + tm.k[i]);
  for (int s = 0; s < last; ++s) plan.slots.push_back(ports.circuits_of(s));
  settle_times(flows, tm, plan);
  // The serial scheme's passes, where shorter.
  TopoxPlan serial = plan_serial_passes(flat, flows, options, tm);
  if (serial.makespan_s < plan.makespan_s - kTimeEps) plan = std::move(serial);
  keep_needed_circuits(flows, tm, plan);
  plan.heuristic_makespan_s = plan.makespan_s;
  plan.mip.status = "not run";
  return plan;
}

}  // namespace odcn::sched
