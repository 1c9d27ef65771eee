// The collective algorithm library against the textbook closed forms (n ranks, NICs of B each way behind a
// non-blocking switch), and the task graph's Boost.Graph algorithms against hand-worked graphs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "graph/collective.hpp"
#include "graph/task_graph.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {

constexpr double kB = 12.5e9;         // 100 Gb/s
constexpr double kS = 1073741824.0;   // 1 GiB

double seconds(CollectiveOp op, CollectiveAlgorithm a, int n, int root = 0) {
  return closed_form_seconds(lower_collective(op, a, n, kS, root), n, kB);
}

void expect_rel(double got, double want) { EXPECT_NEAR(got, want, 1e-12 * want) << got << " vs " << want; }

}  // namespace

TEST(Collectives, RingAllReduceIs2TimesNMinus1OverNTimesSOverB) {
  for (int n : {2, 3, 8, 1024}) {
    SCOPED_TRACE(n);
    expect_rel(seconds(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n), 2.0 * (n - 1) / n * kS / kB);
    const auto s = lower_collective(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n, kS);
    EXPECT_EQ(s.steps.size(), static_cast<std::size_t>(2 * (n - 1)));
    expect_rel(s.total_bytes(), 2.0 * (n - 1) * kS);  // every rank sends 2(n-1) chunks of S/n
    EXPECT_EQ(s.steps[0][n - 1].src, n - 1);
    EXPECT_EQ(s.steps[0][n - 1].dst, 0);  // the ring closes
  }
}

// Two counter-rotating rings (photonic rails' nic.rings): every step sends S/(2n) to each neighbour, so each rank
// still sends and receives S/n a step and the closed form is the ring's; only ring all-reduce, reduce-scatter and
// all-gather over more than two ranks qualify.
TEST(Collectives, CounterRotatingRingsSendHalfEachWayAtTheSameClosedForm) {
  for (auto op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather})
    for (int n : {3, 8}) {
      SCOPED_TRACE(n);
      ASSERT_TRUE(has_counter_rotating(op, CollectiveAlgorithm::ring, n));
      const auto one = lower_collective(op, CollectiveAlgorithm::ring, n, kS);
      const auto two = counter_rotating(one, n);
      ASSERT_EQ(two.steps.size(), one.steps.size());
      for (const auto& step : two.steps) {
        ASSERT_EQ(step.size(), static_cast<std::size_t>(2 * n));
        std::vector<double> to_next(static_cast<std::size_t>(n)), to_prev(static_cast<std::size_t>(n));
        for (const auto& f : step) {
          ASSERT_TRUE(f.dst == (f.src + 1) % n || f.dst == (f.src + n - 1) % n);
          (f.dst == (f.src + 1) % n ? to_next : to_prev)[static_cast<std::size_t>(f.src)] += f.bytes;
        }
        for (int r = 0; r < n; ++r) {
          expect_rel(to_next[static_cast<std::size_t>(r)], kS / n / 2);
          expect_rel(to_prev[static_cast<std::size_t>(r)], kS / n / 2);
        }
      }
      expect_rel(closed_form_seconds(two, n, kB), closed_form_seconds(one, n, kB));
    }
  EXPECT_FALSE(has_counter_rotating(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 2));
  EXPECT_FALSE(has_counter_rotating(CollectiveOp::all_reduce, CollectiveAlgorithm::direct, 8));
  EXPECT_FALSE(has_counter_rotating(CollectiveOp::broadcast, CollectiveAlgorithm::ring, 8));
  EXPECT_THROW(counter_rotating(lower_collective(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, 4, kS), 4),
               std::invalid_argument);
}

TEST(Collectives, DirectAllReduceMovesTheSameBytesInTwoSteps) {
  for (int n : {2, 5, 64}) {
    expect_rel(seconds(CollectiveOp::all_reduce, CollectiveAlgorithm::direct, n), 2.0 * (n - 1) / n * kS / kB);
    EXPECT_EQ(lower_collective(CollectiveOp::all_reduce, CollectiveAlgorithm::direct, n, kS).steps.size(), 2u);
  }
}

TEST(Collectives, ReduceScatterAndAllGatherAreNMinus1OverNTimesSOverB) {
  for (auto op : {CollectiveOp::reduce_scatter, CollectiveOp::all_gather})
    for (auto a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct})
      for (int n : {2, 7, 256}) expect_rel(seconds(op, a, n), (n - 1.0) / n * kS / kB);
}

