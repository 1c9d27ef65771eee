#pragma once
// Comparing job graphs in tests (e.g. a graph and the same graph written to a job-graph file and read back).
#include <gtest/gtest.h>

#include "graph/task_graph.hpp"

namespace odcn::test {

/// Every field of the graph and of each task is equal; doubles exactly (the file writes the shortest exact decimal).
inline void expect_same_graph(const workload::JobGraph& a, const workload::JobGraph& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.arrival_s, b.arrival_s);
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const auto &x = a.tasks[i], &y = b.tasks[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind) << x.name;
    EXPECT_EQ(x.rank, y.rank) << x.name;
    EXPECT_EQ(x.duration_s, y.duration_s) << x.name;
    EXPECT_EQ(x.src, y.src) << x.name;
    EXPECT_EQ(x.dst, y.dst) << x.name;
    EXPECT_EQ(x.bytes, y.bytes) << x.name;
    EXPECT_EQ(x.op, y.op) << x.name;
    EXPECT_EQ(x.algorithm, y.algorithm) << x.name;
    EXPECT_EQ(x.group, y.group) << x.name;
    EXPECT_EQ(x.root, y.root) << x.name;
    EXPECT_EQ(x.deps, y.deps) << x.name;
  }
}

}  // namespace odcn::test
