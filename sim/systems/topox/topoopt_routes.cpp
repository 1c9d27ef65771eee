// Routes on a TopoOpt topology: circuits between servers, ECMP-like multi-hop forwarding, and the diameter.
#include "systems/topox/topoopt.hpp"

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "spec/fabric_kinds.hpp"

#include "systems/topox/topoopt_internal.hpp"

namespace odcn::sched {

using topoopt_internal::kWho;

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

Graph graph_of(const TopoOptTopology& t) {
  const int n = t.servers();
  Graph g(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a)
    for (int b : t.neighbours[static_cast<std::size_t>(a)])
      if (a < b) boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), g);
  return g;
}

/// Hop counts from `src` to every server (Boost.Graph's breadth-first search); -1 where unreachable.
std::vector<int> hops_from(const Graph& g, int src) {
  std::vector<int> dist(boost::num_vertices(g), -1);
  dist[static_cast<std::size_t>(src)] = 0;
  boost::breadth_first_search(
      g, static_cast<std::size_t>(src),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  return dist;
}

void check_server(const TopoOptTopology& t, int s) {
  if (s < 0 || s >= t.servers())
    throw ConfigError(fmt::format("{}: server {} does not exist ({} servers)", kWho, s, t.servers()));
}

}  // namespace

int TopoOptTopology::circuits_between(int a, int b) const {
  check_server(*this, a);
  check_server(*this, b);
  const auto& near = neighbours[static_cast<std::size_t>(a)];
  const auto [lo, hi] = std::equal_range(near.begin(), near.end(), b);
  return static_cast<int>(hi - lo);
}

std::vector<int> TopoOptTopology::route(int src, int dst) const {
  check_server(*this, src);
  check_server(*this, dst);
  if (src == dst) return {src};
  const auto to_dst = hops_from(graph_of(*this), dst);
  if (to_dst[static_cast<std::size_t>(src)] < 0) return {};
  // One hash per flow, as ECMP hashes a flow's addresses; the same at every hop, so a flow keeps one path.
  const auto hash = static_cast<std::size_t>(src) * static_cast<std::size_t>(servers()) + static_cast<std::size_t>(dst);
  std::vector<int> path{src};
  for (int at = src; at != dst;) {
    std::vector<int> closer;  // distinct, ascending: neighbours are sorted
    for (int v : neighbours[static_cast<std::size_t>(at)])
      if (to_dst[static_cast<std::size_t>(v)] == to_dst[static_cast<std::size_t>(at)] - 1 &&
          (closer.empty() || closer.back() != v))
        closer.push_back(v);
    at = closer[hash % closer.size()];
    path.push_back(at);
  }
  return path;
}

int TopoOptTopology::diameter() const {
  const auto g = graph_of(*this);
  int longest = 0;
  for (int s = 0; s < servers(); ++s)
    for (int h : hops_from(g, s)) {
      if (h < 0) return -1;
      longest = std::max(longest, h);
    }
  return longest;
}

}  // namespace odcn::sched
