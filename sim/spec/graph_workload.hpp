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
//     - format: kineto                               # a profiled job (docs/traces.md): kineto or chakra
//       files: [trace/rank0.json.gz, trace/rank1.json.gz]   # one per rank
//       endpoints: [4, 5]
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/units.hpp"

namespace odcn::spec {

/// What a job_graphs entry's files are: odcnsim's own job-graph JSON, or per-rank traces that an importer turns
/// into a job graph (traces/graph_source.hpp).
enum class GraphFormat { job_graph, kineto, chakra };
const char* to_string(GraphFormat f);  ///< "job-graph", "kineto", "chakra"

struct GraphJobSpec {
  std::string field;  ///< "job_graphs[i]"
  GraphFormat format = GraphFormat::job_graph;
  std::string file;                ///< the first of `files` (job-graph: the only one)
  std::vector<std::string> files;  ///< as resolved (relative to the workload file's folder), one per rank for traces
  // Importer options (only for their format; docs/traces.md):
  std::optional<int> step;         ///< kineto: the ProfilerStep#N to import
  bool replicate = false;          ///< kineto: copy the first file's rank to the ranks without a file
  std::string streams;             ///< kineto: "serial" or "concurrent" ("" = concurrent)
  std::string groups;              ///< chakra: the process-group file (resolved), "" for none
  std::string ctrl_deps;           ///< chakra: "order" or "caller" ("" = order)
  int ranks = 0;                   ///< chakra: ranks of an SPMD job whose first files are given (0: one per file)
  std::string algorithm;           ///< chakra: the collectives' algorithm ("" = ring)
  std::string compute;             ///< chakra: "serial" or "overlap" ("" = serial)
  std::vector<int> endpoints;
  /// Where each rank's endpoint is written: the index of its item in the `endpoints` list (a range item covers
  /// several ranks), -1 for {start, count, stride} (endpoint_field says it in a message).
  std::vector<int> endpoint_item;
  std::optional<std::string> name;
  std::optional<int> iterations;
  std::optional<Seconds> arrival_s;
};

struct GraphWorkloadSpec {
  std::string file;
  std::string hash;
  std::vector<GraphJobSpec> jobs;
};

/// An importer option: its workload key (the `import` command's option is --key with '-' for '_'), the format
/// whose importer takes it, and the words it may be (empty: it is not a word).
struct ImporterOption {
  const char* key;
  GraphFormat format;
  std::vector<std::string> words;
  /// The word the importer takes when the option is absent (its options struct's default; a test holds them equal).
  std::string fallback;
};
/// step, replicate (kineto); groups, ctrl_deps, ranks, algorithm, compute (chakra).
const std::vector<ImporterOption>& importer_options();
/// Why importer option `o` given with `value` does not fit an entry of `format`: "" when it does (its format,
/// and for a word one of its words), else the reason, e.g. "must be order or caller (got 'x')".
std::string importer_option_error(const ImporterOption& o, GraphFormat format, const std::string& value);

/// Whether a parsed workload document lists job graphs (and so is read by parse_graph_workload).
bool is_graph_workload(const YAML::Node& doc);
GraphWorkloadSpec parse_graph_workload(const YAML::Node& doc, const std::string& path, const std::string& hash);
/// Whether a parsed document is a job-graph file itself (ranks and tasks at its top) rather than a workload.
bool is_job_graph_file(const YAML::Node& doc);
/// A job-graph file given where a workload is expected, as the workload of that one job with rank i on endpoint i
/// (`ranks` is set to its ranks). Raises InputError(path, "ranks", ...) when it has no valid rank count.
YAML::Node job_graph_file_as_workload(const YAML::Node& doc, const std::string& path, int& ranks);
/// A job's endpoints: a list of indices and ranges ("0-15": 0 to 15), one range, or {start, count, stride}
/// (stride 1 by default). Checked against the endpoint limits before it is expanded.
std::vector<int> parse_endpoints(const YAML::Node& endpoints, const std::string& path, const std::string& field,
                                 std::vector<int>* item_of_rank = nullptr);
/// The field and the words that name rank r's endpoint in a message: "job_graphs[0].endpoints[2]" for a plain list,
/// with " (rank 14)" after the field when the item is a range, or "job_graphs[0].endpoints (rank 14)" for a map.
std::string endpoint_field(const GraphJobSpec& j, std::size_t rank);

}  // namespace odcn::spec
