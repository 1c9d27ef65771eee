// Eq. (4)-(5): per-phase pod-pair and ToR traffic of each job type, by hand on small placements.
#include <gtest/gtest.h>

#include "support/fabrics.hpp"
#include "systems/tdm4/traffic.hpp"

using namespace odcn;
using spec::JobType;

namespace {

Bytes flow(const workload::PhaseTraffic& t, int src, int dst) {
  for (const auto& f : t.flows)
    if (f.src == src && f.dst == dst) return f.bytes;
  return 0;
}
Bytes tor(const workload::PhaseTraffic& t, int pod) {
  for (const auto& v : t.tor)
    if (v.pod == pod) return v.bytes;
  return 0;
}

}  // namespace

TEST(Traffic, PsPushAndPullFollowEq4) {
  const net::Fabric fabric(test::small_platform());
  // 6 GPUs in units of 2: unit 0 = pod 0 x2; unit 1 = pod 0 + pod 1 (master in pod 0); unit 2 = pod 1 x2.
  const auto j = test::make_test_job(fabric, 0, JobType::ps, 2.0, 2, {{0, 3}, {1, 3}}, /*ps_pod=*/1);
  const Bytes F = 1e9;  // Φ / U
  ASSERT_DOUBLE_EQ(j.per_gpu_bytes, F);
  const auto layout = workload::unit_layout(j);
  EXPECT_EQ(layout.masters.at(0), 2);  // PN_0
  EXPECT_EQ(layout.masters.at(1), 1);  // PN_1
  EXPECT_DOUBLE_EQ(layout.gather.at({1, 0}), F);  // FI_{1,0}: pod 1's GPU of unit 1 sends to its master
  const auto push = workload::fixed_phase_traffic(j, 0);
  EXPECT_DOUBLE_EQ(flow(push, 0, 1), 2 * F * 2);  // PN_0·F·U + FI_{0,1}
  EXPECT_DOUBLE_EQ(flow(push, 1, 0), F);          // FI_{1,0}
  EXPECT_EQ(push.flows.size(), 2u);
  EXPECT_DOUBLE_EQ(tor(push, 0), 3 * F);  // Eq. (5): G_i·F
  EXPECT_DOUBLE_EQ(tor(push, 1), 3 * F);
  const auto pull = workload::fixed_phase_traffic(j, 1);
  EXPECT_DOUBLE_EQ(flow(pull, 1, 0), 4 * F);  // the transpose
  EXPECT_DOUBLE_EQ(flow(pull, 0, 1), F);
}

TEST(Traffic, AllToAllFollowsEq4And5) {
  const net::Fabric fabric(test::small_platform());
  // 4 units of 2 GPUs, two in pod 2 and two in pod 5; F = Φ / (U·E) = 8e9 / 8.
  const auto j = test::make_test_job(fabric, 0, JobType::alltoall, 8.0, 2, {{2, 4}, {5, 4}});
  const Bytes F = 1e9;
  ASSERT_DOUBLE_EQ(j.per_gpu_bytes, F);
  const auto t = workload::fixed_phase_traffic(j, 0);
  EXPECT_DOUBLE_EQ(flow(t, 2, 5), 2 * 2 * F * 2);  // AN_2·AN_5·F·U
  EXPECT_DOUBLE_EQ(flow(t, 5, 2), 2 * 2 * F * 2);
  EXPECT_DOUBLE_EQ(tor(t, 2), 2 * 4 * F * (2 - 1));  // 2·G_i·F·(U−1)
}

TEST(Traffic, RingCarriesExactAllReduceVolume) {
  const net::Fabric fabric(test::small_platform());
  const auto j = test::make_test_job(fabric, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}, {2, 1}});
  // E = 3 units: each ring edge carries 2(E-1)/E · F·U = 4/3 · 3e9.
  EXPECT_DOUBLE_EQ(workload::ring_edge_bytes(j), 4e9);
  EXPECT_EQ(workload::master_pods(j), (std::vector<int>{0, 1, 2}));
  const auto t = workload::ring_traffic(j, {{0, 1}, {1, 2}, {2, 0}});
  EXPECT_DOUBLE_EQ(flow(t, 0, 1), 4e9);
  EXPECT_DOUBLE_EQ(flow(t, 2, 0), 4e9);
  EXPECT_DOUBLE_EQ(flow(t, 1, 0), 0);
  EXPECT_DOUBLE_EQ(tor(t, 1), 2 * 3e9);  // 2·G_i·F
}

TEST(Traffic, Eq8TrainingTime) {
  spec::TrainingParams p;
  EXPECT_EQ(p.model, spec::ComputeModel::tang_eq8);
  // The literal reading ignores U: every GPU of the unit processes the whole context.
  EXPECT_DOUBLE_EQ(workload::training_time(p, 177.6, 8), 8.0 * 8192 * 177.6e9 / (26e12 * 0.4));
  EXPECT_NEAR(workload::training_time(p, 177.6, 8), 11639193.6 / 10400, 1e-9);  // the 1,119 s
  p.context_tokens = 32768;
  EXPECT_DOUBLE_EQ(workload::training_time(p, 2.46, 1), 4 * 8.0 * 8192 * 2.46e9 / (26e12 * 0.4));
}

