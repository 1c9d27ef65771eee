// TOPO-X's plan checker: every rule a plan must keep.
#include "systems/topox/topox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "policy/milp.hpp"

#include "systems/topox/topox_internal.hpp"

namespace odcn::sched {

using workload::JobGraph;
using workload::Task;
using workload::TaskKind;
using namespace topox_internal;

std::string plan_violation(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxPlan& plan) {
  const Timing tm = timing_of(flat, flows, plan.slot_s);
  const auto n = static_cast<std::size_t>(tm.n);
  if (plan.start_slot.size() != n || plan.start_s.size() != n || plan.finish_s.size() != n)
    return "the plan does not cover the flow graph's tasks";
  const int S = static_cast<int>(plan.slots.size());
  // Eq. (7)-(10) in every slot, and for what the fabric holds while ports reconfigure.
  for (int t = 0; t < S; ++t) {
    for (const auto* set : {&plan.slots[static_cast<std::size_t>(t)]}) {
      try {
        net::check_flat_ocs(flat, *set);
      } catch (const ConfigError& e) {
        return fmt::format("slot {}: {}", t, e.what());
      }
    }
    try {
      net::check_flat_ocs(flat, plan.lit_during(t));
    } catch (const ConfigError& e) {
      return fmt::format("slot {} with the circuits being set up for the next {} slots: {}", t, plan.reconfig_slots,
                         e.what());
    }
    for (const auto& c : plan.slots[static_cast<std::size_t>(t)])
      if (c.a >= c.b) return fmt::format("slot {}: circuit on OCS {} lists servers {} and {} (a < b expected)", t, c.ocs, c.a, c.b);
    if (plan.server_circuits > 0) {  // Eq. (8) as the paper counts it: in + out <= d_S
      std::map<int, int> held;
      for (const auto& c : plan.slots[static_cast<std::size_t>(t)])
        for (const int x : {c.a, c.b})
          if (++held[x] > plan.server_circuits)
            return fmt::format("slot {}: server {} holds more than {} circuits (Eq. 8, in + out <= d_S)", t, x,
                               plan.server_circuits);
    }
  }
  std::map<std::pair<int, int>, std::vector<std::pair<Seconds, Seconds>>> busy;  // (src, dst) -> [start, finish)
  Seconds makespan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& task = flows.tasks[i];
    for (int d : task.deps)  // Eq. (5)
      if (plan.finish_s[static_cast<std::size_t>(d)] > plan.start_s[i] + tol(plan.start_s[i]))
        return fmt::format("task '{}' starts at {} s before its input '{}' finishes at {} s", task.name, plan.start_s[i],
                           flows.tasks[static_cast<std::size_t>(d)].name, plan.finish_s[static_cast<std::size_t>(d)]);
    if (std::abs(plan.finish_s[i] - plan.start_s[i] - tm.p[i]) > tol(plan.finish_s[i]))
      return fmt::format("task '{}' lasts {} s, not {} s", task.name, plan.finish_s[i] - plan.start_s[i], tm.p[i]);
    makespan = std::max(makespan, plan.finish_s[i]);
    if (!tm.network[i]) continue;
    const int s = plan.start_slot[i];
    if (s < 0 || s != slot_of(plan.start_s[i], plan.slot_s))
      return fmt::format("transfer '{}' has no slot, or not the one it starts in", task.name);
    if (plan.aligned && std::abs(plan.start_s[i] - s * plan.slot_s) > tol(plan.start_s[i]))  // Eq. (3)-(4)
      return fmt::format("transfer '{}' does not start at a slot boundary", task.name);
    if (slot_end(plan.finish_s[i], plan.slot_s) > S) return fmt::format("transfer '{}' runs past the plan's last slot", task.name);
    busy[{task.src, task.dst}].emplace_back(plan.start_s[i], plan.finish_s[i]);
  }
  // Eq. (6), per directed pair: at every instant its transfers are within its circuits (per_transfer, the paper's
  // reading: a transfer running has a circuit of its pair). The count of active transfers changes at their starts,
  // and the circuits at slot boundaries: checking both covers every instant.
  for (const auto& [dir, spans] : busy) {
    const auto [x, y] = dir;
    std::vector<Seconds> at;
    for (const auto& [a, b] : spans) {
      at.push_back(a);
      for (int u = slot_of(a, plan.slot_s) + 1; u < slot_end(b, plan.slot_s); ++u)
        at.push_back(u * plan.slot_s);
    }
    for (const Seconds t : at) {
      int active = 0;
      for (const auto& [a, b] : spans) active += (a <= t + tol(t) && t < b - tol(b)) ? 1 : 0;
      const int u = slot_of(t, plan.slot_s);
      int circuits = 0;
      if (u < S)
        for (const auto& c : plan.slots[static_cast<std::size_t>(u)])
          if ((c.a == x && c.b == y) || (c.a == y && c.b == x)) ++circuits;
      if (plan.per_transfer ? active > 0 && circuits == 0 : active > circuits)
        return fmt::format("slot {} at {} s: {} transfers from server {} to {} but {} circuits", u, t, active, x, y,
                           circuits);
    }
  }
  if (std::abs(makespan - plan.makespan_s) > tol(makespan))  // Eq. (2)
    return fmt::format("makespan {} s, but the last task finishes at {} s", plan.makespan_s, makespan);
  return {};
}

}  // namespace odcn::sched
