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
  if (o.server_circuits < 0 || o.server_circuits > flat.nic_ports)
    throw ConfigError(fmt::format("TOPO-X: {} circuits per server, with {} ports each", o.server_circuits, flat.nic_ports));
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

void keep_needed_circuits(const JobGraph& g, const Timing& tm, TopoxPlan& plan) {
  // Per slot and direction, the transfers that hold it: their [start, finish) (continuous starts) or the whole
  // slot (slot-aligned starts hold k_j whole slots).
  std::map<std::tuple<int, int, int>, std::vector<std::pair<Seconds, Seconds>>> held;  // (slot, x, y) -> spans
  for (std::size_t i = 0; i < static_cast<std::size_t>(tm.n); ++i) {
    if (!tm.network[i]) continue;
    const Task& t = g.tasks[i];
    const int first = plan.aligned ? plan.start_slot[i] : slot_of(plan.start_s[i], tm.tau);
    const int end = plan.aligned ? first + tm.k[i] : std::max(first + 1, slot_end(plan.finish_s[i], tm.tau));
    for (int u = first; u < end; ++u)
      held[{u, t.src, t.dst}].emplace_back(plan.aligned ? u * tm.tau : std::max(plan.start_s[i], u * tm.tau),
                                           plan.aligned ? (u + 1) * tm.tau : std::min(plan.finish_s[i], (u + 1) * tm.tau));
  }
  std::map<std::tuple<int, int, int>, int> need;  // (slot, a < b) -> circuits its busier direction holds at once
  for (const auto& [key, spans] : held) {
    const auto [u, x, y] = key;
    std::vector<std::pair<Seconds, int>> events;  // ends (-1) before starts (+1) at the same time
    for (const auto& [a, b] : spans) {
      events.emplace_back(a, 1);
      events.emplace_back(b, -1);
    }
    std::sort(events.begin(), events.end(), [](const auto& l, const auto& r) {
      return l.first < r.first - tol(r.first) || (std::abs(l.first - r.first) <= tol(r.first) && l.second < r.second);
    });
    int now = 0, most = 0;
    for (const auto& [at, d] : events) most = std::max(most, now += d);
    auto& n = need[{u, std::min(x, y), std::max(x, y)}];
    n = std::max(n, plan.per_transfer ? 1 : most);
  }
  std::set<std::tuple<int, int, int>> before;  // (OCS, a, b) kept in the slot before
  for (int u = 0; u < static_cast<int>(plan.slots.size()); ++u) {
    auto& slot = plan.slots[static_cast<std::size_t>(u)];
    // Circuits that were kept in the slot before first, then by OCS: fewer circuits change.
    const auto kept_before = [&](const net::PortCircuit& c) { return before.count({c.ocs, c.a, c.b}) > 0; };
    std::stable_sort(slot.begin(), slot.end(), [&](const auto& l, const auto& r) { return kept_before(l) > kept_before(r); });
    std::map<std::pair<int, int>, int> taken;
    std::vector<net::PortCircuit> kept;
    for (const auto& c : slot) {
      const auto it = need.find({u, c.a, c.b});
      if (it != need.end() && taken[{c.a, c.b}]++ < it->second) kept.push_back(c);
    }
    std::sort(kept.begin(), kept.end(), [](const auto& l, const auto& r) {
      return std::make_tuple(l.ocs, l.a, l.b) < std::make_tuple(r.ocs, r.a, r.b);
    });
    slot = kept;
    before.clear();
    for (const auto& c : slot) before.insert({c.ocs, c.a, c.b});
  }
  while (!plan.slots.empty() && plan.slots.back().empty()) plan.slots.pop_back();
}

}  // namespace topox_internal

int server_circuits_of(const spec::FlatOcsSpec& flat, const TopoxOptions& o) {
  return o.server_circuits > 0 ? o.server_circuits : flat.nic_ports;
}

namespace {

/// A set of network transfers that share one server x in one direction (all sent by x, or all received by x), all
/// inputs of one task: when the last of them can finish at the earliest, given that none starts before `first`.
///   - Port time: x's d_S ports carry Σ p_j, a circuit direction one transfer at a time: first + Σ p_j / d_S.
///   - Peer slots: a port joins one peer per slot (Eq. 8-10), so the D distinct peers need some port to serve
///     m = ceil(D / d_S) of them, each change costing `gap` dark slots: the last of them uses slot
///     slot_of(first) + m + (m - 1)·gap - 1 or later, and ends after that slot begins.
struct PeerGroup {
  Seconds first = std::numeric_limits<Seconds>::infinity(), busy = 0;
  std::set<int> peers;
  Seconds finish(int ports, int gap, Seconds tau) const {
    const int m = (static_cast<int>(peers.size()) + ports - 1) / ports;
    const int last_slot = slot_of(first, tau) + m + (m - 1) * gap - 1;
    return std::max(first + busy / ports, last_slot * tau);
  }
};

}  // namespace

