#include "spec/keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace odcn::spec {

namespace {

/// A bound as a reader would write it: an integer key's in full, a number's as %g.
std::string bound(double x, bool whole) {
  if (whole && std::abs(x) < 1e18) return fmt::format("{}", static_cast<long long>(x));
  return fmt::format("{:g}", x);
}

}  // namespace

const char* to_string(KeyType t) {
  switch (t) {
    case KeyType::integer: return "integer";
    case KeyType::real: return "number";
    case KeyType::positive: return "number";
    case KeyType::text: return "text";
    case KeyType::word: return "word";
    case KeyType::boolean: return "boolean";
    case KeyType::list: return "list";
    case KeyType::mapping: return "mapping";
  }
  return "?";
}

std::string Key::range() const {
  switch (type) {
    case KeyType::integer: return bound(lo, true) + " to " + bound(hi, true);
    case KeyType::real: return bound(lo, false) + " to " + bound(hi, false);
    case KeyType::positive: return "> 0 to " + bound(hi, false);
    case KeyType::boolean: return "true | false";
    default: break;
  }
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " | ") + w;
  return out;
}

Key make_key(KeyType type, std::string path, std::string unit, double lo, double hi, std::string fallback,
             std::string help, std::vector<std::string> words) {
  Key k;
  k.path = std::move(path);
  k.type = type;
  k.unit = std::move(unit);
  k.lo = lo;
  k.hi = hi;
  k.fallback = std::move(fallback);
  k.help = std::move(help);
  k.words = std::move(words);
  return k;
}

std::string Key::default_in(const YAML::Node& root) const { return fallback_in ? fallback_in(root) : fallback; }

Schema::Schema(std::string name, std::string title, std::vector<Key> keys, std::vector<std::string> defaulted)
    : name_(std::move(name)), title_(std::move(title)), keys_(std::move(keys)), defaulted_(std::move(defaulted)) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const std::string& path = keys_[i].path;
    if (!index_.emplace(path, i).second) throw std::logic_error("key table " + name_ + ": " + path + " twice");
    // Every prefix of the path is a section holding the next component.
    std::string section;
    std::size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      auto& names = children_[section];
      const std::string child = part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0
                                    ? part.substr(0, part.size() - 2)
                                    : part;
      if (std::find(names.begin(), names.end(), child) == names.end()) names.push_back(child);
      if (dot == std::string::npos) break;
      section += (section.empty() ? "" : ".") + part;
      start = dot + 1;
    }
  }
}

const Key* Schema::find(const std::string& path) const {
  const auto it = index_.find(path);
  return it == index_.end() ? nullptr : &keys_[it->second];
}

const Key& Schema::at(const std::string& path) const {
  if (const Key* k = find(path)) return *k;
  throw std::logic_error("odcnsim bug: a reader reads '" + path + "', which the key table " + name_ + " lacks");
}

bool Schema::defaulted(const std::string& section) const {
  return std::find(defaulted_.begin(), defaulted_.end(), section) != defaulted_.end();
}

bool Schema::knows(const std::string& path) const {
  return find(path) || children_.count(path) || children_.count(path + "[]");
}

const std::vector<std::string>& Schema::children(const std::string& section) const {
  static const std::vector<std::string> none;
  const auto it = children_.find(section);
  return it == children_.end() ? none : it->second;
}

std::string schema_path(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '[') {
      const auto close = field.find(']', i);
      if (close == std::string::npos) break;
      out += "[]";
      i = close;
    } else {
      out += field[i];
    }
  }
  return out;
}

const std::vector<const Schema*>& all_schemas() {
  static const std::vector<const Schema*> all{&clos_ocs_keys(),      &flat_ocs_keys(),       &photonic_rail_keys(),
                                              &electrical_keys(),    &tdm4_workload_keys(), &ps_workload_keys(),
                                              &graph_workload_keys()};
  return all;
}

const Schema* platform_schema(const std::string& kind) {
  for (const Schema* s : {&clos_ocs_keys(), &flat_ocs_keys(), &photonic_rail_keys(), &electrical_keys()})
    if (s->name() == kind) return s;
  return nullptr;
}

const Schema& workload_schema(const YAML::Node& doc) {
  if (doc.IsMap() && doc["ps_jobs"]) return ps_workload_keys();
  if (doc.IsMap() && doc["job_graphs"]) return graph_workload_keys();
  return tdm4_workload_keys();
}

}  // namespace odcn::spec
