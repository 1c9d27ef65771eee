#include "policy/graph_static.hpp"

#include <cstdint>
#include <unordered_map>

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>

#include <cmath>
#include <queue>
#include <tuple>

#include "core/error.hpp"
#include "graph/collective.hpp"

namespace odcn::sched {

using workload::TaskKind;

std::map<int, Bytes> circuit_demand(const net::Network& network, const std::vector<GraphJob>& jobs,
                                    const std::string& file) {
  std::unordered_map<int, Bytes> demand;  // summed in the flows' order, as a std::map would be
  std::unordered_map<std::uint64_t, int> pair_of;  // (a, b) -> the pair its path crosses, or -1
  for (const auto& job : jobs) {
    const auto& g = *job.graph;
    for (const auto& task : g.tasks)
      for_each_endpoint_flow(network, task, job.endpoints, [&](int a, int b, Bytes bytes) {
        const auto key =
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
        auto it = pair_of.find(key);
        if (it == pair_of.end()) {
          net::Path path = net::Path::none;
          try {
            path = network.path(a, b);
          } catch (const ConfigError& e) {
            throw InputError(file, job.field, fmt::format("task '{}' of job '{}': {}", task.name, job.name, e.what()));
          }
          it = pair_of.emplace(key, network.crossed_pair(a, b, path)).first;
        }
        if (it->second >= 0) demand[it->second] += bytes;
      });
  }
  return {demand.begin(), demand.end()};
}

namespace {

/// Port book-keeping of one platform kind: whether a pair can take one more circuit, and taking it.
class Ports {
 public:
  Ports(const spec::AnyPlatform& p, const net::Network& n) : p_(p), n_(n) {
    used_.assign(static_cast<std::size_t>(n.endpoints), 0);
    switch_used_.assign(static_cast<std::size_t>(switches()), 0);
  }
  /// Takes one more circuit on `pair`; false (and nothing changes) when a limit forbids it.
  bool take(int pair) {
    const auto [a, b] = n_.pairs[static_cast<std::size_t>(pair)];
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (p_.clos) {
      const auto g = static_cast<std::size_t>(n_.pair_switch[static_cast<std::size_t>(pair)]);
      if (used_[ua] >= p_.clos->ports_per_pod || used_[ub] >= p_.clos->ports_per_pod ||
          switch_used_[g] + 2 > p_.clos->ports_per_oxc)
        return false;
      ++used_[ua], ++used_[ub], switch_used_[g] += 2;
      return true;
    }
    if (p_.rail) {
      const auto g = static_cast<std::size_t>(n_.pair_switch[static_cast<std::size_t>(pair)]);
      if (used_[ua] >= p_.rail->nic_ports || used_[ub] >= p_.rail->nic_ports || switch_used_[g] + 2 > p_.rail->ocs.radix)
        return false;
      ++used_[ua], ++used_[ub], switch_used_[g] += 2;
      return true;
    }
    return false;  // electrical: no circuits
  }

