#include "spec/workload_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

const char* to_string(JobType t) {
  switch (t) {
    case JobType::ps: return "ps";
    case JobType::rar: return "rar";
    case JobType::alltoall: return "alltoall";
  }
  return "?";
}

const char* to_string(ComputeModel m) { return m == ComputeModel::physical ? "physical" : "tang-eq8"; }

const char* to_string(TorModel m) { return m == TorModel::physical ? "physical" : "eq5"; }

double a100_peak_tflops(const std::string& precision) {
  // NVIDIA A100 Tensor Core GPU datasheet (dense, without sparsity): FP64 Tensor Core 19.5, TF32 156,
  // BF16 312, FP16 312 TFLOP/s.
  static const std::map<std::string, double> peak{{"fp64", 19.5}, {"tf32", 156}, {"bf16", 312}, {"fp16", 312}};
  const auto it = peak.find(precision);
  return it == peak.end() ? 0 : it->second;
}

TrainingParams default_training(ComputeModel model) {
  TrainingParams p;  // tang-eq8: §IV.A
  if (model == ComputeModel::physical) {
    p.model = model;
    p.precision = "bf16";
    p.gpu_tflops = a100_peak_tflops("bf16");
    p.bytes_per_param = 2;
    p.split_over_unit = true;
    p.tor = TorModel::physical;
  }
  return p;
}

const std::vector<std::string>& table3_models() {
  static const std::vector<std::string> names{"1B", "3B", "8B", "90B"};
  return names;
}

double table3_params_gb(const std::string& model) {
  static const std::map<std::string, double> gb{{"1B", 2.46}, {"3B", 6.42}, {"8B", 21.2}, {"90B", 177.6}};
  return gb.at(model);
}

