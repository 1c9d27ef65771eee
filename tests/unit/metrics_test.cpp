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
  // [12,16], [16,30] (compute 3 + 3, comm 1 + 1).
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
  EXPECT_DOUBLE_EQ(m.jobs[1].completion_s, 25);  // 30 - 5
  EXPECT_DOUBLE_EQ(m.jobs[1].service_s, 22);     // 30 - 8
  EXPECT_EQ(m.jobs[1].iterations, 2);            // the warm one is not counted
  EXPECT_DOUBLE_EQ(m.completion.mean, 22.5);
  EXPECT_DOUBLE_EQ(m.completion.median, 22.5);
  EXPECT_DOUBLE_EQ(m.completion.p95, 25);
  EXPECT_DOUBLE_EQ(m.mean_iteration_s, (20.0 / 2 + 22.0 / 2) / 2);
  EXPECT_DOUBLE_EQ(m.throughput_per_hour, 4 / 30.0 * 3600);
  ASSERT_TRUE(m.slowdown.has_value());
  EXPECT_DOUBLE_EQ(m.slowdown->mean, (2.0 + 2.0) / 2);  // 20/10 and 25/12.5
  // Shares of Σ completion = 45 s: compute 12 + 6, communication (without stall) 6 + 3, stall 2.
  EXPECT_DOUBLE_EQ(m.share_compute, 18 / 45.0);
  EXPECT_DOUBLE_EQ(m.share_communication, 9 / 45.0);
  EXPECT_DOUBLE_EQ(m.share_stall, 2 / 45.0);
  EXPECT_DOUBLE_EQ(m.share_waiting, 16 / 45.0);
  EXPECT_DOUBLE_EQ(m.jobs[1].waiting_s, 25 - 6 - 3);
  EXPECT_EQ(m.reconfigurations, 2);
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
