#include "systems/tdm4/scenario.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/tdm4/deployment.hpp"
#include "systems/tdm4/generator.hpp"

namespace odcn::workload {

Scenario make_scenario(spec::PlatformSpec platform, spec::WorkloadSpec workload, std::optional<std::uint64_t> seed) {
  Scenario s;
  s.platform = std::move(platform);
  s.fabric = std::make_unique<net::Fabric>(s.platform);
  s.workload = std::move(workload);
  const std::string& file = s.workload.file;
  if (s.workload.generator) {
    if (seed) s.workload.generator->seed = *seed;
    auto d = deploy(generate_jobs(*s.workload.generator), s.workload.training, *s.fabric, file);
    s.jobs = std::move(d.jobs);
    s.unplaced = std::move(d.unplaced);
    if (s.jobs.empty())
      throw InputError(file, "generator.jobs",
                       fmt::format("none of the {} generated jobs fits the platform (the first: {})",
                                   s.unplaced.size(), s.unplaced.front()));
  } else {
    s.jobs = make_jobs(s.workload, *s.fabric);
  }
  return s;
}

Scenario load_scenario(const std::string& platform_file, const std::string& workload_file,
                       std::optional<std::uint64_t> seed) {
  return make_scenario(spec::load_platform(platform_file), spec::load_workload(workload_file), seed);
}

Scenario scenario_from_text(const std::string& platform_text, const std::string& platform_name,
                            const std::string& workload_text, const std::string& workload_name,
                            std::optional<std::uint64_t> seed) {
  auto platform = spec::parse_platform(spec::parse_yaml(platform_text, platform_name), platform_name);
  auto workload = spec::parse_workload(spec::parse_yaml(workload_text, workload_name), workload_name);
  return make_scenario(std::move(platform), std::move(workload), seed);
}

}  // namespace odcn::workload
