#include "systems/tdm4/job.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"

namespace odcn::workload {

int Job::gpus() const {
  int g = 0;
  for (const auto& [pod, n] : placement) g += n;
  return g;
}

Seconds training_time(const spec::TrainingParams& p, double params_gb, int gpus_per_unit) {
  if (p.model == spec::ComputeModel::tang_eq8)  // Eq. (8) of TDM-4 read literally (kept bit for bit)
    return p.recompute_factor * p.context_tokens * (params_gb * 1e9) / (p.gpu_tflops * 1e12 * p.efficiency);
  // physical: Eq. (8) with Φ as a parameter count and the replica's tokens shared by the unit's GPUs
  const double params = params_gb * 1e9 / p.bytes_per_param;
  const double tokens = p.context_tokens * p.sequences_per_replica;
  const double gpus = p.split_over_unit ? gpus_per_unit : 1;
  return p.recompute_factor * tokens * params / (gpus * p.gpu_tflops * 1e12 * p.efficiency);
}

Bytes default_per_gpu_bytes(JobType type, Bytes model_bytes, int gpus_per_unit, int units) {
  const double share = type == JobType::alltoall ? model_bytes / (gpus_per_unit * static_cast<double>(units))
                                                 : model_bytes / gpus_per_unit;
  return std::max(1.0, std::round(share));  // SimGrid moves whole bytes
}

Job make_job(const spec::JobSpec& js, int id, const spec::TrainingParams& training, const net::Fabric& fabric,
             std::vector<int>& free_gpus, const std::string& file, const std::string& field) {
  Job j;
  j.id = id;
  j.name = js.name;
  j.type = js.type;
  j.model = js.model;
  j.model_bytes = gigabytes(js.params_gb);
  j.gpus_per_unit = js.gpus_per_unit;
  j.tor = training.tor;
  int group = -1;
  for (const auto& [pod, gpus] : js.placement) {
    const std::string f = fmt::format("{}.placement.{}", field, pod);
    if (pod >= fabric.pods())
      throw InputError(file, f, fmt::format("pod {} does not exist (the platform has {} pods)", pod, fabric.pods()));
    if (gpus > free_gpus[static_cast<std::size_t>(pod)])
      throw InputError(file, f,
                       fmt::format("job does not fit: {} GPUs requested, {} free in pod {}", gpus,
                                   free_gpus[static_cast<std::size_t>(pod)], pod));
    if (group >= 0 && fabric.group_of(pod) != group)
      throw InputError(file, f,
                       fmt::format("pod {} is in OXC group {} but the job's other pods are in group {}; a job "
                                   "must stay inside one OXC group",
                                   pod, fabric.group_of(pod), group));
    group = fabric.group_of(pod);
    j.placement.emplace_back(pod, gpus);
  }
  j.group = group;
  if (j.gpus() % j.gpus_per_unit != 0)
    throw InputError(file, field + ".gpus_per_unit",
                     fmt::format("{} GPUs cannot be split into units of {}", j.gpus(), j.gpus_per_unit));
  if (j.type == JobType::ps) {
    bool hosted = false;
    for (const auto& [pod, gpus] : j.placement) hosted = hosted || pod == js.ps_pod;
    if (!hosted)
      throw InputError(file, field + ".ps_pod",
                       fmt::format("parameter server pod {} holds none of the job's GPUs", js.ps_pod));
    j.ps_pod = js.ps_pod;
  }
  for (const auto& [pod, gpus] : j.placement) free_gpus[static_cast<std::size_t>(pod)] -= gpus;
  j.train_s = js.train_s ? *js.train_s : training_time(training, js.params_gb, js.gpus_per_unit);
  // Eq. (8) multiplies four inputs that are each within their limits; the product must be too.
  if (!js.train_s)
    check_derived(j.train_s, limits::kMinSeconds, limits::kMaxSeconds, file, field + ".train_s",
                  "the training time by Eq. (8) (from the training block and the model size)");
  // Eq. (3) charges every job of the idle group t_train in every stage, aggregation included.
  j.aggregate_s = js.aggregate_s ? *js.aggregate_s : j.train_s;
  j.per_gpu_bytes = js.output_bytes_per_gpu ? std::round(*js.output_bytes_per_gpu)
                                            : default_per_gpu_bytes(j.type, j.model_bytes, j.gpus_per_unit, j.units());
  return j;
}

std::vector<Job> make_jobs(const spec::WorkloadSpec& w, const net::Fabric& fabric) {
  std::vector<int> free_gpus(static_cast<std::size_t>(fabric.pods()), fabric.spec().gpus_per_pod);
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < w.jobs.size(); ++i)
    jobs.push_back(make_job(w.jobs[i], static_cast<int>(i), w.training, fabric, free_gpus, w.file,
                            fmt::format("jobs[{}]", i)));
  return jobs;
}

}  // namespace odcn::workload
