#include "policy/topology.hpp"

#include <algorithm>

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

std::pair<int, int> GroupDemand::pair_ends(int p) const {
  for (int a = 0; a < n; ++a) {
    const int row = n - a - 1;  // pairs (a, a+1) .. (a, n-1)
    if (p < row) return {a, a + 1 + p};
    p -= row;
  }
  return {-1, -1};
}

Bottleneck bottleneck_of(const GroupDemand& d, const std::vector<int>& circuits, const TopologyLimits& limits) {
  Bottleneck b;
  for (std::size_t p = 0; p < d.pair_load.size(); ++p) {
    if (d.pair_load[p] <= 0) continue;
    const Seconds t = circuits[p] > 0 ? d.pair_load[p] / (circuits[p] * limits.port_bytes_per_s) : kInfeasible;
    if (b.pair < 0 || t > b.t) {
      b.t = t;
      b.pair = static_cast<int>(p);
    }
  }
  for (std::size_t i = 0; i < d.tor_load.size(); ++i) {
    const Seconds t = d.tor_load[i] / limits.tor_bytes_per_s;
    if (d.tor_load[i] > 0 && t > b.t) {
      b.t = t;
      b.pair = -1;
      b.tor_pod = static_cast<int>(i);
    }
  }
  return b;
}

Seconds fractional_comm_bound(const GroupDemand& d, const TopologyLimits& limits, int oxc_ports) {
  std::vector<Bytes> at_pod(static_cast<std::size_t>(d.n), 0.0);
  Bytes total = 0;
  for (std::size_t p = 0; p < d.pair_load.size(); ++p) {
    const auto [a, b] = d.pair_ends(static_cast<int>(p));
    at_pod[static_cast<std::size_t>(a)] += d.pair_load[p];
    at_pod[static_cast<std::size_t>(b)] += d.pair_load[p];
    total += d.pair_load[p];
  }
  Seconds t = oxc_ports > 0 ? 2 * total / (oxc_ports * limits.port_bytes_per_s) : 0.0;
  for (Bytes load : at_pod) t = std::max(t, load / (limits.ports_per_pod * limits.port_bytes_per_s));
  for (Bytes load : d.tor_load) t = std::max(t, load / limits.tor_bytes_per_s);
  return t;
}

void GroupDemand::add_flow(int a, int b, Bytes bytes) {
  const auto p = static_cast<std::size_t>(local_pair(a, b));
  pair_load[p] += bytes;
  linked_pairs += !linked[p];
  linked[p] = 1;
}

GroupTopology build_topology(const GroupDemand& d, const TopologyLimits& limits, Fill fill) {
  GroupTopology t;
  const std::size_t pairs = d.pair_load.size();
  t.circuits.assign(pairs, 0);
  // The planners call this for every neighbour they evaluate: the pair endpoints are kept per pod count.
  thread_local int ends_for = -1;
  thread_local std::vector<int> pa, pb;
  if (ends_for != d.n) {
    pa.assign(pairs, 0);
    pb.assign(pairs, 0);
    for (int a = 0, p = 0; a < d.n; ++a)
      for (int b = a + 1; b < d.n; ++b, ++p) {
        pa[static_cast<std::size_t>(p)] = a;
        pb[static_cast<std::size_t>(p)] = b;
      }
    ends_for = d.n;
  }
  thread_local std::vector<int> used;
  thread_local std::vector<Seconds> tp;  // completion time of each pair with its circuits (0: no circuit)
  used.assign(static_cast<std::size_t>(d.n), 0);
  tp.assign(pairs, 0.0);
  // Line 9: L = LB
  for (std::size_t p = 0; p < pairs; ++p)
    if (d.linked[p]) {
      t.circuits[p] = 1;
      used[static_cast<std::size_t>(pa[p])] += 1;
      used[static_cast<std::size_t>(pb[p])] += 1;
      tp[p] = d.pair_load[p] / (t.circuits[p] * limits.port_bytes_per_s);
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
  // Line 12: the pair with the longest completion time, the lowest index on a tie (all_ports: among those
  // that can still grow; a pair that cannot grow never can again, since ports are only taken). A heap keyed
  // by (time, −index) pops them in exactly that order.
  thread_local std::vector<std::pair<Seconds, int>> heap;
  heap.clear();
  for (std::size_t p = 0; p < pairs; ++p)
    if (t.circuits[p] && tp[p] > 0) heap.emplace_back(tp[p], -static_cast<int>(p));
  std::make_heap(heap.begin(), heap.end());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const auto worst = static_cast<std::size_t>(-heap.back().second);
    const Seconds t_worst = heap.back().first;
    heap.pop_back();
    if (fill == Fill::all_ports && !can_grow(worst)) continue;
    // Lines 13-15
    if (fill == Fill::alg2 && (t.t_tor >= t_worst || !can_grow(worst))) break;
    // Line 16
    t.circuits[worst] += 1;
    used[static_cast<std::size_t>(pa[worst])] += 1;
    used[static_cast<std::size_t>(pb[worst])] += 1;
    tp[worst] = d.pair_load[worst] / (t.circuits[worst] * limits.port_bytes_per_s);
    heap.emplace_back(tp[worst], -static_cast<int>(worst));
    std::push_heap(heap.begin(), heap.end());
  }
  for (std::size_t p = 0; p < pairs; ++p)
    if (t.circuits[p]) t.t_oxc = std::max(t.t_oxc, tp[p]);
  t.t_comm = std::max(t.t_oxc, t.t_tor);
  return t;
}

}  // namespace odcn::sched
