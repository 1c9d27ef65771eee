// `run` for a workload of job graphs (spec/graph_workload.hpp): static, alone and opus on any platform kind they
// accept, and topox and topoopt on one job of a flat_ocs platform.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <iostream>

#include "app/graph_inputs.hpp"
#include "app/policies.hpp"
#include "app/run_common.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "spec/overrides.hpp"
#include "systems/opus/opus_outputs.hpp"
#include "systems/topox/flat_policies.hpp"

namespace odcn::app {

namespace {

/// What every job-graph run shares: the graphs on the platform, and run.json's description of them.
class GraphRunBase : public PlannedRun {
 public:
  GraphRunBase(const RunInputs& in, spec::GraphWorkloadSpec w)
      : o_(in.o), platform_(in.platform), platform_hash_(in.platform_hash), w_(std::move(w)) {
    if (o_.seed) throw InputError("command line", "--seed", "a workload of job graphs has nothing random to seed");
    // Without --iterations, each graph runs the iterations its file (or the workload) gives it.
    in_ = load_graph_inputs(platform_, w_, o_.iterations);
  }
  std::vector<std::string> job_names() const override {
    std::vector<std::string> names;
    for (const auto& g : in_->graphs) names.push_back(g.name);
    return names;
  }
  /// trace.json: a process per job, a thread per rank (docs/outputs.md).
  std::vector<std::string> job_groups() const override { return job_names(); }
  int iterations() const override { return o_.iterations; }
  double plan_wall_s() const override { return plan_wall_; }
  Json summary_head(const trace::RunRecord& rec) const override {
    return {{"policy", o_.policy},
            {"platform_kind", in_->network.kind},
            {"jobs", in_->jobs.size()},
            {"iterations", o_.iterations > 0 ? Json(o_.iterations) : Json(nullptr)},
            {"iteration_rows", rec.iterations.size()}};
  }

 protected:
  /// run.json's platform: the kind as the engine sees it.
  Json platform_json() const {
    const net::Network& n = in_->network;
    return {{"file", o_.platform},      {"hash", platform_hash_}, {"kind", n.kind}, {"endpoints", n.endpoints},
            {"endpoint", n.endpoint_word}, {"reconfig_delay_s", n.reconfig_delay_s}};
  }
  Json job_json(std::size_t i) const {
    const auto& g = in_->graphs[i];
    return {{"id", i},          {"name", g.name},           {"file", w_.jobs[i].file},
            {"ranks", g.ranks}, {"tasks", g.tasks.size()}, {"iterations", g.iterations}};
  }
  std::vector<engine::JobToRun> engine_jobs() const {
    std::vector<engine::JobToRun> to_run;
    for (std::size_t i = 0; i < in_->jobs.size(); ++i)
      to_run.push_back({static_cast<int>(i), in_->jobs[i].name, &in_->graphs[i], in_->jobs[i].endpoints, {}, {}});
    return to_run;
  }
  void print_header() const {
    std::cout << fmt::format("odcnsim {} | policy {} | {} job graph{} on {} ({} {}s)\n", ODCNSIM_VERSION, o_.policy,
                             in_->jobs.size(), in_->jobs.size() == 1 ? "" : "s", in_->network.kind,
                             in_->network.endpoints, in_->network.endpoint_word);
    for (std::size_t i = 0; i < in_->graphs.size(); ++i)  // what an importer read other than at face value
      for (const auto& n : in_->graphs[i].notes)
        std::cout << fmt::format("  import note       {}: {}\n", escape_line(w_.jobs[i].file), escape_line(n));
  }

