#include "spec/ps_workload.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/keys.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

using namespace limits;

const std::vector<PsModel>& inc_aoi_models() {
  // Push sizes: INC-AOI §IV. VGG16 138,357,544 and GPT2-large 774,030,080 FP32 parameters x 4 B; "4.0 GB" is a
  // Llama3-8B of 4-bit size. Compute: 3 x forward FLOPs at 40 % of an A100's 312 TFLOP/s (docs/inc-aoi.md).
  static const std::vector<PsModel> models{{"vgg16", 0.552e9, 0.0476},
                                           {"gpt2-large", 3.096e9, 0.342},
                                           {"llama3-8b", 4.0e9, 0.84}};
  return models;
}

std::map<int, double> worker_weights(const std::string& name) {
  if (name == "uniform") return {{2, 1}, {4, 1}, {8, 1}, {16, 1}};
  // Gavel's Philly-derived scale factors (1: 70 %, 2: 10 %, 4: 15 %, 8: 5 %) given at least 2 workers, with
  // 1/12 moved from 8 to 16 workers, which INC-AOI draws and Gavel's distribution lacks.
  if (name == "philly") return {{2, 4.0 / 12}, {4, 6.0 / 12}, {8, 1.0 / 12}, {16, 1.0 / 12}};
  return {};
}

bool is_ps_workload(const YAML::Node& doc) { return doc.IsMap() && doc["ps_jobs"]; }

namespace {

PsModel read_model(const YamlMap& m) {
  m.allow_only();
  PsModel model;
  model.name = checked_name(m.text("name"), m.file(), m.field("name"));
  model.push_bytes = m.real("push_gb") * 1e9;
  model.compute_s = m.real("compute_ms") / 1e3;
  return model;
}

PsGeneratorSpec read_generator(const YamlMap& g) {
  g.allow_only();
  PsGeneratorSpec s;
  s.jobs = static_cast<int>(g.integer("jobs"));
  if (g.has("seed")) {
    const YAML::Node n = g.node("seed");
    if (!n.IsScalar()) throw InputError(g.file(), g.field("seed"), "must be a whole number");
    s.seed = parse_seed(n.Scalar(), g.file(), g.field("seed"));
  }
  s.arrivals_per_s = g.real_or("arrivals_per_s");
  s.iterations = static_cast<int>(g.integer_or("iterations"));
  if (!g.has("workers") || g.node("workers").IsScalar()) {
    s.workers_name = g.text_or("workers", "uniform");
    s.workers = worker_weights(s.workers_name);
    if (s.workers.empty())
      throw InputError(g.file(), g.field("workers"),
                       fmt::format("must be uniform, philly or a map of worker counts to weights (got '{}')",
                                   shown(s.workers_name)));
  } else {
    const YAML::Node w = g.node("workers");
    if (!w.IsMap() || w.size() == 0)
      throw InputError(g.file(), g.field("workers"), "must be uniform, philly or a map of worker counts to weights");
    s.workers_name = "weights";
    double total = 0;
    for (const auto& kv : w) {
      const std::string key = as_text(kv.first, g.file(), g.field("workers"));
      const std::string field = g.field("workers") + "." + key;
      const auto n = as_integer(kv.first, g.file(), field, 2, 64 * 1024);
      const YamlMap one(w, g.file(), g.field("workers"));
      const double weight = one.real(key.c_str(), 0, 1e9);
      if (s.workers.count(static_cast<int>(n)))
        throw InputError(g.file(), field, "worker count given twice");
      s.workers[static_cast<int>(n)] = weight;
      total += weight;
    }
    if (!(total > 0)) throw InputError(g.file(), g.field("workers"), "the weights must not all be 0");
  }
  if (g.has("models")) {
    const YAML::Node list = g.node("models");
    if (!list.IsSequence() || list.size() == 0)
      throw InputError(g.file(), g.field("models"), "must be a non-empty list of {name, push_gb, compute_ms}");
    for (std::size_t i = 0; i < list.size(); ++i)
      s.models.push_back(read_model(g.element(list[i], fmt::format("{}[{}]", g.field("models"), i))));
  } else {
    s.models = inc_aoi_models();
  }
  return s;
}

PsJobSpec read_job(const YamlMap& m) {
  m.allow_only();
  PsJobSpec j;
  j.name = checked_name(m.text("name"), m.file(), m.field("name"));
  j.arrival_s = m.real_or("arrival_s");
  j.model = m.has("model") ? checked_name(m.text("model"), m.file(), m.field("model")) : "";
  j.push_bytes = m.real("push_gb") * 1e9;
  j.compute_s = m.real("compute_ms") / 1e3;
  j.iterations = static_cast<int>(m.integer_or("iterations"));
  const YAML::Node list = m.node("servers");
  if (!list.IsSequence() || list.size() < 2)
    throw InputError(m.file(), m.field("servers"),
                     "must list at least 2 workers as [rack, server] (rank 0's server runs the parameter server)");
  const auto server_at = [&](const YAML::Node& s, const std::string& field) {
    if (!s.IsSequence() || s.size() != 2) throw InputError(m.file(), field, "must be [rack, server]");
    return std::make_pair(static_cast<int>(as_integer(s[0], m.file(), field + "[0]", 0, kMaxPods - 1)),
                          static_cast<int>(as_integer(s[1], m.file(), field + "[1]", 0, kMaxGpusPerPod - 1)));
  };
  for (std::size_t i = 0; i < list.size(); ++i)
    j.servers.push_back(server_at(list[i], fmt::format("{}[{}]", m.field("servers"), i)));
  if (m.has("ps")) j.ps = server_at(m.node("ps"), m.field("ps"));
  return j;
}

}  // namespace

