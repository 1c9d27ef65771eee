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

/// Eq. (8) of seed 001: t_train = K × tokens × Φ / (F_GPU × efficiency). Defaults are §IV.A's.
struct TrainingParams {
  double recompute_factor = 8;    ///< K (8 with recomputation)
  double context_tokens = 8192;   ///< tokens per iteration (the context length, default 8k)
  double gpu_tflops = 26;         ///< F_GPU, peak TFLOP/s of one GPU (A100 at FP64 per the seed)
  double efficiency = 0.4;        ///< GPU utilisation
};

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
