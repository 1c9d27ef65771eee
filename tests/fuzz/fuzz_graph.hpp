#pragma once
// A contract the targets that make job graphs share (tests/fuzz/README.md): a graph odcnsim made or accepted is
// one that its own job-graph format writes and reads back.
#include <string>

#include "fuzz_common.hpp"
#include "graph/job_graph_file.hpp"
#include "graph/task_graph.hpp"

namespace odcn_fuzz {

/// job_graph_json(g) reads back with parse_job_graph, and writing what was read gives the same text. Returns
/// the text. Refusing it, or a different text, is a finding.
inline std::string reads_back(const odcn::workload::JobGraph& g, const char* what) {
  std::string text;
  try {
    text = odcn::workload::job_graph_json(g);
  } catch (const odcn::InputError& e) {
    broken((std::string(what) + ": job_graph_json refuses the graph").c_str(), e.what());
  }
  try {
    const std::string again = odcn::workload::job_graph_json(odcn::workload::parse_job_graph(text, "written.json"));
    if (again != text) broken((std::string(what) + ": the job-graph file does not read back the same").c_str(), g.name);
  } catch (const odcn::InputError& e) {
    broken((std::string(what) + ": the job-graph file does not read back").c_str(), e.what());
  }
  return text;
}

}  // namespace odcn_fuzz
