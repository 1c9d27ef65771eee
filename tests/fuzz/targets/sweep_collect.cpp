// Fuzz target `sweep_collect`: the sweep.json that `odcnsim sweep --collect DIR` (and `diff`) read back
// (app::sweep::parse_sweep_json), and what collect makes of it: sweep.csv (sweep_csv) and sweep-stats.csv
// (sweep_stats_csv). The points' summary.json files are made up from each point's id: none (a point not run),
// an empty object, or every metric with a number, so that finished, missing and partial points all occur.
// sweep.csv must hold its header and one record per finished point.
#include <algorithm>

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

/// CSV records: line ends outside double quotes (a quoted field may hold a line end).
std::size_t records(const std::string& csv) {
  std::size_t n = 0;
  bool quoted = false;
  for (const char c : csv) {
    if (c == '"') quoted = !quoted;
    if (c == '\n' && !quoted) ++n;
  }
  return n;
}

}  // namespace

ODCN_FUZZ_TARGET(sweep_collect) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace odcn::app;
  odcn_fuzz::expect_input_error([&] {
    const Json sweep = sweep::parse_sweep_json(text, "sweeps/sweep.json");
    std::size_t missing = 0;
    const std::string csv = sweep::sweep_csv(sweep, made_up_summary, missing);
    const std::size_t lines = records(csv);
    if (lines != 1 + sweep["points"].size() - missing)
      odcn_fuzz::broken("sweep_collect: sweep.csv does not hold one line per finished point",
                        std::to_string(lines) + " lines");
    sweep_stats_csv(sweep, made_up_summary);
  });
  return 0;
}
