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

namespace odcn::sched {

std::string topox_mip_mode(const std::string& variant) {
  return variant == "heuristic" ? "never" : variant == "mip" ? "always" : "auto";
}


using workload::JobGraph;
using workload::Task;
using workload::TaskKind;

namespace {

constexpr Seconds kTimeEps = 1e-12;

/// Times are compared with a tolerance of what rounding in a sum of durations can change (1e-12 of their size, at
/// least 1e-12 s), never a real difference. The planner, the plan checker and the controller use the same rules.
Seconds tol(Seconds t) { return 1e-12 * std::max(1.0, std::abs(t)); }
/// The slot that holds time t.
int slot_of(Seconds t, Seconds tau) { return static_cast<int>(std::floor((t + tol(t)) / tau)); }
/// One past the last slot that a span ending at `end` reaches into.
int slot_end(Seconds end, Seconds tau) { return static_cast<int>(std::ceil((end - tol(end)) / tau)); }

/// Appends `t` to `out` with the union of the new indices of its old dependencies.
void add_with_deps(JobGraph& out, Task t, const std::vector<int>& old_deps, const std::vector<std::vector<int>>& now) {
  t.deps.clear();
  for (int d : old_deps)
    for (int n : now[static_cast<std::size_t>(d)]) t.deps.push_back(n);
  std::sort(t.deps.begin(), t.deps.end());
  t.deps.erase(std::unique(t.deps.begin(), t.deps.end()), t.deps.end());
  out.tasks.push_back(std::move(t));
}

}  // namespace

JobGraph flow_graph(const JobGraph& g, const std::vector<int>& endpoints, const RingPaths& rings,
                    const std::string& file, const std::string& field) {
  JobGraph out;
  out.name = g.name;
  out.iterations = g.iterations;
  out.arrival_s = g.arrival_s;
  out.ranks = endpoints.empty() ? 1 : *std::max_element(endpoints.begin(), endpoints.end()) + 1;
  const auto server = [&](int rank) { return endpoints[static_cast<std::size_t>(rank)]; };
  std::vector<std::vector<int>> now(g.tasks.size());  // old task -> the new tasks its dependents wait for
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    const int first = static_cast<int>(out.tasks.size());
    if (t.kind == TaskKind::compute && t.rank == workload::kAllRanks) {
      // Every rank at once: one compute per rank, so that each runs on its own server.
      for (int r = 0; r < g.ranks; ++r) {
        Task c = t;
        c.rank = server(r);
        c.name = fmt::format("{}@{}", t.name, r);
        add_with_deps(out, std::move(c), t.deps, now);
      }
    } else if (t.kind == TaskKind::compute) {
      Task c = t;
      c.rank = server(t.rank);
      add_with_deps(out, std::move(c), t.deps, now);
    } else if (t.kind == TaskKind::transfer) {
      Task c = t;
      c.src = server(t.src);
      c.dst = server(t.dst);
      add_with_deps(out, std::move(c), t.deps, now);
    } else if (t.kind == TaskKind::barrier) {
      add_with_deps(out, t, t.deps, now);
    } else {
      if (t.op != workload::CollectiveOp::all_reduce || t.algorithm != workload::CollectiveAlgorithm::ring)
        throw InputError(file, fmt::format("{}.tasks[{}]", field, i),
                         fmt::format("task '{}': TOPO-X and TopoOpt schedule ring all-reduces only (this is {} {})",
                                     t.name, workload::to_string(t.op), workload::to_string(t.algorithm)));
      // The ring all-reduce as its aggregate traffic (TOPO-X §VII's simplified ring model): each member sends
      // 2(g-1)/g·S to its successor, split evenly over the ring paths.
      const int g_size = static_cast<int>(t.group.size());
      std::vector<int> strides;
      for (int s : rings.strides)
        if (g_size > 1 && ((s % g_size) + g_size) % g_size != 0) strides.push_back(((s % g_size) + g_size) % g_size);
      if (strides.empty() && g_size > 1) strides.push_back(1);
      const Bytes share = g_size > 1 ? 2.0 * (g_size - 1) / g_size * t.bytes / static_cast<double>(strides.size()) : 0.0;
      for (std::size_t p = 0; p < strides.size(); ++p)
        for (int m = 0; m < g_size; ++m) {
          Task c;
          c.kind = TaskKind::transfer;
          c.src = server(t.group[static_cast<std::size_t>(m)]);
          c.dst = server(t.group[static_cast<std::size_t>((m + strides[p]) % g_size)]);
          c.bytes = std::round(share);
          c.name = fmt::format("{}.ring{}.{}", t.name, p, m);
          add_with_deps(out, std::move(c), t.deps, now);
        }
      // A zero-length barrier closes the all-reduce so that its dependents wait for one task, not for every
      // ring transfer.
      const int last = static_cast<int>(out.tasks.size());
      Task done;
      done.kind = TaskKind::barrier;
      done.name = t.name + ".done";
      for (int n = first; n < last; ++n) done.deps.push_back(n);
      if (last == first) add_with_deps(out, std::move(done), t.deps, now);
      else out.tasks.push_back(std::move(done));
      now[i] = {static_cast<int>(out.tasks.size()) - 1};
      continue;
    }
    for (int n = first; n < static_cast<int>(out.tasks.size()); ++n) now[i].push_back(n);
  }
  return out;
}

