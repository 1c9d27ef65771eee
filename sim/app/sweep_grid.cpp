#include "app/sweep_grid.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "app/policy_table.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/overrides.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::app::sweep {

namespace {

namespace fs = std::filesystem;

std::string scalar_text(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a single value (a number or a word)");
  return n.Scalar();
}

/// The grid is a map of known keys only, so that a misspelt key is an error rather than ignored.
void check_grid_keys(const YAML::Node& doc, const std::string& file) {
  if (!doc.IsMap()) throw InputError(file, "", "must be a map with platform, workload, policies and set");
  for (const auto& kv : doc) {
    const std::string k = kv.first.Scalar();
    if (k != "platform" && k != "workload" && k != "policies" && k != "seeds" && k != "iterations" &&
        k != "slowdown" && k != "set")
      throw InputError(file, k, "unknown key (platform, workload, policies, seeds, iterations, slowdown, set)");
  }
}

/// platform and workload, as given and resolved against the grid's folder.
void parse_grid_inputs(const YAML::Node& doc, Grid& g) {
  const fs::path base = fs::path(g.file).parent_path();
  for (const char* k : {"platform", "workload"}) {
    if (!doc[k]) throw InputError(g.file, k, "is required");
    const std::string v = scalar_text(doc[k], g.file, k);
    (std::string(k) == "platform" ? g.platform : g.workload) = v;
    (std::string(k) == "platform" ? g.platform_path : g.workload_path) = (base / v).lexically_normal().string();
  }
}

void parse_grid_policies(const YAML::Node& doc, Grid& g) {
  const std::string& file = g.file;
  if (!doc["policies"] || !doc["policies"].IsSequence() || doc["policies"].size() == 0)
    throw InputError(file, "policies", "must list at least one policy");
  for (std::size_t i = 0; i < doc["policies"].size(); ++i) {
    const std::string field = fmt::format("policies[{}]", i);
    const std::string p = scalar_text(doc["policies"][i], file, field);
    policy_or_throw(p, file, field);
    if (std::find(g.policies.begin(), g.policies.end(), p) != g.policies.end())
      throw InputError(file, field, fmt::format("'{}' is listed twice", p));
    g.policies.push_back(p);
  }
}

/// seeds, iterations and slowdown: each optional.
void parse_grid_run_options(const YAML::Node& doc, Grid& g) {
  const std::string& file = g.file;
  if (doc["seeds"]) {
    if (!doc["seeds"].IsSequence() || doc["seeds"].size() == 0) throw InputError(file, "seeds", "must list seeds");
    g.seeds.clear();
    for (std::size_t i = 0; i < doc["seeds"].size(); ++i) {
      const std::string field = fmt::format("seeds[{}]", i);
      const std::uint64_t seed = parse_seed(scalar_text(doc["seeds"][i], file, field), file, field);
      // Two points of one seed would run into one folder (as --seeds refuses, app/seed_stats.cpp).
      if (std::find(g.seeds.begin(), g.seeds.end(), std::optional<std::uint64_t>(seed)) != g.seeds.end())
        throw InputError(file, field, fmt::format("seed {} is listed twice", seed));
      g.seeds.emplace_back(seed);
    }
  }
  if (doc["iterations"])
    g.iterations = static_cast<int>(
        parse_integer(scalar_text(doc["iterations"], file, "iterations"), 1, 1'000'000, file, "iterations"));
  if (doc["slowdown"]) {
    const std::string v = scalar_text(doc["slowdown"], file, "slowdown");
    if (v != "true" && v != "false") throw InputError(file, "slowdown", "must be true or false");
    g.slowdown = v == "true";
  }
}

/// The values one key of `set` sweeps: each a valid --set of that key, none listed twice.
std::vector<std::string> swept_values(const std::string& file, const std::string& key, const YAML::Node& list) {
  const std::string field = "set." + key;
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(file, field, "must list the values to sweep (e.g. [10, 100, 1000])");
  std::vector<std::string> values;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string v = scalar_text(list[i], file, fmt::format("{}[{}]", field, i));
    try {
      spec::parse_override(key + "=" + v);  // the key must name a platform or workload field
    } catch (const InputError& e) {
      throw InputError(file, fmt::format("{}[{}]", field, i), e.reason());
    }
    if (std::find(values.begin(), values.end(), v) != values.end())
      throw InputError(file, fmt::format("{}[{}]", field, i), fmt::format("'{}' is listed twice", shown(v)));
    values.push_back(v);
  }
  return values;
}

