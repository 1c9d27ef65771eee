#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace odcn::spec {

enum class JobType { ps, rar, alltoall };
const char* to_string(JobType t);

/// How a job's training time follows from its model (docs/model.md, "Compute models").
enum class ComputeModel {
  /// Eq. (8) of TDM-4 read literally: t = K × tokens × Φ / (F_GPU × efficiency), Φ the Table III size in GB
  /// taken as a parameter count, every GPU of a unit processing all the tokens. §IV.A's defaults.
  tang_eq8,
  /// t = K × tokens × (Φ / bytes_per_param) / (U × F_GPU × efficiency): Φ is BF16 bytes (2 per parameter), the
  /// replica's tokens are shared by the unit's U GPUs, F_GPU is A100 BF16 dense peak (312 TFLOP/s).
  physical,
};
const char* to_string(ComputeModel m);

/// What a pod's ToR ↔ server link carries in a stage (docs/model.md, "ToR models").
enum class TorModel {
  /// Eq. (5) of TDM-4: P_i = G_i·F, R_i = 2·G_i·F, A_i = 2·G_i·F·(U−1), whatever the destinations.
  eq5,
  /// Every byte that leaves or enters the pod's servers: the job's inter-pod flows (Eq. 4) out of and into pod
  /// i, plus, for PS, the server pod's own units' pushes (pulls), which cross its ToR to reach the server.
  physical,
};
const char* to_string(TorModel m);

/// Peak dense TFLOP/s of one A100 at a precision ("fp64", "tf32", "bf16", "fp16"); 0 for an unknown name.
double a100_peak_tflops(const std::string& precision);

/// The training-time model and its parameters. Defaults depend on the model (make_training_params).
struct TrainingParams {
  ComputeModel model = ComputeModel::tang_eq8;
  double recompute_factor = 8;    ///< K: FLOPs per parameter per token (6 forward + backward, +2 recomputation)
  double context_tokens = 8192;   ///< tokens of one sequence (the context length, default 8k)
  double gpu_tflops = 26;         ///< F_GPU, peak TFLOP/s of one GPU (26 per the seed; 312 = A100 BF16, physical)
  double efficiency = 0.4;        ///< GPU utilisation (model FLOPs utilisation)
  // physical only
  std::string precision = "fp64";   ///< the precision gpu_tflops is the peak of (informative when given)
  double bytes_per_param = 1;       ///< Table III's GB per 1e9 parameters: 2 for BF16 weights (tang-eq8: 1)
  double sequences_per_replica = 1; ///< sequences each data-parallel replica (unit) processes per iteration
  bool split_over_unit = false;     ///< a unit's U GPUs share its tokens (tensor/pipeline parallel within the unit)
  /// The ToR model (the workload's `traffic.tor`): eq5 under tang-eq8, physical under the physical model,
  /// unless given. Kept here because every job is built from these parameters.
  TorModel tor = TorModel::eq5;
};

/// The defaults of a compute model: tang-eq8 = §IV.A (K 8, 8k tokens, 26 TFLOP/s, 0.4); physical = A100 BF16.
TrainingParams default_training(ComputeModel model);

/// Parameter sizes of Llama-3 models, Table III of seed 001, in GB.
double table3_params_gb(const std::string& model);  ///< raises std::out_of_range for an unknown name
const std::vector<std::string>& table3_models();

struct JobSpec {
  std::string name;
  JobType type = JobType::ps;
  std::string model;      ///< a Table III name, or empty when params_gb was given directly
  double params_gb = 0;   ///< Φ
  int gpus_per_unit = 1;  ///< U_n
  std::map<int, int> placement;  ///< pod → GPUs of this job in that pod (G_{i,n})
  int ps_pod = -1;               ///< I_n, PS jobs only
  std::optional<Seconds> train_s;
  std::optional<Seconds> aggregate_s;
  std::optional<Bytes> output_bytes_per_gpu;  ///< F_n override
};

/// Seeded job generator of seed 001 §IV.A; jobs are then deployed by §IV.B.
struct GeneratorSpec {
  int jobs = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> models;  ///< drawn uniformly
  int degree_min = 2;               ///< number of parallel units, drawn uniformly in [min, max]
  int degree_max = 16;
  std::vector<JobType> types;       ///< drawn uniformly
  std::map<std::string, int> gpus_per_unit;  ///< U per model
};

struct WorkloadSpec {
  std::string file;
  int version = 1;   ///< format version: 1 (no `version:` key) defaults to tang-eq8, 2 to physical
  std::string hash;  ///< fingerprint of the bytes it was read from (load_workload only)
  TrainingParams training;
  std::vector<JobSpec> jobs;               ///< explicit jobs (placed by the user)
  std::optional<GeneratorSpec> generator;  ///< or generated and deployed
};

/// Loads and validates a workload file; every number is within the documented limits (docs/limits.md).
WorkloadSpec load_workload(const std::string& path);
/// The same from an already parsed document (spec/yaml_reader.hpp's parse_yaml), named `path` in errors.
WorkloadSpec parse_workload(const YAML::Node& doc, const std::string& path);

}  // namespace odcn::spec
