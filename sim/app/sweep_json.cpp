#include "app/sweep_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cctype>
#include <cstring>

#include "app/metrics.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"
#include "trace/writers.hpp"

namespace odcn::app {

using workflow::Json;

namespace sweep {

namespace {

/// The TDM policies' own figures, after the comparable metrics in sweep.csv (empty under other policies).
const std::vector<std::string> kTdmExtras{"rounds",           "round_time_s",          "predicted_round_time_s",
                                          "seed_round_time_s", "hill_climb_moves",      "training_to_comm_ratio",
                                          "group_b_jobs",     "search"};

}  // namespace

Json sweep_base(const Grid& g, bool keep_traces) {
  return {{"platform", g.platform},   {"workload", g.workload},     {"iterations", g.iterations},
          {"slowdown", g.slowdown},   {"trace", keep_traces ? "full" : "none"}};
}

Json sweep_json(const Grid& g, const std::vector<Point>& points, bool keep_traces) {
  Json keys = Json::array();
  for (const auto& [k, v] : g.sets) keys.push_back(k);
  Json list = Json::array();
  for (const auto& p : points) {
    Json set = Json::object();
    for (std::size_t k = 0; k < g.sets.size(); ++k) set[g.sets[k].first] = p.values[k];
    list.push_back({{"id", p.id}, {"policy", p.policy}, {"seed", p.seed ? Json(*p.seed) : Json(nullptr)}, {"set", set}});
  }
  return {{"odcnsim_version", ODCNSIM_VERSION}, {"grid", g.file},   {"base", sweep_base(g, keep_traces)},
          {"keys", keys},                        {"points", list}};
}

std::string sweep_csv(const Json& sweep, const SummaryOf& summary_of, std::size_t& missing) {
  std::string csv = "point,platform,workload,policy,seed";
  // Every text of sweep.json is a CSV field (a key, a policy): sweep.json may come from anywhere.
  for (const auto& k : sweep["keys"]) csv += "," + trace::csv_field(k.get<std::string>());
  csv += ",jobs,iterations";
  for (const auto& [k, label] : metric_keys()) csv += "," + k;
  for (const auto& k : kTdmExtras) csv += "," + k;
  csv += "\n";
  missing = 0;
  for (const auto& p : sweep["points"]) {
    const std::optional<Json> found = summary_of(p["id"].get<std::string>());
    if (!found) {
      ++missing;
      continue;
    }
    const Json& s = *found;
    csv += fmt::format("{},{},{},{},{}", p["id"].get<std::string>(), trace::csv_field(sweep["base"]["platform"].get<std::string>()),
                       trace::csv_field(sweep["base"]["workload"].get<std::string>()),
                       trace::csv_field(p["policy"].get<std::string>()), workflow::cell(p["seed"]));
    for (const auto& k : sweep["keys"]) csv += "," + trace::csv_field(p["set"][k.get<std::string>()].get<std::string>());
    csv += "," + workflow::cell(s.value("jobs", Json())) + "," + workflow::cell(s.value("iterations", Json()));
    for (const auto& [k, label] : metric_keys()) csv += "," + workflow::cell(s.value(k, Json()));
    for (const auto& k : kTdmExtras) csv += "," + workflow::cell(s.value(k, Json()));
    csv += "\n";
  }
  return csv;
}

Json parse_sweep_json(const std::string& text, const std::string& file) {
  // As workflow::read_json_file reads a JSON result: anything but an object is not one.
  Json sweep = Json::parse(text, nullptr, false);
  if (sweep.is_discarded() || !sweep.is_object())
    throw InputError(file, "(file)", "is not an odcnsim JSON result (not a JSON object)");
  workflow::check_sweep_json(sweep, file);
  return sweep;
}

}  // namespace sweep

void workflow::check_sweep_json(const Json& sweep, const std::string& file) {
  auto need = [&](bool ok, const std::string& field, const std::string& what) {
    if (!ok) throw InputError(file, field, what);
  };
  need(sweep.contains("keys") && sweep["keys"].is_array(), "keys", "must be a list of strings");
  for (std::size_t k = 0; k < sweep["keys"].size(); ++k)
    need(sweep["keys"][k].is_string(), fmt::format("keys[{}]", k), "must be a string");
  need(sweep.contains("base") && sweep["base"].is_object(), "base", "must be an object");
  for (const char* f : {"platform", "workload"})
    need(sweep["base"].contains(f) && sweep["base"][f].is_string(), fmt::format("base.{}", f), "must be a string");
  need(sweep.contains("points") && sweep["points"].is_array(), "points", "must be a list of points");
  std::map<std::string, std::size_t> index_of;  // point ids, each one folder: sweep never writes one twice
  for (std::size_t i = 0; i < sweep["points"].size(); ++i) {
    const Json& p = sweep["points"][i];
    const std::string at = fmt::format("points[{}]", i);
    need(p.is_object(), at, "must be an object");
    need(p.contains("id") && p["id"].is_string(), at + ".id", "must be a string");
    const std::string id = p["id"].get<std::string>();
    const bool name = !id.empty() && id.size() <= 255 && id != "." && id != ".." &&
                      std::all_of(id.begin(), id.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._=-+", c) != nullptr;
                      });
    need(name, at + ".id", fmt::format("'{}' is not a point folder name (letters, digits and ._=-+ only)", shown(id)));
    const auto [first, fresh] = index_of.emplace(id, i);
    need(fresh, at + ".id", fmt::format("'{}' is the id of points[{}] too", shown(id), first->second));
    need(p.contains("policy") && p["policy"].is_string(), at + ".policy", "must be a string");
    need(p.contains("seed") && (p["seed"].is_null() || p["seed"].is_number_unsigned()), at + ".seed",
         "must be null or a whole number from 0 to 2^64-1");
    need(p.contains("set") && p["set"].is_object(), at + ".set", "must be an object");
    for (const auto& k : sweep["keys"])
      need(p["set"].contains(k.get<std::string>()) && p["set"][k.get<std::string>()].is_string(),
           fmt::format("{}.set.{}", at, k.get<std::string>()), "must be a string");
  }
}

}  // namespace odcn::app
