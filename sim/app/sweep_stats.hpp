#pragma once
// sweep-stats.csv: a sweep's points gathered over their seeds (docs/workflow.md, "Seeds and statistics").
#include <filesystem>

#include "app/sweep_json.hpp"
#include "app/workflow_support.hpp"

namespace odcn::app {

/// When the sweep lists seeds: DIR/sweep-stats.csv, a row per policy and set values, each metric's statistics
/// over the seeds whose point has finished, and its ratio to the first policy at the same set values (paired by
/// seed; app/compare_seeds.hpp, stats_header). Without seeds, removes an earlier sweep-stats.csv. Returns whether
/// it wrote one.
bool write_sweep_stats(const std::filesystem::path& dir, const workflow::Json& sweep);
/// The text of sweep-stats.csv for a checked sweep.json, each point's summary from `summary_of`; empty when the
/// sweep lists no seeds.
std::string sweep_stats_csv(const workflow::Json& sweep, const sweep::SummaryOf& summary_of);

}  // namespace odcn::app
