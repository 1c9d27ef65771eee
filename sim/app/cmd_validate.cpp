// `odcnsim validate FILE...`: what run checks before it simulates, under its default policy (static for the TDM-4
// paper's jobs and job graphs, INC-AOI's placement for ps_jobs), without planning a schedule or simulating.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>

#include "app/commands.hpp"
#include "app/graph_inputs.hpp"
#include "app/policy_table.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "spec/graph_workload.hpp"
#include "spec/ps_workload.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/baseline/static_policy.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"
#include "systems/tdm4/scenario.hpp"
#include "traces/graph_source.hpp"

namespace odcn::app {

namespace {

struct File {
  std::string path;
  std::string text;
  YAML::Node doc;
  std::optional<spec::AnyPlatform> platform;
  bool plan_static = true;  ///< a workload: also plan policy static's circuits on the platform (validate does)
};

/// The platform a workload is checked against: the one given before it, or else the first one given after it.
const spec::AnyPlatform* platform_for(const std::vector<File>& read, std::size_t i) {
  for (std::size_t k = i; k-- > 0;)
    if (read[k].platform) return &*read[k].platform;
  for (std::size_t k = i + 1; k < read.size(); ++k)
    if (read[k].platform) return &*read[k].platform;
  return nullptr;
}

/// Job graphs: their files, their ranks against their endpoints, and policy static's circuits on the platform.
std::string check_graphs(const File& file, const spec::AnyPlatform* platform) {
  const std::string& f = file.path;
  const auto gw = spec::parse_graph_workload(file.doc, f, spec::fingerprint(file.text));
  std::string fit;
  if (platform) {
    const auto in = load_graph_inputs(*platform, gw, 0);
    try {
      if (file.plan_static) plan_static_graphs(*platform, *in, f);
    } catch (const ConfigError& e) {
      throw static_refusal(*platform, *in, f, e);  // what run says under its default policy
    }
    fit = fmt::format(", fits the {} platform", spec::to_string(platform->kind));
  } else {
    for (const auto& j : gw.jobs) {
      const workload::JobGraph g = workload::load_graph_source(j, f);
      if (static_cast<int>(j.endpoints.size()) != g.ranks)
        throw InputError(f, j.field + ".endpoints",
                         fmt::format("lists {} endpoints, but the graph has {} ranks", j.endpoints.size(), g.ranks));
    }
  }
  return fmt::format("workload, {} job graph{}{}", gw.jobs.size(), gw.jobs.size() == 1 ? "" : "s", fit);
}

/// INC-AOI's jobs: placed (and checked) against the platform.
std::string check_ps_jobs(const File& file, const spec::AnyPlatform* platform) {
  const std::string& f = file.path;
  const auto pw = spec::parse_ps_workload(file.doc, f, spec::fingerprint(file.text));
  std::string fit;
  if (platform) {
    if (!platform->clos)
      throw InputError(f, "ps_jobs",
                       fmt::format("ps_jobs run on racks of servers: a clos_ocs platform with pods.servers_per_pod "
                                   "(this one is {})",
                                   spec::to_string(platform->kind)));
    const auto jobs = workload::make_ps_jobs(pw, *platform->clos);
    workload::check_slots(jobs, pw.slot_s, f, "ps_jobs.slot_s");
    const net::Fabric fabric(*platform->clos);
    try {
      sched::IncAoiController check(net::network_of(fabric), platform->clos->ports_per_pod, jobs,
                                    sched::IncPolicy::noinc_ljf, pw.slot_s);
    } catch (const ConfigError& e) {
      throw InputError(f, "ps_jobs", e.what());
    }
    fit = ", placed on the platform";
  }
  const int jobs = pw.generator ? pw.generator->jobs : static_cast<int>(pw.jobs.size());
  return fmt::format("workload, {}{} parameter-server job{}{}", jobs, pw.generator ? " generated" : "",
                     jobs == 1 ? "" : "s", fit);
}

/// The TDM-4 paper's jobs: deployed on the platform, and policy static's circuits within its port budgets.
std::string check_tdm4_jobs(const File& file, const spec::AnyPlatform* platform) {
  const std::string& f = file.path;
  spec::WorkloadSpec w = spec::parse_workload(file.doc, f);
  const bool generated = w.generator.has_value();
  const std::size_t listed = generated ? static_cast<std::size_t>(w.generator->jobs) : w.jobs.size();
  std::string fit;
  if (platform) {
    check_workload_platform(WorkloadKind::tdm4_jobs, f, platform->kind);
    const workload::Scenario sc = workload::make_scenario(*platform->clos, std::move(w));
    try {
      if (file.plan_static) sched::plan_static(*sc.fabric, sc.jobs);
    } catch (const ConfigError& e) {
      throw InputError(f, "jobs", e.what());
    }
    fit = generated ? fmt::format(", {} deployed on the platform, {} do not fit", sc.jobs.size(), sc.unplaced.size())
                    : std::string(", fits the platform");
  }
  return fmt::format("workload, {}{} jobs{}", listed, generated ? " generated" : "", fit);
}

std::string check_file(const std::vector<File>& read, std::size_t i) {
  const File& file = read[i];
  if (file.platform)
    return file.platform->clos ? fmt::format("platform, {} pods", file.platform->clos->pods)
                               : fmt::format("{} platform", spec::to_string(file.platform->kind));
  const spec::AnyPlatform* platform = platform_for(read, i);
  if (spec::is_graph_workload(file.doc)) return check_graphs(file, platform);
  if (spec::is_ps_workload(file.doc)) return check_ps_jobs(file, platform);
  return check_tdm4_jobs(file, platform);
}

}  // namespace

std::string check_workload_fits(const YAML::Node& doc, const std::string& path, const spec::AnyPlatform& platform) {
  std::vector<File> read{{path, "", doc, std::nullopt, false}, {"", "", {}, platform}};
  return check_file(read, 0);
}

int validate_command(const std::vector<std::string>& files) {
  try {
    // Every file is read first, so that the order of the arguments does not matter.
    std::vector<File> read;
    for (const auto& f : files) {
      File file{f, spec::read_input_file(f), {}, std::nullopt};
      file.doc = spec::parse_yaml(file.text, f);
      if (file.doc["kind"]) file.platform = spec::parse_any_platform(file.doc, f);
      int ranks = 0;  // a job-graph file alone is a workload of one job, rank i on endpoint i (as run reads it)
      if (spec::is_job_graph_file(file.doc)) file.doc = spec::job_graph_file_as_workload(file.doc, f, ranks);
      read.push_back(std::move(file));
    }
    std::string report;  // printed only once every file has passed: a refusal leaves nothing half-said on stdout
    for (std::size_t i = 0; i < read.size(); ++i)
      report += escape_line(read[i].path) + ": ok (" + check_file(read, i) + ")\n";
    std::cout << report;
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
