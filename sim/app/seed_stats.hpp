#pragma once
// Statistics across seeds, for `compare --seeds` and `sweep` (docs/workflow.md, "Seeds and statistics"): each
// metric's mean, sample standard deviation and the half-width of its 95 % confidence interval (Student's t, the
// runs of different seeds taken as independent samples), and a policy's ratio to a baseline two ways: the ratio of
// the means, and the mean of the per-seed ratios (paired by seed) with its own interval. They differ when a metric
// varies across seeds: the mean of ratios weighs each seed alike, the ratio of means each unit of the metric.
// Pure: no I/O.
#include <optional>
#include <string>
#include <vector>

namespace odcn::app {

struct SampleStats {
  int n = 0;                     ///< values (missing ones are not counted)
  std::optional<double> mean;    ///< none without values
  std::optional<double> sd;      ///< sample standard deviation (n − 1); none below 2 values
  std::optional<double> ci95;    ///< half-width: t(0.975, n − 1) · sd / √n; none below 2 values
};

/// The statistics of the values present (std::nullopt: that seed has no value for the metric).
SampleStats sample_stats(const std::vector<std::optional<double>>& values);

/// Per seed, value / baseline (none where either is missing or the baseline is 0).
std::vector<std::optional<double>> paired_ratios(const std::vector<std::optional<double>>& values,
                                                 const std::vector<std::optional<double>>& baseline);

/// mean(values) / mean(baseline) over the seeds where both are present (none if that mean of the baseline is 0).
std::optional<double> ratio_of_means(const std::vector<std::optional<double>>& values,
                                     const std::vector<std::optional<double>>& baseline);

/// "1-5" (both ends included) or "1,3,7" or a mix ("1-3,10"): the seeds in the order given, each once. Raises
/// InputError(file, field, ...) for a malformed list, a seed listed twice, or more than `max_seeds`.
std::vector<std::uint64_t> parse_seed_list(const std::string& text, const std::string& file, const std::string& field,
                                           std::size_t max_seeds = 1000);

}  // namespace odcn::app
