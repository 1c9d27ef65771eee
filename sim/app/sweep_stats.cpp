#include "app/sweep_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "app/compare_seeds.hpp"
#include "trace/writers.hpp"

namespace odcn::app {

namespace fs = std::filesystem;
using workflow::Json;

std::string sweep_stats_csv(const Json& sweep, const sweep::SummaryOf& summary_of) {
  std::vector<Json> seeds;  // in the order of the points
  std::vector<std::string> policies;
  std::vector<std::string> groups;  // the set values of each group, as CSV cells, in the order of the points
  std::map<std::string, SeedRuns> runs_of;  // set values -> every policy's runs, one per seed
  for (const auto& p : sweep["points"]) {
    if (p["seed"].is_null()) continue;
    std::string values;
    for (const auto& k : sweep["keys"]) values += "," + trace::csv_field(p["set"][k.get<std::string>()].get<std::string>());
    const std::string policy = p["policy"].get<std::string>();
    if (std::find(seeds.begin(), seeds.end(), p["seed"]) == seeds.end()) seeds.push_back(p["seed"]);
    if (std::find(policies.begin(), policies.end(), policy) == policies.end()) policies.push_back(policy);
    if (!runs_of.count(values)) groups.push_back(values);
    // a point not finished counts as a seed with no values
    runs_of[values].of[policy].push_back(summary_of(p["id"].get<std::string>()).value_or(Json::object()));
  }
  if (seeds.empty()) return "";
  std::string csv = "policy";
  for (const auto& k : sweep["keys"]) csv += "," + trace::csv_field(k.get<std::string>());
  csv += ",baseline,seeds" + stats_header() + "\n";
  for (const auto& values : groups) {
    SeedRuns& r = runs_of.at(values);
    r.baseline = policies.front();
    // A sweep.json edited by hand or cut short may lack a policy at some set values: none of its seeds finished
    // there (tests/fuzz/crashes/README.md, sweep_collect).
    for (const auto& policy : policies) r.of[policy];
    for (const auto& policy : policies) {
      int finished = 0;
      for (const Json& s : r.of.at(policy)) finished += s.empty() ? 0 : 1;
      csv += fmt::format("{}{},{},{}{}\n", trace::csv_field(policy), values, trace::csv_field(r.baseline), finished,
                         stats_cells(policy_stats(r, policy)));
    }
  }
  return csv;
}

bool write_sweep_stats(const fs::path& dir, const Json& sweep) {
  const std::string csv = sweep_stats_csv(sweep, [&](const std::string& id) -> std::optional<Json> {
    const fs::path summary = dir / "points" / id / "summary.json";
    std::error_code ec;
    if (!fs::exists(summary, ec)) return std::nullopt;
    return workflow::read_json_file(summary);
  });
  std::error_code ec;
  if (csv.empty()) {
    fs::remove(dir / "sweep-stats.csv", ec);  // an earlier sweep's, with seeds: it no longer describes the points
    return false;
  }
  workflow::write_atomically(dir / "sweep-stats.csv", csv);
  return true;
}

}  // namespace odcn::app
