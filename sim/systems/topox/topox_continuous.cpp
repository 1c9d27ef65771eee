// TOPO-X's heuristic with continuous starts (topox_slots.hpp): the straddle rule and per-slot matchings.
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

TopoxPlan plan_continuous(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options,
                          const Timing& tm, Yield yield_ports, bool match, std::int64_t max_tries) {
  const auto n = static_cast<std::size_t>(tm.n);
  TopoxPlan plan = heuristic_plan(options, tm);
  plan.aligned = false;
  plan.start_s.assign(n, 0);
  SlotPorts ports = ports_for(flat, options, plan);
  Readiness readiness(flows, tm);
  Waiting waiting(flows, tm);
  // Attempts in time order; at one time, the longer path to the end first, then the lower index.
  using Attempt = std::tuple<Seconds, Seconds, int>;  // (time, -bottom level, task)
  std::priority_queue<Attempt, std::vector<Attempt>, std::greater<Attempt>> attempts;
  const auto run_settle = [&] {
    readiness.settle([&](int i) { attempts.emplace(readiness.ready(i), -tm.bottom[static_cast<std::size_t>(i)], i); });
  };
  run_settle();
  const Seconds tau = tm.tau;
  std::int64_t tries = 0;
  int last_slot = 0;
  Seconds matched_at = -1;  // the last attempt time whose slot lit matchings
  // The straddle rule: transfer j started at t would keep its ports past the next boundary, while a more urgent
  // waiting transfer of one of its servers has no circuit of its pair in t's slot.
  const bool lights = yield_ports == Yield::straddle_or_light && plan.reconfig_slots > 0;
  const auto straddles = [&](int j, Seconds t) {
    const Seconds boundary = (slot_of(t, tau) + 1) * tau;
    const Task& task = flows.tasks[static_cast<std::size_t>(j)];
    return t + tm.p[static_cast<std::size_t>(j)] > boundary + tol(boundary) ||
           (lights && ports.circuits(slot_of(t, tau), task.src, task.dst) == 0);
  };
  const auto yields = [&](int j, Seconds t) {
    return waiting.blocks(j, [&](int x, int y) { return ports.circuits(slot_of(t, tau), x, y) == 0; },
                          yield_ports == Yield::straddle_or_light);
  };
  while (!attempts.empty()) {
    // Plain variables, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const Seconds t = std::get<0>(attempts.top());
    const Seconds neg = std::get<1>(attempts.top());
    const int i = std::get<2>(attempts.top());
    attempts.pop();
    const auto u = static_cast<std::size_t>(i);
    const Task& task = flows.tasks[u];
    if (match && t > matched_at + tol(t)) {
      // The first attempt at time t: light circuits of t's slot for everything ready by matchings first.
      matched_at = t;
      std::vector<int> ready{i};
      std::vector<Attempt> same;
      while (!attempts.empty() && std::get<0>(attempts.top()) <= t + tol(t)) {
        same.push_back(attempts.top());
        ready.push_back(std::get<2>(same.back()));
        attempts.pop();
      }
      for (const Attempt& a : same) attempts.push(a);
      // Within a slot, ports do not free up: a transfer that found none before still finds none, and only
      // transfers attempted for the first time count. At a boundary, every waiting transfer does.
      if (std::abs(t - slot_of(t, tau) * tau) <= tol(t)) {
        for (int j : waiting.all())
          if (readiness.ready(j) <= t + tol(t)) ready.push_back(j);
      } else {
        ready.erase(std::remove_if(ready.begin(), ready.end(), [&](int j) { return waiting.contains(j); }), ready.end());
      }
      std::sort(ready.begin(), ready.end());
      ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
      // A transfer that yields its ports to a more urgent one gets no circuit lit for it.
      if (yield_ports != Yield::none)
        ready.erase(std::remove_if(ready.begin(), ready.end(), [&](int j) { return straddles(j, t) && yields(j, t); }),
                    ready.end());
      const int u_slot = slot_of(t, tau);
      ports.light_matchings(u_slot, wants_of(flows, tm, ready, [&](int x, int y) {
        return ports.circuits(u_slot, x, y) - ports.active(x, y, t);
      }));
    }
    const Seconds boundary = (slot_of(t, tau) + 1) * tau;
    if (yield_ports != Yield::none && straddles(i, t) && yields(i, t)) {
      waiting.add(i);
      attempts.emplace(boundary, neg, i);
      if (++tries > max_tries) throw ConfigError(fmt::format("TOPO-X: no schedule after {} attempts", max_tries));
      continue;
    }
    if (ports.take_interval(task.src, task.dst, t, t + tm.p[u], tau)) {
      waiting.remove(i);
      plan.start_s[u] = t;
      plan.start_slot[u] = slot_of(t, tau);
      last_slot = std::max(last_slot, slot_end(t + tm.p[u], tau));
      readiness.done(i, t + tm.p[u]);
      run_settle();
      continue;
    }
    waiting.add(i);
    attempts.emplace(std::min(boundary, ports.next_end(task.src, task.dst, t)), neg, i);
    if (++tries > max_tries) throw ConfigError(fmt::format("TOPO-X: no schedule after {} attempts", max_tries));
  }
  for (int s = 0; s < last_slot; ++s) plan.slots.push_back(ports.circuits_of(s));
  settle_times(flows, tm, plan);
  return plan;
}

}  // namespace odcn::sched::topox_internal