MultiHop multi_hop(const JobGraph& flows, const std::function<bool(int, int)>& direct,
                   const std::function<std::vector<int>(int, int)>& route) {
  MultiHop m;
  m.graph.name = flows.name;
  m.graph.ranks = flows.ranks;
  m.graph.iterations = flows.iterations;
  m.graph.arrival_s = flows.arrival_s;
  std::vector<std::vector<int>> now(flows.tasks.size());
  // Transfers that start together (the same inputs) on the same link travel as one aggregate transfer of their
  // summed bytes, exact for its last byte (DESIGN.md §3: aggregate, don't enumerate; an all-to-all forwarded over
  // 128 servers would otherwise be ~50,000 concurrent transfers).
  std::map<std::tuple<std::vector<int>, int, int>, int> merged;
  const auto add_transfer = [&](Task t, const std::vector<int>& old_deps, std::size_t origin) {
    JobGraph one;
    add_with_deps(one, std::move(t), old_deps, now);
    Task& leg = one.tasks[0];
    const auto key = std::make_tuple(leg.deps, leg.src, leg.dst);
    const auto it = merged.find(key);
    if (it != merged.end()) {
      m.graph.tasks[static_cast<std::size_t>(it->second)].bytes += leg.bytes;
      now[origin].push_back(it->second);
      return;
    }
    merged.emplace(key, static_cast<int>(m.graph.tasks.size()));
    now[origin].push_back(static_cast<int>(m.graph.tasks.size()));
    m.graph.tasks.push_back(std::move(leg));
  };
  for (std::size_t i = 0; i < flows.tasks.size(); ++i) {
    const Task& t = flows.tasks[i];
    const bool network = t.kind == TaskKind::transfer && t.src != t.dst && t.bytes > 0;
    if (network && !direct(t.src, t.dst)) {
      const std::vector<int> path = route(t.src, t.dst);
      if (path.size() < 2 || path.front() != t.src || path.back() != t.dst)
        throw ConfigError(fmt::format("task '{}': no route from server {} to server {} on the static topology", t.name,
                                      t.src, t.dst));
      ++m.forwarded;
      m.forwarded_bytes += t.bytes;
      for (std::size_t h = 0; h + 1 < path.size(); ++h) {
        Task leg = t;
        leg.src = path[h];
        leg.dst = path[h + 1];
        leg.name = fmt::format("{}.hop{}", t.name, h);
        add_transfer(std::move(leg), t.deps, i);
        ++m.legs;
        m.hop_bytes += t.bytes;
      }
    } else if (network) {
      add_transfer(t, t.deps, i);
    } else {
      now[i].push_back(static_cast<int>(m.graph.tasks.size()));
      add_with_deps(m.graph, t, t.deps, now);
    }
    std::sort(now[i].begin(), now[i].end());
    now[i].erase(std::unique(now[i].begin(), now[i].end()), now[i].end());
  }
  m.transfers = 0;
  for (const auto& t : m.graph.tasks) m.transfers += t.kind == TaskKind::transfer ? 1 : 0;
  return m;
}

