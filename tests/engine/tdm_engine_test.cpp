// The engine runs TDM plans: every stage it measures equals the planner's prediction, and the round time
// equals the closed form on hand-made instances.
#include <gtest/gtest.h>

#include <map>

#include "app/metrics.hpp"
#include "app/policies.hpp"
#include "engine/simulation.hpp"
#include "systems/tdm4/tdm4_policy.hpp"
#include "support/fabrics.hpp"
#include "systems/tdm4/deployment.hpp"
#include "systems/tdm4/generator.hpp"

using namespace odcn;
using spec::JobType;

namespace {
const double B = 150e9 / 8;
const double Phi = 3e9;
}  // namespace

TEST(TdmEngine, TwoRingJobsRoundMatchesClosedForm) {
  const net::Fabric f(test::small_platform(2, 1));
  const double t = 2 * Phi / B;
  std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, t),
                                  test::make_test_job(f, 1, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, t)};
  const auto plan = sched::plan_tdm4(f, jobs);
  // Five iterations each. Every stage lasts t = 2Φ/B (a job trains for t, or sends 2Φ over one circuit),
  // and a job completes two iterations per round. Group A (communicates in stages 1 and 3) starts with a warm
  // iteration and ends its 5th full one at round 3, stage 3; group B ends at round 3, stage 2. The run ends
  // there: 11 stages, 22 Φ/B.
  const auto rec = app::run_tdm_policy(f, jobs, plan, 5);
  EXPECT_NEAR(rec.makespan_s, 11 * t, 1e-9 * 11 * t);
  EXPECT_EQ(rec.reconfigurations, 0);
  ASSERT_EQ(rec.stages.size(), 11u);
  int warm = 0, full = 0;
  for (const auto& it : rec.iterations) {
    (it.warm ? warm : full)++;
    if (!it.warm) {
      EXPECT_NEAR(it.end_s - it.start_s, 2 * t, 1e-9 * t);  // train one stage, communicate the next
    }
  }
  EXPECT_EQ(warm, 1);
  EXPECT_EQ(full, 2 * 5);
  ASSERT_EQ(rec.jobs.size(), 2u);
  EXPECT_NEAR(std::max(rec.jobs[0].done_s, rec.jobs[1].done_s), 11 * t, 1e-9 * t);
  EXPECT_NEAR(std::min(rec.jobs[0].done_s, rec.jobs[1].done_s), 10 * t, 1e-9 * t);
}

TEST(TdmEngine, ReconfigurationEveryStageMatchesPrediction) {
  const double delay = 200e-6;
  const net::Fabric f(test::small_platform(3, 1, 150, 600, delay * 1e6));
  std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, 0.1),
                                  test::make_test_job(f, 1, JobType::rar, 3.0, 1, {{0, 1}, {2, 1}}, -1, 0.1)};
  const auto plan = sched::plan_tdm4(f, jobs);
  // Three iterations each, two per round: group A (warm) ends at round 2, stage 3, so 7 stages, each of which
  // changes circuits.
  const auto rec = app::run_tdm_policy(f, jobs, plan, 3);
  const double stage = delay + (2 * Phi - delay) / B;  // the new circuit is dark (1 B/s) for δ
  ASSERT_EQ(rec.stages.size(), 7u);
  for (const auto& s : rec.stages) {
    EXPECT_NEAR(s.end_s - s.start_s, stage, 1e-9 * stage);
    EXPECT_EQ(s.circuits_changed, 2);
    EXPECT_DOUBLE_EQ(s.reconfig_s, delay);
  }
  EXPECT_EQ(rec.reconfigurations, 7);
  for (const auto& it : rec.iterations) EXPECT_NEAR(it.reconfig_stall_s, delay, 1e-12);
}

