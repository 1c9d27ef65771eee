#include "app/policy_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::app {

namespace {

using P = spec::PlatformKind;
using W = WorkloadKind;

/// THE table. A new system adds its rows here (and its pipeline in sim/app/run_*.cpp); nothing else in the app
/// names a policy. Papers are cited by title in their rows' help.
const std::vector<PolicyEntry> kTable{
    {"static", PolicyId::static_circuits, {},
     "one circuit configuration for the whole run (a circuit per pair with demand, spare ports at the longest "
     "transfer); jobs iterate on their own. Any platform kind for job graphs",
     {W::tdm4_jobs, W::job_graphs}, {}, "lights one configuration for the TDM-4 paper's jobs or for job graphs"},
    {"tdm4", PolicyId::tdm4, {"multistart", "paper", "threshold"},
     "TDM-4 (Tang, Chen, Zhu, \"Scheduling Multiple AI Models in Optical Data Center Networks with a "
     "Time-Division Multiplexing-based Multi-Stage Strategy\"): the four-stage TDM schedule, per-stage OXC topology "
     "(Alg. 2), rings (Alg. 3), and a grouping found by the search: tdm4:multistart (default: the paper's hill "
     "climbing, Alg. 1, and the same climb from the best threshold grouping and from a balanced one), tdm4:paper "
     "(Alg. 1 exactly) or tdm4:threshold; --search SEARCH is the same",
     {W::tdm4_jobs}, {P::clos_ocs}, "plans the TDM-4 paper's jobs (PS, ring all-reduce, all-to-all) on pods"},
    {"aggregate", PolicyId::aggregate, {},
     "non-TDM baseline of TDM-4: every job computes, then every job communicates (PS push and pull apart)",
     {W::tdm4_jobs}, {P::clos_ocs}, "plans the TDM-4 paper's jobs (PS, ring all-reduce, all-to-all) on pods"},
    {"tdm4-ilp", PolicyId::tdm4_ilp, {},
     "the exact ILP of TDM-4 (Tang, Chen, Zhu) §II.D solved by CBC (small instances only)", {W::tdm4_jobs},
     {P::clos_ocs}, "plans the TDM-4 paper's jobs (PS, ring all-reduce, all-to-all) on pods"},
    {"opus", PolicyId::opus, {"provisioned", "on-demand"},
     "Opus (Ouyang, Ding, Singh, \"Photonic Rails in ML Datacenters\"): rail OCSes reconfigured between the "
     "parallelism phases of the jobs' traces, each communication group's circuits set up when it needs them "
     "(opus:on-demand) or, from the first iteration's profile, as soon as the previous phase ends "
     "(opus:provisioned, the default). On an electrical platform it only measures phases and windows",
     {W::job_graphs}, {P::photonic_rail, P::electrical},
     "reconfigures photonic rails (or observes their electrical twin) for job graphs"},
    {"inc-ljf", PolicyId::inc_aoi, {},
     "INC-AOI (Xie, Tang, Chen, Zhu, \"Accelerating DML Training in OCS-based DCNs\"): large-job-first each 1 s "
     "slot (jobs by workers, then push size), in-network aggregation in the ToRs for the largest jobs, circuits "
     "re-planned when a started job needs a rack pair",
     {W::ps_jobs, W::job_graphs}, {P::clos_ocs}, "schedules INC-AOI's parameter-server jobs on racks of servers (docs/inc-aoi.md)", false},
    {"inc-fcfs", PolicyId::inc_aoi, {},
     "INC-AOI's first-come-first-served: jobs start in arrival order (the first that cannot start blocks the "
     "rest), each taking INC and circuits for its own streams, never revisited",
     {W::ps_jobs, W::job_graphs}, {P::clos_ocs}, "schedules INC-AOI's parameter-server jobs on racks of servers (docs/inc-aoi.md)", false},
    {"noinc-ljf", PolicyId::inc_aoi, {}, "inc-ljf without in-network aggregation: every job pushes to a CPU parameter server",
     {W::ps_jobs, W::job_graphs}, {P::clos_ocs}, "schedules INC-AOI's parameter-server jobs on racks of servers (docs/inc-aoi.md)", false},
    {"noinc-fcfs", PolicyId::inc_aoi, {}, "inc-fcfs without in-network aggregation", {W::ps_jobs, W::job_graphs}, {P::clos_ocs},
     "schedules INC-AOI's parameter-server jobs on racks of servers (docs/inc-aoi.md)", false},
    {"inc-group", PolicyId::inc_aoi, {},
     "INC-AOI's grouping-based interleaving: inc-ljf, with running jobs in two cohorts that take turns starting "
     "their pushes (half a slot each), circuits re-planned for the cohort whose turn begins",
     {W::ps_jobs, W::job_graphs}, {P::clos_ocs}, "schedules INC-AOI's parameter-server jobs on racks of servers (docs/inc-aoi.md)", false},
    {"topox", PolicyId::topox, {"auto", "heuristic", "mip", "paper", "aligned", "eq8"},
     "TOPO-X (Hu, Tian, Zhao, Wu, Li, \"TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training "
     "Parallelism\"): one job's transfers and the circuits of a flat layer of OCSes planned together, time slot by "
     "time slot (the RCPSP of Eq. 2-10): CBC's MIP, warm-started from a critical-path heuristic and limited by "
     "--mip-seconds, when the model is small enough, else the heuristic (topox:heuristic, topox:mip force one; "
     "topox:paper plans by the paper's reading, Eq. 6 per transfer with no circuit capacity and no reconfiguration "
     "term, and reports the plan beside what the fabric makes of it; topox:aligned keeps Eq. 4's slot-aligned "
     "starts only, without the continuous-start plan; topox:eq8 counts circuits as the paper's Eq. 8 does, in + "
     "out <= d_S, so a server holds d_S / 2 duplex circuits at once). "
     "One job graph on a flat_ocs platform with slot_ms",
     {W::job_graphs}, {P::flat_ocs}, "schedules circuits of a flat layer of OCSes (TOPO-X §V) for one job graph", false},
    {"topoopt", PolicyId::topoopt, {"released", "proportional"},
     "TopoOpt (Wang et al.) as TOPO-X compares against it: one static topology of degree d_S from the traffic "
     "heatmap (TopologyFinder as released: every port to all-reduce rings; topoopt:proportional splits the degree "
     "between rings and model-parallel matchings), transfers without a direct circuit forwarded hop by hop through "
     "servers. One job graph on flat_ocs",
     {W::job_graphs}, {P::flat_ocs}, "builds one topology of a flat layer of OCSes for one job graph", false},
    {"alone", PolicyId::alone, {},
     "each job by itself on the empty fabric, one after another, on the circuits policy static plans for it "
     "alone: the baseline of every run's slowdown (any platform kind for job graphs)",
     {W::tdm4_jobs, W::job_graphs}, {}, "runs the TDM-4 paper's jobs or job graphs one at a time", false},
};

std::vector<std::string> spellings() {
  std::vector<std::string> all;
  for (const auto& e : kTable) {
    all.push_back(e.name);
    for (const auto& v : e.variants) all.push_back(e.name + ":" + v);
  }
  return all;
}

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

std::string to_string(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::tdm4_jobs: return "the TDM-4 paper's jobs";
    case WorkloadKind::ps_jobs: return "ps_jobs";
    case WorkloadKind::job_graphs: return "job_graphs";
  }
  return "?";
}

