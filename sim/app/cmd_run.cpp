// `odcnsim run`: the one pipeline every policy goes through (run_common.hpp draws it).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>

#include "app/run_common.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "odcn_commit.hpp"
#include "odcn_version.hpp"
#include "spec/graph_workload.hpp"
#include "spec/overrides.hpp"
#include "spec/ps_workload.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::app {

namespace {

/// --policy and --search as one choice: tdm4:SEARCH is tdm4 --search SEARCH (o.policy becomes tdm4, as summary.json
/// names it); o.id and o.variant are what the pipelines switch on.
PolicyChoice resolve_policy(RunOptions& o) {
  const std::string given_policy = o.policy;
  PolicyChoice p = policy_or_throw(o.policy, "command line", "--policy");
  const bool named_variant = o.policy.find(':') != std::string::npos;
  if (!o.search.empty()) {
    if (p.entry->id != PolicyId::tdm4)
      throw InputError("command line", "--search", "only policy tdm4 searches for a grouping");
    if (named_variant && o.search != p.variant)
      throw InputError("command line", "--search",
                       fmt::format("'{}' contradicts --policy {}", shown(o.search), shown(o.policy)));
    const auto searched = find_policy(p.entry->name + ":" + o.search);
    if (!searched)
      throw InputError("command line", "--search",
                       fmt::format("unknown search '{}' (expected paper, threshold or multistart){}", shown(o.search),
                                   with_hint(o.search, {"paper", "threshold", "multistart"})));
    p = *searched;
  }
  if (p.entry->id == PolicyId::tdm4) {
    if (named_variant || !o.search.empty()) o.search = p.variant;
    o.policy = p.entry->name;
  }
  o.id = p.entry->id;
  o.variant = p.variant;
  if (o.mip_seconds_given && (o.id != PolicyId::topox || o.variant == "heuristic"))
    throw InputError("command line", "--mip-seconds",
                     fmt::format("only policies topox and topox:mip solve a MIP (got --policy {})", shown(given_policy)));
  return p;
}

/// The top-level key that says what a document is: a platform's `kind`, a workload's first section, a job graph's
/// `format` ("" when none of them).
std::string telling_key(const YAML::Node& doc) {
  if (!doc.IsMap()) return "";
  for (const char* k : {"kind", "format", "jobs", "generator", "job_graphs", "ps_jobs", "training"})
    if (doc[k]) return k;
  return "";
}

/// A platform given as the workload or the other way round is said as such, not as a missing field.
void check_not_swapped(const YAML::Node& platform, const YAML::Node& workload, const RunOptions& o) {
  const std::string p = telling_key(platform), w = telling_key(workload);
  const bool platform_is_workload = !p.empty() && p != "kind";
  const bool workload_is_platform = w == "kind";
  if (!platform_is_workload && !workload_is_platform) return;
  const bool both = platform_is_workload && workload_is_platform;
  const std::string& file = platform_is_workload ? o.platform : o.workload;
  throw InputError(file, "(file)",
                   fmt::format("{} (it has '{}'){}", platform_is_workload ? "is a workload, given as --platform"
                                                                           : "is a platform, given as --workload",
                               platform_is_workload ? p : w,
                               both ? "; did you swap --platform and --workload?" : ""));
}

/// The pipeline of each workload kind.
std::unique_ptr<PlannedRun> plan_run(const RunInputs& in) {
  switch (in.kind) {
    case WorkloadKind::tdm4_jobs: return plan_tdm4_jobs(in);
    case WorkloadKind::ps_jobs: return plan_ps_jobs(in);
    case WorkloadKind::job_graphs: return plan_graphs(in);
  }
  throw std::logic_error("unknown workload kind");
}

/// run.json: versions, the command that repeats the run, then what the pipeline says of its inputs.
Json run_json(const RunOptions& o, const PlannedRun& run) {
  Json j = {{"schema_version", kOutputSchemaVersion},
            {"odcnsim_version", ODCNSIM_VERSION},
            {"odcnsim_commit", ODCNSIM_COMMIT},
            {"simgrid_version", engine::simgrid_version()},
            {"simgrid_config", engine::simgrid_settings()},
            {"command", reproducing_command(o, run.iterations())}};
  const Json inputs = run.run_json();  // kept alive: items() refers to it
  for (const auto& [k, v] : inputs.items()) j[k] = v;
  return j;
}

/// Simulates and writes every output, then commits the folder; returns the metrics and the simulation's wall time.
std::pair<RunMetrics, double> simulate_and_write(const RunOptions& o, PlannedRun& run, AloneBaseline* child,
                                                 trace::RunRecord& rec, Json& extras, std::vector<std::string>& notes) {
  RunSetup setup(o, run.job_names());
  if (auto groups = run.job_groups(); !groups.empty()) setup.job_groups(std::move(groups));
  const auto t0 = Clock::now();
  rec = run.simulate(setup.eo);
  const double sim_wall = seconds_since(t0);
  trace::write_json(setup.out.open("run.json"), run_json(o, run));
  const auto alone = alone_times(o, child, rec, notes);
  extras = run.extras(setup.out, rec, notes);
  const RunMetrics m = write_results(setup.out, run.summary_head(rec), extras, rec, run.iterations(), alone);
  setup.close_trace();
  setup.out.commit();
  return {m, sim_wall};
}

/// What run refuses before planning: a workload or platform kind the policy does not take, and a base topology
/// under a policy that does not light one.
void check_policy_fits(const PolicyChoice& policy, const RunInputs& in, const std::string& origin = "command line",
                       const std::string& field = "--policy") {
  check_accepts(policy, in.kind, in.o.workload, in.platform.kind, in.o.platform, origin, field);
  if (in.platform.clos && in.platform.clos->base_topology != "none" && policy.entry->id != PolicyId::inc_aoi)
    throw InputError(in.o.platform, "ocs.base_topology",
                     fmt::format("only INC-AOI's policies (inc-ljf, inc-fcfs, noinc-ljf, noinc-fcfs, inc-group) "
                                 "light a base topology; policy {} plans every circuit itself (set it to none)",
                                 policy.spelled));
}

}  // namespace