std::vector<net::PortCircuit> TopoxPlan::lit_during(int t) const {
  std::vector<net::PortCircuit> out;
  const int last = std::min(static_cast<int>(slots.size()) - 1, t + reconfig_slots);
  for (int u = std::max(t, 0); u <= last; ++u)
    for (const auto& c : slots[static_cast<std::size_t>(u)]) out.push_back(c);
  const auto key = [](const net::PortCircuit& c) { return std::make_tuple(c.ocs, c.a, c.b); };
  std::sort(out.begin(), out.end(), [&](const auto& x, const auto& y) { return key(x) < key(y); });
  out.erase(std::unique(out.begin(), out.end(), [&](const auto& x, const auto& y) { return key(x) == key(y); }),
            out.end());
  return out;
}

namespace {

/// The flow graph's timing as the slotted model sees it.
struct Timing {
  int n = 0;
  Seconds tau = 0;
  std::vector<bool> network;        ///< a transfer that needs a circuit (different servers, bytes > 0)
  std::vector<Seconds> p;           ///< duration (a transfer: bytes / B)
  std::vector<int> k;               ///< slots a network transfer holds its circuit
  std::vector<std::vector<int>> succ;
  std::vector<int> order;           ///< topological
  std::vector<Seconds> bottom;      ///< longest path from the task's start to the end of the iteration
  std::vector<Seconds> earliest;    ///< ASAP start without circuit limits (network transfers slot-aligned)
};

int slots_for(Seconds p, Seconds tau) { return std::max(1, slot_end(p, tau)); }
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

/// Ports slot by slot: which server each port (server x, OCS r) is joined to, and the transfers each directed
/// pair carries. A new circuit needs both ports free in its slot and free of any *other* circuit within
/// `gap` slots either side (a port changing circuit is dark meanwhile).
class SlotPorts {
 public:
  SlotPorts(const spec::FlatOcsSpec& f, int gap) : n_(f.servers), r_(f.ocs_count), gap_(gap), per_ocs_(f.ocs_ports / 2) {}

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
      if (carried(u, x, y) < circuits(u, x, y)) continue;
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
      if (most < circuits(u, x, y)) continue;
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
  std::vector<std::vector<int>> port_;
  std::vector<std::unordered_map<std::int64_t, int>> used_;
  std::unordered_map<std::int64_t, std::vector<std::pair<Seconds, Seconds>>> busy_;  ///< continuous starts
  std::vector<std::vector<int>> per_switch_;
};

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

}  // namespace