/// A folder name that says what the point is: "ocs.reconfig_delay_us=10+policy=tdm4+seed=1" (no commas: it is
/// also sweep.csv's first column).
std::string point_id(const Grid& g, const Point& p) {
  std::string id;
  for (std::size_t k = 0; k < g.sets.size(); ++k) id += g.sets[k].first + "=" + p.values[k] + "+";
  id += "policy=" + p.policy;
  if (p.seed) id += fmt::format("+seed={}", *p.seed);
  // Characters a folder name should not hold become '_'; then (and for long names) a fingerprint of the exact
  // values keeps two points apart ("a b" and "a_b").
  const std::string exact = id;
  bool changed = false;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("._=-+", c)) {
      c = '_';
      changed = true;
    }
  if (changed || id.size() > 200)
    id = fmt::format("{}-{}", id.substr(0, 180), spec::fingerprint(exact).substr(std::string("fnv1a64:").size(), 12));
  return id;
}

}  // namespace

/// The grid of `sweep --platform P --workload W --policies A,B [--seeds 1-3] [--set KEY=V1,V2 ...]`: the same as a
/// GRID.yaml would give, its errors naming the command line's options.
std::string Grid::set_field(std::size_t k) const {
  return k < set_texts.size() ? spec::set_field(set_texts[k]) : "set." + sets[k].first;
}

Grid inline_grid(const InlineGrid& in) {
  const std::string origin = "command line";
  Grid g;
  g.file = origin;
  g.platform = in.platform;
  g.workload = in.workload;
  g.platform_path = fs::absolute(in.platform).lexically_normal().string();
  g.workload_path = fs::absolute(in.workload).lexically_normal().string();
  for (const auto& p : in.policies) {
    policy_or_throw(p, origin, "--policies");
    if (std::find(g.policies.begin(), g.policies.end(), p) != g.policies.end())
      throw InputError(origin, "--policies", fmt::format("'{}' is listed twice", shown(p)));
    g.policies.push_back(p);
  }
  if (!in.seeds.empty()) g.seeds.assign(in.seeds.begin(), in.seeds.end());
  g.iterations = in.iterations;
  g.slowdown = in.slowdown;
  for (const auto& text : in.sets) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(origin, "--set", fmt::format("'{}' must be KEY.PATH=V1,V2,... (the values to sweep)", shown(text)));
    const std::string key = text.substr(0, eq);
    if (std::any_of(g.sets.begin(), g.sets.end(), [&](const auto& s) { return s.first == key; }))
      throw InputError(origin, "--set", fmt::format("'{}' is given twice", shown(key)));
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& v : split_commas(text.substr(eq + 1))) list.push_back(v);
    try {
      g.sets.emplace_back(key, swept_values(origin, key, list));
    } catch (const InputError& e) {  // named as the user typed it, not as a grid file's set.KEY[i]
      throw InputError(origin, spec::set_field(text), e.reason());
    }
    g.set_texts.push_back(text);
  }
  return g;
}

Grid parse_grid(const std::string& file) { return parse_grid_text(spec::read_input_file(file), file); }

Grid parse_grid_text(const std::string& text, const std::string& file) {
  Grid g;
  g.file = file;
  const YAML::Node doc = spec::parse_yaml(text, file);
  check_grid_keys(doc, file);
  parse_grid_inputs(doc, g);
  parse_grid_policies(doc, g);
  parse_grid_run_options(doc, g);
  if (doc["set"]) {
    if (!doc["set"].IsMap()) throw InputError(file, "set", "must map each key path to a list of values");
    for (const auto& kv : doc["set"]) {
      const std::string key = kv.first.Scalar();
      if (key.empty()) throw InputError(file, "set", "has an empty key (give key paths such as ocs.reconfig_delay_us)");
      g.sets.emplace_back(key, swept_values(file, key, kv.second));
    }
  }
  return g;
}


/// The cross product: set values (the first key slowest), then policies, then seeds.
std::vector<Point> points_of(const Grid& g) {
  // Counted before any point is made: a grid of 10^12 points is refused at once, not after minutes of work.
  constexpr std::uint64_t kMaxPoints = 100000;
  std::uint64_t count = g.policies.size() * g.seeds.size();
  bool overflow = false;
  for (const auto& [key, values] : g.sets) overflow = __builtin_mul_overflow(count, values.size(), &count) || overflow;
  if (overflow || count > kMaxPoints)
    throw InputError(g.file, "set",
                     fmt::format("{} points (set values x policies x seeds), above the limit of {}",
                                 overflow ? std::string("more than 10^19") : std::to_string(count), kMaxPoints));
  std::vector<Point> points;
  std::vector<std::size_t> at(g.sets.size(), 0);
  while (true) {
    for (const auto& policy : g.policies)
      for (const auto& seed : g.seeds) {
        Point p{"", policy, seed, {}};
        for (std::size_t k = 0; k < g.sets.size(); ++k) p.values.push_back(g.sets[k].second[at[k]]);
        p.id = point_id(g, p);
        points.push_back(std::move(p));
      }
    std::size_t k = g.sets.size();
    while (k > 0 && ++at[k - 1] == g.sets[k - 1].second.size()) at[--k] = 0;
    if (k == 0) break;
  }
  return points;
}

}  // namespace odcn::app::sweep
