#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/fabric.hpp"
#include "spec/workload_spec.hpp"

namespace odcn::workload {

using spec::JobType;

/// One training job after validation (seed 001 §II.B, Table I). Its GPUs are grouped into parallel units of
/// U GPUs; units are laid out contiguously over its pods in ascending pod order, and a unit's first GPU is
/// its master node.
struct Job {
  int id = 0;
  std::string name;
  JobType type = JobType::ps;
  std::string model;
  Bytes model_bytes = 0;       ///< Φ: parameter size (Table III)
  int gpus_per_unit = 1;       ///< U_n
  std::vector<std::pair<int, int>> placement;  ///< (pod, G_{i,n}) by ascending pod
  int ps_pod = -1;             ///< I_n (PS only)
  Seconds train_s = 0;         ///< t_train^n, Eq. (8) unless overridden
  Seconds aggregate_s = 0;     ///< PS aggregation on the parameter server
  Bytes per_gpu_bytes = 0;     ///< F_n: output traffic of each GPU per collective
  int group = 0;               ///< the OXC pod group holding all its pods
  spec::TorModel tor = spec::TorModel::eq5;  ///< what its ToR volumes count (systems/tdm4/traffic.hpp)

  int gpus() const;
  int units() const { return gpus() / gpus_per_unit; }
  /// Communication phases per iteration: PS has push and pull, the collectives have one.
  int comm_phases() const { return type == JobType::ps ? 2 : 1; }
};

/// The training time of one iteration under the workload's compute model (docs/model.md). tang-eq8 is Eq. (8):
/// t = K × tokens × Φ / (F_GPU × efficiency) with Φ the Table III size read as a count; physical divides Φ by
/// bytes_per_param, multiplies the tokens by sequences_per_replica and divides by the unit's U GPUs.
Seconds training_time(const spec::TrainingParams& p, double params_gb, int gpus_per_unit);

/// F_n. Data-parallel jobs (PS, RAR) send each GPU's shard of the gradients, Φ / U. An AllToAll (expert
/// parallel) job exchanges only the activations routed to its E experts; odcnsim takes Φ / (U × E) so that
/// the seed's ranking of traffic (PS > RAR > AllToAll, §II.B) holds.
Bytes default_per_gpu_bytes(JobType type, Bytes model_bytes, int gpus_per_unit, int units);

/// Builds and validates a job. `field` prefixes error messages (e.g. "jobs[3]"). `free_gpus` is the
/// capacity left in each pod and is reduced by this job's placement.
Job make_job(const spec::JobSpec& js, int id, const spec::TrainingParams& training, const net::Fabric& fabric,
             std::vector<int>& free_gpus, const std::string& file, const std::string& field);

/// The explicit jobs of a workload, checked against the fabric (pods exist, GPUs fit, one OXC group each).
std::vector<Job> make_jobs(const spec::WorkloadSpec& w, const net::Fabric& fabric);

}  // namespace odcn::workload
