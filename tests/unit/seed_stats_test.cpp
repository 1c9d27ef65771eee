// Statistics across seeds (app/seed_stats.hpp) against values worked by hand, with Student's t from a printed
// table (t(0.975, 4) = 2.776, t(0.975, 1) = 12.706).
#include <gtest/gtest.h>

#include <cmath>

#include "app/seed_stats.hpp"
#include "core/error.hpp"

using namespace odcn;
using namespace odcn::app;

TEST(SeedStats, MeanSampleDeviationAndTheHalfWidthOfA95PercentInterval) {
  const auto s = sample_stats({1.0, 2.0, 3.0, 4.0, 5.0});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(*s.mean, 3.0);
  EXPECT_DOUBLE_EQ(*s.sd, std::sqrt(10.0 / 4.0));  // Σ(x − 3)² = 10, over n − 1
  EXPECT_NEAR(*s.ci95, 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-3);
}

TEST(SeedStats, MissingValuesAreLeftOutAndOneValueHasNoSpread) {
  const auto two = sample_stats({1.0, std::nullopt, 3.0});
  EXPECT_EQ(two.n, 2);
  EXPECT_DOUBLE_EQ(*two.mean, 2.0);
  EXPECT_DOUBLE_EQ(*two.sd, std::sqrt(2.0));
  EXPECT_NEAR(*two.ci95, 12.706, 1e-3);  // 12.706 · √2 / √2
  const auto one = sample_stats({std::nullopt, 7.0});
  EXPECT_EQ(one.n, 1);
  EXPECT_DOUBLE_EQ(*one.mean, 7.0);
  EXPECT_FALSE(one.sd.has_value());
  EXPECT_FALSE(one.ci95.has_value());
  EXPECT_FALSE(sample_stats({std::nullopt}).mean.has_value());
}

TEST(SeedStats, RatioOfMeansAndMeanOfRatiosDiffer) {
  // Seed 1: 2 against 1 (x2); seed 2: 4 against 4 (x1). Mean of ratios 1.5; ratio of means 3 / 2.5 = 1.2.
  const std::vector<std::optional<double>> v{2.0, 4.0}, b{1.0, 4.0};
  const auto r = paired_ratios(v, b);
  EXPECT_DOUBLE_EQ(*r[0], 2.0);
  EXPECT_DOUBLE_EQ(*r[1], 1.0);
  EXPECT_DOUBLE_EQ(*sample_stats(r).mean, 1.5);
  EXPECT_DOUBLE_EQ(*ratio_of_means(v, b), 1.2);
  // A seed missing on either side, or a zero baseline, has no ratio; the ratio of means uses the seeds with both.
  const auto gaps = paired_ratios({2.0, std::nullopt, 5.0}, {0.0, 1.0, 2.0});
  EXPECT_FALSE(gaps[0].has_value());
  EXPECT_FALSE(gaps[1].has_value());
  EXPECT_DOUBLE_EQ(*gaps[2], 2.5);
  EXPECT_DOUBLE_EQ(*ratio_of_means({2.0, std::nullopt, 6.0}, {1.0, 1.0, 3.0}), 2.0);  // (2 + 6) / (1 + 3)
  EXPECT_FALSE(ratio_of_means({1.0}, {0.0}).has_value());
}

TEST(SeedStats, SeedListsTakeRangesAndCommas) {
  EXPECT_EQ(parse_seed_list("1-3,10", "command line", "--seeds"), (std::vector<std::uint64_t>{1, 2, 3, 10}));
  EXPECT_EQ(parse_seed_list("7", "command line", "--seeds"), (std::vector<std::uint64_t>{7}));
  const auto error_of = [](const std::string& text) {
    try {
      parse_seed_list(text, "command line", "--seeds", 5);
      return std::string("ok");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(error_of("3-1"), "command line: --seeds: '3-1' runs backwards (write 1-3)");
  EXPECT_EQ(error_of("1,2,1"), "command line: --seeds: seed 1 is listed twice");
  EXPECT_EQ(error_of("1-6"), "command line: --seeds: lists more than 5 seeds");
  EXPECT_EQ(error_of(""), "command line: --seeds: must list seeds, as 1-5 or 1,3,7");
  EXPECT_EQ(error_of("1,x").rfind("command line: --seeds: must be a whole number", 0), 0u);
  EXPECT_EQ(error_of("1,,2").rfind("command line: --seeds: must be a whole number", 0), 0u);
}
