// TOPO-X's time-slotted MIP (§III), warm-started from the heuristic plan, and the choice between plans.
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

/// The time-slotted RCPSP of TOPO-X §III over `horizon` slots, warm-started from `start` (which must fit in it).
struct MipModel {
  Milp milp;
  std::vector<std::pair<int, int>> pairs;               ///< unordered server pairs with transfers, a < b
  std::map<std::pair<int, int>, int> pair_index;
  std::vector<std::vector<std::vector<int>>> a;         ///< a[r][pair][t]
  std::vector<std::vector<std::pair<int, int>>> x;      ///< x[j] = (slot, column) for network transfers
  std::vector<int> s;                                   ///< s[j]
  int sv = -1;                                          ///< s[j_v]
  int a_at(int r, int p, int t) const {
    return a[static_cast<std::size_t>(r)][static_cast<std::size_t>(p)][static_cast<std::size_t>(t)];
  }
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

/// The unordered server pairs that carry network transfers, numbered in the order of their first transfer.
void index_pairs(MipModel& m, const JobGraph& g, const Timing& tm) {
  const auto n = static_cast<std::size_t>(tm.n);
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i]) {
      const auto& t = g.tasks[i];
      const std::pair<int, int> p{std::min(t.src, t.dst), std::max(t.src, t.dst)};
      if (!m.pair_index.count(p)) {
        m.pair_index[p] = static_cast<int>(m.pairs.size());
        m.pairs.push_back(p);
      }
    }
}

void add_columns(MipModel& m, const spec::FlatOcsSpec& flat, const Timing& tm, int horizon) {
  const auto n = static_cast<std::size_t>(tm.n);
  const double tau = tm.tau;
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
}

/// Eq. (3)-(5), and the virtual task j_v after every task.
void add_task_rows(MipModel& m, const JobGraph& g, const Timing& tm) {
  const auto n = static_cast<std::size_t>(tm.n);
  const double tau = tm.tau;
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
}

/// Eq. (6) as the paper writes it (TopoxOptions::per_transfer): per transfer and slot of its window, a circuit of
/// its pair is lit, whatever else the circuit carries.
void add_per_transfer_rows(MipModel& m, const spec::FlatOcsSpec& flat, const JobGraph& g, const Timing& tm,
                           int horizon) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(tm.n); ++j) {
    if (!tm.network[j]) continue;
    const auto& task = g.tasks[j];
    const int p = m.pair_index.at({std::min(task.src, task.dst), std::max(task.src, task.dst)});
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (const auto& [t0, c] : m.x[j])
        if (t0 <= t && t < t0 + tm.k[j]) row.emplace_back(c, -1.0);
      if (row.empty()) continue;
      for (int r = 0; r < flat.ocs_count; ++r) row.emplace_back(m.a_at(r, p, t), 1.0);
      m.milp.add_row(row, 'G', 0.0);
    }
  }
}

void add_cover_rows(MipModel& m, const spec::FlatOcsSpec& flat, const JobGraph& g, const Timing& tm, int horizon,
                    bool per_transfer) {
  if (per_transfer) return add_per_transfer_rows(m, flat, g, tm, horizon);
  const auto n = static_cast<std::size_t>(tm.n);
  const int R = flat.ocs_count;
  // Eq. (6), per directed pair and slot: its circuits cover the transfers it carries.
  std::map<std::pair<int, int>, std::vector<int>> by_direction;
  for (std::size_t i = 0; i < n; ++i)
    if (tm.network[i]) by_direction[{g.tasks[i].src, g.tasks[i].dst}].push_back(static_cast<int>(i));
  for (const auto& [dir, tasks] : by_direction) {
    const int p = m.pair_index.at({std::min(dir.first, dir.second), std::max(dir.first, dir.second)});
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (int r = 0; r < R; ++r) row.emplace_back(m.a_at(r, p, t), 1.0);
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
}

void add_ocs_rows(MipModel& m, const spec::FlatOcsSpec& flat, int horizon) {
  const int R = flat.ocs_count;
  const int P = static_cast<int>(m.pairs.size());
  // Eq. (7): an OCS of d_OCS ports holds d_OCS / 2 duplex circuits.
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (int p = 0; p < P; ++p) row.emplace_back(m.a_at(r, p, t), 1.0);
      if (P > flat.ocs_ports / 2) m.milp.add_row(row, 'L', flat.ocs_ports / 2);
    }
}

