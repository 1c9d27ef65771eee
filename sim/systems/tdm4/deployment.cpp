#include "systems/tdm4/deployment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "systems/tdm4/traffic.hpp"

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
  // Groups in the order the rule tries them: ascending total traffic, ties by index (what a stable sort of
  // the indices by traffic gives), kept up to date as jobs land instead of re-sorted for every job.
  std::set<std::pair<double, int>> by_traffic;
  for (int g = 0; g < fabric.groups(); ++g) by_traffic.emplace(0.0, g);
  std::vector<std::int64_t> group_free(static_cast<std::size_t>(fabric.groups()),
                                       static_cast<std::int64_t>(n) * fabric.spec().gpus_per_pod);
  // Free GPUs only ever decrease, so once k units of U GPUs fit in no group, k or more never will again.
  std::map<int, int> smallest_unplaceable;  // U -> units
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const JobRequest& req = requests[r];
    const int u = req.spec.gpus_per_unit;
    const double w = unit_weight(req);
    const auto known = smallest_unplaceable.find(u);
    bool placed = false;
    const bool hopeless = known != smallest_unplaceable.end() && req.units >= known->second;
    for (auto it = by_traffic.begin(); !hopeless && it != by_traffic.end(); ++it) {
      const int g = it->second;
      // A group cannot hold more units than its free GPUs allow in total; only then count pod by pod.
      if (group_free[static_cast<std::size_t>(g)] / u < req.units) continue;
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
      for (auto pit = js.placement.begin(); pit != js.placement.end();)
        pit = pit->second == 0 ? js.placement.erase(pit) : std::next(pit);
      if (js.type == JobType::ps) {
        int ps = -1;
        for (const auto& [pod, gpus] : js.placement)
          if (ps < 0 || pod_traffic[static_cast<std::size_t>(pod)] < pod_traffic[static_cast<std::size_t>(ps)]) ps = pod;
        js.ps_pod = ps;
      }
      by_traffic.erase(it);  // the loop ends below, so `it` is not used again
      group_traffic[static_cast<std::size_t>(g)] += w * req.units;
      by_traffic.emplace(group_traffic[static_cast<std::size_t>(g)], g);
      group_free[static_cast<std::size_t>(g)] -= static_cast<std::int64_t>(req.units) * u;
      d.jobs.push_back(make_job(js, static_cast<int>(d.jobs.size()), training, fabric, free_gpus, file,
                                fmt::format("generator.jobs[{}]", r)));
      placed = true;
      break;
    }
    if (!placed) {
      auto& smallest = smallest_unplaceable.try_emplace(u, req.units).first->second;
      smallest = std::min(smallest, req.units);
      d.unplaced.push_back(fmt::format("{}: needs {} units of {} GPUs; no OXC pod group has room", req.spec.name,
                                       req.units, u));
    }
  }
  return d;
}

}  // namespace odcn::workload
