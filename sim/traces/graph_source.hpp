#pragma once
// A job_graphs entry of a workload (spec/graph_workload.hpp) read as a job graph: odcnsim's own job-graph JSON
// (job_graph_file.hpp), or per-rank traces through their importer (kineto.hpp, chakra.hpp). The workload file's
// overrides (name, iterations, arrival_s) are applied by the caller.
#include "spec/graph_workload.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

/// Reads the entry's files. Raises InputError naming the file (and, for the importers' options, the workload
/// file `workload_file` and the entry's field).
JobGraph load_graph_source(const spec::GraphJobSpec& j, const std::string& workload_file);

}  // namespace odcn::workload