  RunOptions o_;
  const spec::AnyPlatform& platform_;
  std::string platform_hash_;
  spec::GraphWorkloadSpec w_;
  std::unique_ptr<GraphInputs> in_;
  double plan_wall_ = 0;
};

/// static, alone and opus.
class GraphsRun : public GraphRunBase {
 public:
  GraphsRun(const RunInputs& in, spec::GraphWorkloadSpec w) : GraphRunBase(in, std::move(w)) {
    opus_ = o_.id == PolicyId::opus;
    if (opus_) sched::parse_opus_mode(o_.variant, mode_);  // the table's variants are Opus's modes
    rails_ = platform_.kind == spec::PlatformKind::photonic_rail;
    const auto t0 = Clock::now();
    try {  // before any output: a workload the fabric cannot carry is bad input
      if (opus_) {
        const auto hops = rails_ && platform_.rail->split_hop_circuits ? sched::HopCircuits::split
                                                                       : sched::HopCircuits::whole_nic;
        groups_ = std::make_unique<sched::RailGroups>(in_->network, in_->jobs, rails_ ? platform_.rail->nic_ports : 0,
                                                      w_.file, hops);
      }
      else
        plan_ = plan_static_graphs(platform_, *in_, w_.file);
    } catch (const ConfigError& e) {
      if (opus_) throw InputError(w_.file, "job_graphs", e.what());
      throw static_refusal(platform_, *in_, w_.file, e);
    }
    plan_wall_ = seconds_since(t0);
  }
  trace::RunRecord simulate(const engine::EngineOptions& eo) override {
    const auto to_run = engine_jobs();
    try {
      if (o_.id == PolicyId::alone) return run_alone_graphs(platform_, in_->network, in_->jobs, to_run, w_.file, eo);
      if (opus_) {
        opus_controller_ = std::make_unique<sched::OpusController>(in_->network, in_->jobs, *groups_, mode_, rails_);
        return engine::run(in_->network, to_run, *opus_controller_, eo);
      }
      sched::GraphStaticController controller(plan_.config);
      return engine::run(in_->network, to_run, controller, eo);
    } catch (const ConfigError& e) {
      throw InputError(w_.file, "job_graphs", e.what());
    }
  }
  Json run_json() const override {
    Json jobs = Json::array();
    for (std::size_t i = 0; i < in_->jobs.size(); ++i) {
      Json j = job_json(i);
      j["arrival_s"] = in_->graphs[i].arrival_s;
      j["endpoints"] = in_->jobs[i].endpoints;
      jobs.push_back(std::move(j));
    }
    return {{"platform", platform_json()},
            {"workload", {{"file", o_.workload}, {"hash", w_.hash}}},
            {"overrides", overrides_json(o_)},
            {"policy", o_.policy},
            {"jobs", jobs},
            {"static_circuits", o_.id == PolicyId::static_circuits ? static_circuits() : Json(nullptr)}};
  }
  Json extras(trace::OutputDir& out, const trace::RunRecord& rec, std::vector<std::string>&) override {
    if (!opus_) return Json::object();
    return sched::opus_outputs(out, *opus_controller_, *groups_, in_->jobs, in_->network, rec, mode_, rails_);
  }
  void print(const RunMetrics& m, const Json& extras, const trace::RunRecord&, double sim_wall_s) const override {
    print_header();
    print_metrics(m);
    if (o_.id == PolicyId::static_circuits)
      std::cout << fmt::format("  circuits          {} lit for the whole run\n", static_circuits().size());
    if (opus_) sched::print_opus(extras);
    print_wall_and_outputs(o_, plan_wall_, sim_wall_s, false);
    if (opus_) std::cout << fmt::format("  windows           {}/windows.csv\n", escape_line(o_.out));
  }

 private:
  Json static_circuits() const {
    Json circuits = Json::array();
    const auto& c = plan_.config.circuits;
    for (std::size_t p = 0; p < c.size(); ++p)
      if (c[p] > 0)
        circuits.push_back({{"a", in_->network.pairs[p].first}, {"b", in_->network.pairs[p].second}, {"circuits", c[p]}});
    return circuits;
  }

