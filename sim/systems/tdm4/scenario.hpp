#pragma once
// A platform and a workload, read, validated and deployed: everything a policy needs before it plans.
// The one path from input files to jobs, used by `run`, `validate`, `bench` and the fuzz target alike.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/fabric.hpp"
#include "spec/platform_spec.hpp"
#include "spec/workload_spec.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::workload {

struct Scenario {
  spec::PlatformSpec platform;
  std::unique_ptr<net::Fabric> fabric;
  spec::WorkloadSpec workload;
  std::vector<Job> jobs;
  std::vector<std::string> unplaced;  ///< generated jobs that did not fit, one line each
};

/// Builds the fabric and the jobs from validated specs (generating and deploying a generator's jobs).
Scenario make_scenario(spec::PlatformSpec platform, spec::WorkloadSpec workload,
                       std::optional<std::uint64_t> seed = std::nullopt);

/// Reads both files. `seed` overrides a generator's seed. Raises InputError for anything invalid, including a
/// generator none of whose jobs fits the platform.
Scenario load_scenario(const std::string& platform_file, const std::string& workload_file,
                       std::optional<std::uint64_t> seed = std::nullopt);

/// The same from YAML text (the fuzz target's entry point); the names stand for the files in errors.
Scenario scenario_from_text(const std::string& platform_text, const std::string& platform_name,
                            const std::string& workload_text, const std::string& workload_name,
                            std::optional<std::uint64_t> seed = std::nullopt);

}  // namespace odcn::workload
