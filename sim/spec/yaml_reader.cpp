#include "spec/yaml_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace odcn::spec {

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "(file)", "cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    YAML::Node root = YAML::Load(buffer.str());
    if (!root.IsMap()) throw InputError(path, "(root)", "must be a YAML mapping");
    return root;
  } catch (const YAML::Exception& e) {
    throw InputError(path, "(file)", fmt::format("not valid YAML at line {}: {}", e.mark.line + 1, e.msg));
  }
}

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) throw InputError(file_, path_.empty() ? "(root)" : path_, "must be a mapping");
}

std::string YamlMap::field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void YamlMap::allow_only(std::initializer_list<const char*> keys) const {
  for (const auto& kv : node_) {
    const auto key = kv.first.as<std::string>();
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    if (!known) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      throw InputError(file_, field(key), "unknown key (allowed: " + list + ")");
    }
  }
}

bool YamlMap::has(const char* key) const { return static_cast<bool>(node_[key]); }

YAML::Node YamlMap::node(const char* key) const {
  YAML::Node n = node_[key];
  if (!n) throw InputError(file_, field(key), "is required");
  return n;
}

std::int64_t as_integer(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be an integer");
  const double v = as_number(n, file, field);
  if (v != std::floor(v) || std::fabs(v) > 9.0e15)
    throw InputError(file, field, fmt::format("must be an integer (got {})", n.Scalar()));
  return static_cast<std::int64_t>(v);
}

double as_number(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a number");
  const std::string& s = n.Scalar();
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v))
    throw InputError(file, field, fmt::format("must be a number (got '{}')", s));
  return v;
}

std::string as_text(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a string");
  return n.Scalar();
}

std::int64_t YamlMap::integer(const char* key) const { return as_integer(node(key), file_, field(key)); }
std::int64_t YamlMap::integer_or(const char* key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}
double YamlMap::number(const char* key) const { return as_number(node(key), file_, field(key)); }
double YamlMap::number_or(const char* key, double fallback) const { return has(key) ? number(key) : fallback; }
std::string YamlMap::text(const char* key) const { return as_text(node(key), file_, field(key)); }
std::string YamlMap::text_or(const char* key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

double YamlMap::positive(const char* key) const {
  const double v = number(key);
  if (!(v > 0)) throw InputError(file_, field(key), fmt::format("must be > 0 (got {})", v));
  return v;
}

std::int64_t YamlMap::positive_integer(const char* key) const {
  const std::int64_t v = integer(key);
  if (v <= 0) throw InputError(file_, field(key), fmt::format("must be > 0 (got {})", v));
  return v;
}

YamlMap YamlMap::map(const char* key) const { return YamlMap(node(key), file_, field(key)); }

std::vector<std::pair<std::string, std::string>> YamlMap::text_list(const char* key) const {
  const YAML::Node n = node(key);
  if (!n.IsSequence() || n.size() == 0) throw InputError(file_, field(key), "must be a non-empty list");
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string f = fmt::format("{}[{}]", field(key), i);
    out.emplace_back(f, as_text(n[i], file_, f));
  }
  return out;
}

}  // namespace odcn::spec