namespace {

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
  SlotPorts ports(flat, plan.reconfig_slots);
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
  SlotPorts ports(flat, plan.reconfig_slots);

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

namespace {

/// The time-slotted RCPSP of TOPO-X §III over `horizon` slots, warm-started from `start` (which must fit in it).
struct MipModel {
  Milp milp;
  std::vector<std::pair<int, int>> pairs;               ///< unordered server pairs with transfers, a < b
  std::map<std::pair<int, int>, int> pair_index;
  std::vector<std::vector<std::vector<int>>> a;         ///< a[r][pair][t]
  std::vector<std::vector<std::pair<int, int>>> x;      ///< x[j] = (slot, column) for network transfers
  std::vector<int> s;                                   ///< s[j]
  int sv = -1;                                          ///< s[j_v]
};

std::int64_t mip_columns(const spec::FlatOcsSpec& flat, const JobGraph& g, const Timing& tm, int horizon) {
  std::set<std::pair<int, int>> pairs;
  std::int64_t cols = tm.n + 1;
  for (int i = 0; i < tm.n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (!tm.network[u]) continue;
    const auto& t = g.tasks[u];
    pairs.insert({std::min(t.src, t.dst), std::max(t.src, t.dst)});
    cols += std::max(0, horizon - tm.k[u] - static_cast<int>(std::lround(tm.earliest[u] / tm.tau)) + 1);
  }
  return cols + static_cast<std::int64_t>(pairs.size()) * flat.ocs_count * horizon;
}

void build_mip(MipModel& m, const spec::FlatOcsSpec& flat, const JobGraph& g, const Timing& tm, int horizon, int gap) {
  const auto n = static_cast<std::size_t>(tm.n);
  const double tau = tm.tau;
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i]) {
      const auto& t = g.tasks[i];
      const std::pair<int, int> p{std::min(t.src, t.dst), std::max(t.src, t.dst)};
      if (!m.pair_index.count(p)) {
        m.pair_index[p] = static_cast<int>(m.pairs.size());
        m.pairs.push_back(p);
      }
    }
  const int R = flat.ocs_count;
  const int P = static_cast<int>(m.pairs.size());
  Seconds total = 0;
  for (Seconds p : tm.p) total += p;
  const double big = horizon * tau + total;
  // Columns: s[j], s_v, x[j][t], a[r][p][t].
  m.s.resize(n);
  for (std::size_t i = 0; i < n; ++i) m.s[i] = m.milp.add_var(0, big, 0, false);
  m.sv = m.milp.add_var(0, big, 1, false);  // Eq. (2): minimise the virtual task's start
  m.x.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    if (!tm.network[i]) continue;
    const int first = static_cast<int>(std::lround(tm.earliest[i] / tau));
    for (int t = first; t + tm.k[i] <= horizon; ++t) m.x[i].emplace_back(t, m.milp.add_var(0, 1, 0, true));
  }
  m.a.assign(static_cast<std::size_t>(R), std::vector<std::vector<int>>(static_cast<std::size_t>(P)));
  for (int r = 0; r < R; ++r)
    for (int p = 0; p < P; ++p)
      for (int t = 0; t < horizon; ++t)
        m.a[static_cast<std::size_t>(r)][static_cast<std::size_t>(p)].push_back(m.milp.add_var(0, 1, 0, true));
  const auto A = [&](int r, int p, int t) {
    return m.a[static_cast<std::size_t>(r)][static_cast<std::size_t>(p)][static_cast<std::size_t>(t)];
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (tm.network[i]) {
      std::vector<std::pair<int, double>> once, when;
      for (const auto& [t, c] : m.x[i]) {
        once.emplace_back(c, 1.0);
        when.emplace_back(c, tau * t);
      }
      m.milp.add_row(once, 'E', 1.0);  // Eq. (3)
      when.emplace_back(m.s[i], -1.0);
      m.milp.add_row(when, 'E', 0.0);  // Eq. (4)
    }
    for (int d : g.tasks[i].deps)  // Eq. (5)
      m.milp.add_row({{m.s[static_cast<std::size_t>(d)], 1.0}, {m.s[i], -1.0}}, 'L', -tm.p[static_cast<std::size_t>(d)]);
    if (tm.succ[i].empty()) m.milp.add_row({{m.s[i], 1.0}, {m.sv, -1.0}}, 'L', -tm.p[i]);  // j_v after every task
  }
  // Eq. (6), per directed pair and slot: its circuits cover the transfers it carries.
  std::map<std::pair<int, int>, std::vector<int>> by_direction;
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i]) by_direction[{g.tasks[i].src, g.tasks[i].dst}].push_back(static_cast<int>(i));
  for (const auto& [dir, tasks] : by_direction) {
    const int p = m.pair_index.at({std::min(dir.first, dir.second), std::max(dir.first, dir.second)});
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (int r = 0; r < R; ++r) row.emplace_back(A(r, p, t), 1.0);
      bool any = false;
      for (int j : tasks)
        for (const auto& [t0, c] : m.x[static_cast<std::size_t>(j)])
          if (t0 <= t && t < t0 + tm.k[static_cast<std::size_t>(j)]) {
            row.emplace_back(c, -1.0);
            any = true;
          }
      if (any) m.milp.add_row(row, 'G', 0.0);
    }
  }
  // Eq. (7): an OCS of d_OCS ports holds d_OCS / 2 duplex circuits.
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (int p = 0; p < P; ++p) row.emplace_back(A(r, p, t), 1.0);
      if (P > flat.ocs_ports / 2) m.milp.add_row(row, 'L', flat.ocs_ports / 2);
    }
  // Eq. (8)-(10): one port per server on each OCS; with a reconfiguration gap, a port that changes circuit stays
  // dark for `gap` slots.
  std::vector<std::vector<int>> pairs_of(static_cast<std::size_t>(flat.servers));
  for (int p = 0; p < P; ++p) {
    pairs_of[static_cast<std::size_t>(m.pairs[static_cast<std::size_t>(p)].first)].push_back(p);
    pairs_of[static_cast<std::size_t>(m.pairs[static_cast<std::size_t>(p)].second)].push_back(p);
  }
  for (int y = 0; y < flat.servers; ++y) {
    const auto& mine = pairs_of[static_cast<std::size_t>(y)];
    if (mine.empty()) continue;
    for (int r = 0; r < R; ++r)
      for (int t = 0; t < horizon; ++t) {
        if (mine.size() > 1) {
          std::vector<std::pair<int, double>> row;
          for (int p : mine) row.emplace_back(A(r, p, t), 1.0);
          m.milp.add_row(row, 'L', 1.0);
        }
        for (int u = t + 1; u <= std::min(horizon - 1, t + gap); ++u)
          for (int p : mine) {
            std::vector<std::pair<int, double>> row{{A(r, p, t), 1.0}};
            for (int q : mine)
              if (q != p) row.emplace_back(A(r, q, u), 1.0);
            if (row.size() > 1) m.milp.add_row(row, 'L', 1.0);
          }
      }
  }
}

}  // namespace

