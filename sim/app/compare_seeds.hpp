#pragma once
// `compare --seeds`: the tables of a comparison over several seeds (app/compare_seeds.cpp).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/workflow.hpp"
#include "app/workflow_support.hpp"

namespace odcn::app {

/// Every policy's summary.json, one per seed in the order of CompareOptions::seeds.
struct SeedRuns {
  std::map<std::string, std::vector<workflow::Json>> of;
  std::string baseline;
};

/// Writes compare.csv, compare-seeds.csv, compare.md and compare.json into DIR; prints the table unless quiet.
void write_seed_comparison(const CompareOptions& o, const std::filesystem::path& dir,
                           const std::vector<std::string>& sets, const SeedRuns& r);

}  // namespace odcn::app
