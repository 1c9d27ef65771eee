// `odcnsim show`: the platform and the workload a run would use, every key resolved (the file's value, a --set,
// or the default) with its unit; and `--list-keys`, the key tables themselves (spec/keys.hpp), which are what
// the readers accept.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>

#include "app/commands.hpp"
#include "app/run_common.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/graph_workload.hpp"
#include "spec/keys.hpp"
#include "spec/overrides.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/tdm4/scenario.hpp"

namespace odcn::app {

namespace {

using spec::Key;
using spec::Schema;

/// A value as one line: a scalar as written, a list or a mapping in YAML's flow style.
std::string one_line(const YAML::Node& n) {
  if (n.IsScalar()) return escape_line(n.Scalar());
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << n;
  return escape_line(out.c_str());
}

/// Where a key's value comes from: a --set, the file, or (absent) the default.
std::string source_of(const std::string& field, const std::vector<spec::Override>& overrides, bool platform) {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
    if (it->platform == platform && spec::field_of(*it) == field) return "--set";
  return "file";
}

struct Row {
  std::string field, value, source;
};

/// The rows of the keys under `section` (a table path) of the document node `node` at field `at`.
void rows_of(const Schema& s, const YAML::Node& root, const YAML::Node& node, const std::string& section,
             const std::string& at, const std::vector<spec::Override>& overrides, bool platform,
             std::vector<Row>& rows) {
  for (const auto& name : s.children(section)) {
    const std::string path = section.empty() ? name : section + "." + name;
    const std::string field = at.empty() ? name : at + "." + name;
    const YAML::Node value = node.IsMap() ? node[name] : YAML::Node();
    if (const Key* k = s.find(path)) {
      if (value) {
        const bool number = value.IsScalar() && !k->unit.empty();
        rows.push_back({field, one_line(value) + (number ? " " + k->unit : ""), source_of(field, overrides, platform)});
      } else if (k->fallback.rfind("(or ", 0) != 0) {  // an alternative given instead is shown, not this one
        const std::string d = k->default_in(root);
        const bool rule = d.empty() || d[0] == '(';
        rows.push_back({field, rule ? (d.empty() ? "-" : d) : d + (k->unit.empty() ? "" : " " + k->unit), "default"});
      }
    } else if (s.children(path + "[]").size() && value && value.IsSequence()) {
      for (std::size_t i = 0; i < value.size(); ++i)
        rows_of(s, root, value[i], path + "[]", fmt::format("{}[{}]", field, i), overrides, platform, rows);
    } else if (value || s.defaulted(path)) {
      rows_of(s, root, value ? value : YAML::Node(YAML::NodeType::Map), path, field, overrides, platform, rows);
    }
  }
}

void print_document(const std::string& what, const std::string& file, const Schema& s, const YAML::Node& doc,
                    const std::vector<spec::Override>& overrides, bool platform) {
  std::vector<Row> rows;
  rows_of(s, doc, doc, "", "", overrides, platform, rows);
  std::size_t width = 0, value_width = 0;
  for (const auto& r : rows) {
    width = std::max(width, r.field.size());
    value_width = std::max(value_width, r.value.size());
  }
  std::cout << fmt::format("{} {} ({}: {})\n", what, escape_line(file), s.name(), s.title());
  for (const auto& r : rows)
    std::cout << fmt::format("  {:<{}}  {:<{}}  {}\n", r.field, width, r.value, std::min<std::size_t>(value_width, 40),
                             r.source);
}

void list_keys(const Schema& s) {
  std::cout << fmt::format("{}: {}\n", s.name(), s.title());
  std::size_t width = 0, range_width = 0, default_width = 0;
  for (const auto& k : s.keys()) {
    width = std::max(width, k.path.size());
    range_width = std::max(range_width, std::min<std::size_t>(k.range().size(), 36));
    default_width = std::max(default_width, (k.required() ? std::string("required") : k.fallback).size());
  }
  std::cout << fmt::format("  {:<{}}  {:<7}  {:<7}  {:<{}}  {:<{}}  {}\n", "KEY", width, "TYPE", "UNIT", "RANGE",
                           range_width, "DEFAULT", default_width, "MEANING");
  for (const auto& k : s.keys())
    std::cout << fmt::format("  {:<{}}  {:<7}  {:<7}  {:<{}}  {:<{}}  {}\n", k.path, width, to_string(k.type),
                             k.unit.empty() ? "-" : k.unit, k.range().empty() ? "-" : k.range(), range_width,
                             k.required() ? "required" : k.fallback, default_width, k.help);
}

/// The platform file alone: read, overridden and validated as run reads it.
YAML::Node platform_only(const ShowOptions& o) {
  YAML::Node doc = spec::load_yaml_file(o.platform);
  spec::apply_overrides(doc, o.overrides, true);
  spec::read_with_overrides(o.overrides, true, [&] { return spec::parse_any_platform(doc, o.platform); });
  return doc;
}

/// TDM-4's jobs as run builds them: the values the workload leaves to the compute model (Eq. (8) under
/// tang-eq8), and a generator's draw.
void print_tdm4_jobs(const RunInputs& in, const std::optional<std::uint64_t>& seed) {
  spec::PlatformSpec platform = *in.platform.clos;
  spec::WorkloadSpec workload = spec::read_with_overrides(
      in.o.overrides, false, [&] { return spec::parse_workload(*in.workload_doc, in.o.workload); });
  const workload::Scenario s = spec::read_with_overrides(
      in.o.overrides, false, [&] { return workload::make_scenario(std::move(platform), std::move(workload), seed); });
  std::cout << fmt::format("\njobs as run builds them ({}{}):\n", s.jobs.size(),
                           s.workload.generator ? fmt::format(" drawn with seed {}", s.workload.generator->seed)
                                                : std::string(" listed"));
  std::cout << fmt::format("  {:<20} {:<8} {:<6} {:>6} {:>5} {:>12} {:>14} {:>22}\n", "name", "type", "model", "GPUs",
                           "pods", "train_s", "aggregate_s", "output_bytes_per_gpu");
  for (const auto& j : s.jobs)
    std::cout << fmt::format("  {:<20} {:<8} {:<6} {:>6} {:>5} {:>12.6g} {:>14} {:>22.6g}\n", escape_line(j.name),
                             spec::to_string(j.type), j.model.empty() ? "-" : j.model, j.gpus(), j.placement.size(),
                             j.train_s, j.type == spec::JobType::ps ? fmt::format("{:.6g}", j.aggregate_s) : "-",
                             j.per_gpu_bytes);
  for (const auto& line : s.unplaced) std::cout << "  not placed: " << line << "\n";
}

/// Both files, read as run reads them.
RunInputs both(const ShowOptions& o) {
  RunOptions r;
  r.platform = o.platform;
  r.workload = o.workload;
  r.overrides = o.overrides;
  return read_run_inputs(r);
}

/// The workload file alone, read as run reads it (without the checks against a platform).
RunInputs workload_only(const ShowOptions& o) {
  RunInputs in;
  in.o.workload = o.workload;
  in.o.overrides = o.overrides;
  const std::string text = spec::read_input_file(o.workload);
  in.workload_doc = std::make_shared<YAML::Node>(spec::parse_yaml(text, o.workload));
  if (in.workload_doc->IsMap() && (*in.workload_doc)["kind"])
    throw InputError(o.workload, "(file)", "is a platform, given as --workload");
  as_workload(*in.workload_doc, o.workload, in.notes);
  spec::apply_overrides(*in.workload_doc, o.overrides, false);
  in.workload_hash = spec::fingerprint(text);
  in.kind = workload_kind(*in.workload_doc);
  return in;
}

const Schema& platform_schema_of(const YAML::Node& doc) {
  const Schema* s = spec::platform_schema(doc["kind"].Scalar());  // the platform was read: kind is a known word
  if (!s) throw std::logic_error("a platform read without a key table");
  return *s;
}

}  // namespace

int show_command(const ShowOptions& o) {
  try {
    if (o.list_keys) {
      std::vector<const Schema*> schemas;
      if (!o.platform.empty()) schemas.push_back(&platform_schema_of(platform_only(o)));
      if (!o.workload.empty()) {
        YAML::Node doc = spec::load_yaml_file(o.workload);
        std::vector<std::string> notes;
        as_workload(doc, o.workload, notes);  // a job-graph file: the keys of the workload run makes of it
        schemas.push_back(&spec::workload_schema(doc));
      }
      if (schemas.empty()) schemas = spec::all_schemas();
      for (std::size_t i = 0; i < schemas.size(); ++i) {
        if (i) std::cout << "\n";
        list_keys(*schemas[i]);
      }
      return 0;
    }
    if (o.workload.empty()) {
      const YAML::Node doc = platform_only(o);
      print_document("platform", o.platform, platform_schema_of(doc), doc, o.overrides, true);
      return 0;
    }
    const RunInputs in = o.platform.empty() ? workload_only(o) : both(o);
    check_workload(in);
    for (const auto& note : in.notes) std::cerr << "odcnsim: " << note << "\n";
    if (in.platform_doc) {
      print_document("platform", o.platform, platform_schema_of(*in.platform_doc), *in.platform_doc, o.overrides,
                     true);
      std::cout << "\n";
    }
    print_document("workload", o.workload, spec::workload_schema(*in.workload_doc), *in.workload_doc, o.overrides,
                   false);
    if (in.kind == WorkloadKind::tdm4_jobs && in.platform.clos) print_tdm4_jobs(in, o.seed);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
