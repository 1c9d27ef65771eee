// TOPO-X's heuristics: slot-aligned and continuous starts, over ports tracked slot by slot.
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

namespace {

/// Ports slot by slot: which server each port (server x, OCS r) is joined to, and the transfers each directed
/// pair carries. A new circuit needs both ports free in its slot and free of any *other* circuit within
/// `gap` slots either side (a port changing circuit is dark meanwhile).
class SlotPorts {
 public:
  /// per_transfer: Eq. 6 as the paper writes it, a lit circuit of the pair suffices (TopoxOptions::per_transfer).
  SlotPorts(const spec::FlatOcsSpec& f, int gap, bool per_transfer)
      : n_(f.servers), r_(f.ocs_count), gap_(gap), per_ocs_(f.ocs_ports / 2), per_transfer_(per_transfer) {}

  int slots() const { return static_cast<int>(port_.size()); }
  int partner(int t, int x, int r) const {
    if (t < 0 || t >= slots()) return -1;
    return port_[static_cast<std::size_t>(t)][static_cast<std::size_t>(x * r_ + r)];
  }
  int circuits(int t, int x, int y) const {
    int c = 0;
    for (int r = 0; r < r_; ++r) c += partner(t, x, r) == y ? 1 : 0;
    return c;
  }
  int carried(int t, int x, int y) const {
    if (t < 0 || t >= slots()) return 0;
    const auto& m = used_[static_cast<std::size_t>(t)];
    const auto it = m.find(key(x, y));
    return it == m.end() ? 0 : it->second;
  }

  /// Gives transfer x -> y a circuit direction in slots [t, t + k); false (nothing changed) when one slot has none.
  bool take(int x, int y, int t, int k) {
    grow(t + k + gap_ + 1);
    std::vector<std::tuple<int, int>> added;  // (slot, OCS) of circuits set up here
    int prefer = -1;
    for (int u = t; u < t + k; ++u) {
      if (per_transfer_ ? circuits(u, x, y) > 0 : carried(u, x, y) < circuits(u, x, y)) continue;
      const int r = free_ocs(u, x, y, prefer);
      if (r < 0) {
        for (const auto& [s, o] : added) set(s, x, y, o, -1);
        return false;
      }
      set(u, x, y, r, 1);
      added.emplace_back(u, r);
      prefer = r;
    }
    for (int u = t; u < t + k; ++u) ++used_[static_cast<std::size_t>(u)][key(x, y)];
    return true;
  }

  /// Gives transfer x -> y a circuit direction for the time [start, end) (continuous starts): in every slot it
  /// overlaps, the transfers its direction carries at any instant stay within the pair's circuits, adding a circuit
  /// for the whole slot where needed; false (nothing changed) when a slot cannot have one more.
  bool take_interval(int x, int y, Seconds start, Seconds end, Seconds tau) {
    const int first = slot_of(start, tau);
    const int last = std::max(first, slot_end(end, tau) - 1);
    grow(last + gap_ + 2);
    auto& mine = busy_[key(x, y)];
    std::vector<std::tuple<int, int>> added;
    int prefer = -1;
    for (int u = first; u <= last; ++u) {
      const Seconds lo = std::max(start, u * tau), hi = std::min(end, (u + 1) * tau);
      // The most transfers of this direction active at once within [lo, hi): counted at lo and at every start inside.
      int most = 0;
      for (const Seconds at : instants(mine, lo, hi)) {
        int active = 0;
        for (const auto& [a, b] : mine) active += (a <= at + tol(at) && at < b - tol(b)) ? 1 : 0;
        most = std::max(most, active);
      }
      if (per_transfer_ ? circuits(u, x, y) > 0 : most < circuits(u, x, y)) continue;
      const int r = free_ocs(u, x, y, prefer);
      if (r < 0) {
        for (const auto& [v, o] : added) set(v, x, y, o, -1);
        return false;
      }
      set(u, x, y, r, 1);
      added.emplace_back(u, r);
      prefer = r;
    }
    mine.emplace_back(start, end);
    return true;
  }
  /// The earliest end of a transfer of direction x -> y after `t` (when a circuit direction frees up), or +inf.
  Seconds next_end(int x, int y, Seconds t) const {
    Seconds best = std::numeric_limits<Seconds>::infinity();
    const auto it = busy_.find(key(x, y));
    if (it != busy_.end())
      for (const auto& [a, b] : it->second)
        if (b > t + tol(t)) best = std::min(best, b);
    return best;
  }

