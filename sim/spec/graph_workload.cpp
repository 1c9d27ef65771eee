#include "spec/graph_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "spec/keys.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

const char* to_string(GraphFormat f) {
  switch (f) {
    case GraphFormat::kineto: return "kineto";
    case GraphFormat::chakra: return "chakra";
    case GraphFormat::job_graph: break;
  }
  return "job-graph";
}

const std::vector<ImporterOption>& importer_options() {
  static const std::vector<ImporterOption> options{
      {"step", GraphFormat::kineto, {}, ""},
      {"replicate", GraphFormat::kineto, {}, ""},
      {"streams", GraphFormat::kineto, {"serial", "concurrent"}, "concurrent"},
      {"groups", GraphFormat::chakra, {}, ""},
      {"ctrl_deps", GraphFormat::chakra, {"order", "caller"}, "order"},
      {"ranks", GraphFormat::chakra, {}, ""},
      {"algorithm", GraphFormat::chakra, {"ring", "direct"}, "ring"},
      {"compute", GraphFormat::chakra, {"serial", "overlap"}, "serial"},
  };
  return options;
}

std::string importer_option_error(const ImporterOption& o, GraphFormat format, const std::string& value) {
  if (o.format != format)
    return fmt::format("is an option of format {} (this entry's format is {})", to_string(o.format), to_string(format));
  if (o.words.empty() || std::find(o.words.begin(), o.words.end(), value) != o.words.end()) return "";
  return fmt::format("must be {} or {} (got '{}'; docs/traces.md)", o.words[0], o.words[1], shown(value));
}

bool is_graph_workload(const YAML::Node& doc) { return doc.IsMap() && doc["job_graphs"]; }

bool is_job_graph_file(const YAML::Node& doc) {
  return doc.IsMap() && !doc["job_graphs"] && doc["tasks"] && doc["ranks"];
}

YAML::Node job_graph_file_as_workload(const YAML::Node& doc, const std::string& path, int& ranks) {
  ranks = static_cast<int>(as_integer(doc["ranks"], path, "ranks", 1, limits::kMaxEndpoints));
  YAML::Node job;
  job["file"] = std::filesystem::path(path).filename().string();  // resolved beside the workload: this file
  job["endpoints"]["start"] = 0;
  job["endpoints"]["count"] = ranks;
  YAML::Node workload;
  workload["job_graphs"].push_back(job);
  return workload;
}

std::string endpoint_field(const GraphJobSpec& j, std::size_t rank) {
  const int item = rank < j.endpoint_item.size() ? j.endpoint_item[rank] : static_cast<int>(rank);
  if (item < 0) return fmt::format("{}.endpoints (rank {})", j.field, rank);
  if (static_cast<std::size_t>(item) == rank) return fmt::format("{}.endpoints[{}]", j.field, item);
  return fmt::format("{}.endpoints[{}] (rank {})", j.field, item, rank);
}

std::vector<int> parse_endpoints(const YAML::Node& eps, const std::string& path, const std::string& field,
                                 std::vector<int>* item_of_rank) {
  const auto fail = [&](const std::string& where, const std::string& why) { throw InputError(path, where, why); };
  const std::int64_t top = limits::kMaxEndpoints - 1;
  std::vector<int> out;
  int current_item = -1;  // the list item being expanded (-1: a map or a single range)
  // first, first + stride, ... (count of them), each checked against the limits before any is added, and each
  // remembered as written by current_item.
  const auto add_item = [&](std::int64_t first, std::int64_t count, std::int64_t stride, const std::string& where) {
    if (static_cast<std::int64_t>(out.size()) + count > limits::kMaxEndpoints)
      fail(where, fmt::format("more than {} endpoints in all", limits::kMaxEndpoints));
    if (first + (count - 1) * stride > top)
      fail(where, fmt::format("reaches endpoint {}, above the largest, {}", first + (count - 1) * stride, top));
    for (std::int64_t k = 0; k < count; ++k) out.push_back(static_cast<int>(first + k * stride));
    if (item_of_rank) item_of_rank->resize(out.size(), current_item);
  };
  // "A-B": A, A + 1, ..., B; a plain number: itself.
  const auto item = [&](const YAML::Node& n, const std::string& where) {
    const std::string text = n.IsScalar() ? n.Scalar() : std::string();
    const auto dash = text.find('-', 1);
    if (dash == std::string::npos) return add_item(as_integer(n, path, where, 0, top), 1, 1, where);
    YAML::Node a(text.substr(0, dash)), b(text.substr(dash + 1));
    const std::int64_t first = as_integer(a, path, where, 0, top), last = as_integer(b, path, where, 0, top);
    if (last < first) fail(where, fmt::format("the range {} runs backwards", shown(text)));
    add_item(first, last - first + 1, 1, where);
  };
  if (eps.IsMap()) {
    const YamlMap m(eps, path, field, &graph_workload_keys());
    m.allow_only();
    add_item(m.integer("start"), m.integer("count"), m.integer_or("stride"), field);
  } else if (eps.IsSequence() && eps.size() > 0) {
    for (std::size_t r = 0; r < eps.size(); ++r) {
      current_item = static_cast<int>(r);
      item(eps[r], fmt::format("{}[{}]", field, r));
    }
  } else if (eps.IsScalar()) {
    item(eps, field);
  } else {
    fail(field, "must be a non-empty list of endpoint indices or ranges (\"0-15\"), or {start, count, stride}");
  }
  return out;
}