Seconds topox_lower_bound(const spec::FlatOcsSpec& flat, const JobGraph& flows, Seconds reconfig_delay_s) {
  const Timing tm = topox_internal::timing_of(flat, flows, flat.slot_s);
  const auto n = static_cast<std::size_t>(tm.n);
  const int gap = reconfig_delay_s > 0 ? slots_for(reconfig_delay_s, tm.tau) : 0;
  // Earliest starts with continuous starts, no port limit, and the peer groups of each task's inputs.
  std::vector<Seconds> ready(n, 0);
  Seconds bound = 0;
  for (int i : tm.order) {
    const auto u = static_cast<std::size_t>(i);
    std::map<int, PeerGroup> groups;  // key 2x: sent by x; 2x + 1: received by x
    for (int d : flows.tasks[u].deps) {
      const auto v = static_cast<std::size_t>(d);
      ready[u] = std::max(ready[u], ready[v] + tm.p[v]);
      if (!tm.network[v]) continue;
      const Task& t = flows.tasks[v];
      for (const auto& [key, peer] : {std::pair{2 * t.src, t.dst}, std::pair{2 * t.dst + 1, t.src}}) {
        PeerGroup& grp = groups[key];
        grp.first = std::min(grp.first, ready[v]);
        grp.busy += tm.p[v];
        grp.peers.insert(peer);
      }
    }
    for (const auto& [key, grp] : groups) ready[u] = std::max(ready[u], grp.finish(flat.nic_ports, gap, tm.tau));
    bound = std::max(bound, ready[u] + tm.p[u]);
  }
  for (std::size_t i = 0; i < n; ++i) bound = std::max(bound, ready[i] + tm.bottom[i]);  // the critical path
  // Per server and direction (0: sends, 1: receives), for every threshold e among its transfers' earliest starts:
  // the transfers that cannot start before e need e + Σ p_j / d_S, plus the shortest tail that follows them.
  std::vector<std::vector<std::pair<Seconds, std::size_t>>> side(static_cast<std::size_t>(2 * flat.servers));
  for (std::size_t i = 0; i < n; ++i) {
    if (!tm.network[i]) continue;
    for (const int s : {2 * flows.tasks[i].src, 2 * flows.tasks[i].dst + 1})
      side[static_cast<std::size_t>(s)].emplace_back(ready[i], i);
  }
  for (auto& x : side) {
    std::sort(x.begin(), x.end(), std::greater<>());
    Seconds busy = 0, tail = std::numeric_limits<Seconds>::infinity();
    for (const auto& [first, i] : x) {
      busy += tm.p[i];
      tail = std::min(tail, tm.bottom[i] - tm.p[i]);
      bound = std::max(bound, first + busy / flat.nic_ports + tail);
    }
  }
  // Per server, both directions, port slots: a port holds one circuit for a whole slot, and a circuit carries one
  // transfer per direction at a time, so the transfers between x and peer y that cannot start before e need
  // max(1, ceil(S(x -> y) / τ), ceil(S(y -> x) / τ)) of x's port slots from e's slot on; serving D distinct peers
  // on d_S ports costs at least (D - d_S)·gap dark port slots besides. The last of them ends after the start of
  // the slot that exhausts them, and the shortest tail follows.
  std::vector<std::vector<std::pair<Seconds, std::size_t>>> touching(static_cast<std::size_t>(flat.servers));
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i])
      for (const int x : {flows.tasks[i].src, flows.tasks[i].dst}) touching[static_cast<std::size_t>(x)].emplace_back(ready[i], i);
  const auto port_slots = [&](Seconds s) { return s > 0 ? std::max(1, slot_end(s, tm.tau)) : 0; };
  for (std::size_t x = 0; x < touching.size(); ++x) {
    auto& list = touching[x];
    std::sort(list.begin(), list.end(), std::greater<>());
    std::map<int, std::pair<Seconds, Seconds>> peer;  // y -> (bytes' time x -> y, y -> x)
    std::int64_t need = 0;
    Seconds tail = std::numeric_limits<Seconds>::infinity();
    for (const auto& [first, i] : list) {
      const Task& t = flows.tasks[i];
      const bool out = t.src == static_cast<int>(x);
      auto& [to, from] = peer[out ? t.dst : t.src];
      need -= std::max(port_slots(to), port_slots(from));
      (out ? to : from) += tm.p[i];
      need += std::max(port_slots(to), port_slots(from));
      tail = std::min(tail, tm.bottom[i] - tm.p[i]);
      const std::int64_t dark = std::max<std::int64_t>(0, static_cast<std::int64_t>(peer.size()) - flat.nic_ports) * gap;
      const std::int64_t slots = (need + dark + flat.nic_ports - 1) / flat.nic_ports;
      bound = std::max(bound, static_cast<Seconds>(slot_of(first, tm.tau) + slots - 1) * tm.tau + tail);
    }
  }
  return bound;
}

}  // namespace odcn::sched