const std::vector<PolicyEntry>& policy_table() { return kTable; }

const PolicyEntry& entry_of(PolicyId id) {
  for (const auto& e : kTable)
    if (e.id == id) return e;
  throw std::logic_error("no policy row of this kind");
}

std::optional<PolicyChoice> find_policy(const std::string& name) {
  const auto colon = name.find(':');
  const std::string base = name.substr(0, colon);
  const std::string variant = colon == std::string::npos ? "" : name.substr(colon + 1);
  for (const auto& e : kTable) {
    if (e.name != base) continue;
    if (variant.empty()) return PolicyChoice{&e, e.variants.empty() ? "" : e.variants.front(), name};
    if (std::find(e.variants.begin(), e.variants.end(), variant) != e.variants.end())
      return PolicyChoice{&e, variant, name};
    return std::nullopt;
  }
  return std::nullopt;
}

PolicyChoice policy_or_throw(const std::string& name, const std::string& file, const std::string& field) {
  if (auto p = find_policy(name)) return *p;
  const std::string hint = suggestion(name, spellings());
  throw InputError(file, field,
                   fmt::format("unknown policy '{}' (known: {}; NAME:VARIANT for a variant){}{}", shown(name),
                               policy_names(), hint.empty() ? "" : "; ", hint));
}

std::string policy_names() {
  std::string names;
  for (const auto& e : kTable) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

std::string policy_help() {
  std::string help = "scheduling policy (NAME or NAME:VARIANT; docs/policies.md):";
  for (const auto& e : kTable) {
    help += "\n  " + e.name;
    if (!e.variants.empty()) {
      help += " [";
      for (std::size_t i = 0; i < e.variants.size(); ++i) help += (i ? "|:" : ":") + e.variants[i];
      help += "]";
    }
    help += ": " + e.help;
  }
  return help;
}

void check_workload_platform(WorkloadKind workload, const std::string& workload_file, spec::PlatformKind platform) {
  // The TDM-4 paper's jobs are defined on pods behind ToRs, whatever the policy.
  if (workload == WorkloadKind::tdm4_jobs && platform != spec::PlatformKind::clos_ocs)
    throw InputError(workload_file, "jobs",
                     fmt::format("the TDM-4 paper's jobs run on clos_ocs platforms; on this {} platform, list job "
                                 "graphs under job_graphs (docs/job-graph.md)",
                                 spec::to_string(platform)));
}

void check_accepts(const PolicyChoice& p, WorkloadKind workload, const std::string& workload_file,
                   spec::PlatformKind platform, const std::string& platform_file, const std::string& origin,
                   const std::string& field) {
  check_workload_platform(workload, workload_file, platform);
  const PolicyEntry& e = *p.entry;
  std::string why;
  if (!contains(e.workloads, workload))
    why = fmt::format("{} holds {}", workload_file, to_string(workload));
  else if (!contains(e.platforms, platform))
    why = fmt::format("{} is a platform of kind {}", platform_file, spec::to_string(platform));
  if (why.empty()) return;
  std::string fits;
  for (const auto& other : kTable)
    if (contains(other.workloads, workload) && contains(other.platforms, platform))
      fits += (fits.empty() ? "" : ", ") + other.name;
  throw InputError(origin, field,
                   fmt::format("policy {} {}, and {}{}", p.spelled, e.schedules, why,
                               fits.empty() ? std::string(" (no policy accepts it on this platform)")
                                            : fmt::format(" (policies that accept it here: {})", fits)));
}

}  // namespace odcn::app
