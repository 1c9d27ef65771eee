// The fabric as data: pair indexing and the port-budget / OXC-radix checks.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "net/fabric.hpp"
#include "support/fabrics.hpp"

using namespace odcn;

TEST(Fabric, PairIndexIsDenseAndSymmetric) {
  const net::Fabric f(test::small_platform(4, 4, 150, 600, 200, 3));  // 3 groups of 4 pods
  EXPECT_EQ(f.pair_count(), 3 * 6);
  std::set<int> seen;
  for (int a = 0; a < f.pods(); ++a)
    for (int b = 0; b < f.pods(); ++b) {
      const int p = f.pair_index(a, b);
      if (a == b || f.group_of(a) != f.group_of(b)) {
        EXPECT_EQ(p, -1);
        continue;
      }
      EXPECT_EQ(p, f.pair_index(b, a));
      const auto [x, y] = f.pair_pods(p);
      EXPECT_EQ(std::min(a, b), x);
      EXPECT_EQ(std::max(a, b), y);
      seen.insert(p);
    }
  EXPECT_EQ(seen.size(), 18u);
  EXPECT_EQ(*seen.rbegin(), 17);
}

TEST(Fabric, RejectsPortBudgetOverflowNeverClips) {
  const net::Fabric f(test::small_platform(4, 2));
  auto c = f.empty_config();
  c.circuits[static_cast<std::size_t>(f.pair_index(0, 1))] = 1;
  c.circuits[static_cast<std::size_t>(f.pair_index(0, 2))] = 1;
  EXPECT_NO_THROW(f.check(c));
  c.circuits[static_cast<std::size_t>(f.pair_index(0, 3))] = 1;  // pod 0 now needs 3 of its 2 ports
  try {
    f.check(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "pod 0 needs 3 OCS ports but has 2 (Eq. 6)");
  }
  EXPECT_EQ(c.circuits[static_cast<std::size_t>(f.pair_index(0, 3))], 1) << "the configuration is not altered";
}

TEST(Fabric, RejectsOxcRadixOverflow) {
  auto spec = test::small_platform(4, 2);
  spec.ports_per_oxc = 6;  // fewer than 4 pods x 2 ports
  const net::Fabric f(spec);
  auto c = f.empty_config();
  c.circuits[static_cast<std::size_t>(f.pair_index(0, 1))] = 2;
  c.circuits[static_cast<std::size_t>(f.pair_index(2, 3))] = 2;
  EXPECT_THROW(f.check(c), ConfigError);
}

TEST(Fabric, CountsChangedCircuits) {
  const net::Fabric f(test::small_platform(4, 4));
  auto a = f.empty_config(), b = f.empty_config();
  a.circuits[0] = 2;
  b.circuits[0] = 1;
  b.circuits[1] = 3;
  EXPECT_EQ(net::CircuitConfig::changed(a, b), 4);
}