  bool opus_ = false, rails_ = false;
  sched::OpusMode mode_ = sched::OpusMode::provisioned;
  sched::GraphStaticPlan plan_;
  std::unique_ptr<sched::RailGroups> groups_;
  std::unique_ptr<sched::OpusController> opus_controller_;
};

/// topox and topoopt: one job on the whole flat_ocs fabric, its ranks lowered to servers.
class FlatRun : public GraphRunBase {
 public:
  FlatRun(const RunInputs& in, spec::GraphWorkloadSpec w) : GraphRunBase(in, check_one_job(in, std::move(w))) {
    const auto t0 = Clock::now();
    try {
      plan_ = sched::plan_flat(*platform_.flat, o_.platform, in_->graphs[0], in_->jobs[0],
                               o_.id == PolicyId::topox, o_.variant, o_.mip_seconds, w_.file);
    } catch (const ConfigError& e) {
      throw InputError(w_.file, "job_graphs", e.what());
    }
    plan_wall_ = seconds_since(t0);
  }
  std::vector<std::string> job_names() const override { return {in_->graphs[0].name}; }
  trace::RunRecord simulate(const engine::EngineOptions& eo) override {
    std::vector<int> servers(static_cast<std::size_t>(plan_.flows.ranks));
    for (int s = 0; s < plan_.flows.ranks; ++s) servers[static_cast<std::size_t>(s)] = s;
    const std::vector<engine::JobToRun> to_run{{0, in_->graphs[0].name, &plan_.flows, servers, {}, {}}};
    const net::Network& network = in_->network;
    try {
      if (plan_.topox) {
        controller_ = std::make_unique<sched::TopoxController>(*platform_.flat, network, plan_.plan);
        return engine::run(network, to_run, *controller_, eo);
      }
      sched::GraphStaticController fixed(net::counts_of(*platform_.flat, network, plan_.topology.circuits));
      return engine::run(network, to_run, fixed, eo);
    } catch (const ConfigError& e) {
      throw InputError(w_.file, "job_graphs", e.what());
    }
  }
  Json run_json() const override {
    Json platform = platform_json();
    platform["slot_s"] = platform_.flat->slot_s;
    Json job = job_json(0);
    job["endpoints"] = in_->jobs[0].endpoints;
    return {{"platform", platform},
            {"workload", {{"file", o_.workload}, {"hash", w_.hash}}},
            {"overrides", overrides_json(o_)},
            {"policy", o_.policy},
            {"jobs", Json::array({job})}};
  }
  Json extras(trace::OutputDir& out, const trace::RunRecord&, std::vector<std::string>&) override {
    return sched::flat_extras(out, plan_, late_releases());
  }
  void print(const RunMetrics& m, const Json&, const trace::RunRecord& rec, double sim_wall_s) const override {
    const spec::FlatOcsSpec& flat = *platform_.flat;
    std::cout << fmt::format("odcnsim {} | policy {} | {} on {} ({} servers, {} OCSes of {} ports, {} Gb/s ports)\n",
                             ODCNSIM_VERSION, o_.policy, escape_line(in_->graphs[0].name), in_->network.kind,
                             flat.servers, flat.ocs_count, flat.ocs_ports, flat.port_bytes_per_s * 8 / 1e9);
    print_metrics(m);
    sched::print_flat(plan_, late_releases(), rec);
    print_wall_and_outputs(o_, plan_wall_, sim_wall_s, false);
    if (plan_.topox) std::cout << fmt::format("  slots             {}/{{slots.csv,slot_circuits.csv}}\n", escape_line(o_.out));
  }

 private:
  static spec::GraphWorkloadSpec check_one_job(const RunInputs& in, spec::GraphWorkloadSpec w) {
    if (w.jobs.size() != 1)
      throw InputError(w.file, "job_graphs",
                       fmt::format("policy {} plans one training job on the whole fabric (TOPO-X §V); this workload "
                                   "has {} jobs",
                                   in.o.policy, w.jobs.size()));
    return w;
  }
  int late_releases() const { return controller_ ? controller_->late_releases() : 0; }

  sched::FlatPlan plan_;
  std::unique_ptr<sched::TopoxController> controller_;
};

}  // namespace

std::unique_ptr<PlannedRun> plan_graphs(const RunInputs& in) {
  if (in.o.id == PolicyId::inc_aoi) return plan_ps_jobs(in);  // parameter-server graphs as INC-AOI's jobs
  spec::GraphWorkloadSpec w = spec::read_with_overrides(in.o.overrides, false, [&] {
    return spec::parse_graph_workload(*in.workload_doc, in.o.workload, in.workload_hash);
  });
  if (in.o.id == PolicyId::topox || in.o.id == PolicyId::topoopt)
    return std::make_unique<FlatRun>(in, std::move(w));
  return std::make_unique<GraphsRun>(in, std::move(w));
}

}  // namespace odcn::app
