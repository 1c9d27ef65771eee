#pragma once
#include <vector>

#include "spec/workload_spec.hpp"

namespace odcn::workload {

/// A generated job before deployment: what §IV.A draws.
struct JobRequest {
  spec::JobSpec spec;  ///< placement and ps_pod are empty until deployment
  int units = 0;       ///< parallel degree
};

/// Seed 001 §IV.A: model uniform over `models` (Table III sizes), degree uniform in [min, max], type uniform
/// over `types`. The same GeneratorSpec (including its seed) always yields the same requests.
std::vector<JobRequest> generate_jobs(const spec::GeneratorSpec& g);

}  // namespace odcn::workload
