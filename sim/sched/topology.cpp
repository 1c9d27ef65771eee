#include "sched/topology.hpp"

namespace odcn::sched {

GroupDemand::GroupDemand(int pods)
    : n(pods),
      pair_load(static_cast<std::size_t>(pods * (pods - 1) / 2), 0.0),
      linked(pair_load.size(), 0),
      tor_load(static_cast<std::size_t>(pods), 0.0) {}

int GroupDemand::local_pair(int a, int b) const {
  if (a > b) std::swap(a, b);
  return a * n - a * (a + 1) / 2 + (b - a - 1);
}

void GroupDemand::add_flow(int a, int b, Bytes bytes) {
  const auto p = static_cast<std::size_t>(local_pair(a, b));
  pair_load[p] += bytes;
  linked[p] = 1;
}

GroupTopology build_topology(const GroupDemand& d, const TopologyLimits& limits, Fill fill) {
  GroupTopology t;
  const std::size_t pairs = d.pair_load.size();
  t.circuits.assign(pairs, 0);
  std::vector<int> used(static_cast<std::size_t>(d.n), 0);
  std::vector<int> pa(pairs), pb(pairs);
  for (int a = 0, p = 0; a < d.n; ++a)
    for (int b = a + 1; b < d.n; ++b, ++p) {
      pa[static_cast<std::size_t>(p)] = a;
      pb[static_cast<std::size_t>(p)] = b;
    }
  // Line 9: L = LB
  for (std::size_t p = 0; p < pairs; ++p)
    if (d.linked[p]) {
      t.circuits[p] = 1;
      used[static_cast<std::size_t>(pa[p])] += 1;
      used[static_cast<std::size_t>(pb[p])] += 1;
    }
  for (int u : used)
    if (u > limits.ports_per_pod) {  // Eq. (6) cannot hold even with one circuit per demand pair
      t.feasible = false;
      t.t_comm = t.t_oxc = kInfeasible;
      return t;
    }
  // Line 10
  for (Bytes b : d.tor_load) t.t_tor = std::max(t.t_tor, b / limits.tor_bytes_per_s);
  auto can_grow = [&](std::size_t p) {
    return used[static_cast<std::size_t>(pa[p])] < limits.ports_per_pod &&
           used[static_cast<std::size_t>(pb[p])] < limits.ports_per_pod;
  };
  while (true) {
    // Line 12: the pair with the longest completion time (all_ports: among those that can still grow)
    std::size_t worst = pairs;
    Seconds t_worst = 0;
    for (std::size_t p = 0; p < pairs; ++p) {
      if (!t.circuits[p] || (fill == Fill::all_ports && !can_grow(p))) continue;
      const Seconds tp = d.pair_load[p] / (t.circuits[p] * limits.port_bytes_per_s);
      if (tp > t_worst) {
        t_worst = tp;
        worst = p;
      }
    }
    if (worst == pairs) break;
    // Lines 13-15
    if (fill == Fill::alg2 && (t.t_tor >= t_worst || !can_grow(worst))) break;
    auto& ua = used[static_cast<std::size_t>(pa[worst])];
    auto& ub = used[static_cast<std::size_t>(pb[worst])];
    // Line 16
    t.circuits[worst] += 1;
    ua += 1;
    ub += 1;
  }
  for (std::size_t p = 0; p < pairs; ++p)
    if (t.circuits[p]) t.t_oxc = std::max(t.t_oxc, d.pair_load[p] / (t.circuits[p] * limits.port_bytes_per_s));
  t.t_comm = std::max(t.t_oxc, t.t_tor);
  return t;
}

}  // namespace odcn::sched
