// FlexNet's cost estimator (systems/topox/flexnet_estimate.hpp; TopoOpt's FlexFlow fork, simulator.cc) against
// schedules worked out by hand: 1 MiB segments over exclusive FIFO links, cut-through hops with 1 µs each, and the
// intra-server all-reduce term that flow_graph inserts.
#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "systems/topox/flexnet_estimate.hpp"
#include "systems/topox/topox.hpp"

using namespace odcn;
using namespace odcn::sched;
using workload::JobGraph;
using workload::Task;
using workload::TaskKind;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kB = kMiB * 1e3;  // bytes per second of one circuit: a segment of 1 MiB takes 1 ms
constexpr double kLat = 1e-6;

int transfer(JobGraph& g, int src, int dst, Bytes bytes, std::vector<int> deps = {}) {
  Task t;
  t.kind = TaskKind::transfer;
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  t.deps = std::move(deps);
  t.name = "t" + std::to_string(g.tasks.size());
  g.tasks.push_back(t);
  return static_cast<int>(g.tasks.size()) - 1;
}

// Direct links between every pair (one circuit each, or `circuits` for listed pairs), routes as given.
FlexnetEstimate estimate(const JobGraph& g, std::map<std::pair<int, int>, std::vector<int>> routes = {},
                         std::map<std::pair<int, int>, int> circuits = {}) {
  return flexnet_estimate(
      g,
      [&](int a, int b) {
        const auto it = routes.find({a, b});
        return it == routes.end() ? std::vector<int>{a, b} : it->second;
      },
      [&](int a, int b) {
        const auto it = circuits.find({std::min(a, b), std::max(a, b)});
        return (it == circuits.end() ? 1 : it->second) * kB;
      });
}

// 3 MiB on one link: three segments back to back, each 1 µs + 1 ms, the next ready when the last leaves the link.
TEST(FlexnetEstimate, SegmentsFollowEachOtherOnALink) {
  JobGraph g;
  g.ranks = 2;
  transfer(g, 0, 1, 3 * kMiB);
  const auto e = estimate(g);
  EXPECT_NEAR(e.iteration_s, 3 * (kLat + 1e-3), 1e-15);
  EXPECT_EQ(e.segments, 3);
}

// 1 MiB over 0 -> 1 -> 2: the second hop starts one latency after the first (cut-through) and ends 1 µs later.
// Two hops of 2.5 MiB: three segments pipelined over both links, each hop 1 µs behind: the last segment (0.5 MiB)
// leaves the first link at 2·1.001 + 0.501 ms and the second link 1 µs after.
TEST(FlexnetEstimate, HopsCutThroughOneLatencyApart) {
  JobGraph g;
  g.ranks = 3;
  transfer(g, 0, 2, kMiB);
  EXPECT_NEAR(estimate(g, {{{0, 2}, {0, 1, 2}}}).iteration_s, 2 * kLat + 1e-3, 1e-15);
  JobGraph big;
  big.ranks = 3;
  transfer(big, 0, 2, 2.5 * kMiB);
  EXPECT_NEAR(estimate(big, {{{0, 2}, {0, 1, 2}}}).iteration_s, 2 * (kLat + 1e-3) + (kLat + 0.5e-3) + kLat, 1e-15);
}

// Two transfers ready together on one link take turns (FIFO, no sharing): 1.001 and 2.002 ms. The reverse direction
// is a link of its own, and two circuits between a pair are one link of twice the bandwidth.
TEST(FlexnetEstimate, LinksAreExclusivePerDirection) {
  JobGraph g;
  g.ranks = 2;
  const int a = transfer(g, 0, 1, kMiB);
  const int b = transfer(g, 0, 1, kMiB);
  const int c = transfer(g, 1, 0, kMiB);
  const auto e = estimate(g);
  EXPECT_NEAR(e.finish_s[static_cast<std::size_t>(a)], kLat + 1e-3, 1e-15);
  EXPECT_NEAR(e.finish_s[static_cast<std::size_t>(b)], 2 * (kLat + 1e-3), 1e-15);
  EXPECT_NEAR(e.finish_s[static_cast<std::size_t>(c)], kLat + 1e-3, 1e-15);
  JobGraph one;
  one.ranks = 2;
  transfer(one, 0, 1, kMiB);
  EXPECT_NEAR(estimate(one, {}, {{{0, 1}, 2}}).iteration_s, kLat + 0.5e-3, 1e-15);
}

// flow_graph with FlexNet's intra-server term: a ring all-reduce of S = 4 MB over 4 servers first spends
// 2·S/(k·B_nvlink) = 2·4e6/(4·25e9) = 80 µs inside a server, then each member sends 2·3/4·S = 6 MB to its
// successor on one ring path: 6 segments (5 of 1 MiB and 757,120 B), with 1 µs each.
TEST(FlexnetEstimate, TheIntraServerTermRunsBeforeTheRing) {
  JobGraph g;
  g.ranks = 4;
  Task ar;
  ar.kind = TaskKind::collective;
  ar.op = workload::CollectiveOp::all_reduce;
  ar.algorithm = workload::CollectiveAlgorithm::ring;
  ar.group = {0, 1, 2, 3};
  ar.bytes = 4e6;
  ar.name = "ar";
  g.tasks.push_back(ar);
  RingPaths rings{{1}};
  rings.intra_seconds_per_byte = 2.0 / (4 * 25e9);
  const auto flows = flow_graph(g, {0, 1, 2, 3}, rings, "w.yaml", "job_graphs[0]");
  ASSERT_EQ(flows.tasks.size(), 1u + 4u + 1u);
  EXPECT_EQ(flows.tasks[0].name, "ar.intra");
  EXPECT_NEAR(flows.tasks[0].duration_s, 80e-6, 1e-18);
  const auto e = estimate(flows);
  EXPECT_NEAR(e.iteration_s, 80e-6 + 6 * kLat + 6e6 / kB, 1e-15);
  EXPECT_EQ(e.segments, 4 * 6);
}

TEST(FlexnetEstimate, RefusesARouteOrALinkThatIsMissing) {
  JobGraph g;
  g.ranks = 3;
  transfer(g, 0, 2, kMiB);
  EXPECT_THROW(estimate(g, {{{0, 2}, {}}}), ConfigError);
  EXPECT_THROW(estimate(g, {}, {{{0, 2}, 0}}), ConfigError);
}

}  // namespace
