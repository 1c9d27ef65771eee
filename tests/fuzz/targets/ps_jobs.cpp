// Fuzz target `ps_jobs`: workloads of parameter-server jobs (spec::parse_ps_workload) and their jobs on a
// platform (workload::make_ps_jobs: explicit jobs checked against it, generated ones drawn and placed), as
// `odcnsim run` reads them for INC-AOI's policies.
//
// Input: as the `inputs` target, a line "%%" separates a platform YAML (before) from the workload (after);
// without one the whole input is the workload on a fixed platform with servers (platforms/inc-aoi-64rack.yaml,
// smaller). Each job's push legs (with and without INC) must be finite, and its job graph acyclic.
#include <cmath>
#include <string_view>

#include "fuzz_common.hpp"
#include "graph/task_graph.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/ps_workload.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

namespace {

constexpr std::string_view kFixedPlatform = R"(kind: clos_ocs
name: inc-aoi-16rack
pods:
  count: 16
  gpus_per_pod: 128
  tor_gbps: 2560
  inc_jobs: 4
  servers_per_pod: 16
  server_gbps: 40
ocs:
  ports_per_pod: 8
  port_gbps: 40
  oxcs: 1
  ports_per_oxc: 128
  pods_per_group: 16
  reconfig_delay_ms: 50
  duplex: full
)";

// Bounds of this harness, under which the jobs are made (above them the workload is only read).
constexpr int kMaxJobs = 5000;
constexpr long long kMaxServers = 1LL << 16;
constexpr std::size_t kMaxGraphs = 16;  // jobs whose graph is checked

void check_job(const odcn::workload::PsJob& j, std::size_t i) {
  using namespace odcn::workload;
  if (j.workers() < 1 || j.rack_of_rank.size() != j.server_of_rank.size())
    odcn_fuzz::broken("ps_jobs: a job without workers or with ranks on no server", j.name);
  for (const bool inc : {false, true}) {
    const double a = inter_rack_bytes(j, inc), b = busiest_nic_bytes(j, inc);
    if (!std::isfinite(a) || a < 0 || !std::isfinite(b) || b < 0)
      odcn_fuzz::broken("ps_jobs: push bytes not a finite number >= 0", j.name);
    job_legs(j, inc);
  }
  if (i < kMaxGraphs) {  // the graph the engine runs (its compute on every rank at once, kAllRanks: it is not a
                        // job-graph file's, so validate() does not apply): acyclic, every task ordered
    const JobGraph g = ps_job_graph(j);
    if (topological_order(g, "ps_job_graph").size() != g.tasks.size())
      odcn_fuzz::broken("ps_jobs: a job's graph orders not all its tasks", j.name);
  }
}

void run_one(const std::string& platform, const std::string& workload) {
  using namespace odcn;
  odcn_fuzz::expect_input_error([&] {
    const YAML::Node doc = spec::parse_yaml(workload, "workload.yaml");
    if (!spec::is_ps_workload(doc)) return;
    const spec::PsWorkloadSpec w = spec::parse_ps_workload(doc, "workload.yaml", "");
    const spec::AnyPlatform p = spec::parse_any_platform(spec::parse_yaml(platform, "platform.yaml"), "platform.yaml");
    if (!p.clos) return;  // `run` takes INC-AOI's policies on clos_ocs only (app/policy_table.cpp)
    if (static_cast<long long>(p.clos->pods) * p.clos->servers_per_pod > kMaxServers) return;
    if ((w.generator ? w.generator->jobs : static_cast<int>(w.jobs.size())) > kMaxJobs) return;
    const auto jobs = workload::make_ps_jobs(w, *p.clos);
    for (std::size_t i = 0; i < jobs.size(); ++i) check_job(jobs[i], i);
    if (odcn_fuzz::verbose()) std::fprintf(stderr, "  %zu jobs made\n", jobs.size());
  });
}

/// Start of the first line that is exactly "%%", or npos.
std::size_t separator_line(std::string_view text) {
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = text.find('\n', start);
    if (text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start) == "%%") return start;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::string_view::npos;
}

}  // namespace

ODCN_FUZZ_TARGET(ps_jobs) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t sep = separator_line(text);
  if (sep != std::string_view::npos) {
    const std::size_t after = sep + 2 < text.size() ? sep + 3 : text.size();
    run_one(std::string(text.substr(0, sep)), std::string(text.substr(after)));
  } else {
    run_one(std::string(kFixedPlatform), std::string(text));
  }
  return 0;
}
