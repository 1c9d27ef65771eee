// The key tables of the three workload kinds (spec/keys.hpp). The compute model's defaults come from
// default_training, Table III's models and the A100 peaks from workload_spec, the PS models from ps_workload,
// the importer options' words from graph_workload: each is written once, there.
#include <fmt/format.h>

#include <limits>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "spec/graph_workload.hpp"
#include "spec/keys.hpp"
#include "spec/ps_workload.hpp"
#include "spec/workload_spec.hpp"

namespace odcn::spec {

namespace {

using namespace limits;
using Words = std::vector<std::string>;

Key integer(std::string path, double lo, double hi, std::string fallback, std::string help) {
  return make_key(KeyType::integer, std::move(path), "", lo, hi, std::move(fallback), std::move(help));
}
Key word(std::string path, Words words, std::string fallback, std::string help) {
  return make_key(KeyType::word, std::move(path), "", 0, 0, std::move(fallback), std::move(help), std::move(words));
}
Key of_type(KeyType type, std::string path, std::string fallback, std::string help, Words words = {}) {
  return make_key(type, std::move(path), "", 0, 0, std::move(fallback), std::move(help), std::move(words));
}
std::string g(double x) { return fmt::format("{:g}", x); }

/// The compute model a TDM-4 workload document uses: training.model, else physical from version 2 on.
ComputeModel model_of(const YAML::Node& root) {
  const YAML::Node m = root["training"] ? root["training"]["model"] : YAML::Node();
  if (m && m.IsScalar()) return m.Scalar() == "physical" ? ComputeModel::physical : ComputeModel::tang_eq8;
  const YAML::Node v = root["version"];  // read as the reader reads it ("01" is 1); the reader refused anything else
  std::int64_t version = 1;
  if (v && v.IsScalar()) {
    try {
      version = parse_integer(v.Scalar(), 1, 1'000'000, "", "version");
    } catch (const InputError&) {
    }
  }
  return version >= 2 ? ComputeModel::physical : ComputeModel::tang_eq8;
}
/// The training parameters a document's absent keys take: its compute model's, with the peak of its precision.
TrainingParams defaults_of(const YAML::Node& root) {
  TrainingParams p = default_training(model_of(root));
  const YAML::Node precision = root["training"] ? root["training"]["precision"] : YAML::Node();
  if (precision && precision.IsScalar() && a100_peak_tflops(precision.Scalar()) > 0) {
    p.precision = precision.Scalar();
    p.gpu_tflops = a100_peak_tflops(p.precision);
  }
  return p;
}

/// A training key whose default is the compute model's (default_training).
Key training(KeyType type, std::string path, std::string unit, double lo, double hi, std::string help,
             std::function<std::string(const TrainingParams&)> value) {
  Key k = make_key(type, std::move(path), std::move(unit), lo, hi, "", std::move(help));
  const std::string tang = value(default_training(ComputeModel::tang_eq8));
  const std::string physical = value(default_training(ComputeModel::physical));
  k.fallback = tang == physical ? tang : fmt::format("(tang-eq8: {}; physical: {})", tang, physical);
  k.fallback_in = [value](const YAML::Node& root) { return value(defaults_of(root)); };
  return k;
}

}  // namespace

const Schema& tdm4_workload_keys() {
  static const Schema s = [] {
    Words precisions;
    for (const char* p : {"fp64", "tf32", "bf16", "fp16"})
      if (a100_peak_tflops(p) > 0) precisions.push_back(p);
    Words models = table3_models();
    const GeneratorSpec gen;
    std::vector<Key> k{
        integer("version", 1, 1'000'000, "1", "the workload format: 1 or 2 (2: the physical compute model by default)"),
        training(KeyType::word, "training.model", "", 0, 0, "the compute model (tang-eq8: TDM-4's Eq. (8) as written)",
                 [](const TrainingParams& p) { return std::string(to_string(p.model)); }),
        training(KeyType::positive, "training.recompute_factor", "", 0, kMaxRecomputeFactor,
                 "K: FLOPs per parameter per token", [](const TrainingParams& p) { return g(p.recompute_factor); }),
        training(KeyType::positive, "training.context_tokens", "tokens", 0, kMaxTokens, "tokens of one sequence",
                 [](const TrainingParams& p) { return g(p.context_tokens); }),
        training(KeyType::real, "training.gpu_tflops", "TFLOP/s", kMinGpuTflops, kMaxGpuTflops,
                 "one GPU's peak (physical: the precision's A100 peak unless given)",
                 [](const TrainingParams& p) { return g(p.gpu_tflops); }),
        training(KeyType::positive, "training.efficiency", "", 0, 1, "GPU utilisation (model FLOPs utilisation)",
                 [](const TrainingParams& p) { return g(p.efficiency); }),
        training(KeyType::word, "training.precision", "", 0, 0, "physical only: the precision of gpu_tflops",
                 [](const TrainingParams& p) { return p.precision; }),
        training(KeyType::real, "training.bytes_per_param", "B", 0.125, 16, "physical only: bytes of one weight",
                 [](const TrainingParams& p) { return g(p.bytes_per_param); }),
        training(KeyType::positive, "training.sequences_per_replica", "", 0, kMaxTokens,
                 "physical only: sequences per data-parallel replica per iteration",
                 [](const TrainingParams& p) { return g(p.sequences_per_replica); }),
        training(KeyType::boolean, "training.split_over_unit", "", 0, 0,
                 "physical only: a unit's GPUs share its tokens",
                 [](const TrainingParams& p) { return std::string(p.split_over_unit ? "true" : "false"); }),
        training(KeyType::word, "traffic.tor", "", 0, 0, "the ToR model (eq5: TDM-4's Eq. (5))",
                 [](const TrainingParams& p) { return std::string(to_string(p.tor)); }),
        of_type(KeyType::text, "jobs[].name", "(jobN)", "the job's name"),
        word("jobs[].type", {"ps", "rar", "alltoall"}, "", "its communication pattern"),
        word("jobs[].model", models, "(or params_gb)", "a Llama-3 model of TDM-4's Table III"),
        make_key(KeyType::positive, "jobs[].params_gb", "GB", 0, kMaxParamsGb, "(or model)", "its parameters"),
        integer("jobs[].gpus_per_unit", 1, kMaxGpusPerUnit, "", "GPUs of one parallel unit"),
        of_type(KeyType::mapping, "jobs[].placement", "", "pod: GPUs, for every pod it uses"),
        integer("jobs[].ps_pod", 0, kMaxPods - 1, "(PS jobs: required)", "the parameter server's pod"),
        make_key(KeyType::real, "jobs[].train_s", "s", kMinSeconds, kMaxSeconds, "(the compute model's)",
             "one iteration's compute"),
        make_key(KeyType::real, "jobs[].aggregate_s", "s", kMinSeconds, kMaxSeconds, "(PS jobs: from the model)",
             "the parameter server's aggregation"),
        make_key(KeyType::real, "jobs[].output_bytes_per_gpu", "B", 1, kMaxBytes, "(from the model)",
             "bytes each GPU sends per collective"),
        integer("generator.jobs", 1, kMaxJobs, "", "jobs to draw"),
        of_type(KeyType::text, "generator.seed", "(--seed, else 1)", "the draw's seed (0 to 2^64-1)"),
        of_type(KeyType::list, "generator.models", "(all of Table III)", "models to draw from", models),
        of_type(KeyType::list, "generator.degree", fmt::format("[{}, {}]", gen.degree_min, gen.degree_max),
                "[min, max] parallel units of a job"),
        of_type(KeyType::list, "generator.types", "(ps, rar, alltoall)", "job types to draw from",
                {"ps", "rar", "alltoall"}),
    };
    const std::map<std::string, int> units{{"1B", 1}, {"3B", 1}, {"8B", 2}, {"90B", 8}};
    for (const auto& m : models)
      k.push_back(integer("generator.gpus_per_unit." + m, 1, kMaxGpusPerUnit, std::to_string(units.at(m)),
                          "GPUs of one parallel unit of model " + m));
    const auto words = [&](const std::string& path, Words w) {
      for (auto& key : k)
        if (key.path == path) key.words = std::move(w);
    };
    words("training.model", {"tang-eq8", "physical"});
    for (auto& key : k)
      if (key.path == "training.model") key.fallback = "(version 1: tang-eq8; version 2: physical)";
    words("training.precision", precisions);
    words("traffic.tor", {"eq5", "physical"});
    return Schema("tdm4-jobs", "workload: jobs on pods, listed or drawn (TDM-4)", std::move(k),
                  {"training", "traffic", "generator.gpus_per_unit"});
  }();
  return s;
}

const Schema& ps_workload_keys() {
  static const Schema s = [] {
    std::vector<Key> k{
        of_type(KeyType::text, "name", "(the file's path)", "a name for the outputs"),
        make_key(KeyType::real, "ps_jobs.slot_s", "s", kMinSeconds, kMaxSeconds, "1", "the scheduler's time slot"),
        word("ps_jobs.ps_server", {"colocated", "dedicated", "sharded"}, "colocated", "where the parameter server runs"),
        word("ps_jobs.scheduler.ljf_key", {"workers", "volume"}, "workers", "what longest-job-first ranks by"),
        of_type(KeyType::boolean, "ps_jobs.scheduler.reserve", "false", "reserve circuits for waiting jobs"),
        make_key(KeyType::real, "ps_jobs.scheduler.group_delay", "", 0, 1, "(none)",
             "inc-group: the start delay, a fraction of a slot (strictly between 0 and 1)"),
        word("ps_jobs.scheduler.group_gate", {"every-iteration", "once"}, "every-iteration", "inc-group's gate"),
        word("ps_jobs.scheduler.group_cohorts", {"ratio", "arrival"}, "ratio", "inc-group's cohorts"),
        integer("ps_jobs.generator.jobs", 1, kMaxJobs, "", "jobs to draw"),
        of_type(KeyType::text, "ps_jobs.generator.seed", "(--seed, else 1)", "the draw's seed (0 to 2^64-1)"),
        make_key(KeyType::positive, "ps_jobs.generator.arrivals_per_s", "1/s", 0, 1e9, "20", "Poisson arrival rate"),
        of_type(KeyType::mapping, "ps_jobs.generator.workers", "uniform",
                "uniform, philly, or a mapping of worker counts (2 to 65536) to weights"),
        integer("ps_jobs.generator.iterations", 1, kMaxIterations, std::to_string(kDefaultPsIterations),
                "iterations of every job"),
        of_type(KeyType::text, "ps_jobs.generator.models[].name", "", "a model's name"),
        make_key(KeyType::positive, "ps_jobs.generator.models[].push_gb", "GB", 0, kMaxParamsGb, "", "its push"),
        make_key(KeyType::real, "ps_jobs.generator.models[].compute_ms", "ms", 0, kMaxSeconds, "", "its compute"),
        of_type(KeyType::text, "ps_jobs.jobs[].name", "", "the job's name"),
        make_key(KeyType::real, "ps_jobs.jobs[].arrival_s", "s", 0, kMaxSeconds, "0", "when it arrives"),
        of_type(KeyType::text, "ps_jobs.jobs[].model", "(none)", "its model's name (informative)"),
        make_key(KeyType::positive, "ps_jobs.jobs[].push_gb", "GB", 0, kMaxParamsGb, "", "bytes each worker pushes"),
        make_key(KeyType::real, "ps_jobs.jobs[].compute_ms", "ms", 0, kMaxSeconds, "", "one iteration's compute"),
        integer("ps_jobs.jobs[].iterations", 1, kMaxIterations, "1", "its iterations"),
        of_type(KeyType::list, "ps_jobs.jobs[].servers", "", "its workers as [rack, server], at least 2"),
        of_type(KeyType::list, "ps_jobs.jobs[].ps", "(rank 0's server)", "the parameter server as [rack, server]"),
    };
    std::string models;
    for (const auto& m : inc_aoi_models()) models += (models.empty() ? "" : ", ") + m.name;
    k.push_back(of_type(KeyType::list, "ps_jobs.generator.models", "(" + models + ")", "models to draw from"));
    return Schema("ps-jobs", "workload: parameter-server jobs on racks' servers (INC-AOI)", std::move(k),
                  {"ps_jobs.scheduler"});
  }();
  return s;
}

const Schema& graph_workload_keys() {
  static const Schema s = [] {
    std::vector<Key> k{
        of_type(KeyType::text, "name", "(the file's path)", "a name for the outputs"),
        of_type(KeyType::text, "job_graphs[].file", "(or files)", "a job-graph file, or one trace for every rank"),
        of_type(KeyType::list, "job_graphs[].files", "(or file)", "kineto or chakra: one trace per rank"),
        word("job_graphs[].format", {"job-graph", "kineto", "chakra"}, "job-graph", "what the files are"),
        of_type(KeyType::list, "job_graphs[].endpoints", "",
                "rank i on the i-th: a list of indices and ranges (\"0-15\"), or {start, count, stride}"),
        integer("job_graphs[].endpoints.start", 0, kMaxEndpoints - 1, "", "the first endpoint"),
        integer("job_graphs[].endpoints.count", 1, kMaxEndpoints, "", "endpoints"),
        integer("job_graphs[].endpoints.stride", 1, kMaxEndpoints - 1, "1", "the step between endpoints"),
        of_type(KeyType::text, "job_graphs[].name", "(the graph's)", "the job's name"),
        integer("job_graphs[].iterations", 1, kMaxIterations, "(--iterations, else the graph's)", "its iterations"),
        make_key(KeyType::real, "job_graphs[].arrival_s", "s", 0, kMaxSeconds, "0", "when it starts"),
        integer("job_graphs[].step", 0, std::numeric_limits<int>::max(), "(the first complete step)", "kineto: the ProfilerStep#N imported"),
        of_type(KeyType::boolean, "job_graphs[].replicate", "false", "kineto: one trace stands for every rank"),
        of_type(KeyType::text, "job_graphs[].groups", "(none)", "chakra: the process-group file"),
        integer("job_graphs[].ranks", 1, kMaxEndpoints, "(the files')", "chakra: ranks of the job"),
    };
    const std::map<std::string, std::string> meaning{
        {"streams", "each CUDA stream a chain, overlapping as recorded; or a rank's events one chain"},
        {"ctrl_deps", "ctrl_deps as a dependency (order), or as the caller chakra's converter puts there"},
        {"algorithm", "ring or direct, for every collective"},
        {"compute", "a rank's operations one at a time, or as many at once as dependencies allow"}};
    for (const auto& o : importer_options())
      if (!o.words.empty())
        k.push_back(word(std::string("job_graphs[].") + o.key, o.words, o.fallback,
                         fmt::format("{}: {} (docs/traces.md)", to_string(o.format), meaning.at(o.key))));
    return Schema("job-graphs", "workload: job graphs or traces placed on endpoints (any platform)", std::move(k));
  }();
  return s;
}

}  // namespace odcn::spec