namespace {

/// A generated, communication-heavy workload on three pod groups of 8 pods.
std::vector<workload::Job> generated_jobs(const net::Fabric& f) {
  spec::GeneratorSpec g;
  g.jobs = 40;
  g.seed = 11;
  g.models = {"1B", "3B", "8B"};
  g.types = {JobType::ps, JobType::rar, JobType::alltoall};
  g.degree_min = 2;
  g.degree_max = 10;
  g.gpus_per_unit = {{"1B", 1}, {"3B", 1}, {"8B", 2}};
  spec::TrainingParams training;
  training.context_tokens = 256;
  return workload::deploy(workload::generate_jobs(g), training, f, "gen").jobs;
}

/// With 4 iterations, no job finishes before the end of round 2 (PS jobs complete one iteration a round, the
/// others two, and group A's first is warm), so rounds 1 and 2 run exactly as planned.
void expect_stages_match(const sched::TdmPlan& plan, const trace::RunRecord& rec) {
  ASSERT_GE(rec.stages.size(), 8u);
  double end_of_round_2 = 0;
  for (const auto& s : rec.stages) {
    if (s.round > 2) continue;
    const double measured = s.end_s - s.start_s;
    EXPECT_NEAR(measured, s.predicted_s, 1e-6 * s.predicted_s) << "round " << s.round << " stage " << s.stage;
    end_of_round_2 = std::max(end_of_round_2, s.end_s);
  }
  EXPECT_NEAR(end_of_round_2, 2 * plan.round_s, 1e-6 * plan.round_s);
  // Every job finished with exactly 4 full iterations.
  std::map<int, int> full;
  for (const auto& it : rec.iterations) full[it.job] += it.warm ? 0 : 1;
  for (const auto& j : rec.jobs) {
    EXPECT_GT(j.done_s, 0);
    EXPECT_EQ(full[j.job], 4) << "job " << j.job;
  }
}

}  // namespace

TEST(TdmEngine, Tdm4StagesMatchPlannerOnGeneratedWorkload) {
  const net::Fabric f(test::small_platform(8, 8, 150, 1200, 500, 3));
  const auto jobs = generated_jobs(f);
  const auto plan = sched::plan_tdm4(f, jobs);
  EXPECT_GT(plan.stats.moves, 0);
  expect_stages_match(plan, app::run_tdm_policy(f, jobs, plan, 4));
}

TEST(TdmEngine, AggregateStagesMatchPlannerOnGeneratedWorkload) {
  const net::Fabric f(test::small_platform(8, 8, 150, 1200, 500, 3));
  const auto jobs = generated_jobs(f);
  const auto plan = sched::plan_aggregate(f, jobs);
  expect_stages_match(plan, app::run_tdm_policy(f, jobs, plan, 4));
}

TEST(TdmEngine, PhysicalTorIncastBoundsThePsStage) {
  // A PS job over pods 0, 1, 2 (one GPU each, U = 1, server in pod 0) under the physical ToR model: the push
  // stage sends F = Φ to pod 0 from pods 1 and 2, over one circuit each (2 ports per pod), and pod 0's ToR link
  // carries both plus its own GPU's push, 3Φ, at B_tor = 2 × 150 Gb/s: the stage lasts 3Φ/B_tor = 1.5 Φ/B,
  // where Eq. (5) would charge Φ/B_tor and leave the circuits (Φ/B) to bound it.
  const net::Fabric f(test::small_platform(3, 2, 150, 300));
  auto job = test::make_test_job(f, 0, JobType::ps, 3.0, 1, {{0, 1}, {1, 1}, {2, 1}}, 0, 0.01, 0.01);
  job.tor = spec::TorModel::physical;
  const std::vector<workload::Job> jobs{job};
  const auto plan = sched::plan_aggregate(f, jobs);
  const double tor_time = 3 * Phi / (2 * B);
  EXPECT_NEAR(plan.stages[0].comm_s, tor_time, 1e-12);
  EXPECT_EQ(plan.stages[0].bound_at, "tor 0");
  const auto rec = app::run_tdm_policy(f, jobs, plan, 2);
  ASSERT_GE(rec.stages.size(), 4u);
  for (const auto& st : rec.stages)
    if (st.k == 0) {
      EXPECT_NEAR(st.end_s - st.start_s, tor_time, 1e-9) << "stage " << st.stage;
    }
}

TEST(TdmEngine, LoneRingJobOfOneIterationRunsNoFullRound) {
  // Policy aggregate, one RAR job on pods 0 and 1 (one circuit): group A communicates in stages 1 and 3 (2Φ
  // over the circuit, 2Φ/B) and trains in stages 2 and 4 (t). One iteration plus the warm one end at round 1,
  // stage 3, so the run stops before stage 4: no full round ran.
  const net::Fabric f(test::small_platform(2, 1));
  const double t = 0.1, c = 2 * Phi / B;
  const std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, t)};
  const auto plan = sched::plan_aggregate(f, jobs);
  const auto one = app::run_tdm_policy(f, jobs, plan, 1);
  EXPECT_EQ(one.stages.size(), 3u);
  EXPECT_FALSE(sched::measured_round_time(one.stages).has_value());
  // Its one iteration starts when the warm one ends (c): training t, then c. Alone it would take the same.
  const auto m = app::compute_metrics(one, 1);
  EXPECT_NEAR(m.jobs[0].completion_s, t + c, 1e-9);
  EXPECT_NEAR(one.makespan_s, c + t + c, 1e-9);
}

