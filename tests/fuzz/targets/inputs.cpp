// Fuzz target `inputs`: the platform and workload YAML readers, and the path from specs to a plan.
//
// Input encoding (tests/fuzz/README.md):
//   * bytes with a line that is exactly "%%": the part before that line is the platform YAML, the part after it
//     the workload YAML;
//   * bytes without such a line: used twice, as the workload against a fixed small platform (clos-8pod) and as
//     the platform under a fixed small generated workload.
//
// Expected outcomes: odcn::InputError from reading (invalid input), odcn::ConfigError from planning (a
// configuration the fabric cannot carry). Anything else is a finding: another exception escapes (libFuzzer
// reports it as a crash, fuzz_replay as a failure), and a broken contract calls abort() after printing why:
//   * an InputError whose message is not exactly one printable UTF-8 line (core/error.hpp promises one);
//   * a plan that passes Fabric::check but leaves a flow without a circuit, or predicts a time that is not a
//     finite number >= 0.
// Each whole input also goes through the YAML readers scenario_from_text does not reach: every platform kind
// (parse_any_platform) and workloads of job graphs (parse_graph_workload). The other formats have targets of
// their own (tests/fuzz/targets/). Built as fuzz_inputs (libFuzzer) and into fuzz_replay (fuzz_common.hpp).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "net/fabric.hpp"
#include "systems/tdm4/plan.hpp"
#include "systems/baseline/static_policy.hpp"
#include "systems/tdm4/tdm4_policy.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/graph_workload.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/tdm4/scenario.hpp"

namespace {

using odcn_fuzz::broken;
using odcn_fuzz::check_message;
using odcn_fuzz::verbose;

// platforms/clos-8pod.yaml, without its comments.
constexpr std::string_view kFixedPlatform = R"(kind: clos_ocs
name: clos-8pod
pods:
  count: 8
  gpus_per_pod: 64
  tor_gbps: 600
ocs:
  ports_per_pod: 4
  port_gbps: 150
  oxcs: 1
  ports_per_oxc: 32
  pods_per_group: 8
  reconfig_delay_us: 200
)";

// A generated workload, so that it deploys on whatever platform the input describes.
constexpr std::string_view kFixedWorkload = R"(training:
  context_tokens: 2048
generator:
  jobs: 24
  seed: 7
  models: [1B, 3B, 8B]
  degree: [2, 6]
)";

// Bounds under which a scenario is planned (larger ones are only read): every planner then finishes in well
// under a second with the sanitizers on. tdm4's hill climb evaluates every job per move, and Alg. 2 adds one
// circuit per step over all pairs of a pod group, so jobs, group size and ports per pod are what cost.
constexpr std::size_t kMaxPlanJobs = 300;
constexpr int kMaxPlanPods = 512;
constexpr int kMaxPlanPodsPerGroup = 64;
constexpr int kMaxPlanPortsPerPod = 64;
constexpr long long kMaxPlanJobGpus = 1LL << 20;  ///< GPUs of all jobs: traffic is built GPU by GPU

bool small_enough(const odcn::workload::Scenario& s) {
  if (s.jobs.size() > kMaxPlanJobs) return false;
  if (s.platform.pods > kMaxPlanPods || s.platform.pods_per_group > kMaxPlanPodsPerGroup ||
      s.platform.ports_per_pod > kMaxPlanPortsPerPod)
    return false;
  long long gpus = 0;
  for (const auto& j : s.jobs) gpus += j.gpus();
  return gpus <= kMaxPlanJobGpus;
}

void check_time(double t, const char* what) {
  if (!std::isfinite(t) || t < 0) broken("plan predicts a time that is not a finite number >= 0", what);
}

/// Every flow of a plan that passed Fabric::check runs on at least one circuit of its pod pair.
void check_flows(const odcn::net::Fabric& fabric, const odcn::net::CircuitConfig& config,
                 const odcn::workload::PhaseTraffic& traffic, const char* policy) {
  for (const auto& f : traffic.flows) {
    const int p = fabric.pair_index(f.src, f.dst);
    if (p < 0 || config.circuits[static_cast<std::size_t>(p)] < 1)
      broken("plan leaves a flow without a circuit",
             std::string(policy) + ": pods " + std::to_string(f.src) + " -> " + std::to_string(f.dst));
    if (!std::isfinite(f.bytes) || f.bytes <= 0) broken("plan has a flow of no or non-finite bytes", policy);
  }
}

