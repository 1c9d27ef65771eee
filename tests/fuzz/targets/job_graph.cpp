// Fuzz target `job_graph`: odcnsim's job-graph JSON format (workload::parse_job_graph). A graph that reads must
// be written back by job_graph_json to a text that reads back the same (fuzz_graph.hpp), and its topological
// order and critical path must be computable.
#include <cmath>

#include "fuzz_common.hpp"
#include "fuzz_graph.hpp"

ODCN_FUZZ_TARGET(job_graph) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::workload;
  odcn_fuzz::expect_input_error([&] {
    const JobGraph g = parse_job_graph(text, "graph.json");
    odcn_fuzz::reads_back(g, "job_graph");
    if (topological_order(g).size() != g.tasks.size()) odcn_fuzz::broken("topological order misses tasks", g.name);
    const CriticalPath cp = critical_path(g, [](const Task& t) { return t.kind == TaskKind::compute ? t.duration_s : 1.0; });
    if (!std::isfinite(cp.length_s) || cp.length_s < 0) odcn_fuzz::broken("critical path not finite", g.name);
  });
  return 0;
}
