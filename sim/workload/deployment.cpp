#include "workload/deployment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "workload/traffic.hpp"

namespace odcn::workload {

namespace {

/// Traffic a job's units put on their pods per iteration: its Eq. (5) ToR volume, per unit.
double unit_weight(const JobRequest& r) {
  const double f = default_per_gpu_bytes(r.spec.type, gigabytes(r.spec.params_gb), r.spec.gpus_per_unit, r.units);
  const double per_gpu = r.spec.type == JobType::rar        ? 2.0 * f
                         : r.spec.type == JobType::alltoall ? 2.0 * f * (r.spec.gpus_per_unit - 1) + f
                                                            : 2.0 * f;
  return per_gpu * r.spec.gpus_per_unit;
}

}  // namespace

Deployment deploy(const std::vector<JobRequest>& requests, const spec::TrainingParams& training,
                  const net::Fabric& fabric, const std::string& file) {
  Deployment d;
  const int n = fabric.pods_per_group();
  std::vector<int> free_gpus(static_cast<std::size_t>(fabric.pods()), fabric.spec().gpus_per_pod);
  std::vector<double> pod_traffic(static_cast<std::size_t>(fabric.pods()), 0.0);
  std::vector<double> group_traffic(static_cast<std::size_t>(fabric.groups()), 0.0);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const JobRequest& req = requests[r];
    const int u = req.spec.gpus_per_unit;
    const double w = unit_weight(req);
    // Try groups by ascending total traffic (ties: lower index); place units greedily in the first that fits.
    std::vector<int> order(static_cast<std::size_t>(fabric.groups()));
    for (int g = 0; g < fabric.groups(); ++g) order[static_cast<std::size_t>(g)] = g;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return group_traffic[static_cast<std::size_t>(a)] < group_traffic[static_cast<std::size_t>(b)];
    });
    bool placed = false;
    for (int g : order) {
      int room = 0;
      for (int p = fabric.first_pod(g); p < fabric.first_pod(g) + n; ++p) room += free_gpus[static_cast<std::size_t>(p)] / u;
      if (room < req.units) continue;
      spec::JobSpec js = req.spec;
      for (int k = 0; k < req.units; ++k) {
        int best = -1;
        for (int p = fabric.first_pod(g); p < fabric.first_pod(g) + n; ++p) {
          const auto pi = static_cast<std::size_t>(p);
          if (free_gpus[pi] - js.placement[p] < u) continue;
          if (best < 0 || pod_traffic[pi] < pod_traffic[static_cast<std::size_t>(best)]) best = p;
        }
        js.placement[best] += u;
        pod_traffic[static_cast<std::size_t>(best)] += w;
      }
      for (auto it = js.placement.begin(); it != js.placement.end();)
        it = it->second == 0 ? js.placement.erase(it) : std::next(it);
      if (js.type == JobType::ps) {
        int ps = -1;
        for (const auto& [pod, gpus] : js.placement)
          if (ps < 0 || pod_traffic[static_cast<std::size_t>(pod)] < pod_traffic[static_cast<std::size_t>(ps)]) ps = pod;
        js.ps_pod = ps;
      }
      group_traffic[static_cast<std::size_t>(g)] += w * req.units;
      d.jobs.push_back(make_job(js, static_cast<int>(d.jobs.size()), training, fabric, free_gpus, file,
                                fmt::format("generator.jobs[{}]", r)));
      placed = true;
      break;
    }
    if (!placed)
      d.unplaced.push_back(fmt::format("{}: needs {} units of {} GPUs; no OXC pod group has room", req.spec.name,
                                       req.units, u));
  }
  return d;
}

}  // namespace odcn::workload