namespace {

JobType parse_type(const std::string& s, const std::string& file, const std::string& field) {
  if (s == "ps") return JobType::ps;
  if (s == "rar") return JobType::rar;
  if (s == "alltoall") return JobType::alltoall;
  throw InputError(file, field, fmt::format("unknown job type '{}' (expected ps, rar or alltoall)", shown(s)));
}

std::string check_model(const std::string& m, const std::string& file, const std::string& field) {
  try {
    table3_params_gb(m);
  } catch (const std::out_of_range&) {
    throw InputError(file, field, fmt::format("unknown model '{}' (Table III has 1B, 3B, 8B, 90B)", shown(m)));
  }
  return m;
}

JobSpec parse_job(const YamlMap& m, std::size_t index) {
  m.allow_only({"name", "type", "model", "params_gb", "gpus_per_unit", "placement", "ps_pod", "train_s",
                "aggregate_s", "output_bytes_per_gpu"});
  using namespace limits;
  JobSpec j;
  j.name = m.has("name") ? checked_name(m.text("name"), m.file(), m.field("name")) : fmt::format("job{}", index);
  j.type = parse_type(m.text("type"), m.file(), m.field("type"));
  if (m.has("model") == m.has("params_gb"))
    throw InputError(m.file(), m.field("model"), "give exactly one of model and params_gb");
  if (m.has("model")) {
    j.model = check_model(m.text("model"), m.file(), m.field("model"));
    j.params_gb = table3_params_gb(j.model);
  } else {
    j.params_gb = m.positive("params_gb", kMaxParamsGb);
  }
  j.gpus_per_unit = static_cast<int>(m.integer("gpus_per_unit", 1, kMaxGpusPerUnit));
  const YAML::Node placement = m.node("placement");
  if (!placement.IsMap() || placement.size() == 0)
    throw InputError(m.file(), m.field("placement"), "must be a non-empty mapping pod: gpus");
  for (const auto& kv : placement) {
    const std::string f = m.field("placement") + "." + shown(kv.first.Scalar());
    const auto pod = as_integer(kv.first, m.file(), f + " (pod index)", 0, kMaxPods - 1);
    const auto gpus = as_integer(kv.second, m.file(), f, 1, kMaxGpusPerPod);
    if (!j.placement.emplace(static_cast<int>(pod), static_cast<int>(gpus)).second)
      throw InputError(m.file(), f, fmt::format("pod {} is given twice", pod));
  }
  if (j.type == JobType::ps) {
    j.ps_pod = static_cast<int>(m.integer("ps_pod", 0, kMaxPods - 1));
  } else if (m.has("ps_pod")) {
    throw InputError(m.file(), m.field("ps_pod"), "only PS jobs have a parameter server");
  }
  if (m.has("train_s")) j.train_s = m.real("train_s", kMinSeconds, kMaxSeconds);
  if (m.has("aggregate_s")) {
    if (j.type != JobType::ps) throw InputError(m.file(), m.field("aggregate_s"), "only PS jobs aggregate");
    j.aggregate_s = m.real("aggregate_s", kMinSeconds, kMaxSeconds);
  }
  if (m.has("output_bytes_per_gpu")) j.output_bytes_per_gpu = m.real("output_bytes_per_gpu", 1, kMaxBytes);
  return j;
}

GeneratorSpec parse_generator(const YamlMap& m) {
  m.allow_only({"jobs", "seed", "models", "degree", "types", "gpus_per_unit"});
  using namespace limits;
  GeneratorSpec g;
  g.jobs = static_cast<int>(m.integer("jobs", 1, kMaxJobs));
  if (m.has("seed")) {
    const YAML::Node n = m.node("seed");
    if (!n.IsScalar()) throw InputError(m.file(), m.field("seed"), "must be a whole number");
    g.seed = parse_seed(n.Scalar(), m.file(), m.field("seed"));
  }
  if (m.has("models")) {
    for (const auto& [f, text] : m.text_list("models")) g.models.push_back(check_model(text, m.file(), f));
  } else {
    g.models = table3_models();
  }
  if (m.has("degree")) {
    const YAML::Node n = m.node("degree");
    if (!n.IsSequence() || n.size() != 2)
      throw InputError(m.file(), m.field("degree"), "must be a list [min, max]");
    g.degree_min = static_cast<int>(as_integer(n[0], m.file(), m.field("degree") + "[0]", 1, kMaxDegree));
    g.degree_max = static_cast<int>(as_integer(n[1], m.file(), m.field("degree") + "[1]", 1, kMaxDegree));
    if (g.degree_max < g.degree_min) throw InputError(m.file(), m.field("degree"), "needs min <= max");
  }
  if (m.has("types")) {
    for (const auto& [f, text] : m.text_list("types")) g.types.push_back(parse_type(text, m.file(), f));
  } else {
    g.types = {JobType::ps, JobType::rar, JobType::alltoall};
  }
  // GPUs per parallel unit: enough A100-40GB GPUs to hold the FP16 weights with room for activations.
  g.gpus_per_unit = {{"1B", 1}, {"3B", 1}, {"8B", 2}, {"90B", 8}};
  if (m.has("gpus_per_unit")) {
    const YamlMap u = m.map("gpus_per_unit");
    u.allow_only({"1B", "3B", "8B", "90B"});
    for (const auto& name : table3_models())
      if (u.has(name.c_str()))
        g.gpus_per_unit[name] = static_cast<int>(u.integer(name.c_str(), 1, kMaxGpusPerUnit));
  }
  return g;
}

TrainingParams parse_training(const YamlMap& t, int version) {
  using namespace limits;
  t.allow_only({"model", "recompute_factor", "context_tokens", "gpu_tflops", "efficiency", "precision",
                "bytes_per_param", "sequences_per_replica", "split_over_unit"});
  ComputeModel model = version >= 2 ? ComputeModel::physical : ComputeModel::tang_eq8;
  if (t.has("model")) {
    const std::string m = t.text("model");
    if (m == "physical") {
      model = ComputeModel::physical;
    } else if (m == "tang-eq8") {
      model = ComputeModel::tang_eq8;
    } else {
      throw InputError(t.file(), t.field("model"),
                       fmt::format("unknown compute model '{}' (expected tang-eq8 or physical)", shown(m)));
    }
  }
  TrainingParams p = default_training(model);
  if (model == ComputeModel::tang_eq8)
    for (const char* key : {"precision", "bytes_per_param", "sequences_per_replica", "split_over_unit"})
      if (t.has(key))
        throw InputError(t.file(), t.field(key),
                         "only for model: physical (tang-eq8 is the TDM-4 paper's Eq. (8) read literally)");
  if (t.has("recompute_factor")) p.recompute_factor = t.positive("recompute_factor", kMaxRecomputeFactor);
  if (t.has("context_tokens")) p.context_tokens = t.positive("context_tokens", kMaxTokens);
  if (t.has("precision")) {
    p.precision = t.text("precision");
    p.gpu_tflops = a100_peak_tflops(p.precision);
    if (p.gpu_tflops == 0)
      throw InputError(t.file(), t.field("precision"),
                       fmt::format("unknown precision '{}' (expected fp64, tf32, bf16 or fp16: A100 peaks; give "
                                   "gpu_tflops for another GPU)",
                                   shown(p.precision)));
  }
  if (t.has("gpu_tflops")) p.gpu_tflops = t.real("gpu_tflops", kMinGpuTflops, kMaxGpuTflops);
  if (t.has("efficiency")) p.efficiency = t.positive("efficiency", 1.0);
  if (t.has("bytes_per_param")) p.bytes_per_param = t.real("bytes_per_param", 0.125, 16);
  if (t.has("sequences_per_replica")) p.sequences_per_replica = t.positive("sequences_per_replica", kMaxTokens);
  if (t.has("split_over_unit")) {
    const std::string v = t.text("split_over_unit");
    if (v != "true" && v != "false")
      throw InputError(t.file(), t.field("split_over_unit"), fmt::format("must be true or false, not '{}'", shown(v)));
    p.split_over_unit = v == "true";
  }
  if (p.context_tokens * p.sequences_per_replica > kMaxTokens)
    throw InputError(t.file(), t.field("sequences_per_replica"),
                     fmt::format("context_tokens x sequences_per_replica is above the limit of {:g} tokens", kMaxTokens));
  return p;
}

}  // namespace