TEST(TdmEngine, LoneRingJobOfTwoIterationsRunsAFullRound) {
  // As above with two iterations (and the warm one): round 1 runs all four stages, 2c + 2t.
  const net::Fabric f(test::small_platform(2, 1));
  const double t = 0.1, c = 2 * Phi / B;
  const std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, t)};
  const auto two = app::run_tdm_policy(f, jobs, sched::plan_aggregate(f, jobs), 2);
  const auto round = sched::measured_round_time(two.stages);
  ASSERT_TRUE(round.has_value());
  EXPECT_NEAR(*round, 2 * c + 2 * t, 1e-9);
}

namespace {

/// Three pods of one port each: a RAR job on pods 0-1 (group A) and a PS job on pods 0-2 with its server in
/// pod 0 (group B) cannot both have their circuit, so every stage moves pod 0's port.
struct SharedPort {
  static constexpr double delay = 200e-6, t0 = 0.2, t1 = 0.05, agg = 0.05;
  net::Fabric f{test::small_platform(3, 1, 150, 600, delay * 1e6)};
  std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, t0),
                                  test::make_test_job(f, 1, JobType::ps, 3.0, 1, {{0, 1}, {2, 1}}, 0, t1, agg)};
  sched::TdmPlan plan = sched::plan_for_grouping(f, jobs, {0, 1}, "tdm4");
};

}  // namespace

TEST(TdmEngine, FinishedJobsPodGroupKeepsItsCircuits) {
  // Stages: 1 RAR sends 2Φ (J1 trains t1), 2 PS push Φ from pod 2 (RAR trains t0), 3 RAR again (J1
  // aggregates), 4 PS pull Φ (RAR trains). Each stage moves pod 0's port, so a circuit is dark for δ: stage 1
  // and 3 last s1 = δ + (2Φ − δ)/B, stages 2 and 4 last t0 (the push, δ + (Φ − δ)/B, is shorter). Two
  // iterations: the RAR job (warm, then two a round) ends at round 2, stage 1; the PS job (one a round) at round
  // 2, stage 4. In round 2 stage 3 nobody communicates, so the pod group keeps the PS circuit: no change there
  // nor in stage 4, whose pull then takes Φ/B with no stall.
  const SharedPort s;
  const double d = SharedPort::delay, s1 = d + (2 * Phi - d) / B, push = d + (Phi - d) / B;
  const auto rec = app::run_tdm_policy(s.f, s.jobs, s.plan, 2);
  ASSERT_EQ(rec.stages.size(), 8u);
  EXPECT_EQ(rec.stages[6].circuits_changed, 0);
  EXPECT_EQ(rec.stages[7].circuits_changed, 0);
  EXPECT_EQ(rec.reconfigurations, 6);
  EXPECT_NEAR(rec.stages[7].end_s - rec.stages[7].start_s, Phi / B, 1e-9);
  EXPECT_NEAR(rec.makespan_s, 3 * s1 + 2 * SharedPort::t0 + push + SharedPort::agg + Phi / B, 1e-9);
  // The PS job stalls δ on its push and δ on its pull in round 1, and only on its push in round 2.
  std::vector<double> stall;
  for (const auto& it : rec.iterations)
    if (it.job == 1) stall.push_back(it.reconfig_stall_s);
  ASSERT_EQ(stall.size(), 2u);
  EXPECT_NEAR(stall[0], 2 * d, 1e-12);
  EXPECT_NEAR(stall[1], d, 1e-12);
}