namespace {

/// The slot-aligned heuristic, then the MIP warm-started from it.
TopoxPlan plan_aligned(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options) {
  TopoxPlan best = plan_topox_heuristic(flat, flows, options);
  if (options.mip == "never") {
    best.mip.status = "not run (heuristic only)";
    return best;
  }
  const Timing tm = timing_of(flat, flows, options.slot_s);
  const int horizon = static_cast<int>(best.slots.size());
  const std::int64_t cols = mip_columns(flat, flows, tm, horizon);
  if (horizon == 0) {
    best.mip.status = "not needed: no transfer uses the network";
    return best;
  }
  if (options.mip == "always" && cols > options.max_forced_mip_vars)
    throw ConfigError(fmt::format("policy topox:mip: the MIP would have {} columns, above {} (CBC's root LP alone runs "
                                  "for minutes past any time limit at that size); use topox, which plans it with the "
                                  "heuristics",
                                  cols, options.max_forced_mip_vars));
  if (options.mip == "auto" && cols > options.max_mip_vars) {
    best.mip.status = fmt::format("not run: {} columns, above the limit of {} (heuristic plan)", cols, options.max_mip_vars);
    best.mip.columns = static_cast<int>(std::min<std::int64_t>(cols, INT32_MAX));
    return best;
  }
  const auto t0 = std::chrono::steady_clock::now();
  MipModel m;
  build_mip(m, flat, flows, tm, horizon, best.reconfig_slots);
  // Warm start: the heuristic plan, which fits in its own horizon.
  std::vector<double> start(static_cast<std::size_t>(m.milp.vars()), 0.0);
  const auto n = static_cast<std::size_t>(tm.n);
  for (std::size_t i = 0; i < n; ++i) {
    start[static_cast<std::size_t>(m.s[i])] = best.start_s[i];
    for (const auto& [t, c] : m.x[i])
      if (t == best.start_slot[i]) start[static_cast<std::size_t>(c)] = 1;
  }
  start[static_cast<std::size_t>(m.sv)] = best.makespan_s;
  for (int t = 0; t < horizon; ++t)
    for (const auto& c : best.slots[static_cast<std::size_t>(t)]) {
      const auto it = m.pair_index.find({c.a, c.b});
      if (it != m.pair_index.end())
        start[static_cast<std::size_t>(m.a[static_cast<std::size_t>(c.ocs)][static_cast<std::size_t>(it->second)]
                                          [static_cast<std::size_t>(t)])] = 1;
    }
  const std::string bad = m.milp.violation(start, 1e-9);
  if (!bad.empty()) throw std::logic_error("TOPO-X: the heuristic plan breaks the MIP: " + bad);
  if (options.warm_start) m.milp.set_start(start);
  const Milp::Result res = m.milp.solve(options.time_limit_s);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  best.mip.columns = m.milp.vars();
  best.mip.rows = m.milp.rows();
  best.mip.wall_s = wall;
  if (!res.solved) {
    best.mip.status = fmt::format("no solution within {:.0f} s (heuristic plan)", options.time_limit_s);
    return best;
  }
  best.mip.objective_s = res.objective;
  best.mip.bound_s = res.bound;
  best.mip.gap = res.objective > 0 ? std::max(0.0, (res.objective - res.bound) / res.objective) : 0.0;
  best.mip.status = res.optimal ? "optimal" : fmt::format("time limit: gap {:.1f} %", 100 * best.mip.gap);
  if (res.objective >= best.makespan_s - kTimeEps) return best;  // the heuristic plan is as good
  // The MIP's plan: its transfer slots, and only the circuits its transfers need (the model may light spare ones
  // at no cost; dropping them keeps every constraint).
  TopoxPlan solved = best;
  solved.method = "mip";
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& [t, c] : m.x[i])
      if (res.values[static_cast<std::size_t>(c)] > 0.5) solved.start_slot[i] = t;
  std::map<std::tuple<int, int, int>, int> need;  // (slot, a, b) -> circuits its busier direction needs
  std::map<std::tuple<int, int, int, int>, int> dir;
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i])
      for (int t = solved.start_slot[i]; t < solved.start_slot[i] + tm.k[i]; ++t) {
        const auto& task = flows.tasks[i];
        const int c = ++dir[{t, task.src, task.dst, 0}];
        auto& nd = need[{t, std::min(task.src, task.dst), std::max(task.src, task.dst)}];
        nd = std::max(nd, c);
      }
  solved.slots.assign(static_cast<std::size_t>(horizon), {});
  for (int t = 0; t < horizon; ++t)
    for (int p = 0; p < static_cast<int>(m.pairs.size()); ++p) {
      const auto [a, b] = m.pairs[static_cast<std::size_t>(p)];
      const auto it = need.find({t, a, b});
      int want = it == need.end() ? 0 : it->second;
      for (int r = 0; r < flat.ocs_count && want > 0; ++r)
        if (res.values[static_cast<std::size_t>(m.a[static_cast<std::size_t>(r)][static_cast<std::size_t>(p)]
                                                  [static_cast<std::size_t>(t)])] > 0.5) {
          solved.slots[static_cast<std::size_t>(t)].push_back({r, a, b});
          --want;
        }
    }
  for (auto& slot : solved.slots)
    std::sort(slot.begin(), slot.end(), [](const auto& x, const auto& y) {
      return std::make_tuple(x.ocs, x.a, x.b) < std::make_tuple(y.ocs, y.a, y.b);
    });
  while (!solved.slots.empty() && solved.slots.back().empty()) solved.slots.pop_back();
  settle_times(flows, tm, solved);
  return solved.makespan_s < best.makespan_s - kTimeEps ? solved : best;
}

}  // namespace