  /// Circuits of slot t, a < b, ordered by OCS then servers.
  std::vector<net::PortCircuit> circuits_of(int t) const {
    std::vector<net::PortCircuit> out;
    for (int r = 0; r < r_; ++r)
      for (int x = 0; x < n_; ++x) {
        const int y = partner(t, x, r);
        if (y > x) out.push_back({r, x, y});
      }
    return out;
  }

 private:
  static std::int64_t key(int x, int y) { return (static_cast<std::int64_t>(x) << 32) | static_cast<std::uint32_t>(y); }
  static std::vector<Seconds> instants(const std::vector<std::pair<Seconds, Seconds>>& busy, Seconds lo, Seconds hi) {
    std::vector<Seconds> at{lo};
    for (const auto& [a, b] : busy)
      if (a > lo && a < hi) at.push_back(a);
    return at;
  }
  void grow(int slots) {
    // The port state is slots x servers x OCSes: bounded, so that a tiny slot cannot exhaust memory.
    if (static_cast<std::int64_t>(slots) > limits::kMaxTopoxSlots ||
        static_cast<std::int64_t>(slots) * n_ * r_ > limits::kMaxTopoxPortSlots)
      throw ConfigError(fmt::format("TOPO-X: the plan needs more than {} time slots ({} servers x {} OCSes each; at "
                                    "most {} slots and {} port-slots, see docs/limits.md): use a longer slot",
                                    slots - 1, n_, r_, limits::kMaxTopoxSlots, limits::kMaxTopoxPortSlots));
    while (static_cast<int>(port_.size()) < slots) {
      port_.emplace_back(static_cast<std::size_t>(n_ * r_), -1);
      used_.emplace_back();
      per_switch_.emplace_back(static_cast<std::size_t>(r_), 0);
    }
  }
  bool port_ok(int u, int x, int y, int r) const {
    if (partner(u, x, r) != -1) return false;
    for (int v = u - gap_; v <= u + gap_; ++v) {
      const int p = partner(v, x, r);
      if (p != -1 && p != y) return false;
    }
    return true;
  }
  /// An OCS where x and y can be joined in slot u: `prefer` first, then one that joins them in slot u-1, then
  /// the lowest.
  int free_ocs(int u, int x, int y, int prefer) const {
    const auto ok = [&](int r) {
      return r >= 0 && per_switch_[static_cast<std::size_t>(u)][static_cast<std::size_t>(r)] < per_ocs_ &&
             port_ok(u, x, y, r) && port_ok(u, y, x, r);
    };
    if (ok(prefer)) return prefer;
    for (int r = 0; r < r_; ++r)
      if (partner(u - 1, x, r) == y && ok(r)) return r;
    for (int r = 0; r < r_; ++r)
      if (ok(r)) return r;
    return -1;
  }
  void set(int u, int x, int y, int r, int delta) {
    auto& row = port_[static_cast<std::size_t>(u)];
    row[static_cast<std::size_t>(x * r_ + r)] = delta > 0 ? y : -1;
    row[static_cast<std::size_t>(y * r_ + r)] = delta > 0 ? x : -1;
    per_switch_[static_cast<std::size_t>(u)][static_cast<std::size_t>(r)] += delta;
  }