TEST(TdmEngine, PartlyEmptyStagesDescribeWhatRan) {
  // The run of FinishedJobsPodGroupKeepsItsCircuits. Round 2's stages 2-4 run without the RAR job: stage 2 is
  // the push alone (δ + (Φ − δ)/B, reconfiguration-bound, nothing computes), stage 3 the PS job's aggregation
  // alone (nobody communicates: no pod group, no bottleneck, no lower bound), stage 4 the pull alone over a
  // circuit that stayed (Φ/B, communication-bound). The pull's fractional bound is Φ/B: pod 0 has one port.
  const SharedPort s;
  const double d = SharedPort::delay, push = d + (Phi - d) / B;
  const auto rec = app::run_tdm_policy(s.f, s.jobs, s.plan, 2);
  ASSERT_EQ(rec.stages.size(), 8u);
  const auto& r2s2 = rec.stages[5];
  EXPECT_NEAR(r2s2.predicted_s, push, 1e-12);
  EXPECT_EQ(r2s2.compute_s, 0);
  EXPECT_EQ(r2s2.bound, "reconfig");
  EXPECT_EQ(r2s2.pod_group, 0);
  EXPECT_EQ(r2s2.bottleneck, "pods 0-2");
  const auto& r2s3 = rec.stages[6];
  EXPECT_NEAR(r2s3.predicted_s, SharedPort::agg, 1e-12);
  EXPECT_NEAR(r2s3.compute_s, SharedPort::agg, 1e-12);
  EXPECT_EQ(r2s3.bound, "compute");
  EXPECT_EQ(r2s3.pod_group, -1);
  EXPECT_EQ(r2s3.bottleneck, "");
  EXPECT_EQ(r2s3.comm_lower_bound_s, 0);
  const auto& r2s4 = rec.stages[7];
  EXPECT_NEAR(r2s4.predicted_s, Phi / B, 1e-12);
  EXPECT_EQ(r2s4.compute_s, 0);
  EXPECT_EQ(r2s4.bound, "comm");
  EXPECT_EQ(r2s4.pod_group, 0);
  EXPECT_EQ(r2s4.bottleneck, "pods 0-2");
  EXPECT_NEAR(r2s4.comm_lower_bound_s, Phi / B, 1e-12);
  for (const auto& st : rec.stages) EXPECT_NEAR(st.end_s - st.start_s, st.predicted_s, 1e-9) << st.stage;
}

TEST(TdmEngine, CircuitThatStaysLitChargesNoStall) {
  // Three pods of two ports. Group A: one RAR job on pods 0-1 with little to send (2 MB), which gets both
  // ports: 2 circuits on 0-1. Group B: RAR jobs on 0-1, 0-2 and 1-2, one circuit each. So stages 1 and 3 add a
  // circuit to 0-1 (dark for δ = 10 ms), and end after about 0.1 ms, before it lights; stages 2 and 4 remove
  // it again. The B job on 0-1 sends its 2Φ over the one circuit that stayed lit throughout: no stall, and
  // 2Φ/B of communication. The B jobs on 0-2 and 1-2 wait δ for their new circuit every time.
  const double delay = 10e-3;
  const net::Fabric f(test::small_platform(3, 2, 150, 600, delay * 1e6));
  const std::vector<workload::Job> jobs{test::make_test_job(f, 0, JobType::rar, 0.001, 1, {{0, 1}, {1, 1}}, -1, 1e-5),
                                        test::make_test_job(f, 1, JobType::rar, 3.0, 1, {{0, 1}, {1, 1}}, -1, 1e-5),
                                        test::make_test_job(f, 2, JobType::rar, 3.0, 1, {{0, 1}, {2, 1}}, -1, 1e-5),
                                        test::make_test_job(f, 3, JobType::rar, 3.0, 1, {{1, 1}, {2, 1}}, -1, 1e-5)};
  const auto plan = sched::plan_for_grouping(f, jobs, {0, 1, 1, 1}, "tdm4");
  const auto p01 = static_cast<std::size_t>(f.pair_index(0, 1));
  ASSERT_EQ(plan.stages[0].config.circuits[p01], 2);
  ASSERT_EQ(plan.stages[1].config.circuits[p01], 1);
  const auto rec = app::run_tdm_policy(f, jobs, plan, 2);
  ASSERT_GE(rec.stages.size(), 2u);
  ASSERT_LT(rec.stages[0].end_s - rec.stages[0].start_s, delay);
  int seen = 0;
  for (const auto& it : rec.iterations) {
    if (it.job == 1) {
      ++seen;
      EXPECT_EQ(it.reconfig_stall_s, 0) << "iteration " << it.iteration;
      EXPECT_NEAR(it.comm_s, 2 * Phi / B, 1e-9);
    }
    if (it.job == 2 || it.job == 3) {
      EXPECT_NEAR(it.reconfig_stall_s, delay, 1e-12);
    }
  }
  EXPECT_EQ(seen, 2);
}