const char* to_string(PsServer p) {
  switch (p) {
    case PsServer::colocated: return "colocated";
    case PsServer::dedicated: return "dedicated";
    case PsServer::sharded: return "sharded";
  }
  return "?";
}

namespace {

PsServer read_ps_server(const YamlMap& ps) {
  const std::string name = ps.word_or("ps_server");
  for (PsServer p : {PsServer::colocated, PsServer::dedicated})
    if (name == to_string(p)) return p;
  return PsServer::sharded;
}

PsSchedulerSpec read_scheduler(const YamlMap& m) {
  if (m.has("base_topology"))  // (here in 0.1.0 builds before the platform key; the OXC's circuits are the fabric's)
    throw InputError(m.file(), m.field("base_topology"),
                     "the base topology is now the platform's: write it as ocs.base_topology in the platform file "
                     "(or --set ocs.base_topology=ring), and remove it here");
  m.allow_only();
  PsSchedulerSpec s;
  s.ljf_by_volume = m.word_or("ljf_key") == "volume";
  s.reserve = m.boolean_or("reserve");
  if (m.has("group_delay")) {
    s.group_delay = m.real("group_delay");
    if (!(s.group_delay > 0 && s.group_delay < 1))
      throw InputError(m.file(), m.field("group_delay"), "must lie strictly between 0 and 1 (a fraction of a slot)");
  }
  s.group_every_iteration = m.word_or("group_gate") == "every-iteration";
  s.group_by_arrival = m.word_or("group_cohorts") == "arrival";
  return s;
}

}  // namespace

PsWorkloadSpec parse_ps_workload(const YAML::Node& doc, const std::string& path, const std::string& hash) {
  PsWorkloadSpec w;
  w.file = path;
  w.hash = hash;
  const YamlMap root(doc, path, "", &ps_workload_keys());
  root.allow_only();
  const YamlMap ps = root.map("ps_jobs");
  ps.allow_only();
  w.slot_s = ps.real_or("slot_s");
  w.ps_server = read_ps_server(ps);
  if (ps.has("scheduler")) w.scheduler = read_scheduler(ps.map("scheduler"));
  if (ps.has("generator") == ps.has("jobs"))
    throw InputError(path, "ps_jobs", "give exactly one of generator (drawn jobs) and jobs (explicit jobs)");
  if (ps.has("generator")) {
    w.generator = read_generator(ps.map("generator"));
    return w;
  }
  const YAML::Node list = ps.node("jobs");
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(path, "ps_jobs.jobs", "must be a non-empty list of jobs");
  if (list.size() > static_cast<std::size_t>(kMaxJobs))
    throw InputError(path, "ps_jobs.jobs", fmt::format("at most {} jobs", kMaxJobs));
  for (std::size_t i = 0; i < list.size(); ++i)
    w.jobs.push_back(read_job(ps.element(list[i], fmt::format("ps_jobs.jobs[{}]", i))));
  return w;
}

}  // namespace odcn::spec
