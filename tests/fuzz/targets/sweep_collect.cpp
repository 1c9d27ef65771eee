// Fuzz target `sweep_collect`: the sweep.json that `odcnsim sweep --collect DIR` (and `diff`) read back
// (app::sweep::parse_sweep_json), and what collect makes of it: sweep.csv (sweep_csv) and sweep-stats.csv
// (sweep_stats_csv). The points' summary.json files are made up from each point's id: none (a point not run),
// an empty object, or every metric with a number, so that finished, missing and partial points all occur.
// sweep.csv must hold its header and one record per finished point, sweep-stats.csv one per policy and set
// values, every record with as many fields as the header.
#include <algorithm>
#include <set>
#include <vector>

#include "app/metrics.hpp"
#include "app/sweep_json.hpp"
#include "app/sweep_stats.hpp"
#include "fuzz_common.hpp"

namespace {

using odcn::app::workflow::Json;

std::optional<Json> made_up_summary(const std::string& id) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : id) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  switch (h % 3) {
    case 0:
      return std::nullopt;
    case 1:
      return Json::object();
    default: {
      Json s = {{"jobs", static_cast<int>(h % 7)}, {"iterations", 2}};
      int i = 0;
      for (const auto& [k, label] : odcn::app::metric_keys()) s[k] = static_cast<double>((h >> (i++ % 32)) % 1000) / 7.0;
      return s;
    }
  }
}

/// The number of fields of each CSV record (a quoted field may hold commas and line ends; "" is a quote).
std::vector<std::size_t> record_fields(const std::string& csv) {
  std::vector<std::size_t> fields;
  std::size_t n = 1;
  bool quoted = false;
  for (const char c : csv) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == ',') ++n;
    if (c == '\n') {
      fields.push_back(n);
      n = 1;
    }
  }
  return fields;
}

/// Every record of a CSV text has as many fields as its header, and there are `rows` records below it.
void check_csv(const std::string& csv, std::size_t rows, const char* what) {
  const std::vector<std::size_t> fields = record_fields(csv);
  if (fields.size() != 1 + rows)
    odcn_fuzz::broken(what, std::to_string(fields.size()) + " records for " + std::to_string(rows) + " rows");
  for (const std::size_t n : fields)
    if (n != fields.front()) odcn_fuzz::broken(what, "a record's fields do not match the header's");
}

}  // namespace

ODCN_FUZZ_TARGET(sweep_collect) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::app;
  odcn_fuzz::expect_input_error([&] {
    const Json sweep = sweep::parse_sweep_json(text, "sweeps/sweep.json");
    std::size_t missing = 0;
    const std::string csv = sweep::sweep_csv(sweep, made_up_summary, missing);
    check_csv(csv, sweep["points"].size() - missing, "sweep_collect: sweep.csv");
    const std::string stats = sweep_stats_csv(sweep, made_up_summary);
    if (!stats.empty()) {  // a row per policy and set values of the seeded points
      std::set<std::string> policies;
      std::set<std::vector<std::string>> values;
      for (const auto& p : sweep["points"]) {
        if (p["seed"].is_null()) continue;
        policies.insert(p["policy"].get<std::string>());
        std::vector<std::string> v;
        for (const auto& k : sweep["keys"]) v.push_back(p["set"][k.get<std::string>()].get<std::string>());
        values.insert(v);
      }
      check_csv(stats, policies.size() * values.size(), "sweep_collect: sweep-stats.csv");
    }
  });
  return 0;
}
