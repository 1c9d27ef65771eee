// TOPO-X's slotted timing of a flow graph, and task times once transfers' slots are fixed.
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

namespace topox_internal {

/// The first slot whose boundary is not before t.
int slot_at_or_after(Seconds t, Seconds tau) {
  int u = std::max(0, static_cast<int>(std::ceil((t - tol(t)) / tau)));
  while (u * tau < t - tol(t)) ++u;
  return u;
}

Timing timing_of(const spec::FlatOcsSpec& flat, const JobGraph& g, Seconds tau) {
  Timing tm;
  tm.n = static_cast<int>(g.tasks.size());
  tm.tau = tau;
  const auto n = static_cast<std::size_t>(tm.n);
  tm.network.assign(n, false);
  tm.p.assign(n, 0);
  tm.k.assign(n, 0);
  tm.succ.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = g.tasks[i];
    if (t.kind == TaskKind::compute) tm.p[i] = t.duration_s;
    if (t.kind == TaskKind::transfer && t.src != t.dst && t.bytes > 0) {
      if (t.src < 0 || t.dst < 0 || t.src >= flat.servers || t.dst >= flat.servers)
        throw ConfigError(fmt::format("task '{}' joins servers {} and {}; the platform has {}", t.name, t.src, t.dst,
                                      flat.servers));
      tm.network[i] = true;
      tm.p[i] = t.bytes / flat.port_bytes_per_s;
      tm.k[i] = slots_for(tm.p[i], tau);
    }
    if (t.kind == TaskKind::collective)
      throw ConfigError(fmt::format("task '{}' is a collective: lower it first (flow_graph)", t.name));
    for (int d : t.deps) tm.succ[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
  }
  tm.order = workload::topological_order(g);
  tm.bottom.assign(n, 0);
  for (auto it = tm.order.rbegin(); it != tm.order.rend(); ++it) {
    const auto i = static_cast<std::size_t>(*it);
    Seconds after = 0;
    for (int s : tm.succ[i]) after = std::max(after, tm.bottom[static_cast<std::size_t>(s)]);
    tm.bottom[i] = tm.p[i] + after;
  }
  tm.earliest.assign(n, 0);
  for (int i : tm.order) {
    const auto u = static_cast<std::size_t>(i);
    Seconds ready = 0;
    for (int d : g.tasks[u].deps) ready = std::max(ready, tm.earliest[static_cast<std::size_t>(d)] + tm.p[static_cast<std::size_t>(d)]);
    tm.earliest[u] = tm.network[u] ? slot_at_or_after(ready, tau) * tau : ready;
  }
  return tm;
}

int reconfig_slots_of(const TopoxOptions& o) {
  return o.reconfig_delay_s > 0 ? slots_for(o.reconfig_delay_s, o.slot_s) : 0;
}

void check_options(const spec::FlatOcsSpec& flat, const TopoxOptions& o) {
  if (!(o.slot_s > 0)) throw ConfigError("TOPO-X needs a time slot τ > 0 (the platform's slot_ms or slot_us)");
  if (flat.ocs_ports < 2) throw ConfigError("every OCS needs at least 2 ports");
}

/// Start and finish of every task once the transfers' slots are fixed: compute and barriers as soon as their
/// inputs are done, transfers at their slot (which must not precede their inputs).
void settle_times(const JobGraph& g, const Timing& tm, TopoxPlan& plan) {
  const auto n = static_cast<std::size_t>(tm.n);
  const std::vector<Seconds> given = plan.start_s;
  plan.start_s.assign(n, 0);
  plan.finish_s.assign(n, 0);
  plan.makespan_s = 0;
  for (int i : tm.order) {
    const auto u = static_cast<std::size_t>(i);
    Seconds ready = 0;
    for (int d : g.tasks[u].deps) ready = std::max(ready, plan.finish_s[static_cast<std::size_t>(d)]);
    plan.start_s[u] = !tm.network[u] ? ready : plan.aligned ? plan.start_slot[u] * tm.tau : given[u];
    plan.finish_s[u] = plan.start_s[u] + tm.p[u];
    plan.makespan_s = std::max(plan.makespan_s, plan.finish_s[u]);
  }
}

}  // namespace topox_internal

Seconds topox_lower_bound(const spec::FlatOcsSpec& flat, const JobGraph& flows) {
  const Timing tm = topox_internal::timing_of(flat, flows, flat.slot_s);
  const auto n = static_cast<std::size_t>(tm.n);
  // Earliest starts with continuous starts and no port limit (tm.earliest aligns transfers to slots).
  std::vector<Seconds> ready(n, 0);
  for (int i : tm.order) {
    const auto u = static_cast<std::size_t>(i);
    for (int d : flows.tasks[u].deps)
      ready[u] = std::max(ready[u], ready[static_cast<std::size_t>(d)] + tm.p[static_cast<std::size_t>(d)]);
  }
  Seconds bound = 0;
  for (std::size_t i = 0; i < n; ++i) bound = std::max(bound, ready[i] + tm.bottom[i]);  // the critical path
  // Per server and direction (0: sends, 1: receives): first start, port time, shortest tail.
  struct Side {
    Seconds first = std::numeric_limits<Seconds>::infinity(), busy = 0,
            tail = std::numeric_limits<Seconds>::infinity();
  };
  std::vector<Side> side(static_cast<std::size_t>(2 * flat.servers));
  for (std::size_t i = 0; i < n; ++i) {
    if (!tm.network[i]) continue;
    for (const int s : {2 * flows.tasks[i].src, 2 * flows.tasks[i].dst + 1}) {
      Side& x = side[static_cast<std::size_t>(s)];
      x.first = std::min(x.first, ready[i]);
      x.busy += tm.p[i];
      x.tail = std::min(x.tail, tm.bottom[i] - tm.p[i]);
    }
  }
  for (const Side& x : side)
    if (x.busy > 0) bound = std::max(bound, x.first + x.busy / flat.nic_ports + x.tail);
  return bound;
}

}  // namespace odcn::sched
