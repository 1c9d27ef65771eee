#include "spec/graph_workload.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

bool is_graph_workload(const YAML::Node& doc) { return doc.IsMap() && doc["job_graphs"]; }

GraphWorkloadSpec parse_graph_workload(const YAML::Node& doc, const std::string& path, const std::string& hash) {
  GraphWorkloadSpec w;
  w.file = path;
  w.hash = hash;
  const YamlMap root(doc, path, "");
  root.allow_only({"name", "job_graphs"});
  const YAML::Node list = root.node("job_graphs");
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(path, "job_graphs", "must be a non-empty list of {file, endpoints}");
  if (list.size() > static_cast<std::size_t>(limits::kMaxJobs))
    throw InputError(path, "job_graphs", fmt::format("at most {} jobs", limits::kMaxJobs));
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  for (std::size_t i = 0; i < list.size(); ++i) {
    GraphJobSpec j;
    j.field = fmt::format("job_graphs[{}]", i);
    const YamlMap m(list[i], path, j.field);
    m.allow_only({"file", "endpoints", "name", "iterations", "arrival_s"});
    const std::string file = m.text("file");
    j.file = std::filesystem::path(file).is_absolute() ? file : (base / file).string();
    const YAML::Node eps = m.node("endpoints");
    if (!eps.IsSequence() || eps.size() == 0)
      throw InputError(path, j.field + ".endpoints", "must be a non-empty list of endpoint indices");
    for (std::size_t r = 0; r < eps.size(); ++r)
      j.endpoints.push_back(static_cast<int>(
          as_integer(eps[r], path, fmt::format("{}.endpoints[{}]", j.field, r), 0, limits::kMaxEndpoints - 1)));
    if (m.has("name")) j.name = checked_name(m.text("name"), path, j.field + ".name");
    if (m.has("iterations")) j.iterations = static_cast<int>(m.integer("iterations", 1, limits::kMaxIterations));
    if (m.has("arrival_s")) j.arrival_s = m.real("arrival_s", 0, limits::kMaxSeconds);
    w.jobs.push_back(std::move(j));
  }
  return w;
}

}  // namespace odcn::spec
