#pragma once
// Strict YAML reading: every accessor names the file and the dotted field path in its error, rejects keys
// it does not know, and checks types and signs. yaml-cpp itself would silently accept "abc" as a string
// where a number is expected, or ignore a misspelt key; these helpers do not.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace odcn::spec {

/// Reads and parses a YAML file; unreadable or malformed files raise InputError(file, "(file)", ...).
YAML::Node load_yaml_file(const std::string& path);

/// A YAML mapping being read, with its location for error messages.
class YamlMap {
 public:
  YamlMap(const YAML::Node& node, std::string file, std::string path);

  /// Raises InputError naming the first key not in `keys`.
  void allow_only(std::initializer_list<const char*> keys) const;
  bool has(const char* key) const;
  YAML::Node node(const char* key) const;  ///< raises if missing
  std::string field(const std::string& key) const;
  const std::string& file() const { return file_; }

  std::int64_t integer(const char* key) const;
  std::int64_t integer_or(const char* key, std::int64_t fallback) const;
  double number(const char* key) const;
  double number_or(const char* key, double fallback) const;
  std::string text(const char* key) const;
  std::string text_or(const char* key, const std::string& fallback) const;
  /// Checks a number is > 0 (sizes, capacities, delays must never be zero or negative).
  double positive(const char* key) const;
  std::int64_t positive_integer(const char* key) const;
  YamlMap map(const char* key) const;
  /// A non-empty list of strings, each with its own field name ("key[i]") for errors about it.
  std::vector<std::pair<std::string, std::string>> text_list(const char* key) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

std::int64_t as_integer(const YAML::Node& n, const std::string& file, const std::string& field);
double as_number(const YAML::Node& n, const std::string& file, const std::string& field);
std::string as_text(const YAML::Node& n, const std::string& file, const std::string& field);

}  // namespace odcn::spec