void add_port_rows(MipModel& m, const spec::FlatOcsSpec& flat, int horizon, int gap) {
  const int R = flat.ocs_count;
  const int P = static_cast<int>(m.pairs.size());
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
          for (int p : mine) row.emplace_back(m.a_at(r, p, t), 1.0);
          m.milp.add_row(row, 'L', 1.0);
        }
        for (int u = t + 1; u <= std::min(horizon - 1, t + gap); ++u)
          for (int p : mine) {
            std::vector<std::pair<int, double>> row{{m.a_at(r, p, t), 1.0}};
            for (int q : mine)
              if (q != p) row.emplace_back(m.a_at(r, q, u), 1.0);
            if (row.size() > 1) m.milp.add_row(row, 'L', 1.0);
          }
      }
  }
}

/// Eq. (8) as the paper counts it (TopoxOptions::server_circuits < d_S): at most `cap` circuits per server and slot.
void add_server_rows(MipModel& m, const spec::FlatOcsSpec& flat, int horizon, int cap) {
  if (cap >= flat.ocs_count) return;
  for (int y = 0; y < flat.servers; ++y)
    for (int t = 0; t < horizon; ++t) {
      std::vector<std::pair<int, double>> row;
      for (int p = 0; p < static_cast<int>(m.pairs.size()); ++p) {
        const auto [a, b] = m.pairs[static_cast<std::size_t>(p)];
        if (a == y || b == y)
          for (int r = 0; r < flat.ocs_count; ++r) row.emplace_back(m.a_at(r, p, t), 1.0);
      }
      if (static_cast<int>(row.size()) > cap) m.milp.add_row(row, 'L', cap);
    }
}

void build_mip(MipModel& m, const spec::FlatOcsSpec& flat, const JobGraph& g, const Timing& tm, int horizon, int gap,
               bool per_transfer, int cap) {
  index_pairs(m, g, tm);
  add_columns(m, flat, tm, horizon);
  add_task_rows(m, g, tm);
  add_cover_rows(m, flat, g, tm, horizon, per_transfer);
  add_ocs_rows(m, flat, horizon);
  add_port_rows(m, flat, horizon, gap);
  add_server_rows(m, flat, horizon, cap);
}

/// The heuristic plan as the MIP's columns.
std::vector<double> warm_start(const MipModel& m, const TopoxPlan& best, const Timing& tm, int horizon) {
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
  return start;
}

/// The MIP's solution as a plan (before settle_times): its transfer slots and the circuits they need.
TopoxPlan plan_of_solution(const MipModel& m, const Milp::Result& res, const TopoxPlan& best,
                           const spec::FlatOcsSpec& flat, const JobGraph& flows, const Timing& tm, int horizon) {
  const auto n = static_cast<std::size_t>(tm.n);
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
        const int c = solved.per_transfer ? 1 : ++dir[{t, task.src, task.dst, 0}];  // (per transfer: one suffices)
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
  return solved;
}

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
  build_mip(m, flat, flows, tm, horizon, best.reconfig_slots, options.per_transfer, server_circuits_of(flat, options));
  // Warm start: the heuristic plan, which fits in its own horizon.
  std::vector<double> start = warm_start(m, best, tm, horizon);
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
  TopoxPlan solved = plan_of_solution(m, res, best, flat, flows, tm, horizon);
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

}  // namespace odcn::sched
