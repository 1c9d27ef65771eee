// `odcnsim show`: the platform and the workload a run would use, every key resolved (the file's value, a --set,
// or the default) with its unit; and `--list-keys`, the key tables themselves (spec/keys.hpp), which are what
// the readers accept.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <sstream>

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

/// Where a key's value comes from: a --set of it, of a section holding it or of a part of it (a list element,
/// a sub-key), or the file.
std::string source_of(const std::string& field, const std::vector<spec::Override>& overrides, bool platform) {
  const auto under = [](const std::string& a, const std::string& b) {  // a is b or lies inside it
    return a == b || a.rfind(b + ".", 0) == 0 || a.rfind(b + "[", 0) == 0;
  };
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
    if (it->platform == platform && (under(field, spec::field_of(*it)) || under(spec::field_of(*it), field)))
      return "--set";
  return "file";
}

struct Row {
  std::string field, value, source;
};

/// What decides the rows besides the files: the --set overrides, and --seed (which replaces a generator's seed).
struct Given {
  const std::vector<spec::Override>& overrides;
  bool platform = true;
  std::optional<std::uint64_t> seed;
};

/// The rows of the keys under `section` (a table path) of the document node `node` at field `at`.
void rows_of(const Schema& s, const YAML::Node& root, const YAML::Node& node, const std::string& section,
             const std::string& at, const Given& given, std::vector<Row>& rows) {
  for (const auto& name : s.children(section)) {
    const std::string path = section.empty() ? name : section + "." + name;
    const std::string field = at.empty() ? name : at + "." + name;
    const YAML::Node value = node.IsMap() ? node[name] : YAML::Node();
    if (const Key* k = s.find(path)) {
      if (name == "seed" && given.seed && path.find("generator") != std::string::npos) {
        rows.push_back({field, std::to_string(*given.seed), "--seed"});
      } else if (value) {
        const bool number = value.IsScalar() && !k->unit.empty();
        rows.push_back({field, one_line(value) + (number ? " " + k->unit : ""),
                        source_of(field, given.overrides, given.platform)});
      } else if (k->fallback.rfind("(or ", 0) != 0) {  // an alternative given instead is shown, not this one
        const std::string d = k->default_in(root);
        const bool rule = d.empty() || d[0] == '(';
        rows.push_back({field, rule ? (d.empty() ? "-" : d) : d + (k->unit.empty() ? "" : " " + k->unit), "default"});
      }
    } else if (s.children(path + "[]").size() && value && value.IsSequence()) {
      for (std::size_t i = 0; i < value.size(); ++i)
        rows_of(s, root, value[i], path + "[]", fmt::format("{}[{}]", field, i), given, rows);
    } else if (value || s.defaulted(path)) {
      rows_of(s, root, value ? value : YAML::Node(YAML::NodeType::Map), path, field, given, rows);
    }
  }
}

void print_document(std::ostream& out, const std::string& what, const std::string& file, const Schema& s,
                    const YAML::Node& doc, const Given& given) {
  std::vector<Row> rows;
  rows_of(s, doc, doc, "", "", given, rows);
  std::size_t width = 0, value_width = 0;
  for (const auto& r : rows) {
    width = std::max(width, r.field.size());
    value_width = std::max(value_width, r.value.size());
  }
  out << fmt::format("{} {} ({}: {})\n", what, escape_line(file), s.name(), s.title());
  for (const auto& r : rows)
    out << fmt::format("  {:<{}}  {:<{}}  {}\n", r.field, width, r.value, std::min<std::size_t>(value_width, 40),
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
void print_tdm4_jobs(std::ostream& out, const RunInputs& in, const std::optional<std::uint64_t>& seed) {
  spec::PlatformSpec platform = *in.platform.clos;
  spec::WorkloadSpec workload = spec::read_with_overrides(
      in.o.overrides, false, [&] { return spec::parse_workload(*in.workload_doc, in.o.workload); });
  const workload::Scenario s = spec::read_with_overrides(
      in.o.overrides, false, [&] { return workload::make_scenario(std::move(platform), std::move(workload), seed); });
  out << fmt::format("\njobs as run builds them ({}):\n",
                     s.workload.generator ? fmt::format("{} drawn with seed {}, {} placed", s.workload.generator->jobs,
                                                        s.workload.generator->seed, s.jobs.size())
                                          : fmt::format("{} listed", s.jobs.size()));
  out << fmt::format("  {:<20} {:<8} {:<6} {:>6} {:>5} {:>12} {:>14} {:>22}\n", "name", "type", "model", "GPUs",
                           "pods", "train_s", "aggregate_s", "output_bytes_per_gpu");
  for (const auto& j : s.jobs)
    out << fmt::format("  {:<20} {:<8} {:<6} {:>6} {:>5} {:>12.6g} {:>14} {:>22.6g}\n", escape_line(j.name),
                             spec::to_string(j.type), j.model.empty() ? "-" : j.model, j.gpus(), j.placement.size(),
                             j.train_s, j.type == spec::JobType::ps ? fmt::format("{:.6g}", j.aggregate_s) : "-",
                             j.per_gpu_bytes);
  for (const auto& line : s.unplaced) out << "  not placed: " << line << "\n";
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
    std::ostringstream out;  // printed only once everything is checked: a refusal leaves stdout empty
    if (o.workload.empty()) {
      const YAML::Node doc = platform_only(o);
      print_document(out, "platform", o.platform, platform_schema_of(doc), doc, {o.overrides, true, o.seed});
      std::cout << out.str();
      return 0;
    }
    const RunInputs in = o.platform.empty() ? workload_only(o) : both(o);
    check_workload(in);
    if (in.platform_doc) {  // what validate checks of the two together (deployment, endpoints, slots, circuits)
      spec::read_with_overrides(o.overrides, false,
                                [&] { return check_workload_fits(*in.workload_doc, o.workload, in.platform); });
      print_document(out, "platform", o.platform, platform_schema_of(*in.platform_doc), *in.platform_doc,
                     {o.overrides, true, o.seed});
      out << "\n";
    }
    print_document(out, "workload", o.workload, spec::workload_schema(*in.workload_doc), *in.workload_doc,
                   {o.overrides, false, o.seed});
    if (in.kind == WorkloadKind::tdm4_jobs && in.platform.clos) print_tdm4_jobs(out, in, o.seed);
    for (const auto& note : in.notes) std::cerr << "odcnsim: " << note << "\n";
    std::cout << out.str();
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
