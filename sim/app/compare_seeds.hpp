#pragma once
// `compare --seeds`: the tables of a comparison over several seeds (app/compare_seeds.cpp).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/seed_stats.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"

namespace odcn::app {

/// Every policy's summary.json, one per seed in the order of CompareOptions::seeds.
struct SeedRuns {
  std::map<std::string, std::vector<workflow::Json>> of;
  std::string baseline;
};

/// One metric of one policy over the seeds: its statistics, and its ratio to the baseline both ways.
struct MetricStats {
  SampleStats value, ratio;  ///< ratio: of the per-seed ratios to the baseline
  std::optional<double> ratio_of_means;
};
MetricStats metric_stats(const SeedRuns& r, const std::string& policy, const std::string& key);

/// metric_stats of every metric of metric_keys(), in its order.
std::vector<MetricStats> policy_stats(const SeedRuns& r, const std::string& policy);

/// The CSV columns of every metric's statistics (",k,k_sd,k_ci95" per metric, then ",k_ratio,k_ratio_mean,
/// k_ratio_ci95": the ratio of the means, the mean of the per-seed ratios and its interval), and the cells of
/// policy_stats' result.
std::string stats_header();
std::string stats_cells(const std::vector<MetricStats>& all);

/// Writes compare.csv, compare-seeds.csv, compare.md and compare.json into DIR; prints the table unless quiet.
void write_seed_comparison(const CompareOptions& o, const std::filesystem::path& dir,
                           const std::vector<std::string>& sets, const SeedRuns& r);

}  // namespace odcn::app
