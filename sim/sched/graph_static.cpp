#include "sched/graph_static.hpp"

#include <fmt/format.h>

#include <queue>

#include "core/error.hpp"
#include "workload/collective.hpp"

namespace odcn::sched {

using workload::TaskKind;

std::map<int, Bytes> circuit_demand(const net::Network& network, const std::vector<GraphJob>& jobs,
                                    const std::string& file) {
  std::map<int, Bytes> demand;
  for (const auto& job : jobs) {
    const auto& g = *job.graph;
    const auto endpoint = [&](int rank) { return job.endpoints[static_cast<std::size_t>(rank)]; };
    for (std::size_t t = 0; t < g.tasks.size(); ++t) {
      const auto& task = g.tasks[t];
      std::vector<workload::RankFlow> flows;
      if (task.kind == TaskKind::transfer) {
        flows.push_back({task.src, task.dst, task.bytes});
      } else if (task.kind == TaskKind::collective && task.group.size() >= 2) {
        for (const auto& step : workload::lower_collective(task.op, task.algorithm, static_cast<int>(task.group.size()),
                                                           task.bytes, task.root)
                                    .steps)
          for (const auto& f : step)
            flows.push_back({task.group[static_cast<std::size_t>(f.src)], task.group[static_cast<std::size_t>(f.dst)], f.bytes});
      }
      for (const auto& f : flows) {
        const int a = endpoint(f.src), b = endpoint(f.dst);
        net::Path path = net::Path::none;
        try {
          path = network.path(a, b);
        } catch (const ConfigError& e) {
          throw InputError(file, job.field, fmt::format("task '{}' of job '{}': {}", task.name, job.name, e.what()));
        }
        if (path == net::Path::circuit) demand[network.pair_index(a, b)] += f.bytes;
      }
    }
  }
  return demand;
}

namespace {

/// Port book-keeping of one platform kind: whether a pair can take one more circuit, and taking it.
class Ports {
 public:
  Ports(const spec::AnyPlatform& p, const net::Network& n) : p_(p), n_(n) {
    used_.assign(static_cast<std::size_t>(n.endpoints), 0);
    if (p.flat) on_ocs_.assign(static_cast<std::size_t>(n.endpoints) * p.flat->ocs_count, 0);
    switch_used_.assign(static_cast<std::size_t>(switches()), 0);
  }
  /// Takes one more circuit on `pair`; false (and nothing changes) when a limit forbids it.
  bool take(int pair, std::vector<net::PortCircuit>& placed) {
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
    if (p_.flat) {
      const int k = p_.flat->ocs_count;
      for (int r = 0; r < k; ++r) {
        auto& fa = on_ocs_[ua * static_cast<std::size_t>(k) + static_cast<std::size_t>(r)];
        auto& fb = on_ocs_[ub * static_cast<std::size_t>(k) + static_cast<std::size_t>(r)];
        if (fa || fb || switch_used_[static_cast<std::size_t>(r)] + 2 > p_.flat->ocs_ports) continue;
        fa = fb = 1;
        switch_used_[static_cast<std::size_t>(r)] += 2;
        placed.push_back({r, a, b});
        return true;
      }
      return false;
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
    if (p_.flat) return p_.flat->ocs_count;
    if (p_.rail) return p_.rail->gpus_per_domain;
    return 0;
  }
  const spec::AnyPlatform& p_;
  const net::Network& n_;
  std::vector<int> used_;
  std::vector<char> on_ocs_;
  std::vector<int> switch_used_;
};

}  // namespace

GraphStaticPlan plan_graph_static(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::map<int, Bytes>& demand) {
  GraphStaticPlan plan;
  plan.config = network.empty_config();
  Ports ports(platform, network);
  // First circuits, by descending bytes (ties: lower pair index).
  std::vector<std::pair<Bytes, int>> order;
  for (const auto& [pair, bytes] : demand) order.emplace_back(bytes, pair);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [bytes, pair] : order) {
    if (!ports.take(pair, plan.ports)) {
      const auto [a, b] = network.pairs[static_cast<std::size_t>(pair)];
      throw ConfigError(fmt::format("policy static gives every communicating pair one circuit, but {} {} and {} {} "
                                    "find no free port for theirs (too many peers for the ports: place the ranks "
                                    "closer, or use a fabric with more ports)",
                                    network.endpoint_word, a, network.endpoint_word, b));
    }
    plan.config.circuits[static_cast<std::size_t>(pair)] = 1;
  }
  // Spare ports: one circuit at a time to the pair with the most bytes per circuit.
  using Entry = std::pair<double, int>;  // (bytes per circuit, -pair): the largest first, then the lowest pair
  std::priority_queue<Entry> heap;
  for (const auto& [pair, bytes] : demand) heap.emplace(bytes, -pair);
  while (!heap.empty()) {
    const int pair = -heap.top().second;
    heap.pop();
    if (!ports.take(pair, plan.ports)) continue;  // full: never again
    auto& l = plan.config.circuits[static_cast<std::size_t>(pair)];
    ++l;
    heap.emplace(demand.at(pair) / l, -pair);
  }
  network.check(plan.config);
  return plan;
}

}  // namespace odcn::sched
