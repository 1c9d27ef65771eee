#pragma once
// Policy `static` for workloads of job graphs, on every platform kind: one circuit configuration for the whole
// run, chosen from the traffic of the jobs' transfers and collectives (lowered by the algorithm library), and
// every task starts as soon as its inputs are done. The choice is greedy: endpoint pairs by descending bytes
// each get one circuit first (a transfer needs one: odcnsim does not forward through other endpoints), then
// spare ports go, one circuit at a time, to the pair with the most bytes per circuit. Port limits are those of
// the kind: a pod's OCS ports and its OXC's radix (clos_ocs); a GPU's NIC ports on its rail's OCS and that
// OCS's radix (photonic_rail). On flat_ocs, where each server has one port on each OCS (Eq. 7-10), each OCS's
// circuits form a matching, chosen OCS by OCS: a maximum cardinality matching (Boost.Graph) of the pairs still
// without a circuit, then the pairs with the most bytes per circuit on the free ports. Electrical fabrics
// need no circuits.
#include <map>
#include <string>
#include <vector>

#include "net/network.hpp"
#include "policy/controller.hpp"
#include "spec/fabric_kinds.hpp"
#include "graph/collective.hpp"
#include "graph/task_graph.hpp"

namespace odcn::sched {

struct GraphJob {
  std::string name;
  const workload::JobGraph* graph = nullptr;
  std::vector<int> endpoints;  ///< of each rank
  std::string field;           ///< where the workload names it, for errors ("job_graphs[3]")
};

/// Calls visit(src, dst, bytes) for each of a task's flows between endpoints, as the engine lowers it, in order: a
/// transfer's one flow; a collective of two or more ranks lowered step by step (rings counter-rotating where
/// network.counter_rotates says so); none for any other task. `endpoint_of_rank` maps the job's ranks to
/// endpoints. (A ring all-reduce over 1,024 ranks has 2 million flows: they are visited, not collected.)
template <class Visit>
void for_each_endpoint_flow(const net::Network& network, const workload::Task& task,
                            const std::vector<int>& endpoint_of_rank, Visit&& visit) {
  const auto endpoint = [&](int rank) { return endpoint_of_rank[static_cast<std::size_t>(rank)]; };
  if (task.kind == workload::TaskKind::transfer) {
    visit(endpoint(task.src), endpoint(task.dst), task.bytes);
  } else if (task.kind == workload::TaskKind::collective && task.group.size() >= 2) {
    const auto at = [&](int i) { return endpoint(task.group[static_cast<std::size_t>(i)]); };
    for (const auto& run : workload::lower_collective_runs(task.op, task.algorithm, static_cast<int>(task.group.size()),
                                                           task.bytes, task.root,
                                                           network.counter_rotates(task.group, endpoint)))
      for (int k = 0; k < run.times; ++k)
        for (const auto& f : run.flows) visit(at(f.src), at(f.dst), f.bytes);
  }
}

/// Bytes per iteration on each candidate circuit pair (by pair index) that the jobs' transfers cross. Raises
/// InputError(file, job field, ...) naming the first task whose bytes have no path on this network.
std::map<int, Bytes> circuit_demand(const net::Network& network, const std::vector<GraphJob>& jobs,
                                    const std::string& file);

struct GraphStaticPlan {
  net::CircuitConfig config;
  std::vector<net::PortCircuit> ports;  ///< flat_ocs: where each circuit is (OCS, servers)
};

/// The greedy configuration above; raises ConfigError when a pair with demand cannot get its first circuit.
GraphStaticPlan plan_graph_static(const spec::AnyPlatform& platform, const net::Network& network,
                                  const std::map<int, Bytes>& demand);

/// Lights the plan at time 0 and lets every task start when it is ready.
class GraphStaticController : public Controller {
 public:
  explicit GraphStaticController(net::CircuitConfig config) : config_(std::move(config)) {}
  net::CircuitConfig initial_circuits() const override { return config_; }
  bool fixed_circuits() const override { return true; }

 private:
  net::CircuitConfig config_;
};

}  // namespace odcn::sched
