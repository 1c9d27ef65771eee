#pragma once
// A workload of job graphs (docs/job-graph.md): jobs that odcnsim's own JSON files describe, placed rank by rank
// on the platform's endpoints (clos_ocs: pods; flat_ocs: servers; photonic_rail and per-rail electrical: GPUs;
// electrical: servers). Such a workload runs on every platform kind.
//
//   job_graphs:
//     - file: ../docs/examples/job-graph-dp4.json   # relative to this workload file
//       endpoints: [0, 1, 2, 3]                      # rank r runs on endpoint endpoints[r]
//       name: dp-a                                   # optional: overrides the file's name
//       iterations: 5                                # optional: overrides the file's
//       arrival_s: 0.5                               # optional: overrides the file's
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/units.hpp"

namespace odcn::spec {

struct GraphJobSpec {
  std::string file;   ///< as resolved (relative to the workload file's folder)
  std::string field;  ///< "job_graphs[i]"
  std::vector<int> endpoints;
  std::optional<std::string> name;
  std::optional<int> iterations;
  std::optional<Seconds> arrival_s;
};

struct GraphWorkloadSpec {
  std::string file;
  std::string hash;
  std::vector<GraphJobSpec> jobs;
};

/// Whether a parsed workload document lists job graphs (and so is read by parse_graph_workload).
bool is_graph_workload(const YAML::Node& doc);
GraphWorkloadSpec parse_graph_workload(const YAML::Node& doc, const std::string& path, const std::string& hash);

}  // namespace odcn::spec
