#include "sched/ring.hpp"

#include <algorithm>
#include <set>

namespace odcn::sched {

std::vector<std::pair<int, int>> form_ring(const std::vector<int>& members,
                                           const std::function<bool(int, int)>& linked) {
  const int m = static_cast<int>(members.size());
  if (m < 2) return {};
  if (m == 2) return {{members[0], members[1]}, {members[1], members[0]}};
  // Local indices 0..m-1. Line 2-3: the sub-topology among the members, as arcs both ways.
  std::vector<std::set<int>> out(static_cast<std::size_t>(m)), in(static_cast<std::size_t>(m));
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (a != b && linked(members[static_cast<std::size_t>(a)], members[static_cast<std::size_t>(b)])) {
        out[static_cast<std::size_t>(a)].insert(b);
        in[static_cast<std::size_t>(b)].insert(a);
      }
  auto erase_arc = [&](int a, int b) {
    out[static_cast<std::size_t>(a)].erase(b);
    in[static_cast<std::size_t>(b)].erase(a);
  };
  // Lines 4-13
  for (int v = 0; v < m; ++v) {
    const auto vi = static_cast<std::size_t>(v);
    while (in[vi].size() > 1) {  // lines 5-8
      int pick = -1;
      for (int u : in[vi])
        if (pick < 0 || out[static_cast<std::size_t>(u)].size() > out[static_cast<std::size_t>(pick)].size()) pick = u;
      erase_arc(pick, v);
    }
    while (out[vi].size() > 1) {  // lines 9-12
      int pick = -1;
      for (int w : out[vi])
        if (pick < 0 || in[static_cast<std::size_t>(w)].size() > in[static_cast<std::size_t>(pick)].size()) pick = w;
      erase_arc(v, pick);
    }
  }
  // Every node now has in/out-degree <= 1: the arcs form disjoint paths and cycles.
  std::vector<int> next(static_cast<std::size_t>(m), -1), prev(static_cast<std::size_t>(m), -1);
  for (int a = 0; a < m; ++a)
    for (int b : out[static_cast<std::size_t>(a)]) {
      next[static_cast<std::size_t>(a)] = b;
      prev[static_cast<std::size_t>(b)] = a;
    }
  // Line 14: sever each cycle at the arc entering its smallest node.
  std::vector<char> seen(static_cast<std::size_t>(m), 0);
  for (int s = 0; s < m; ++s) {
    if (seen[static_cast<std::size_t>(s)] || prev[static_cast<std::size_t>(s)] < 0) continue;
    // Walk backwards to see whether s lies on a cycle.
    int v = s;
    bool cycle = false;
    for (int steps = 0; steps <= m; ++steps) {
      v = prev[static_cast<std::size_t>(v)];
      if (v < 0) break;
      if (v == s) {
        cycle = true;
        break;
      }
    }
    if (!cycle) continue;
    int smallest = s, w = s;
    do {
      seen[static_cast<std::size_t>(w)] = 1;
      smallest = std::min(smallest, w);
      w = next[static_cast<std::size_t>(w)];
    } while (w != s);
    const int p = prev[static_cast<std::size_t>(smallest)];
    next[static_cast<std::size_t>(p)] = -1;
    prev[static_cast<std::size_t>(smallest)] = -1;
  }
  // Line 15: paths start where prev is -1 (isolated nodes are paths of one); join them in order.
  std::vector<int> order;
  for (int s = 0; s < m; ++s) {
    if (prev[static_cast<std::size_t>(s)] >= 0) continue;
    for (int v = s; v >= 0; v = next[static_cast<std::size_t>(v)]) order.push_back(v);
  }
  std::vector<std::pair<int, int>> ring;
  for (std::size_t i = 0; i < order.size(); ++i)
    ring.emplace_back(members[static_cast<std::size_t>(order[i])],
                      members[static_cast<std::size_t>(order[(i + 1) % order.size()])]);
  return ring;
}

}  // namespace odcn::sched