GraphWorkloadSpec parse_graph_workload(const YAML::Node& doc, const std::string& path, const std::string& hash) {
  GraphWorkloadSpec w;
  w.file = path;
  w.hash = hash;
  const YamlMap root(doc, path, "", &graph_workload_keys());
  root.allow_only();
  const YAML::Node list = root.node("job_graphs");
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(path, "job_graphs", "must be a non-empty list of {file, endpoints}");
  if (list.size() > static_cast<std::size_t>(limits::kMaxJobs))
    throw InputError(path, "job_graphs", fmt::format("at most {} jobs", limits::kMaxJobs));
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  const auto resolved = [&](const std::string& file) {
    return std::filesystem::path(file).is_absolute() ? file : (base / file).string();
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    GraphJobSpec j;
    j.field = fmt::format("job_graphs[{}]", i);
    const YamlMap m = root.element(list[i], j.field);
    m.allow_only();
    const std::string format = m.word_or("format", "format");
    if (format == "kineto") j.format = GraphFormat::kineto;
    else if (format == "chakra") j.format = GraphFormat::chakra;
    const bool traces = j.format != GraphFormat::job_graph;
    for (const auto& o : importer_options())
      if (m.has(o.key)) {
        const std::string reason = importer_option_error(o, j.format, o.words.empty() ? "" : m.text(o.key));
        if (!reason.empty()) throw InputError(path, m.field(o.key), reason);
      }
    if (m.has("file") == m.has("files"))
      throw InputError(path, j.field,
                       traces ? "give the traces as files: [one per rank] (or one file:)" : "needs file: (a job-graph file)");
    if (m.has("files")) {
      if (!traces)
        throw InputError(path, m.field("files"),
                         "a job-graph file holds every rank: give it as file: (files: lists one trace per rank, with "
                         "format kineto or chakra)");
      const YAML::Node list_of_files = m.node("files");
      if (!list_of_files.IsSequence() || list_of_files.size() == 0)
        throw InputError(path, m.field("files"), "must be a non-empty list of trace files, one per rank");
      if (list_of_files.size() > static_cast<std::size_t>(limits::kMaxEndpoints))
        throw InputError(path, m.field("files"), fmt::format("at most {} files", limits::kMaxEndpoints));
      for (std::size_t k = 0; k < list_of_files.size(); ++k)
        j.files.push_back(resolved(as_text(list_of_files[k], path, fmt::format("{}.files[{}]", j.field, k))));
    } else {
      j.files.push_back(resolved(m.text("file")));
    }
    j.file = j.files.front();
    if (m.has("step")) j.step = static_cast<int>(m.integer("step"));
    if (m.has("replicate")) j.replicate = m.boolean("replicate");
    j.streams = m.word_or("streams");  // the importers' defaults (importer_options, held equal in a test)
    if (m.has("groups")) j.groups = resolved(m.text("groups"));
    j.ctrl_deps = m.word_or("ctrl_deps");
    j.compute = m.word_or("compute");
    j.algorithm = m.word_or("algorithm");
    if (m.has("ranks")) j.ranks = static_cast<int>(m.integer("ranks"));
    j.endpoints = parse_endpoints(m.node("endpoints"), path, j.field + ".endpoints", &j.endpoint_item);
    if (m.has("name")) j.name = checked_name(m.text("name"), path, j.field + ".name");
    if (m.has("iterations")) j.iterations = static_cast<int>(m.integer("iterations"));
    if (m.has("arrival_s")) j.arrival_s = m.real("arrival_s");
    w.jobs.push_back(std::move(j));
  }
  return w;
}

}  // namespace odcn::spec
