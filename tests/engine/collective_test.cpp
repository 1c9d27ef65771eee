// One collective on the electrical fabric against its closed form (1e-9 relative), with and without the
// compaction that makes thousands of endpoints cheap. Each test is its own process (SimGrid's Engine).
#include <gtest/gtest.h>

#include "engine/collective_run.hpp"

using namespace odcn;
using namespace odcn::workload;

namespace {

constexpr double kB = 12.5e9;        // 100 Gb/s
constexpr double kS = 1073741824.0;  // 1 GiB

void expect_closed_form(CollectiveOp op, CollectiveAlgorithm a, int n, bool compact, double closed_form_s,
                        std::size_t transfers, int root = 0) {
  const auto run = compact ? engine::run_collective_electrical(lower_compact(op, a, n, kS, root), n, kB)
                           : engine::run_collective_task({op, a, n, kS, root}, kB);
  EXPECT_NEAR(run.simulated_s, closed_form_s, 1e-9 * closed_form_s);
  EXPECT_EQ(run.transfers, transfers);
}

}  // namespace

TEST(CollectiveEngine, RingAllReducePerStep) {
  const int n = 16;  // 2(n-1) steps of n transfers
  expect_closed_form(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n, false, 2.0 * (n - 1) / n * kS / kB,
                     2 * (n - 1) * n);
}

TEST(CollectiveEngine, RingAllReduceCompacted) {
  const int n = 256;  // one step of n transfers
  expect_closed_form(CollectiveOp::all_reduce, CollectiveAlgorithm::ring, n, true, 2.0 * (n - 1) / n * kS / kB, n);
}

TEST(CollectiveEngine, AllToAllPerFlow) {
  const int n = 16;  // S/n is a whole number of bytes (SimGrid moves whole bytes)
  expect_closed_form(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, n, false, (n - 1.0) / n * kS / kB,
                     static_cast<std::size_t>(n * (n - 1)));
}

TEST(CollectiveEngine, AllToAllCompacted) {
  const int n = 256;
  expect_closed_form(CollectiveOp::all_to_all, CollectiveAlgorithm::direct, n, true, (n - 1.0) / n * kS / kB, n);
}

TEST(CollectiveEngine, ParameterServerIncastIsBoundByTheServersNic) {
  const int n = 9;
  expect_closed_form(CollectiveOp::ps_push, CollectiveAlgorithm::parameter_server, n, true, (n - 1) * kS / kB, n - 1, 4);
}

TEST(CollectiveEngine, ChainBroadcastRunsEveryHopAtOnce) {
  const int n = 8;
  expect_closed_form(CollectiveOp::broadcast, CollectiveAlgorithm::ring, n, true, kS / kB, n - 1, 3);
}
