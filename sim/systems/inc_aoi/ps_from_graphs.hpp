#pragma once
// INC-AOI's policies on a workload of job graphs (Xie, Tang, Chen, Zhu, "Accelerating DML Training in OCS-based
// DCNs"): a job graph that is a parameter-server iteration (every worker computes, then pushes S to a root, then
// pulls S back) becomes the INC-AOI job it describes, arriving at its arrival_s, so that job-graph jobs arriving
// over time run on the INC-AOI racks under the slotted scheduler. Anything else is refused in one line that names
// the task that does not fit: the scheduler's admission, INC and circuits are defined for that shape only.
//
// Placement: a job graph's endpoints on a clos_ocs platform are racks (pods); the ranks on one rack take that
// rack's servers in order, after the servers the workload's earlier jobs took there (docs/policies.md). The root
// of the push is the parameter server (rank 0 of the INC-AOI job). Pure: no SimGrid.
#include <string>
#include <vector>

#include "graph/task_graph.hpp"
#include "spec/platform_spec.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

namespace odcn::workload {

/// One job graph with where its ranks run and where the workload names it.
struct PlacedGraph {
  const JobGraph* graph = nullptr;
  std::vector<int> racks;  ///< of each rank
  std::string field;       ///< "job_graphs[i]"
};

/// The INC-AOI jobs the graphs describe, with job ids 0, 1, ... in order. Raises InputError(file, field...) for a
/// graph that is not a parameter-server iteration, or for a rack without enough free servers.
std::vector<PsJob> ps_jobs_from_graphs(const std::vector<PlacedGraph>& graphs, const spec::PlatformSpec& platform,
                                       const std::string& file);

}  // namespace odcn::workload
