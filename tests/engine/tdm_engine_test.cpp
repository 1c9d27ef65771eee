// The engine runs TDM plans: every stage it measures equals the planner's prediction, and the round time
// equals the closed form on hand-made instances.
#include <gtest/gtest.h>

#include <map>

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
