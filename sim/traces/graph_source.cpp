#include "traces/graph_source.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "spec/yaml_reader.hpp"
#include "traces/chakra.hpp"
#include "graph/job_graph_file.hpp"
#include "traces/kineto.hpp"

namespace odcn::workload {

JobGraph load_graph_source(const spec::GraphJobSpec& j, const std::string& workload_file) {
  switch (j.format) {
    case spec::GraphFormat::kineto: {
      KinetoOptions o;
      o.step = j.step;
      o.replicate = j.replicate;
      if (!j.streams.empty() && !parse_kineto_streams(j.streams, o.streams))
        throw InputError(workload_file, j.field + ".streams", "must be serial or concurrent");
      return import_kineto(j.files, o);
    }
    case spec::GraphFormat::chakra: {
      ChakraOptions o;
      o.groups_file = j.groups;
      o.ranks = j.ranks;
      if (!j.ctrl_deps.empty() && !parse_chakra_ctrl_deps(j.ctrl_deps, o.ctrl_deps))
        throw InputError(workload_file, j.field + ".ctrl_deps", "must be order or caller");
      if (!j.compute.empty() && !parse_chakra_compute(j.compute, o.compute))
        throw InputError(workload_file, j.field + ".compute", "must be serial or overlap");
      if (!j.algorithm.empty() && !parse_collective_algorithm(j.algorithm, o.algorithm))
        throw InputError(workload_file, j.field + ".algorithm", "must be ring or direct");
      return import_chakra(j.files, o);
    }
    case spec::GraphFormat::job_graph:
      break;
  }
  const std::string text = spec::read_input_file(j.file);
  try {
    return parse_job_graph(text, j.file);
  } catch (const InputError& e) {
    // A trace given where a job-graph file is expected: say which format it looks like.
    const bool gzip = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1F &&
                      static_cast<unsigned char>(text[1]) == 0x8B;
    const bool kineto = gzip || text.find("\"traceEvents\"") != std::string::npos;
    const bool chakra = j.file.size() > 3 && j.file.compare(j.file.size() - 3, 3, ".et") == 0;
    if (!kineto && !chakra) throw;
    throw InputError(e.file(), e.field(),
                     fmt::format("{} (this looks like a {} trace: add format: {} to {})", e.reason(),
                                 kineto ? "Kineto" : "Chakra", kineto ? "kineto" : "chakra", j.field));
  }
}

}  // namespace odcn::workload