TEST(Collectives, AllToAllSendsAnNthToEveryOtherRank) {
  for (int n : {2, 16, 1024}) {
    expect_rel(seconds(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, n), (n - 1.0) / n * kS / kB);
    const auto s = lower_collective(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, n, kS);
    ASSERT_EQ(s.steps.size(), 1u);
    EXPECT_EQ(s.steps[0].size(), static_cast<std::size_t>(n) * (n - 1));
  }
}

TEST(Collectives, BroadcastDirectIsBoundByTheRootAndTheChainIsNot) {
  for (int n : {2, 9}) {
    expect_rel(seconds(CollectiveOp::broadcast, CollectiveAlgorithm::direct, n, 3 % n), (n - 1) * kS / kB);
    expect_rel(seconds(CollectiveOp::broadcast, CollectiveAlgorithm::ring, n, 3 % n), kS / kB);  // pipelined chain
  }
  // The chain starts at the root and visits every other rank once.
  const auto chain = lower_collective(CollectiveOp::broadcast, CollectiveAlgorithm::ring, 4, kS, 2);
  ASSERT_EQ(chain.steps[0].size(), 3u);
  EXPECT_EQ(chain.steps[0][0].src, 2);
  EXPECT_EQ(chain.steps[0][0].dst, 3);
  EXPECT_EQ(chain.steps[0][2].src, 0);
  EXPECT_EQ(chain.steps[0][2].dst, 1);
}

TEST(Collectives, ParameterServerIsAnIncastThenAnOutcast) {
  for (int n : {2, 5, 33}) {
    expect_rel(seconds(CollectiveOp::ps_push, CollectiveAlgorithm::parameter_server, n, 1), (n - 1) * kS / kB);
    expect_rel(seconds(CollectiveOp::ps_pull, CollectiveAlgorithm::parameter_server, n, 1), (n - 1) * kS / kB);
    const auto push = lower_collective(CollectiveOp::ps_push, CollectiveAlgorithm::parameter_server, n, kS, 1);
    for (const auto& f : push.steps[0]) EXPECT_EQ(f.dst, 1);
  }
}

TEST(Collectives, SendRecvIsOneTransfer) {
  expect_rel(seconds(CollectiveOp::send_recv, CollectiveAlgorithm::direct, 2), kS / kB);
  EXPECT_THROW(lower_collective(CollectiveOp::send_recv, CollectiveAlgorithm::direct, 3, kS), std::invalid_argument);
}

TEST(Collectives, UnsupportedPairsAndNamesAreRefused) {
  EXPECT_FALSE(supports(CollectiveOp::all_to_all, CollectiveAlgorithm::ring));
  EXPECT_FALSE(supports(CollectiveOp::ps_push, CollectiveAlgorithm::direct));
  EXPECT_THROW(lower_collective(CollectiveOp::all_to_all, CollectiveAlgorithm::ring, 4, kS), std::invalid_argument);
  CollectiveOp op{};
  EXPECT_TRUE(parse_collective_op("reduce-scatter", op));
  EXPECT_EQ(op, CollectiveOp::reduce_scatter);
  EXPECT_FALSE(parse_collective_op("allreduce", op));
  CollectiveAlgorithm a{};
  EXPECT_TRUE(parse_collective_algorithm("parameter-server", a));
  EXPECT_EQ(a, CollectiveAlgorithm::parameter_server);
}

namespace {

}  // namespace

TEST(TaskGraph, CriticalPathOfADiamondTakesTheLongerBranch) {
  //        +-- b (5 s) --+
  //  a (1) |             +-- d (2 s)     critical path a-b-d = 8 s, not a-c-d = 6 s
  //        +-- c (3 s) --+
  JobGraph g;
  g.ranks = 2;
  g.tasks = {compute_task("a", 0, 1), compute_task("b", 0, 5, {0}), compute_task("c", 1, 3, {0}), compute_task("d", 1, 2, {1, 2})};
  validate(g, "g.json", "job");
  const auto cp = critical_path(g, [](const Task& t) { return t.duration_s; });
  EXPECT_DOUBLE_EQ(cp.length_s, 8.0);
  EXPECT_EQ(cp.tasks, (std::vector<int>{0, 1, 3}));
  const auto order = topological_order(g);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), 0);
  EXPECT_EQ(order.back(), 3);
}

