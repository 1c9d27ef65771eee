#include "policy/ring.hpp"

#include <boost/pending/disjoint_sets.hpp>

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
  // Lines 14-15: the pieces left are paths and cycles, the connected components of the remaining arcs, found
  // with Boost.Graph's disjoint sets (its incremental connected components; the planner calls this for every
  // job it regroups, so no adjacency structure is built). A cycle is severed at the arc entering its smallest
  // node; each piece then starts at its head (the node nothing enters), and the pieces are joined in the order
  // of their heads.
  std::vector<int> rank(static_cast<std::size_t>(m)), parent(static_cast<std::size_t>(m));
  boost::disjoint_sets<int*, int*> sets(rank.data(), parent.data());
  for (int v = 0; v < m; ++v) sets.make_set(v);
  for (int a = 0; a < m; ++a)
    if (next[static_cast<std::size_t>(a)] >= 0) sets.union_set(a, next[static_cast<std::size_t>(a)]);
  std::vector<int> piece_of(static_cast<std::size_t>(m), -1), head, lowest;
  for (int v = 0; v < m; ++v) {
    const auto root = static_cast<std::size_t>(sets.find_set(v));
    if (piece_of[root] < 0) {  // pieces numbered by their smallest node
      piece_of[root] = static_cast<int>(head.size());
      head.push_back(-1);
      lowest.push_back(v);
    }
    if (prev[static_cast<std::size_t>(v)] < 0) head[static_cast<std::size_t>(piece_of[root])] = v;
  }
  const int count = static_cast<int>(head.size());
  std::vector<int> heads;
  for (int c = 0; c < count; ++c) {
    int& h = head[static_cast<std::size_t>(c)];
    if (h < 0) {  // a cycle: sever the arc entering its smallest node
      h = lowest[static_cast<std::size_t>(c)];
      next[static_cast<std::size_t>(prev[static_cast<std::size_t>(h)])] = -1;
      prev[static_cast<std::size_t>(h)] = -1;
    }
    heads.push_back(h);
  }
  std::sort(heads.begin(), heads.end());
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(m));
  for (int h : heads)
    for (int v = h; v >= 0; v = next[static_cast<std::size_t>(v)]) order.push_back(v);
  std::vector<std::pair<int, int>> ring;
  ring.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    ring.emplace_back(members[static_cast<std::size_t>(order[i])],
                      members[static_cast<std::size_t>(order[(i + 1) % order.size()])]);
  return ring;
}

}  // namespace odcn::sched
