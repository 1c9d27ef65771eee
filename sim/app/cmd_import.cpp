// `odcnsim import kineto|chakra FILE...`: per-rank traces written as one job-graph file, with what was imported
// on stdout.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "app/commands.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "graph/job_graph_file.hpp"
#include "spec/graph_workload.hpp"
#include "spec/yaml_reader.hpp"
#include "traces/graph_source.hpp"

namespace odcn::app {

namespace {

namespace fs = std::filesystem;
using namespace workflow;

spec::GraphFormat import_format(const std::string& format) {
  if (format == "kineto") return spec::GraphFormat::kineto;
  if (format == "chakra") return spec::GraphFormat::chakra;
  throw InputError("command line", "(format)",
                   fmt::format("unknown trace format '{}' (kineto or chakra)", shown(format)));
}

/// Each importer option given is checked as the workload key of the same name would be, and named by its
/// --option when it is refused (an option of the other format included).
void check_importer_options(const ImportOptions& o, spec::GraphFormat format) {
  // The options given, by workload key, with their values.
  std::map<std::string, std::string> given;
  if (o.step) given["step"] = std::to_string(*o.step);
  if (o.replicate) given["replicate"] = "true";
  if (!o.streams.empty()) given["streams"] = o.streams;
  if (!o.groups.empty()) given["groups"] = o.groups;
  if (!o.ctrl_deps.empty()) given["ctrl_deps"] = o.ctrl_deps;
  if (o.ranks > 0) given["ranks"] = std::to_string(o.ranks);
  if (!o.algorithm.empty()) given["algorithm"] = o.algorithm;
  if (!o.compute.empty()) given["compute"] = o.compute;
  for (const auto& option : spec::importer_options())
    if (const auto it = given.find(option.key); it != given.end()) {
      std::string reason = spec::importer_option_error(option, format, it->second);
      if (reason.empty()) continue;
      std::string flag = std::string("--") + option.key;
      std::replace(flag.begin(), flag.end(), '_', '-');
      if (option.format != format) reason = fmt::format("is an option of 'import {}'", spec::to_string(option.format));
      throw InputError("command line", flag, reason);
    }
}

/// The options as the job of a job_graphs workload that names the files, so that import reads them exactly
/// as run would.
spec::GraphJobSpec import_spec(const ImportOptions& o, spec::GraphFormat format) {
  spec::GraphJobSpec j;
  j.field = "(command line)";
  j.format = format;
  j.files = o.files;
  j.file = o.files.front();
  j.step = o.step;
  j.replicate = o.replicate;
  j.streams = o.streams;
  j.groups = o.groups;
  j.ctrl_deps = o.ctrl_deps;
  j.ranks = o.ranks;
  j.algorithm = o.algorithm;
  j.compute = o.compute;
  return j;
}

}  // namespace

int import_command(const ImportOptions& o) {
  try {
    if (o.files.empty()) throw InputError("command line", "FILES", "give the trace files, one per rank");
    const spec::GraphFormat format = import_format(o.format);
    check_importer_options(o, format);
    if (!o.name.empty()) spec::checked_name(o.name, "command line", "--name");
    const spec::GraphJobSpec j = import_spec(o, format);
    const std::string by = "odcnsim import " + o.format;
    const OutFile out = checked_out_file(o.out, o.force, by);
    workload::JobGraph g = workload::load_graph_source(j, "command line");
    if (!o.name.empty()) g.name = o.name;
    if (o.iterations > 0) g.iterations = o.iterations;
    const std::string text = workload::job_graph_json(g, by);
    check_job_graph_size(text, "FILES");
    write_atomically(out.path, text, out.replace);
    if (!o.quiet)
      std::cout << fmt::format("odcnsim import {}: {} file{} -> job '{}' -> {}\n", o.format, o.files.size(),
                               o.files.size() == 1 ? "" : "s", escape_line(g.name), escape_line(o.out))
                << graph_report(g) << run_hint(g, o.out);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