TopoxPlan plan_topox(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options) {
  TopoxOptions aligned = options;
  aligned.aligned = true;
  TopoxPlan plan = plan_aligned(flat, flows, aligned);
  plan.continuous_makespan_s = 0;
  if (options.aligned) return plan;
  // Both plans keep every rule; the shorter one runs.
  TopoxPlan continuous = plan_topox_heuristic(flat, flows, options);
  plan.continuous_makespan_s = continuous.makespan_s;
  if (continuous.makespan_s < plan.makespan_s - kTimeEps) {
    continuous.method = "heuristic, continuous starts";
    continuous.mip = plan.mip;
    if (plan.mip.objective_s > 0)
      continuous.mip.status += " for slot-aligned starts (a plan with continuous starts is shorter and runs)";
    continuous.heuristic_makespan_s = plan.heuristic_makespan_s;
    continuous.continuous_makespan_s = continuous.makespan_s;
    return continuous;
  }
  return plan;
}

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
  // Eq. (6), per directed pair: at every instant its transfers are within its circuits. The count of active
  // transfers changes at their starts, and the circuits at slot boundaries: checking both covers every instant.
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
      if (active > circuits)
        return fmt::format("slot {} at {} s: {} transfers from server {} to {} but {} circuits", u, t, active, x, y,
                           circuits);
    }
  }
  if (std::abs(makespan - plan.makespan_s) > tol(makespan))  // Eq. (2)
    return fmt::format("makespan {} s, but the last task finishes at {} s", plan.makespan_s, makespan);
  return {};
}

