// One full iteration of each job type under policy static, against closed forms derived by hand.
#include <gtest/gtest.h>

#include "app/policies.hpp"
#include "engine/simulation.hpp"
#include "systems/baseline/static_policy.hpp"
#include "support/fabrics.hpp"

using namespace odcn;
using spec::JobType;

namespace {

const double B = 150e9 / 8;
const double Btor = 600e9 / 8;

void expect_rel(double measured, double expected) { EXPECT_NEAR(measured, expected, 1e-9 * expected); }

trace::RunRecord run_one(const net::Fabric& f, const workload::Job& j, int iterations = 1) {
  const std::vector<workload::Job> jobs{j};
  return app::run_static_policy(f, jobs, sched::plan_static(f, jobs), iterations);
}

}  // namespace

TEST(StaticJobs, RingAllReduceOverNPods) {
  // n = 4 pods, one unit of one GPU each, 2 ports per pod: the ring 0->1->2->3->0 gets one circuit per
  // edge, and every edge carries 2(n−1)/n · S. ToR: 2·S per pod over Btor = 4B is smaller.
  const net::Fabric f(test::small_platform(8, 2));
  const double S = 4e9, n = 4, train = 0.75;
  const auto j = test::make_test_job(f, 0, JobType::rar, S / 1e9, 1, {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, -1, train);
  const auto rec = run_one(f, j);
  ASSERT_EQ(rec.iterations.size(), 1u);
  const auto& it = rec.iterations[0];
  expect_rel(it.comm_s, 2 * (n - 1) / n * S / B);
  expect_rel(it.end_s, train + 2 * (n - 1) / n * S / B);
  EXPECT_DOUBLE_EQ(it.circuit_bytes, 4 * 2 * (n - 1) / n * S);
}

TEST(StaticJobs, PsPushIncastLimitedByServerPodPorts) {
  // Units (U=1) in pods 0, 1, 2, k=3 units per pod; the server is in pod 0. Pods 1 and 2 each send 3·Φ to
  // pod 0. Pod 0 has 4 ports, so Alg. 2 gives each pair 2 circuits: push takes 3Φ/(2B) (ToR: 3Φ/Btor is
  // shorter), aggregation runs on pod 0, pull mirrors push.
  const net::Fabric f(test::small_platform(8, 4));
  const double Phi = 2e9, train = 1.5, agg = 0.4;
  const auto j = test::make_test_job(f, 0, JobType::ps, Phi / 1e9, 1, {{0, 3}, {1, 3}, {2, 3}}, 0, train, agg);
  const auto plan = sched::plan_static(f, {j});
  EXPECT_EQ(plan.config.circuits[static_cast<std::size_t>(f.pair_index(0, 1))], 2);
  EXPECT_EQ(plan.config.circuits[static_cast<std::size_t>(f.pair_index(0, 2))], 2);
  const auto rec = run_one(f, j, 2);
  ASSERT_EQ(rec.iterations.size(), 2u);
  const double push = 3 * Phi / (2 * B);
  for (const auto& it : rec.iterations) {
    expect_rel(it.comm_s, 2 * push);
    expect_rel(it.compute_s, train + agg);
    expect_rel(it.end_s - it.start_s, train + push + agg + push);
    EXPECT_EQ(it.wait_s, 0);
  }
  expect_rel(rec.makespan_s, 2 * (train + 2 * push + agg));
}

TEST(StaticJobs, AllToAllIterationStopsAddingCircuitsWhenTorDominates) {
  // Two pods with one unit of U=2 GPUs each, Φ = 2.4 GB: F = Φ/(U·E) = 0.6 GB, A_01 = A_10 = F·U = 1.2 GB, so
  // the pair carries Φ. ToR: 2·G·F·(U−1) = 2.4 GB per pod over Btor = 4B gives Φ/(4B); Alg. 2 adds circuits
  // until Φ/(L·B) <= Φ/(4B), i.e. L = 4, and the phase takes Φ/(4B).
  const net::Fabric f(test::small_platform(8, 4));
  const double Phi = 2.4e9, train = 2.0;
  const auto j = test::make_test_job(f, 0, JobType::alltoall, Phi / 1e9, 2, {{3, 2}, {6, 2}}, -1, train);
  const auto plan = sched::plan_static(f, {j});
  EXPECT_EQ(plan.config.circuits[static_cast<std::size_t>(f.pair_index(3, 6))], 4);
  const auto rec = run_one(f, j);
  expect_rel(rec.iterations.at(0).comm_s, Phi / (4 * B));
  expect_rel(rec.iterations.at(0).comm_s, 2.4e9 / Btor);
  expect_rel(rec.makespan_s, train + Phi / (4 * B));
}

TEST(StaticJobs, IndependentJobsShareACircuitMaxMin) {
  // Two identical RAR jobs over the same two pods (1 port each): their rings share the one circuit, so each
  // collective of 2Φ (Φ each way) takes 4Φ/B while both run.
  const net::Fabric f(test::small_platform(8, 1));
  const double Phi = 1e9, train = 0.2;
  std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 1.0, 1, {{0, 1}, {1, 1}}, -1, train),
                                  test::make_test_job(f, 1, JobType::rar, 1.0, 1, {{0, 1}, {1, 1}}, -1, train)};
  const auto rec = app::run_static_policy(f, jobs, sched::plan_static(f, jobs), 1);
  ASSERT_EQ(rec.iterations.size(), 2u);
  for (const auto& it : rec.iterations) expect_rel(it.comm_s, 4 * Phi / B);
}