void as_workload(YAML::Node& doc, const std::string& file, std::vector<std::string>& notes) {
  if (!spec::is_job_graph_file(doc)) return;
  int ranks = 0;  // a job graph on its own: one job, rank i on endpoint i
  doc = spec::job_graph_file_as_workload(doc, file, ranks);
  notes.push_back(fmt::format("{} is a job graph, run as one job with rank i on endpoint i (0-{}); a workload file "
                              "places it otherwise (docs/job-graph.md)",
                              escape_line(file), ranks - 1));
}

WorkloadKind workload_kind(const YAML::Node& doc) {
  if (spec::is_ps_workload(doc)) return WorkloadKind::ps_jobs;
  if (spec::is_graph_workload(doc)) return WorkloadKind::job_graphs;
  return WorkloadKind::tdm4_jobs;
}

RunInputs read_run_inputs(const RunOptions& o) {
  RunInputs in;
  in.o = o;
  const std::string platform_text = spec::read_input_file(o.platform);
  in.platform_doc = std::make_shared<YAML::Node>(spec::parse_yaml(platform_text, o.platform));
  YAML::Node& platform_doc = *in.platform_doc;
  const std::string workload_text = spec::read_input_file(o.workload);
  in.workload_doc = std::make_shared<YAML::Node>(spec::parse_yaml(workload_text, o.workload));
  check_not_swapped(platform_doc, *in.workload_doc, o);
  as_workload(*in.workload_doc, o.workload, in.notes);
  spec::apply_overrides(platform_doc, o.overrides, true);
  spec::apply_overrides(*in.workload_doc, o.overrides, false);
  in.platform =
      spec::read_with_overrides(o.overrides, true, [&] { return spec::parse_any_platform(platform_doc, o.platform); });
  in.platform_hash = spec::fingerprint(platform_text);
  in.workload_hash = spec::fingerprint(workload_text);
  in.kind = workload_kind(*in.workload_doc);
  return in;
}

void check_workload(const RunInputs& in) {
  const YAML::Node& doc = *in.workload_doc;
  spec::read_with_overrides(in.o.overrides, false, [&] {
    if (in.kind == WorkloadKind::ps_jobs) spec::parse_ps_workload(doc, in.o.workload, in.workload_hash);
    else if (in.kind == WorkloadKind::job_graphs) spec::parse_graph_workload(doc, in.o.workload, in.workload_hash);
    else spec::parse_workload(doc, in.o.workload);
    return 0;
  });
}

int run_command(const RunOptions& given) {
  try {
    RunOptions o = given;
    const PolicyChoice policy = resolve_policy(o);
    const RunInputs in = read_run_inputs(o);
    check_policy_fits(policy, in);
    // The baseline runs in a second process while this one plans and simulates (it is stopped if this one fails).
    std::unique_ptr<AloneBaseline> child;
    if (o.slowdown && policy.entry->measures_slowdown) child = std::make_unique<AloneBaseline>(o, o.iterations);
    const std::unique_ptr<PlannedRun> run = plan_run(in);
    trace::RunRecord rec;
    Json extras;
    std::vector<std::string> notes = in.notes;
    for (auto& n : run->notes()) notes.push_back(std::move(n));
    const auto [metrics, sim_wall] = simulate_and_write(o, *run, child.get(), rec, extras, notes);
    if (o.quiet) return 0;
    for (const auto& note : notes) std::cerr << "odcnsim: " << note << "\n";
    run->print(metrics, extras, rec, sim_wall);
    return 0;
  } catch (...) {
    return report_failure();
  }
}

void add_run_options(std::vector<std::string>& args, int iterations, const std::optional<std::uint64_t>& seed,
                     const std::vector<std::string>& sets, const std::string& trace, bool slowdown) {
  if (iterations > 0) args.insert(args.end(), {"--iterations", std::to_string(iterations)});
  if (seed) args.insert(args.end(), {"--seed", std::to_string(*seed)});
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {"--trace", trace, "--quiet"});
  if (!slowdown) args.emplace_back("--no-slowdown");
}

void check_run_inputs(const std::string& platform_file, const std::string& workload_file,
                      const std::vector<spec::Override>& overrides, const std::vector<std::string>& policies,
                      const std::string& origin, const std::string& field) {
  RunOptions o;
  o.platform = platform_file;
  o.workload = workload_file;
  o.overrides = overrides;
  const RunInputs in = read_run_inputs(o);
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const std::string at = origin == "command line" ? field : fmt::format("{}[{}]", field, i);
    check_policy_fits(policy_or_throw(policies[i], origin, at), in, origin, at);
  }
  check_workload(in);
}

}  // namespace odcn::app