 private:
  int switches() const {
    if (p_.clos) return p_.clos->oxcs;
    if (p_.rail) return p_.rail->gpus_per_domain;
    return 0;
  }
  const spec::AnyPlatform& p_;
  const net::Network& n_;
  std::vector<int> used_;
  std::vector<int> switch_used_;
};

}  // namespace

/// flat_ocs: the circuits of each OCS form a matching of servers (one port per server on each OCS, Eq. 7-10).
/// OCS by OCS: a maximum cardinality matching (Boost.Graph's Edmonds) among the pairs still without a circuit,
/// so that the first OCSes cover as many communicating pairs as matchings can; then, on that OCS's free ports,
/// the pairs with the most bytes per circuit after this one, greedily. (Boost 1.74's maximum_weighted_matching,
/// Debian 12's, is not used: it can return wrong matchings, crash or loop, boostorg/graph#399, #199, #223.)
GraphStaticPlan plan_flat_matchings(const spec::FlatOcsSpec& flat, const net::Network& network,
                                    const std::map<int, Bytes>& demand) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  GraphStaticPlan plan;
  plan.config = network.empty_config();
  const auto n = static_cast<std::size_t>(network.endpoints);
  for (int r = 0; r < flat.ocs_count; ++r) {
    std::vector<char> busy(n, 0);
    int ports = flat.ocs_ports;
    const auto take = [&](int pair) {
      const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
      busy[static_cast<std::size_t>(a)] = busy[static_cast<std::size_t>(b)] = 1;
      ports -= 2;
      ++plan.config.circuits[static_cast<std::size_t>(pair)];
      plan.ports.push_back({r, a, b});
    };
    Graph uncovered(n);
    for (const auto& [pair, bytes] : demand)
      if (plan.config.circuits[static_cast<std::size_t>(pair)] == 0) {
        const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
        boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b), uncovered);
      }
    if (boost::num_edges(uncovered) > 0) {
      std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(n);
      boost::edmonds_maximum_cardinality_matching(uncovered, mate.data());
      for (std::size_t a = 0; a < n; ++a) {
        const auto b = mate[a];
        if (b != boost::graph_traits<Graph>::null_vertex() && b > a && ports >= 2)
          take(network.pair_index(static_cast<int>(a), static_cast<int>(b)));
      }
    }
    // Spare ports of this OCS: bytes per circuit after this one, largest first (ties: lower pair).
    std::vector<std::pair<double, int>> order;
    for (const auto& [pair, bytes] : demand)
      order.emplace_back(bytes / (plan.config.circuits[static_cast<std::size_t>(pair)] + 1), pair);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [share, pair] : order) {
      const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
      if (ports >= 2 && !busy[static_cast<std::size_t>(a)] && !busy[static_cast<std::size_t>(b)]) take(pair);
    }
  }
  for (const auto& [pair, bytes] : demand)
    if (plan.config.circuits[static_cast<std::size_t>(pair)] == 0) {
      const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
      throw ConfigError(fmt::format("policy static gives every communicating pair one circuit, but servers {} and {} "
                                    "find none on the {} OCSes (a server has one port on each: too many peers for "
                                    "the ports; place the ranks closer, or use a fabric with more ports)",
                                    a, b, flat.ocs_count));
    }
  net::check_flat_ocs(flat, plan.ports);
  network.check(plan.config);
  return plan;
}

GraphStaticPlan plan_graph_static(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::map<int, Bytes>& demand) {
  if (platform.flat) return plan_flat_matchings(*platform.flat, network, demand);
  GraphStaticPlan plan;
  plan.config = network.empty_config();
  Ports ports(platform, network);
  // First circuits, by descending bytes (ties: lower pair index).
  std::vector<std::pair<Bytes, int>> order;
  for (const auto& [pair, bytes] : demand) order.emplace_back(bytes, pair);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [bytes, pair] : order) {
    if (!ports.take(pair)) {
      const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
      throw ConfigError(fmt::format("policy static gives every communicating pair one circuit, but {} {} and {} {} "
                                    "find no free port for theirs (too many peers for the ports: place the ranks "
                                    "closer, or use a fabric with more ports)",
                                    network.endpoint_word, a, network.endpoint_word, b));
    }
    plan.config.circuits[static_cast<std::size_t>(pair)] = 1;
  }
  // Spare ports: one circuit at a time to the pair with the most bytes per circuit.
  // (bytes per circuit, -pair, bytes): the largest first, then the lowest pair (pairs are unique: bytes never decides)
  using Entry = std::tuple<double, int, Bytes>;
  std::priority_queue<Entry> heap;
  for (const auto& [pair, bytes] : demand) heap.emplace(bytes, -pair, bytes);
  while (!heap.empty()) {
    const auto [per_circuit, minus_pair, bytes] = heap.top();
    const int pair = -minus_pair;
    heap.pop();
    if (!ports.take(pair)) continue;  // full: never again
    auto& l = plan.config.circuits[static_cast<std::size_t>(pair)];
    ++l;
    heap.emplace(bytes / l, -pair, bytes);
  }
  network.check(plan.config);
  return plan;
}

}  // namespace odcn::sched
