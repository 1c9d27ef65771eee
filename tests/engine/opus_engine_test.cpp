// Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters") on the engine: a hand-built trace whose times
// follow in closed form, delay 0 against the electrical twin, and provisioning against on-demand on the Llama3-8B
// TorchTitan-like preset (the paper's §3.1).
#include <gtest/gtest.h>

#include <vector>

#include "engine/simulation.hpp"
#include "net/network.hpp"
#include "systems/opus/opus.hpp"
#include "graph/task_graph.hpp"
#include "systems/opus/torchtitan.hpp"

using namespace odcn;
using workload::Task;
using workload::TaskKind;

namespace {

void expect_rel(double measured, double expected) { EXPECT_NEAR(measured, expected, 1e-9 * expected); }

spec::PhotonicRailSpec rail(Seconds delay, int domains = 4, int gpus = 4) {
  spec::PhotonicRailSpec r;
  r.file = "test";
  r.domains = domains;
  r.gpus_per_domain = gpus;
  r.scaleup_bytes_per_s = gbps_to_bytes_per_s(2400);
  r.nic_ports = 2;
  r.port_bytes_per_s = gbps_to_bytes_per_s(200);
  r.ocs = {"test", delay, 576};
  return r;
}

Task compute(int rank, double s, std::vector<int> deps = {}) {
  return workload::compute_task("c" + std::to_string(rank), rank, s, std::move(deps));
}
/// A ring all-gather over two ranks: each sends S/2 to the other.
Task all_gather(int a, int b, double bytes, std::vector<int> deps) {
  return workload::collective_task("ag" + std::to_string(a) + std::to_string(b), workload::CollectiveOp::all_gather,
                                   workload::CollectiveAlgorithm::ring, {a, b}, bytes, std::move(deps));
}

trace::RunRecord run_opus(const net::Network& n, const workload::JobGraph& g, const std::vector<int>& endpoints,
                          sched::OpusMode mode, bool reconfigure, int ports) {
  const std::vector<sched::GraphJob> jobs{{g.name, &g, endpoints, "job_graphs[0]"}};
  const sched::RailGroups groups(n, jobs, ports, "test");
  sched::OpusController c(n, jobs, groups, mode, reconfigure);
  return engine::run(n, {{0, g.name, &g, endpoints, {}, {}}}, c);
}

/// Rank 0 computes c, all-gathers with rank 1 (group A), then with rank 2 (group B); three iterations.
workload::JobGraph two_phases(double c, double bytes) {
  workload::JobGraph g;
  g.name = "two-phases";
  g.ranks = 3;
  g.iterations = 3;
  g.tasks = {compute(0, c), all_gather(0, 1, bytes, {0}), all_gather(0, 2, bytes, {1})};
  return g;
}

}  // namespace

// Rank 0 all-gathers with rank 1 (group A: GPUs 0-4), then with rank 2 (group B: GPUs 0-8), on rail 0. On
// demand, each needs its group's circuits: both of GPU 0's ports to its peer (2 x 200 Gb/s), set up after δ. So
// each iteration takes compute + 2 (δ + (S/2) / 400 Gb/s), exactly.
TEST(OpusEngine, OnDemandPaysTheDelayOncePerPhaseChange) {
  const double delay = 0.01, bytes = 1e9, c = 0.1;
  const net::Network n = net::network_of(rail(delay));
  const workload::JobGraph g = two_phases(c, bytes);
  const auto rec = run_opus(n, g, {0, 4, 8}, sched::OpusMode::on_demand, true, 2);
  const double per = c + 2 * (delay + bytes / 2 / gbps_to_bytes_per_s(400));
  ASSERT_EQ(rec.iterations.size(), 3u);
  for (const auto& row : rec.iterations) {
    expect_rel(row.end_s - row.start_s, per);
    expect_rel(row.reconfig_stall_s, 2 * delay);
  }
  EXPECT_EQ(rec.reconfigurations, 6);
}

// With provisioning, once the first iteration has been profiled, A's circuits are set up as soon as B's
// all-gather ends, and the compute (c > δ) hides that set-up; B's circuits are set up as soon as A's all-gather
// ends, with no window before B: B still waits δ.
TEST(OpusEngine, ProvisioningHidesTheDelayInTheWindow) {
  const double delay = 0.01, bytes = 1e9, c = 0.1;
  const net::Network n = net::network_of(rail(delay));
  const workload::JobGraph g = two_phases(c, bytes);
  const auto rec = run_opus(n, g, {0, 4, 8}, sched::OpusMode::provisioned, true, 2);
  const double wire = bytes / 2 / gbps_to_bytes_per_s(400);
  ASSERT_EQ(rec.iterations.size(), 3u);
  // Iteration 0 is profiled on demand.
  expect_rel(rec.iterations[0].end_s - rec.iterations[0].start_s, c + 2 * (delay + wire));
  for (int i = 1; i < 3; ++i) expect_rel(rec.iterations[static_cast<std::size_t>(i)].end_s - rec.iterations[static_cast<std::size_t>(i)].start_s, c + 2 * wire + delay);
}
