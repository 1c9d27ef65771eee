#pragma once
// A workload of job graphs read against a platform, as `run` and `validate` both need it: the graphs, their
// endpoints checked against the platform's, and the platform as the engine sees it (net::Network).
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph/task_graph.hpp"
#include "net/fabric.hpp"
#include "net/network.hpp"
#include "policy/graph_static.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/graph_workload.hpp"

namespace odcn::app {

struct GraphInputs {
  std::unique_ptr<net::Fabric> clos;  ///< network refers to it
  net::Network network;
  std::vector<workload::JobGraph> graphs;
  std::vector<sched::GraphJob> jobs;  ///< refer to graphs
};

/// The graphs with the workload's and --iterations' (when > 0) overrides. Raises InputError.
std::unique_ptr<GraphInputs> load_graph_inputs(const spec::AnyPlatform& platform, const spec::GraphWorkloadSpec& w,
                                               int iterations);
/// Policy static's circuits for the graphs: every pair their transfers cross needs a path, and a first circuit
/// where the path is one. Raises ConfigError.
sched::GraphStaticPlan plan_static_graphs(const spec::AnyPlatform& platform, const GraphInputs& in,
                                          const std::string& file);
/// Policy static's refusal, as `run` and `validate` both report it: on a flat OCS layer, a job that topox and
/// topoopt can run (one job of ring all-reduces) gets the hint.
InputError static_refusal(const spec::AnyPlatform& platform, const GraphInputs& in, const std::string& file,
                          const ConfigError& e);

}  // namespace odcn::app