// ---- the controller ----

TopoxController::TopoxController(const spec::FlatOcsSpec& flat, const net::Network& network, const TopoxPlan& plan)
    : flat_(flat), network_(network), plan_(plan) {
  current_ = plan.lit_during(0);
}

net::CircuitConfig TopoxController::initial_circuits() const { return net::counts_of(flat_, network_, current_); }

void TopoxController::enter_slot(int t, Actions& act) {
  // After the plan's last slot the circuits stay as they are (the next iteration starts from them).
  std::vector<net::PortCircuit> lit = t < static_cast<int>(plan_.slots.size()) ? plan_.lit_during(t) : current_;
  const int changed = net::changed_circuits(current_, lit);
  if (changed > 0) {
    act.configure(net::counts_of(flat_, network_, lit), fmt::format("TOPO-X slot {}", t));
    ++changes_;
    circuits_changed_ += changed;
    current_ = std::move(lit);
  }
}

void TopoxController::wake(Seconds at, Actions& act) {
  if (woken_.insert(at).second) act.wake_at(at);
}

void TopoxController::on_timer(Seconds now, Actions& act) {
  const int slots = static_cast<int>(plan_.slots.size());
  while (next_slot_ <= slots && base_ + next_slot_ * plan_.slot_s <= now + tol(now)) enter_slot(next_slot_++, act);
  if (next_slot_ <= slots) wake(base_ + next_slot_ * plan_.slot_s, act);
  // Transfers whose planned start has come, after the slot's circuits (a transfer at a boundary needs them).
  while (!held_.empty() && std::get<0>(held_.top()) <= now + tol(now)) {
    const auto [at, iteration, task] = held_.top();
    held_.pop();
    if (iteration == iteration_) act.release({job_, task, nullptr, false});
  }
}

void TopoxController::begin_iteration(int iteration, Seconds now, Actions& act) {
  iteration_ = iteration;
  base_ = now;
  next_slot_ = 0;
  if (iteration > 0) {
    // The first slot's circuits are set up now; a port that changes circuit stays dark for the reconfiguration
    // delay, so the iteration's slots begin after it (its compute starts at once).
    std::vector<net::PortCircuit> first = plan_.lit_during(0);
    const int changed = net::changed_circuits(current_, first);
    if (changed > 0) {
      // Circuits only torn down cost nothing; circuits set up make the slots wait for them.
      const int added = (changed + static_cast<int>(first.size()) - static_cast<int>(current_.size())) / 2;
      act.configure(net::counts_of(flat_, network_, first), "TOPO-X: the next iteration's first slot");
      ++changes_;
      circuits_changed_ += changed;
      current_ = std::move(first);
      if (added > 0) base_ = now + plan_.reconfig_slots * plan_.slot_s;
    }
  }
  on_timer(now, act);
}

Controller::Gate TopoxController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds now,
                                                Actions& act) {
  job_ = ref.job;
  if (ref.iteration != iteration_) begin_iteration(ref.iteration, now, act);
  else on_timer(now, act);  // a slot boundary at this very instant is entered before the task is placed
  const auto i = static_cast<std::size_t>(ref.task);
  if (i >= plan_.start_slot.size() || plan_.start_slot[i] < 0) return {};
  const Seconds at = base_ + plan_.start_s[i];
  if (at <= now + tol(now)) {
    if (now > at + 1e-9 * std::max(1.0, at)) ++late_;
    return {};
  }
  held_.emplace(at, ref.iteration, ref.task);
  wake(at, act);
  return {true, nullptr, false};
}

}  // namespace odcn::sched
