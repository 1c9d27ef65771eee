#include "systems/tdm4/generator.hpp"

#include <fmt/format.h>

#include "core/rng.hpp"

namespace odcn::workload {

std::vector<JobRequest> generate_jobs(const spec::GeneratorSpec& g) {
  Rng rng(g.seed);
  std::vector<JobRequest> out;
  out.reserve(static_cast<std::size_t>(g.jobs));
  for (int i = 0; i < g.jobs; ++i) {
    JobRequest r;
    const auto& model = g.models[static_cast<std::size_t>(rng.uniform_int(0, static_cast<int>(g.models.size()) - 1))];
    r.units = static_cast<int>(rng.uniform_int(g.degree_min, g.degree_max));
    r.spec.type = g.types[static_cast<std::size_t>(rng.uniform_int(0, static_cast<int>(g.types.size()) - 1))];
    r.spec.model = model;
    r.spec.params_gb = spec::table3_params_gb(model);
    r.spec.gpus_per_unit = g.gpus_per_unit.at(model);
    r.spec.name = fmt::format("g{:05d}-{}-{}-x{}", i, spec::to_string(r.spec.type), model, r.units);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace odcn::workload
