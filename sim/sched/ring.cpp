#include "sched/ring.hpp"

#include <algorithm>

namespace odcn::sched {

std::vector<std::pair<int, int>> form_ring(const std::vector<int>& members, const std::vector<char>& linked) {
  const int m = static_cast<int>(members.size());
  if (m < 2) return {};
  if (m == 2) return {{members[0], members[1]}, {members[1], members[0]}};
  const auto at = [m](int a, int b) { return static_cast<std::size_t>(a * m + b); };
  // Lines 2-3: the sub-topology among the members, as arcs both ways.
  std::vector<char> arc(linked.begin(), linked.end());
  for (int a = 0; a < m; ++a) arc[at(a, a)] = 0;
  std::vector<int> in(static_cast<std::size_t>(m), 0), out(static_cast<std::size_t>(m), 0);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (arc[at(a, b)]) {
        ++out[static_cast<std::size_t>(a)];
        ++in[static_cast<std::size_t>(b)];
      }
  auto erase_arc = [&](int a, int b) {
    arc[at(a, b)] = 0;
    --out[static_cast<std::size_t>(a)];
    --in[static_cast<std::size_t>(b)];
  };
  // Lines 4-13
  for (int v = 0; v < m; ++v) {
    while (in[static_cast<std::size_t>(v)] > 1) {  // lines 5-8
      int pick = -1;
      for (int u = 0; u < m; ++u)
        if (arc[at(u, v)] && (pick < 0 || out[static_cast<std::size_t>(u)] > out[static_cast<std::size_t>(pick)])) pick = u;
      erase_arc(pick, v);
    }
    while (out[static_cast<std::size_t>(v)] > 1) {  // lines 9-12
      int pick = -1;
      for (int w = 0; w < m; ++w)
        if (arc[at(v, w)] && (pick < 0 || in[static_cast<std::size_t>(w)] > in[static_cast<std::size_t>(pick)])) pick = w;
      erase_arc(v, pick);
    }
  }
  // Every node now has in/out-degree <= 1: the arcs form disjoint paths and cycles.
  std::vector<int> next(static_cast<std::size_t>(m), -1), prev(static_cast<std::size_t>(m), -1);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (arc[at(a, b)]) {
        next[static_cast<std::size_t>(a)] = b;
        prev[static_cast<std::size_t>(b)] = a;
      }
  // Line 14: sever each cycle at the arc entering its smallest node (nodes are visited in ascending order,
  // so the first node met on a cycle is its smallest).
  std::vector<char> seen(static_cast<std::size_t>(m), 0);
  for (int s = 0; s < m; ++s) {
    if (seen[static_cast<std::size_t>(s)]) continue;
    int v = s;
    while (v >= 0 && !seen[static_cast<std::size_t>(v)]) {
      seen[static_cast<std::size_t>(v)] = 1;
      v = next[static_cast<std::size_t>(v)];
    }
    if (v == s) {  // walked all the way round
      const int p = prev[static_cast<std::size_t>(s)];
      next[static_cast<std::size_t>(p)] = -1;
      prev[static_cast<std::size_t>(s)] = -1;
    }
  }
  // Line 15: paths start where prev is -1 (isolated nodes are paths of one); join them in order.
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(m));
  for (int s = 0; s < m; ++s) {
    if (prev[static_cast<std::size_t>(s)] >= 0) continue;
    for (int v = s; v >= 0; v = next[static_cast<std::size_t>(v)]) order.push_back(v);
  }
  std::vector<std::pair<int, int>> ring;
  ring.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    ring.emplace_back(members[static_cast<std::size_t>(order[i])],
                      members[static_cast<std::size_t>(order[(i + 1) % order.size()])]);
  return ring;
}

}  // namespace odcn::sched
