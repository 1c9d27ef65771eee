#include "systems/tdm4/tdm4_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "trace/writers.hpp"

namespace odcn::sched {

Json platform_json(const spec::PlatformSpec& p) {
  Json j = {{"name", p.name},
          {"kind", "clos_ocs"},
          {"pods", p.pods},
          {"gpus_per_pod", p.gpus_per_pod},
          {"tor_bytes_per_s", p.tor_bytes_per_s},
          {"ports_per_pod", p.ports_per_pod},
          {"port_bytes_per_s", p.port_bytes_per_s},
          {"oxcs", p.oxcs},
          {"ports_per_oxc", p.ports_per_oxc},
          {"pods_per_group", p.pods_per_group},
          {"reconfig_delay_s", p.reconfig_delay_s}};
  if (p.inc_jobs > 0) j["inc_jobs"] = p.inc_jobs;
  if (p.servers_per_pod > 0) {
    j["servers_per_pod"] = p.servers_per_pod;
    j["server_bytes_per_s"] = p.server_bytes_per_s;
  }
  if (p.duplex == spec::Duplex::full) j["duplex"] = "full";
  return j;
}

Json training_json(const spec::TrainingParams& t) {
  Json j = {{"model", spec::to_string(t.model)},
                              {"recompute_factor", t.recompute_factor},
                              {"context_tokens", t.context_tokens},
                              {"gpu_tflops", t.gpu_tflops},
                              {"efficiency", t.efficiency},
                              {"tor_model", spec::to_string(t.tor)}};
  if (t.model == spec::ComputeModel::physical) {
    j["precision"] = t.precision;
    j["bytes_per_param"] = t.bytes_per_param;
    j["sequences_per_replica"] = t.sequences_per_replica;
    j["split_over_unit"] = t.split_over_unit;
  }
  return j;
}

Json jobs_json(const std::vector<workload::Job>& jobs) {
  Json arr = Json::array();
  for (const auto& j : jobs) {
    Json placement = Json::object();
    for (const auto& [pod, g] : j.placement) placement[std::to_string(pod)] = g;
    arr.push_back({{"id", j.id},
                   {"name", j.name},
                   {"type", spec::to_string(j.type)},
                   {"model_bytes", j.model_bytes},
                   {"gpus_per_unit", j.gpus_per_unit},
                   {"placement", placement},
                   {"ps_pod", j.ps_pod},
                   {"train_s", j.train_s},
                   {"aggregate_s", j.aggregate_s},
                   {"per_gpu_bytes", j.per_gpu_bytes},
                   {"oxc_group", j.group}});
  }
  return arr;
}

namespace {

/// summary.json's "stages": each planned stage's bound and bottleneck.
Json stage_bottlenecks(const TdmPlan& plan) {
  Json bottlenecks = Json::array();
  for (const auto& st : plan.stages)
    bottlenecks.push_back({{"stage", st.index + 1},
                           {"bound", st.bound},
                           {"pod_group", st.bound_group >= 0 ? Json(st.bound_group) : nullptr},
                           {"bottleneck", st.bound_at},
                           {"comm_s", st.comm_s},
                           {"comm_lower_bound_s", st.comm_lower_bound_s}});
  return bottlenecks;
}

}  // namespace

Json tdm_extras(trace::OutputDir& out, const TdmPlan& plan, const trace::RunRecord& rec,
                const std::vector<workload::Job>& jobs, std::vector<std::string>& notes) {
  Json extras = Json::object();
  // Every round is the same (the fabric starts in steady state): the first one is measured, if it ran in full.
  int rounds = 0;
  for (const auto& st : rec.stages) rounds = std::max(rounds, st.round);
  const std::optional<Seconds> round1 = measured_round_time(rec.stages);
  extras["rounds"] = rounds;
  extras["round_time_s"] = round1 ? Json(*round1) : Json(nullptr);
  if (!round1)
    notes.emplace_back("note: a job finished within the first round, before a stage it was planned in, so no full "
                       "round was measured (round_time_s is null); use --iterations 2 or more");
  extras["predicted_round_time_s"] = plan.round_s;
  extras["seed_round_time_s"] = plan.seed_round_s;
  extras["epsilon_s"] = plan.epsilon_s;
  int group_b = 0;
  for (int g : plan.group_of_job) group_b += g;
  extras["group_a_jobs"] = static_cast<int>(plan.group_of_job.size()) - group_b;
  extras["group_b_jobs"] = group_b;
  extras["hill_climb_moves"] = plan.stats.moves;
  if (plan.policy == "tdm4") {
    extras["pair_moves"] = plan.stats.pair_moves;
    extras["neighbour_evaluations"] = plan.stats.evaluations;
    extras["search"] = plan.search;
    extras["search_start"] = plan.search_start;
  }
  extras["stages"] = stage_bottlenecks(plan);
  // The regime: how the longest training compares with the communication of every job at once.
  double longest = 0;
  for (const auto& j : jobs) longest = std::max(longest, j.train_s);
  extras["training_to_comm_ratio"] = plan.aggregate_comm_s > 0 ? Json(longest / plan.aggregate_comm_s)
                                                              : Json(nullptr);
  if (plan.policy == "tdm4-ilp") {
    extras["ilp_status"] = plan.ilp_status;
    extras["ilp_objective_s"] = plan.ilp_objective_s;
    extras["tdm4_round_time_s"] = plan.heuristic_round_s;
    extras["tdm4_gap"] = plan.ilp_objective_s > 0 ? plan.heuristic_round_s / plan.ilp_objective_s - 1 : 0.0;
  }
  trace::write_stages_csv(out.open("stages.csv"), rec);
  return extras;
}

void print_tdm(const TdmPlan& plan, const Json& extras, bool searched) {
  std::cout << fmt::format("  round time        {} measured, {:.6f} s predicted, {:.6f} s by Eq. (1)+eps; "
                           "{} rounds\n"
                           "  groups            A: {} jobs, B: {} jobs ({} hill-climbing moves)\n",
                           extras["round_time_s"].is_null()
                               ? std::string("n/a (no full round)")
                               : fmt::format("{:.6f} s", extras["round_time_s"].get<double>()),
                           plan.round_s, plan.seed_round_s, extras["rounds"].get<int>(),
                           extras["group_a_jobs"].get<int>(), extras["group_b_jobs"].get<int>(), plan.stats.moves);
  if (searched && extras["group_b_jobs"].get<int>() == 0)
    std::cout << "                    no grouping found beats all jobs in A: this is the aggregate (non-TDM) "
                 "schedule\n";
  for (const auto& st : plan.stages)
    if (st.bound_group >= 0)
      std::cout << fmt::format("  stage {}           {} bound; comm {:.6f} s at pod group {} {} (port lower bound "
                               "{:.6f} s)\n",
                               st.index + 1, st.bound, st.comm_s, st.bound_group, st.bound_at, st.comm_lower_bound_s);
}

}  // namespace odcn::sched
