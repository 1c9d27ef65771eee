// The cross-policy metrics (app/metrics.hpp) on hand-built records: every number below is worked out by hand.
#include <gtest/gtest.h>

#include "app/metrics.hpp"

using odcn::app::compute_metrics;
using odcn::app::distribution;

TEST(Metrics, DistributionUsesNearestRankAndTheMiddleMean) {
  const auto d = distribution({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_DOUBLE_EQ(d.median, 2.5);  // (2 + 3) / 2
  EXPECT_DOUBLE_EQ(d.p95, 4);       // rank ceil(0.95 · 4) = 4
  EXPECT_DOUBLE_EQ(d.max, 4);
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  EXPECT_DOUBLE_EQ(distribution(twenty).p95, 19);  // rank 0.95 · 20 = 19 exactly, not 20
  EXPECT_DOUBLE_EQ(distribution({7}).p95, 7);
  EXPECT_DOUBLE_EQ(distribution({}).mean, 0);
}

TEST(Metrics, TwoJobsByHand) {
  // Job 0 arrives at 0, is admitted at once, runs two iterations [0,10] and [10,20] (compute 6, comm 4 of which
  // 1 s stall each); job 1 arrives at 5, waits until 8, runs a warm iteration [8,9] (comm 1) and two iterations
  // [12,16], [16,30] (compute 3 + 3, comm 1 + 1). Job 1's figures start when its warm iteration ends, at 9.
  odcn::trace::RunRecord rec;
  rec.thread_names = {"a", "b"};
  rec.jobs = {{0, 0, 0, 20, 3}, {1, 5, 8, 30, 3}};
  rec.makespan_s = 30;
  rec.reconfigurations = 2;
  rec.circuits_changed = 5;
  auto row = [](int job, int it, bool warm, double s, double e, double c, double m, double st) {
    odcn::trace::IterationRow r;
    r.job = job;
    r.iteration = it;
    r.warm = warm;
    r.start_s = s;
    r.end_s = e;
    r.compute_s = c;
    r.comm_s = m;
    r.reconfig_stall_s = st;
    return r;
  };
  rec.iterations = {row(0, 0, false, 0, 10, 6, 4, 1), row(0, 1, false, 10, 20, 6, 4, 1),
                    row(1, 0, true, 8, 9, 0, 1, 0),    row(1, 1, false, 12, 16, 3, 1, 0),
                    row(1, 2, false, 16, 30, 3, 1, 0)};
  const std::vector<double> alone{10, 12.5};
  const auto m = compute_metrics(rec, 2, &alone);
  ASSERT_EQ(m.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(m.jobs[0].completion_s, 20);
  EXPECT_DOUBLE_EQ(m.jobs[1].completion_s, 21);  // 30 - 9, the end of its warm iteration
  EXPECT_DOUBLE_EQ(m.jobs[1].service_s, 21);     // 30 - 9
  EXPECT_EQ(m.jobs[1].iterations, 2);            // the warm one is not counted
  EXPECT_DOUBLE_EQ(m.completion.mean, 20.5);
  EXPECT_DOUBLE_EQ(m.completion.median, 20.5);
  EXPECT_DOUBLE_EQ(m.completion.p95, 21);
  EXPECT_DOUBLE_EQ(m.mean_iteration_s, (20.0 / 2 + 21.0 / 2) / 2);
  EXPECT_DOUBLE_EQ(m.throughput_per_hour, 4 / 30.0 * 3600);
  ASSERT_TRUE(m.slowdown.has_value());
  EXPECT_DOUBLE_EQ(m.slowdown->mean, (2.0 + 21 / 12.5) / 2);  // 20/10 and 21/12.5
  // Shares of Σ completion = 41 s: compute 12 + 6, communication (without stall) 6 + 2 (the warm iteration's
  // 1 s is outside job 1's life), stall 2, waiting 0 + (21 - 6 - 2).
  EXPECT_DOUBLE_EQ(m.share_compute, 18 / 41.0);
  EXPECT_DOUBLE_EQ(m.share_communication, 8 / 41.0);
  EXPECT_DOUBLE_EQ(m.share_stall, 2 / 41.0);
  EXPECT_DOUBLE_EQ(m.share_waiting, 13 / 41.0);
  EXPECT_DOUBLE_EQ(m.jobs[1].waiting_s, 21 - 6 - 2);
  EXPECT_EQ(m.reconfigurations, 2);
}

TEST(Metrics, WarmIterationIsOutsideTheJobsLife) {
  // A lone TDM job of one iteration: a warm communication [0, 2] (its training was before t = 0), then its one
  // iteration [2, 7]: training 3, communication 2. Alone, the same iteration takes 5 s. With nobody to contend
  // with, its completion time is that iteration's 5 s and its slowdown 1.
  odcn::trace::RunRecord rec;
  rec.thread_names = {"a"};
  rec.jobs = {{0, 0, 0, 7, 1}};
  rec.makespan_s = 7;
  odcn::trace::IterationRow noise;  // a communication wholly hidden behind compute: unions' residues are 0
  noise.start_s = 1;
  noise.end_s = 2;
  noise.comm_s = 0.25;
  noise.overlap_s = 0.25 + 7.8e-18;
  noise.compute_s = 1;
  EXPECT_EQ(noise.exposed_communication_s(), 0.0);
  noise.overlap_s = 6.9e-18;  // touching spans (1e-12 of the 1 s iteration is the line)
  EXPECT_EQ(noise.hidden_communication_s(), 0.0);
  noise.overlap_s = 2e-12;
  EXPECT_EQ(noise.hidden_communication_s(), 2e-12);
  odcn::trace::IterationRow warm;
  warm.warm = true;
  warm.end_s = 2;
  warm.comm_s = 2;
  odcn::trace::IterationRow one;
  one.iteration = 1;
  one.start_s = 2;
  one.end_s = 7;
  one.compute_s = 3;
  one.comm_s = 2;
  rec.iterations = {warm, one};
  const std::vector<double> alone{5};
  const auto m = compute_metrics(rec, 1, &alone);
  EXPECT_DOUBLE_EQ(m.jobs[0].completion_s, 5);
  EXPECT_DOUBLE_EQ(m.jobs[0].service_s, 5);
  EXPECT_DOUBLE_EQ(m.jobs[0].communication_s, 2);
  EXPECT_DOUBLE_EQ(m.jobs[0].waiting_s, 0);
  EXPECT_DOUBLE_EQ(*m.jobs[0].slowdown, 1);
  EXPECT_DOUBLE_EQ(m.makespan_s, 7);  // the run's own clock still covers the warm iteration
}

TEST(Metrics, NoSlowdownWithoutEveryJobsBaseline) {
  odcn::trace::RunRecord rec;
  rec.thread_names = {"a"};
  rec.jobs = {{0, 0, 0, 4, 1}};
  rec.makespan_s = 4;
  EXPECT_FALSE(compute_metrics(rec, 1).slowdown.has_value());
  rec.jobs[0].done_s = -1;
  EXPECT_THROW(compute_metrics(rec, 1), std::logic_error);
}