void check_tdm(const odcn::net::Fabric& fabric, const odcn::sched::TdmPlan& plan, const char* policy) {
  for (const auto& st : plan.stages) fabric.check(st.config);  // what the TDM controller does first
  for (const auto& st : plan.stages) {
    for (const auto& w : st.work) check_flows(fabric, st.config, w.traffic, policy);
    check_time(st.comm_s, "comm_s");
    check_time(st.compute_s, "compute_s");
    check_time(st.predicted_s, "predicted_s");
  }
  check_time(plan.round_s, "round_s");
  check_time(plan.seed_round_s, "seed_round_s");
}

void plan_all(const odcn::workload::Scenario& s) {
  const odcn::net::Fabric& fabric = *s.fabric;
  try {
    const auto plan = odcn::sched::plan_static(fabric, s.jobs);
    for (const auto& phases : plan.job_phases)
      for (const auto& t : phases) check_flows(fabric, plan.config, t, "static");
    if (verbose()) std::fprintf(stderr, "  static: planned\n");
  } catch (const odcn::ConfigError& e) {
    if (verbose()) std::fprintf(stderr, "  static: ConfigError: %s\n", e.what());
  }
  try {
    const auto plan = odcn::sched::plan_tdm4(fabric, s.jobs, odcn::sched::Tdm4Options{});
    check_tdm(fabric, plan, "tdm4");
    if (verbose()) std::fprintf(stderr, "  tdm4: planned, %d moves, round %g s\n", plan.stats.moves, plan.round_s);
  } catch (const odcn::ConfigError& e) {
    if (verbose()) std::fprintf(stderr, "  tdm4: ConfigError: %s\n", e.what());
  }
  try {
    check_tdm(fabric, odcn::sched::plan_aggregate(fabric, s.jobs), "aggregate");
    if (verbose()) std::fprintf(stderr, "  aggregate: planned\n");
  } catch (const odcn::ConfigError& e) {
    if (verbose()) std::fprintf(stderr, "  aggregate: ConfigError: %s\n", e.what());
  }
}

void run_one(const std::string& platform, const std::string& workload) {
  odcn::workload::Scenario s;
  try {
    s = odcn::workload::scenario_from_text(platform, "platform.yaml", workload, "workload.yaml");
  } catch (const odcn::InputError& e) {
    check_message(e);
    return;
  }
  const bool plan = small_enough(s);
  if (verbose())
    std::fprintf(stderr, "  scenario: %d pods, %zu jobs, %zu unplaced%s\n", s.platform.pods, s.jobs.size(),
                 s.unplaced.size(), plan ? "" : "; too large to plan here");
  if (plan) plan_all(s);
}

/// Start of the first line that is exactly "%%", or npos.
std::size_t separator_line(std::string_view text) {
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (line == "%%") return start;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::string_view::npos;
}

/// The YAML readers scenario_from_text does not reach: every platform kind and workloads of job graphs.
void read_other_formats(const std::string& text) {
  odcn_fuzz::expect_input_error([&] {
    const YAML::Node doc = odcn::spec::parse_yaml(text, "graphs.yaml");
    if (odcn::spec::is_graph_workload(doc)) odcn::spec::parse_graph_workload(doc, "graphs.yaml", "");
  });
  odcn_fuzz::expect_input_error([&] {
    odcn::spec::parse_any_platform(odcn::spec::parse_yaml(text, "platform.yaml"), "platform.yaml");
  });
}

}  // namespace

ODCN_FUZZ_TARGET(inputs) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  read_other_formats(std::string(text));
  const std::size_t sep = separator_line(text);
  if (sep != std::string_view::npos) {
    const std::size_t after = sep + 2 < text.size() ? sep + 3 : text.size();  // skip "%%" and its '\n'
    run_one(std::string(text.substr(0, sep)), std::string(text.substr(after)));
  } else {
    const std::string whole(text);
    run_one(std::string(kFixedPlatform), whole);
    run_one(whole, std::string(kFixedWorkload));
  }
  return 0;
}