TEST(TaskGraph, CollectivesOnTheCriticalPathTakeTheirClosedForm) {
  // forward (2 s) on each of 4 ranks -> ring all-reduce of 1 GiB -> update (1 s): 3 s + 2*3/4 * S/B.
  JobGraph g;
  g.ranks = 4;
  for (int r = 0; r < 4; ++r) g.tasks.push_back(compute_task("fwd", r, 2));
  Task ar;
  ar.name = "allreduce";
  ar.kind = TaskKind::collective;
  ar.group = {0, 1, 2, 3};
  ar.bytes = kS;
  ar.deps = {0, 1, 2, 3};
  g.tasks.push_back(ar);
  g.tasks.push_back(compute_task("update", 0, 1, {4}));
  validate(g, "g.json", "job");
  const auto cp = critical_path(g, [](const Task& t) {
    if (t.kind != TaskKind::collective) return t.duration_s;
    const int n = static_cast<int>(t.group.size());
    return closed_form_seconds(lower_collective(t.op, t.algorithm, n, t.bytes, t.root), n, kB);
  });
  expect_rel(cp.length_s, 3.0 + 1.5 * kS / kB);
}

TEST(TaskGraph, CyclesAndBadReferencesAreInputErrorsNamingTheTask) {
  JobGraph g;
  g.ranks = 2;
  g.tasks = {compute_task("a", 0, 1, {2}), compute_task("b", 1, 1, {0}), compute_task("c", 0, 1, {1})};
  try {
    validate(g, "g.json", "job");
    FAIL() << "cycle accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.json: job.tasks[0].deps: task 'a' depends on itself through a cycle");
  }
  g.tasks = {compute_task("a", 0, 1, {0})};
  EXPECT_THROW(validate(g, "g.json", "job"), InputError);
  g.tasks = {compute_task("a", 5, 1)};
  EXPECT_THROW(validate(g, "g.json", "job"), InputError);
  Task bad;
  bad.kind = TaskKind::collective;
  bad.op = CollectiveOp::all_to_all;
  bad.algorithm = CollectiveAlgorithm::ring;
  bad.group = {0, 1};
  bad.bytes = 1;
  g.tasks = {bad};
  try {
    validate(g, "g.json", "job");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.json: job.tasks[0].algorithm: ring does not implement all-to-all");
  }
}

TEST(Collectives, CompactionKeepsTheClosedFormWithFewerTransfers) {
  const int n = 64;
  const auto ring = lower_collective(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n, kS);
  const auto c = compact_for_uniform_nics(ring, n);
  ASSERT_EQ(c.size(), 1u);  // 2(n-1) identical ring steps
  ASSERT_EQ(c[0].flows.size(), static_cast<std::size_t>(n));
  expect_rel(c[0].flows[0].bytes, 2.0 * (n - 1) * kS / n);
  const auto a2a = lower_collective(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, n, kS);
  const auto h = compact_for_uniform_nics(a2a, n);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_TRUE(h[0].to_hub);
  ASSERT_EQ(h[0].flows.size(), static_cast<std::size_t>(n));  // instead of n(n-1)
  expect_rel(h[0].flows[5].bytes, (n - 1.0) * kS / n);
  // Steps that are neither are kept: the PS incast and a direct broadcast.
  for (auto op : {CollectiveOp::ps_push, CollectiveOp::broadcast}) {
    const auto s = lower_collective(op, op == CollectiveOp::ps_push ? CollectiveAlgorithm::parameter_server
                                                                     : CollectiveAlgorithm::direct,
                                    n, kS);
    const auto k = compact_for_uniform_nics(s, n);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_FALSE(k[0].to_hub);
    EXPECT_EQ(k[0].flows.size(), s.steps[0].size());
  }
}

TEST(Collectives, DirectCompactLoweringEqualsCompactingTheFullOne) {
  const std::vector<std::pair<CollectiveOp, CollectiveAlgorithm>> cases{
      {CollectiveOp::all_reduce, CollectiveAlgorithm::ring},      {CollectiveOp::all_reduce, CollectiveAlgorithm::direct},
      {CollectiveOp::reduce_scatter, CollectiveAlgorithm::ring},  {CollectiveOp::all_gather, CollectiveAlgorithm::direct},
      {CollectiveOp::all_to_all, CollectiveAlgorithm::direct},    {CollectiveOp::broadcast, CollectiveAlgorithm::ring},
      {CollectiveOp::ps_pull, CollectiveAlgorithm::parameter_server}};
  for (const auto& [op, a] : cases)
    for (int n : {2, 3, 16}) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(a) + " n=" + std::to_string(n));
      const auto direct = lower_compact(op, a, n, kS, 1);
      const auto compacted = compact_for_uniform_nics(lower_collective(op, a, n, kS, 1), n);
      ASSERT_EQ(direct.size(), compacted.size());
      for (std::size_t i = 0; i < direct.size(); ++i) {
        EXPECT_EQ(direct[i].to_hub, compacted[i].to_hub);
        ASSERT_EQ(direct[i].flows.size(), compacted[i].flows.size());
        for (std::size_t k = 0; k < direct[i].flows.size(); ++k) {
          EXPECT_EQ(direct[i].flows[k].src, compacted[i].flows[k].src);
          if (!direct[i].to_hub) EXPECT_EQ(direct[i].flows[k].dst, compacted[i].flows[k].dst);
          expect_rel(direct[i].flows[k].bytes, compacted[i].flows[k].bytes);
        }
      }
      // The textbook formula agrees with the full lowering's step-by-step time.
      expect_rel(textbook_seconds(op, a, n, kS, kB), closed_form_seconds(lower_collective(op, a, n, kS, 1), n, kB));
    }
}