WorkloadSpec load_workload(const std::string& path) {
  const std::string text = read_input_file(path);
  WorkloadSpec w = parse_workload(parse_yaml(text, path), path);
  w.hash = fingerprint(text);
  return w;
}

WorkloadSpec parse_workload(const YAML::Node& doc, const std::string& path) {
  using namespace limits;
  const YamlMap root(doc, path, "");
  root.allow_only({"version", "training", "traffic", "jobs", "generator"});
  WorkloadSpec w;
  w.file = path;
  if (root.has("version")) {
    w.version = static_cast<int>(root.integer("version", 1, 1'000'000));
    if (w.version > 2)
      throw InputError(path, "version",
                       fmt::format("workload format {} is newer than this odcnsim reads (1 or 2); see docs/model.md",
                                   w.version));
  }
  w.training = root.has("training") ? parse_training(root.map("training"), w.version)
                                    : default_training(w.version >= 2 ? ComputeModel::physical : ComputeModel::tang_eq8);
  if (root.has("traffic")) {
    const YamlMap t = root.map("traffic");
    t.allow_only({"tor"});
    if (t.has("tor")) {
      const std::string m = t.text("tor");
      if (m == "eq5") {
        w.training.tor = TorModel::eq5;
      } else if (m == "physical") {
        w.training.tor = TorModel::physical;
      } else {
        throw InputError(path, t.field("tor"), fmt::format("unknown ToR model '{}' (expected eq5 or physical)", shown(m)));
      }
    }
  }
  if (root.has("jobs") == root.has("generator"))
    throw InputError(path, "jobs", "give exactly one of jobs (explicit list) and generator");
  if (root.has("jobs")) {
    const YAML::Node jobs = root.node("jobs");
    if (!jobs.IsSequence() || jobs.size() == 0) throw InputError(path, "jobs", "must be a non-empty list");
    if (static_cast<std::int64_t>(jobs.size()) > kMaxJobs)
      throw InputError(path, "jobs", fmt::format("lists {} jobs, above the limit of {}", jobs.size(), kMaxJobs));
    for (std::size_t i = 0; i < jobs.size(); ++i)
      w.jobs.push_back(parse_job(YamlMap(jobs[i], path, fmt::format("jobs[{}]", i)), i));
  } else {
    w.generator = parse_generator(root.map("generator"));
  }
  return w;
}

}  // namespace odcn::spec