  int n_, r_, gap_, per_ocs_;
  bool per_transfer_;
  std::vector<std::vector<int>> port_;
  std::vector<std::unordered_map<std::int64_t, int>> used_;
  std::unordered_map<std::int64_t, std::vector<std::pair<Seconds, Seconds>>> busy_;  ///< continuous starts
  std::vector<std::vector<int>> per_switch_;
};

/// Which tasks have their inputs done, and since when. Compute tasks and barriers finish as soon as they are ready
/// (they use no network); a network transfer that becomes ready is handed to the planner, which calls done() when
/// it has placed it. Shared by both heuristics.
class Readiness {
 public:
  Readiness(const JobGraph& g, const Timing& tm) : tm_(tm), missing_(g.tasks.size()), ready_(g.tasks.size(), 0) {
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      missing_[i] = static_cast<int>(g.tasks[i].deps.size());
      if (missing_[i] == 0) settle_.push_back(static_cast<int>(i));
    }
  }
  Seconds ready(int i) const { return ready_[static_cast<std::size_t>(i)]; }
  /// Task i finishes at `at`: its dependents whose inputs are now all done become ready.
  void done(int i, Seconds at) {
    for (int s : tm_.succ[static_cast<std::size_t>(i)]) {
      const auto v = static_cast<std::size_t>(s);
      ready_[v] = std::max(ready_[v], at);
      if (--missing_[v] == 0) settle_.push_back(s);
    }
  }
  /// Finishes every ready compute task and barrier (and what they make ready), handing ready transfers to `place`.
  template <class Place>
  void settle(Place place) {
    while (!settle_.empty()) {
      const int i = settle_.back();
      settle_.pop_back();
      const auto u = static_cast<std::size_t>(i);
      if (tm_.network[u]) place(i);
      else done(i, ready_[u] + tm_.p[u]);
    }
  }

 private:
  const Timing& tm_;
  std::vector<int> missing_;
  std::vector<Seconds> ready_;
  std::vector<int> settle_;
};

/// The heuristic with continuous starts: a transfer starts when its inputs are done if a circuit direction of its
/// pair is free (or can be lit for the slots it spans), else when one frees up or at the next slot boundary.
TopoxPlan plan_continuous(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options,
                          const Timing& tm) {
  const auto n = static_cast<std::size_t>(tm.n);
  TopoxPlan plan;
  plan.slot_s = options.slot_s;
  plan.reconfig_slots = reconfig_slots_of(options);
  plan.method = "heuristic";
  plan.aligned = false;
  plan.start_slot.assign(n, -1);
  plan.start_s.assign(n, 0);
  plan.per_transfer = options.per_transfer;
  SlotPorts ports(flat, plan.reconfig_slots, options.per_transfer);
  Readiness readiness(flows, tm);
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
  while (!attempts.empty()) {
    const auto [t, neg, i] = attempts.top();
    attempts.pop();
    const auto u = static_cast<std::size_t>(i);
    const Task& task = flows.tasks[u];
    if (ports.take_interval(task.src, task.dst, t, t + tm.p[u], tau)) {
      plan.start_s[u] = t;
      plan.start_slot[u] = slot_of(t, tau);
      last_slot = std::max(last_slot, slot_end(t + tm.p[u], tau));
      readiness.done(i, t + tm.p[u]);
      run_settle();
      continue;
    }
    const Seconds boundary = (slot_of(t, tau) + 1) * tau;
    attempts.emplace(std::min(boundary, ports.next_end(task.src, task.dst, t)), neg, i);
    if (++tries > 200'000'000) throw ConfigError("TOPO-X: no schedule after 200,000,000 attempts");
  }
  for (int s = 0; s < last_slot; ++s) plan.slots.push_back(ports.circuits_of(s));
  settle_times(flows, tm, plan);
  return plan;
}

}  // namespace

TopoxPlan plan_topox_heuristic(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options) {
  check_options(flat, options);
  const Timing tm = timing_of(flat, flows, options.slot_s);
  if (!options.aligned) {
    TopoxPlan plan = plan_continuous(flat, flows, options, tm);
    plan.heuristic_makespan_s = plan.makespan_s;
    plan.mip.status = "not run";
    return plan;
  }
  const auto n = static_cast<std::size_t>(tm.n);
  TopoxPlan plan;
  plan.slot_s = options.slot_s;
  plan.reconfig_slots = reconfig_slots_of(options);
  plan.method = "heuristic";
  plan.start_slot.assign(n, -1);
  plan.per_transfer = options.per_transfer;
  SlotPorts ports(flat, plan.reconfig_slots, options.per_transfer);

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
  plan.heuristic_makespan_s = plan.makespan_s;
  plan.mip.status = "not run";
  return plan;
}

}  // namespace odcn::sched