TEST(Collectives, RunsExpandToTheFullLoweringOfEveryOperation) {
  // lower_collective_runs, each run repeated `times`, is lower_collective step for step, for every op and
  // algorithm it supports, rings both ways, roots inside the group.
  const CollectiveOp ops[] = {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                              CollectiveOp::all_to_all, CollectiveOp::broadcast,      CollectiveOp::ps_push,
                              CollectiveOp::ps_pull,    CollectiveOp::send_recv};
  const CollectiveAlgorithm algs[] = {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct,
                                      CollectiveAlgorithm::parameter_server};
  int compared = 0;
  for (auto op : ops)
    for (auto a : algs)
      for (int n : {2, 3, 5, 8})
        for (bool counter : {false, true}) {
          if (!supports(op, a) || (op == CollectiveOp::send_recv && n != 2)) continue;
          const int root = n - 1;
          const auto full = lower_collective(op, a, n, kS, root, counter).steps;
          std::vector<std::vector<RankFlow>> expanded;
          for (const auto& run : lower_collective_runs(op, a, n, kS, root, counter)) {
            ASSERT_GE(run.times, 1);
            for (int k = 0; k < run.times; ++k) expanded.push_back(run.flows);
          }
          ASSERT_EQ(expanded.size(), full.size()) << to_string(op) << " " << to_string(a) << " n=" << n;
          for (std::size_t i = 0; i < full.size(); ++i) {
            ASSERT_EQ(expanded[i].size(), full[i].size());
            for (std::size_t f = 0; f < full[i].size(); ++f) {
              EXPECT_EQ(expanded[i][f].src, full[i][f].src);
              EXPECT_EQ(expanded[i][f].dst, full[i][f].dst);
              EXPECT_EQ(expanded[i][f].bytes, full[i][f].bytes);
            }
          }
          ++compared;
        }
  EXPECT_GE(compared, 40);
  // A ring all-reduce over 1,024 ranks is one run of 2,046 steps of 1,024 flows.
  const auto ring = lower_collective_runs(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 1024, kS, 0, false);
  ASSERT_EQ(ring.size(), 1u);
  EXPECT_EQ(ring[0].times, 2046);
  EXPECT_EQ(ring[0].flows.size(), 1024u);
}

// The work bound of job graphs counts flows without lowering: the same count as the lowering, for every
// operation and algorithm it offers, on 2 to 9 ranks.
TEST(Collectives, FlowCountIsTheLoweringsFlowsSummedOverItsSteps) {
  using odcn::workload::CollectiveAlgorithm;
  using odcn::workload::CollectiveOp;
  int checked = 0;
  for (auto op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                  CollectiveOp::all_to_all, CollectiveOp::broadcast, CollectiveOp::ps_push, CollectiveOp::ps_pull,
                  CollectiveOp::send_recv})
    for (auto a : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct, CollectiveAlgorithm::parameter_server})
      for (int n = 2; n <= 9; ++n) {
        if (!odcn::workload::supports(op, a) || (op == CollectiveOp::send_recv && n != 2)) continue;
        std::int64_t flows = 0;
        for (const auto& step : odcn::workload::lower_collective(op, a, n, 1e6).steps)
          flows += static_cast<std::int64_t>(step.size());
        EXPECT_EQ(odcn::workload::flow_count(op, a, n), flows) << to_string(op) << " " << to_string(a) << " " << n;
        ++checked;
      }
  EXPECT_GT(checked, 60);
  // 65,536 ranks: 2 x 65,535 x 65,536 flows for a ring all-reduce, far beyond what is ever built.
  EXPECT_EQ(odcn::workload::flow_count(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, 65536), 8'589'803'520LL);
}
