// The collective benchmark's runs go through the engine's ordinary path (engine::run, the executor every policy
// uses): the steps become one job's transfer tasks, a barrier between steps, on a net::Network of the kind asked.
#include "engine/collective_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "engine/simulation.hpp"
#include "graph/task_graph.hpp"
#include "net/network.hpp"
#include "policy/graph_static.hpp"

namespace odcn::engine {

namespace {

/// The steps as one job: step k's flows are transfer tasks that depend on the barrier closing step k - 1. A
/// to_hub step's flow from rank i goes to endpoint n + i, a sink of its own.
workload::JobGraph steps_as_graph(const std::vector<workload::EngineStep>& steps, int n, std::size_t& transfers) {
  using workload::Task;
  using workload::TaskKind;
  workload::JobGraph g;
  g.name = "collective";
  const bool sinks = std::any_of(steps.begin(), steps.end(), [](const auto& s) { return s.to_hub; });
  g.ranks = sinks ? 2 * n : n;
  int barrier = -1;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    std::vector<int> step_tasks;
    for (const auto& f : steps[k].flows) {
      std::vector<int> deps;
      if (barrier >= 0) deps = {barrier};
      step_tasks.push_back(static_cast<int>(g.tasks.size()));
      g.tasks.push_back(workload::transfer_task(fmt::format("s{}-{}", k, g.tasks.size()), f.src,
                                                steps[k].to_hub ? n + f.src : f.dst, f.bytes, std::move(deps)));
      ++transfers;
    }
    Task b;
    b.name = fmt::format("end-of-step-{}", k);
    b.kind = TaskKind::barrier;
    b.deps = step_tasks.empty() && barrier >= 0 ? std::vector<int>{barrier} : step_tasks;
    barrier = static_cast<int>(g.tasks.size());
    g.tasks.push_back(std::move(b));
  }
  return g;
}

CollectiveRun run_graph(const net::Network& network, const net::CircuitConfig& config, const workload::JobGraph& g,
                        std::size_t transfers) {
  std::vector<int> endpoints(static_cast<std::size_t>(g.ranks));
  for (int i = 0; i < g.ranks; ++i) endpoints[static_cast<std::size_t>(i)] = i;
  sched::GraphStaticController controller(config);
  const auto rec = engine::run(network, {{0, g.name, &g, endpoints, {}, {}}}, controller);
  return {rec.iterations.empty() ? 0.0 : rec.iterations.front().end_s, transfers};
}

/// Raises ConfigError unless every flow of `steps` goes from a rank to the next one (a ring of circuits).
void check_ring_flows(const std::vector<workload::RankFlow>& flows, int n) {
  for (const auto& f : flows)
    if (f.dst != (f.src + 1) % n)
      throw ConfigError(fmt::format("flat_ocs ring: a flow from server {} to {} has no circuit (only ring "
                                    "neighbours are joined)", f.src, f.dst));
}

/// n servers whose only candidate circuits join each to the next, `circuits_per_edge` full-duplex circuits of
/// `port` lit on each (`config`).
net::Network ring_of_circuits(int n, BytesPerSecond port, int circuits_per_edge, net::CircuitConfig& config) {
  net::Network ring;
  ring.kind = "flat_ocs";
  ring.endpoint_word = "server";
  ring.endpoints = n;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    if (n == 2 && i == 1) break;  // two servers: one pair
    ring.pairs.emplace_back(std::min(i, j), std::max(i, j));
    ring.pair_switch.push_back(0);
  }
  ring.pair_index_of = [n](int a, int b) {
    if (a > b) std::swap(a, b);
    if (b == a + 1) return a;
    if (a == 0 && b == n - 1 && n > 2) return n - 1;
    return -1;
  };
  ring.circuit_bytes_per_s = port;
  ring.pair_max_bytes_per_s = circuits_per_edge * port;
  ring.full_duplex = true;
  config = ring.empty_config();
  for (auto& l : config.circuits) l = circuits_per_edge;
  return ring;
}

}  // namespace

CollectiveRun run_collective_electrical(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond nic) {
  std::size_t transfers = 0;
  const workload::JobGraph g = steps_as_graph(steps, n, transfers);
  const net::Network network = net::one_switch(g.ranks, nic);
  return run_graph(network, network.empty_config(), g, transfers);
}

CollectiveRun run_collective_flat_ring(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond port,
                                       int circuits_per_edge) {
  for (const auto& step : steps) {
    if (step.to_hub) throw ConfigError("flat_ocs ring: this collective needs a hub (all-to-all); use electrical");
    check_ring_flows(step.flows, n);
  }
  net::CircuitConfig config;
  const net::Network ring = ring_of_circuits(n, port, circuits_per_edge, config);
  std::size_t transfers = 0;
  const workload::JobGraph g = steps_as_graph(steps, n, transfers);
  return run_graph(ring, config, g, transfers);
}

CollectiveRun run_collective_task(const CollectiveSpec& c, BytesPerSecond port, int circuits_per_edge) {
  const auto lowered = workload::lower_collective(c.op, c.algorithm, c.n, c.bytes, c.root);
  std::size_t transfers = 0;
  for (const auto& step : lowered.steps) transfers += step.size();
  workload::JobGraph g;
  g.name = "collective";
  g.ranks = c.n;
  workload::Task t;
  t.name = "collective";
  t.kind = workload::TaskKind::collective;
  t.op = c.op;
  t.algorithm = c.algorithm;
  t.bytes = c.bytes;
  t.root = c.root;
  for (int i = 0; i < c.n; ++i) t.group.push_back(i);
  g.tasks = {t};
  if (circuits_per_edge <= 0) {
    const net::Network network = net::one_switch(c.n, port);
    return run_graph(network, network.empty_config(), g, transfers);
  }
  for (const auto& step : lowered.steps) check_ring_flows(step, c.n);
  net::CircuitConfig config;
  const net::Network ring = ring_of_circuits(c.n, port, circuits_per_edge, config);
  return run_graph(ring, config, g, transfers);
}

}  // namespace odcn::engine
