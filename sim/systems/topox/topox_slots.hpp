#pragma once
// TOPO-X's heuristics' shared state (systems/topox/topox.hpp): the ports slot by slot, which tasks are ready, which
// ready transfers wait, and what they want of a slot; and the two schemes beside the slot-aligned list heuristic.
// Private to systems/topox.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "systems/topox/topoopt.hpp"
#include "systems/topox/topox_internal.hpp"

namespace odcn::sched::topox_internal {

using workload::Task;

/// Ports slot by slot: which server each port (server x, OCS r) is joined to, and the transfers each directed
/// pair carries. A new circuit needs both ports free in its slot and free of any *other* circuit within
/// `gap` slots either side (a port changing circuit is dark meanwhile).
class SlotPorts {
 public:
  /// per_transfer: Eq. 6 as the paper writes it, a lit circuit of the pair suffices (TopoxOptions::per_transfer).
  /// cap: circuits a server may hold in one slot (server_circuits_of).
  SlotPorts(const spec::FlatOcsSpec& f, int gap, bool per_transfer, int cap)
      : n_(f.servers), r_(f.ocs_count), gap_(gap), per_ocs_(f.ocs_ports / 2), cap_(cap), per_transfer_(per_transfer) {}

  int slots() const { return static_cast<int>(port_.size()); }
  int partner(int t, int x, int r) const {
    if (t < 0 || t >= slots()) return -1;
    return port_[static_cast<std::size_t>(t)][static_cast<std::size_t>(x * r_ + r)];
  }
  /// Circuits server x holds in slot t.
  int held(int t, int x) const {
    int c = 0;
    for (int r = 0; r < r_; ++r) c += partner(t, x, r) != -1 ? 1 : 0;
    return c;
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
    if (!light_where_needed(x, y, t, t + k - 1, [&](int u) { return carried(u, x, y) < circuits(u, x, y); }))
      return false;
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
    const auto free_direction = [&](int u) {
      const Seconds lo = std::max(start, u * tau), hi = std::min(end, (u + 1) * tau);
      // The most transfers of this direction active at once within [lo, hi): counted at lo and at every start inside.
      int most = 0;
      for (const Seconds at : instants(mine, lo, hi)) {
        int active = 0;
        for (const auto& [a, b] : mine) active += (a <= at + tol(at) && at < b - tol(b)) ? 1 : 0;
        most = std::max(most, active);
      }
      return most < circuits(u, x, y);
    };
    if (!light_where_needed(x, y, first, last, free_direction)) return false;
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

  /// A pair that wants `count` more circuits in a slot, and how urgent it is.
  struct Want {
    int x = 0, y = 0, count = 0;
    std::int64_t weight = 0;  ///< > 0
  };
  /// Lights circuits in slot u for `wants`, OCS by OCS: each OCS's new circuits are a maximum-weight matching of
  /// the pairs whose ports on it are free (and clear of the reconfiguration gap), so that a slot's circuits form
  /// an edge colouring of its servers with the OCSes as colours, instead of first-fit's.
  void light_matchings(int u, std::vector<Want> wants) {
    if (wants.empty()) return;
    grow(u + gap_ + 2);
    for (int r = 0; r < r_; ++r) {
      const int room = per_ocs_ - per_switch_[static_cast<std::size_t>(u)][static_cast<std::size_t>(r)];
      if (room <= 0) continue;
      std::vector<WeightedEdge> edges;
      std::vector<std::size_t> which;
      for (std::size_t k = 0; k < wants.size(); ++k) {
        const Want& w = wants[k];
        if (cap_ < r_ && (held(u, w.x) >= cap_ || held(u, w.y) >= cap_)) continue;
        if (w.count > 0 && port_ok(u, w.x, w.y, r) && port_ok(u, w.y, w.x, r)) {
          edges.push_back({w.x, w.y, w.weight});
          which.push_back(k);
        }
      }
      if (edges.empty()) continue;
      const std::vector<int> mate = max_weight_matching(n_, edges);
      std::vector<std::size_t> chosen;
      for (std::size_t e = 0; e < edges.size(); ++e)
        if (mate[static_cast<std::size_t>(edges[e].i)] == edges[e].j) chosen.push_back(e);
      std::stable_sort(chosen.begin(), chosen.end(), [&](std::size_t a, std::size_t b) { return edges[a].w > edges[b].w; });
      if (static_cast<int>(chosen.size()) > room) chosen.resize(static_cast<std::size_t>(room));
      for (std::size_t e : chosen) {
        set(u, edges[e].i, edges[e].j, r, 1);
        --wants[which[e]].count;
      }
    }
  }
  /// Transfers of direction x -> y (continuous starts) running at time t.
  int active(int x, int y, Seconds t) const {
    const auto it = busy_.find(key(x, y));
    if (it == busy_.end()) return 0;
    int c = 0;
    for (const auto& [a, b] : it->second) c += (a <= t + tol(t) && t < b - tol(b)) ? 1 : 0;
    return c;
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
  /// Lights a circuit of x and y in every slot of [first, last] where `has_free(u)` says none of theirs has a free
  /// direction (by the paper's reading, where the pair has none at all): on the OCS lit for the slot before where it
  /// can; false, with every circuit lit here taken down again, when a slot cannot have one.
  template <class HasFree>
  bool light_where_needed(int x, int y, int first, int last, HasFree has_free) {
    std::vector<std::tuple<int, int>> added;  // (slot, OCS) of circuits set up here
    int prefer = -1;
    for (int u = first; u <= last; ++u) {
      if (per_transfer_ ? circuits(u, x, y) > 0 : has_free(u)) continue;
      const int r = free_ocs(u, x, y, prefer);
      if (r < 0) {
        for (const auto& [v, o] : added) set(v, x, y, o, -1);
        return false;
      }
      set(u, x, y, r, 1);
      added.emplace_back(u, r);
      prefer = r;
    }
    return true;
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
  /// the lowest; else, when circuits change for free (no gap), one freed by recolouring slot u (kempe).
  int free_ocs(int u, int x, int y, int prefer) {
    if (cap_ < r_ && (held(u, x) >= cap_ || held(u, y) >= cap_)) return -1;
    const auto ok = [&](int r) {
      return r >= 0 && per_switch_[static_cast<std::size_t>(u)][static_cast<std::size_t>(r)] < per_ocs_ &&
             port_ok(u, x, y, r) && port_ok(u, y, x, r);
    };
    if (ok(prefer)) return prefer;
    for (int r = 0; r < r_; ++r)
      if (partner(u - 1, x, r) == y && ok(r)) return r;
    for (int r = 0; r < r_; ++r)
      if (ok(r)) return r;
    return gap_ == 0 ? kempe(u, x, y) : -1;
  }
  /// Slot u's circuits are an edge colouring of its servers, an OCS a colour (Eq. 8-10). When x has a free port on
  /// OCS a and y one on OCS b but no OCS has both, swap a and b along the path of circuits from y that alternates
  /// between them (a Kempe chain, as in the proof of König's edge-colouring theorem): a becomes free at y too. The
  /// swap moves circuits between OCSes at slot u's boundary, a reconfiguration, so it is used only when that is
  /// free (δ = 0). Returns a, or -1 (nothing changed) when the path reaches x or an OCS would exceed its ports.
  int kempe(int u, int x, int y) {
    for (int a = 0; a < r_; ++a) {
      if (partner(u, x, a) != -1) continue;
      for (int b = 0; b < r_; ++b) {
        if (b == a || partner(u, y, b) != -1 || partner(u, y, a) == -1) continue;
        std::vector<std::tuple<int, int, int>> path;  // circuits (z, w) on OCS c
        int z = y, c = a;
        bool reaches_x = false;
        while (partner(u, z, c) != -1) {
          const int w = partner(u, z, c);
          path.emplace_back(z, w, c);
          if (w == x) reaches_x = true;
          z = w;
          c = c == a ? b : a;
          if (path.size() > static_cast<std::size_t>(n_)) break;  // cannot happen in a colouring; a guard
        }
        if (reaches_x || path.size() > static_cast<std::size_t>(n_)) continue;
        for (const auto& [p, q, o] : path) set(u, p, q, o, -1);
        for (const auto& [p, q, o] : path) set(u, p, q, o == a ? b : a, 1);
        const auto& load = per_switch_[static_cast<std::size_t>(u)];
        if (load[static_cast<std::size_t>(a)] < per_ocs_ && load[static_cast<std::size_t>(b)] <= per_ocs_ &&
            partner(u, x, a) == -1 && partner(u, y, a) == -1)
          return a;
        for (const auto& [p, q, o] : path) set(u, p, q, o == a ? b : a, -1);
        for (const auto& [p, q, o] : path) set(u, p, q, o, 1);
      }
    }
    return -1;
  }
  void set(int u, int x, int y, int r, int delta) {
    auto& row = port_[static_cast<std::size_t>(u)];
    row[static_cast<std::size_t>(x * r_ + r)] = delta > 0 ? y : -1;
    row[static_cast<std::size_t>(y * r_ + r)] = delta > 0 ? x : -1;
    per_switch_[static_cast<std::size_t>(u)][static_cast<std::size_t>(r)] += delta;
  }

  int n_, r_, gap_, per_ocs_, cap_;
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

/// Ready transfers that could not start, per server they leave or reach, highest priority first: what the straddle
/// rule asks before a transfer keeps a port past a slot boundary.
class Waiting {
 public:
  using Key = std::pair<Seconds, int>;  // (-bottom level, task): smaller is more urgent
  Waiting(const JobGraph& g, const Timing& tm) : g_(g), tm_(tm), at_(static_cast<std::size_t>(2 * servers(g))) {}
  Key key(int i) const { return {-tm_.bottom[static_cast<std::size_t>(i)], i}; }
  void add(int i) {
    if (!in_.insert(i).second) return;
    const Task& t = g_.tasks[static_cast<std::size_t>(i)];
    for (int s : {t.src, t.dst}) at_[static_cast<std::size_t>(s)].insert(key(i));
  }
  void remove(int i) {
    if (in_.erase(i) == 0) return;
    const Task& t = g_.tasks[static_cast<std::size_t>(i)];
    for (int s : {t.src, t.dst}) at_[static_cast<std::size_t>(s)].erase(key(i));
  }
  const std::set<int>& all() const { return in_; }
  bool contains(int i) const { return in_.count(i) > 0; }
  /// Whether a waiting transfer more urgent than i needs a port of i's servers for another pair: one whose pair
  /// has no circuit (`unjoined(x, y)`), so that it waits for a port rather than for a circuit of its own pair.
  /// `strict`: only a longer path to the end counts as more urgent, not a lower index on a tie (transfers of one
  /// phase, such as an all-to-all's, then never yield to each other).
  template <class Unjoined>
  bool blocks(int i, Unjoined unjoined, bool strict) const {
    const Task& t = g_.tasks[static_cast<std::size_t>(i)];
    const auto same = [&](const Task& o) { return (o.src == t.src && o.dst == t.dst) || (o.src == t.dst && o.dst == t.src); };
    for (int s : {t.src, t.dst})
      for (const auto& [neg, j] : at_[static_cast<std::size_t>(s)]) {
        if (strict ? neg >= key(i).first : Key{neg, j} >= key(i)) break;
        const Task& o = g_.tasks[static_cast<std::size_t>(j)];
        if (!same(o) && unjoined(o.src, o.dst)) return true;
      }
    return false;
  }

 private:
  static int servers(const JobGraph& g) {
    int n = 0;
    for (const Task& t : g.tasks) n = std::max({n, t.src + 1, t.dst + 1});
    return n;
  }
  const JobGraph& g_;
  const Timing& tm_;
  std::vector<std::set<Key>> at_;
  std::set<int> in_;
};

/// What the ready transfers `ids` want of slot u: per pair, the circuits beyond those with a free direction
/// (`free(x, y)`: circuit directions x -> y not carrying a transfer), most urgent pairs weighing most.
template <class Free>
std::vector<SlotPorts::Want> wants_of(const JobGraph& g, const Timing& tm, const std::vector<int>& ids, Free free) {
  std::map<std::pair<int, int>, std::tuple<int, int, Seconds>> pairs;  // {a < b} -> (a -> b, b -> a, bottom)
  Seconds top = 0;
  for (int i : ids) {
    const Task& t = g.tasks[static_cast<std::size_t>(i)];
    auto& [ab, ba, bottom] = pairs[{std::min(t.src, t.dst), std::max(t.src, t.dst)}];
    ++(t.src < t.dst ? ab : ba);
    bottom = std::max(bottom, tm.bottom[static_cast<std::size_t>(i)]);
    top = std::max(top, bottom);
  }
  std::vector<SlotPorts::Want> out;
  for (const auto& [pair, w] : pairs) {
    const auto& [ab, ba, bottom] = w;
    const auto [a, b] = pair;
    const int count = std::max(ab - free(a, b), ba - free(b, a));
    // Cardinality first (a matching of one more circuit weighs more), then urgency.
    if (count > 0)
      out.push_back({a, b, count, 1'000'000 + static_cast<std::int64_t>(std::llround(999'999.0 * bottom / std::max(top, 1e-300)))});
  }
  return out;
}

/// A heuristic's empty plan for `options`: no transfer placed yet, slot-aligned.
inline TopoxPlan heuristic_plan(const TopoxOptions& options, const Timing& tm) {
  TopoxPlan plan;
  plan.slot_s = options.slot_s;
  plan.reconfig_slots = reconfig_slots_of(options);
  plan.method = "heuristic";
  plan.start_slot.assign(static_cast<std::size_t>(tm.n), -1);
  plan.per_transfer = options.per_transfer;
  plan.server_circuits = options.server_circuits;
  return plan;
}
/// The ports a heuristic tracks for `plan` under `options`.
inline SlotPorts ports_for(const spec::FlatOcsSpec& flat, const TopoxOptions& options, const TopoxPlan& plan) {
  return SlotPorts(flat, plan.reconfig_slots, options.per_transfer, server_circuits_of(flat, options));
}

/// The heuristic with continuous starts: a transfer starts when its inputs are done if a circuit direction of its
/// pair is free (or can be lit for the slots it spans), else when one frees up or at the next slot boundary.
/// The straddle rule, as plan_continuous applies it.
enum class Yield {
  none,
  /// A transfer that would keep its ports past the next slot boundary waits for that boundary while a more urgent
  /// ready transfer waits for a port of its servers (for another pair), so that the boundary can give that port a
  /// new circuit.
  straddle,
  /// The same, with urgency by path length only (ties do not yield), and, with a reconfiguration gap, a transfer
  /// that would light a circuit in the current slot counts as keeping its ports too: a port lit in slot u cannot
  /// join another server in slot u + 1.
  straddle_or_light,
};
/// With `match`, the circuits for the transfers ready at an instant are lit by matchings first
/// (SlotPorts::light_matchings). Raises ConfigError after `max_tries` attempts.
TopoxPlan plan_continuous(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options,
                          const Timing& tm, Yield yield_ports, bool match, std::int64_t max_tries);

/// The best of the serial schedule generation scheme's passes (slot-aligned; topox_serial.cpp).
TopoxPlan plan_serial_passes(const spec::FlatOcsSpec& flat, const JobGraph& flows, const TopoxOptions& options,
                             const Timing& tm);

}  // namespace odcn::sched::topox_internal
