#include "spec/workload_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/keys.hpp"
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

JobType parse_type(const std::string& s) {
  if (s == "ps") return JobType::ps;
  return s == "rar" ? JobType::rar : JobType::alltoall;
}

/// Model names are TDM-4's Table III (the key table's words).
const char* const kModelNote = "TDM-4's Table III";

JobSpec parse_job(const YamlMap& m, std::size_t index) {
  m.allow_only();
  using namespace limits;
  JobSpec j;
  j.name = m.has("name") ? checked_name(m.text("name"), m.file(), m.field("name")) : fmt::format("job{}", index);
  j.type = parse_type(m.word("type", "job type"));
  if (m.has("model") == m.has("params_gb"))
    throw InputError(m.file(), m.field("model"), "give exactly one of model and params_gb");
  if (m.has("model")) {
    j.model = m.word("model", "model", kModelNote);
    j.params_gb = table3_params_gb(j.model);
  } else {
    j.params_gb = m.real("params_gb");
  }
  j.gpus_per_unit = static_cast<int>(m.integer("gpus_per_unit"));
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
    j.ps_pod = static_cast<int>(m.integer("ps_pod"));
  } else if (m.has("ps_pod")) {
    throw InputError(m.file(), m.field("ps_pod"), "only PS jobs have a parameter server");
  }
  if (m.has("train_s")) j.train_s = m.real("train_s");
  if (m.has("aggregate_s")) {
    if (j.type != JobType::ps) throw InputError(m.file(), m.field("aggregate_s"), "only PS jobs aggregate");
    j.aggregate_s = m.real("aggregate_s");
  }
  if (m.has("output_bytes_per_gpu")) j.output_bytes_per_gpu = m.real("output_bytes_per_gpu");
  return j;
}

GeneratorSpec parse_generator(const YamlMap& m) {
  m.allow_only();
  using namespace limits;
  GeneratorSpec g;
  g.jobs = static_cast<int>(m.integer("jobs"));
  if (m.has("seed")) {
    const YAML::Node n = m.node("seed");
    if (!n.IsScalar()) throw InputError(m.file(), m.field("seed"), "must be a whole number");
    g.seed = parse_seed(n.Scalar(), m.file(), m.field("seed"));
  }
  if (m.has("models")) {
    for (const auto& [f, text] : m.text_list("models")) g.models.push_back(m.checked_word("models", text, f, "model", kModelNote));
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
    for (const auto& [f, text] : m.text_list("types")) g.types.push_back(parse_type(m.checked_word("types", text, f, "job type")));
  } else {
    g.types = {JobType::ps, JobType::rar, JobType::alltoall};
  }
  // GPUs per parallel unit (the key table's defaults): enough A100-40GB GPUs to hold the FP16 weights with room
  // for activations.
  const YamlMap u = m.has("gpus_per_unit") ? m.map("gpus_per_unit") : m.element(YAML::Node(YAML::NodeType::Map), m.field("gpus_per_unit"));
  u.allow_only();
  for (const auto& name : table3_models()) g.gpus_per_unit[name] = static_cast<int>(u.integer_or(name.c_str()));
  return g;
}

TrainingParams parse_training(const YamlMap& t, int version) {
  using namespace limits;
  t.allow_only();
  ComputeModel model = version >= 2 ? ComputeModel::physical : ComputeModel::tang_eq8;
  if (t.has("model")) model = t.word("model", "compute model") == "physical" ? ComputeModel::physical : ComputeModel::tang_eq8;
  TrainingParams p = default_training(model);
  if (model == ComputeModel::tang_eq8)
    for (const char* key : {"precision", "bytes_per_param", "sequences_per_replica", "split_over_unit"})
      if (t.has(key))
        throw InputError(t.file(), t.field(key),
                         "only for model: physical (tang-eq8 is the TDM-4 paper's Eq. (8) read literally)");
  if (t.has("recompute_factor")) p.recompute_factor = t.real("recompute_factor");
  if (t.has("context_tokens")) p.context_tokens = t.real("context_tokens");
  if (t.has("precision")) {
    p.precision = t.word("precision", "precision", "A100 peaks; give gpu_tflops for another GPU");
    p.gpu_tflops = a100_peak_tflops(p.precision);
  }
  if (t.has("gpu_tflops")) p.gpu_tflops = t.real("gpu_tflops");
  if (t.has("efficiency")) p.efficiency = t.real("efficiency");
  if (t.has("bytes_per_param")) p.bytes_per_param = t.real("bytes_per_param");
  if (t.has("sequences_per_replica")) p.sequences_per_replica = t.real("sequences_per_replica");
  if (t.has("split_over_unit")) p.split_over_unit = t.boolean("split_over_unit");
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
  const YamlMap root(doc, path, "", &tdm4_workload_keys());
  root.allow_only();
  WorkloadSpec w;
  w.file = path;
  if (root.has("version")) {
    w.version = static_cast<int>(root.integer("version"));
    if (w.version > 2)
      throw InputError(path, "version",
                       fmt::format("workload format {} is newer than this odcnsim reads (1 or 2); see docs/model.md",
                                   w.version));
  }
  w.training = root.has("training") ? parse_training(root.map("training"), w.version)
                                    : default_training(w.version >= 2 ? ComputeModel::physical : ComputeModel::tang_eq8);
  if (root.has("traffic")) {
    const YamlMap t = root.map("traffic");
    t.allow_only();
    if (t.has("tor")) w.training.tor = t.word("tor", "ToR model") == "eq5" ? TorModel::eq5 : TorModel::physical;
  }
  if (root.has("jobs") == root.has("generator"))
    throw InputError(path, "jobs", "give exactly one of jobs (explicit list) and generator");
  if (root.has("jobs")) {
    const YAML::Node jobs = root.node("jobs");
    if (!jobs.IsSequence() || jobs.size() == 0) throw InputError(path, "jobs", "must be a non-empty list");
    if (static_cast<std::int64_t>(jobs.size()) > kMaxJobs)
      throw InputError(path, "jobs", fmt::format("lists {} jobs, above the limit of {}", jobs.size(), kMaxJobs));
    for (std::size_t i = 0; i < jobs.size(); ++i)
      w.jobs.push_back(parse_job(root.element(jobs[i], fmt::format("jobs[{}]", i)), i));
  } else {
    w.generator = parse_generator(root.map("generator"));
  }
  return w;
}

}  // namespace odcn::spec