TEST(Traffic, PhysicalTrainingTime) {
  const spec::TrainingParams p = spec::default_training(spec::ComputeModel::physical);
  EXPECT_EQ(p.gpu_tflops, 312);
  EXPECT_EQ(p.bytes_per_param, 2);
  // 90B: 177.6 GB of BF16 = 88.8e9 parameters; 8 FLOPs per parameter per token, 8,192 tokens, shared by
  // U = 8 GPUs at 0.4 x 312 TFLOP/s: 8 x 8192 x 88.8e9 / (8 x 124.8e12) = 5.829...s
  EXPECT_DOUBLE_EQ(workload::training_time(p, 177.6, 8), 8.0 * 8192 * 88.8e9 / (8 * 312e12 * 0.4));
  EXPECT_NEAR(workload::training_time(p, 177.6, 8), 5.8289, 1e-4);
  // 1B on one GPU: 1.23e9 parameters.
  EXPECT_DOUBLE_EQ(workload::training_time(p, 2.46, 1), 8.0 * 8192 * 1.23e9 / (312e12 * 0.4));
  spec::TrainingParams q = p;
  q.sequences_per_replica = 4;
  q.split_over_unit = false;
  // four sequences per replica, each GPU of the unit on all of them: 4 x 8 = 32 times as long
  EXPECT_NEAR(workload::training_time(q, 177.6, 8), 32 * workload::training_time(p, 177.6, 8), 1e-12);
}

namespace {

workload::Job physical_tor(workload::Job j) {
  j.tor = spec::TorModel::physical;
  return j;
}

}  // namespace

TEST(Traffic, PhysicalTorCountsPsIncast) {
  // Three pods, one GPU each, U = 1, server in pod 0: the push sends F from pods 1 and 2 to pod 0. Eq. (5)
  // charges every ToR G_i·F = F; the physical ToR of pod 0 carries both pushes and its own GPU's: 3F.
  const net::Fabric fabric(test::small_platform());
  const auto j = physical_tor(test::make_test_job(fabric, 0, JobType::ps, 2.0, 1, {{0, 1}, {1, 1}, {2, 1}}, 0));
  const Bytes F = 2e9;
  for (int phase : {0, 1}) {  // pull is the transpose: the same volumes
    const auto t = workload::fixed_phase_traffic(j, phase);
    EXPECT_DOUBLE_EQ(tor(t, 0), 3 * F) << "phase " << phase;
    EXPECT_DOUBLE_EQ(tor(t, 1), F);
    EXPECT_DOUBLE_EQ(tor(t, 2), F);
  }
  const auto eq5 = workload::fixed_phase_traffic(test::make_test_job(fabric, 0, JobType::ps, 2.0, 1,
                                                                     {{0, 1}, {1, 1}, {2, 1}}, 0),
                                                 0);
  EXPECT_DOUBLE_EQ(tor(eq5, 0), F);
}

TEST(Traffic, PhysicalTorGivesAllToAllWithOneGpuPerUnitItsTraffic) {
  // Three units of one GPU in pods 0, 1, 2: F = Φ/(U·E) = 1 GB each way between every two pods. Eq. (5):
  // A_i = 2·G_i·F·(U−1) = 0; physical: each pod sends 2F and receives 2F through its ToR.
  const net::Fabric fabric(test::small_platform());
  const auto base = test::make_test_job(fabric, 0, JobType::alltoall, 3.0, 1, {{0, 1}, {1, 1}, {2, 1}});
  const Bytes F = 1e9;
  ASSERT_DOUBLE_EQ(base.per_gpu_bytes, F);
  EXPECT_TRUE(workload::fixed_phase_traffic(base, 0).tor.empty());
  const auto t = workload::fixed_phase_traffic(physical_tor(base), 0);
  for (int pod : {0, 1, 2}) EXPECT_DOUBLE_EQ(tor(t, pod), 4 * F);
  EXPECT_DOUBLE_EQ(flow(t, 0, 1), F);  // the circuit traffic is the same under both models
}

TEST(Traffic, PhysicalTorOfARingIsItsArcsInAndOut) {
  // Ring 0 -> 1 -> 2 -> 0 of three one-GPU units: each arc carries V = 2(E−1)/E·F·U = 4/3·3e9 = 4e9; each pod
  // sends one arc and receives one: 8e9 (Eq. 5: 2·G_i·F = 6e9).
  const net::Fabric fabric(test::small_platform());
  const auto j = physical_tor(test::make_test_job(fabric, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}, {2, 1}}));
  const auto t = workload::ring_traffic(j, {{0, 1}, {1, 2}, {2, 0}});
  for (int pod : {0, 1, 2}) EXPECT_DOUBLE_EQ(tor(t, pod), 8e9);
}
