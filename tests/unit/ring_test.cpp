// Algorithm 3: rings reuse linked pairs, every member has in- and out-degree 1, and there is one cycle.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "core/rng.hpp"
#include "policy/ring.hpp"

using namespace odcn;
using Arcs = std::vector<std::pair<int, int>>;

namespace {

void expect_single_ring(const std::vector<int>& members, const Arcs& ring) {
  ASSERT_EQ(ring.size(), members.size());
  std::map<int, int> next;
  std::map<int, int> in;
  for (const auto& [a, b] : ring) {
    EXPECT_TRUE(next.emplace(a, b).second) << "out-degree 1";
    EXPECT_EQ(++in[b], 1) << "in-degree 1";
  }
  int v = members[0];
  std::set<int> seen;
  for (std::size_t i = 0; i < members.size(); ++i) {
    seen.insert(v);
    v = next.at(v);
  }
  EXPECT_EQ(v, members[0]);
  EXPECT_EQ(seen.size(), members.size()) << "no sub-ring";
}

/// The linked-pairs matrix of form_ring from a predicate on pods.
template <class Pred>
std::vector<char> matrix(const std::vector<int>& members, Pred linked) {
  const std::size_t m = members.size();
  std::vector<char> out(m * m, 0);
  for (std::size_t a = 0; a < m; ++a)
    for (std::size_t b = 0; b < m; ++b) out[a * m + b] = a != b && linked(members[a], members[b]);
  return out;
}

std::vector<std::pair<int, int>> ring_of(const std::vector<int>& members, const std::function<bool(int, int)>& linked) {
  return sched::form_ring(members, matrix(members, linked));
}

}  // namespace

TEST(Alg3, NoLinksGivesRingInMemberOrder) {
  const auto ring = ring_of({2, 3, 4, 5}, [](int, int) { return false; });
  EXPECT_EQ(ring, (Arcs{{2, 3}, {3, 4}, {4, 5}, {5, 2}}));
}

TEST(Alg3, CutsTwoCycleAndJoinsPaths) {
  // Only (4,5) is linked: arcs 4->5->4 form a sub-ring, cut at the arc entering 4.
  const auto ring = ring_of({2, 3, 4, 5}, [](int a, int b) { return (a == 4 && b == 5) || (a == 5 && b == 4); });
  EXPECT_EQ(ring, (Arcs{{2, 3}, {3, 4}, {4, 5}, {5, 2}}));
}

TEST(Alg3, ReusesAnExistingPath) {
  // Linked: 0-2, 2-1, 1-3 (a Hamiltonian path). Degree capping keeps 0->2 and 1->3; joining gives 2->1.
  auto linked = [](int a, int b) {
    const std::set<std::pair<int, int>> e{{0, 2}, {1, 2}, {1, 3}};
    return e.count({std::min(a, b), std::max(a, b)}) > 0;
  };
  const auto ring = ring_of({0, 1, 2, 3}, linked);
  EXPECT_EQ(ring, (Arcs{{0, 2}, {2, 1}, {1, 3}, {3, 0}}));
  int reused = 0;
  for (const auto& [a, b] : ring) reused += linked(a, b);
  EXPECT_EQ(reused, 3);
}

TEST(Alg3, AlwaysOneRingOnRandomLinks) {
  Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int m = static_cast<int>(rng.uniform_int(3, 8));
    std::vector<int> members;
    for (int i = 0; i < m; ++i) members.push_back(i * 2 + 1);
    std::set<std::pair<int, int>> links;
    for (int a : members)
      for (int b : members)
        if (a < b && rng.uniform01() < 0.4) links.insert({a, b});
    const auto ring = ring_of(members, [&](int a, int b) { return links.count({std::min(a, b), std::max(a, b)}) > 0; });
    expect_single_ring(members, ring);
  }
}

TEST(Alg3, TwoMembersRingBothWays) {
  EXPECT_EQ(ring_of({3, 6}, [](int, int) { return false; }), (Arcs{{3, 6}, {6, 3}}));
  EXPECT_TRUE(ring_of({3}, [](int, int) { return false; }).empty());
}
