#pragma once
// Strict YAML reading: every accessor names the file and the dotted field path in its error, rejects keys
// it does not know, and checks types and ranges. yaml-cpp itself would silently accept "abc" as a string
// where a number is expected, ignore a misspelt key, keep the first or the last of two equal keys, or read
// only the first of several documents; these helpers do not.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace odcn::spec {

class Schema;
struct Key;

/// Reads an input file whole: it must be a regular file (not a folder, device or pipe) of at most
/// limits::kMaxInputFileBytes bytes. Raises InputError(path, "(file)", ...) otherwise.
std::string read_input_file(const std::string& path);

/// Parses YAML text (named `file` in errors): UTF-8, exactly one document whose root is a mapping, every key a
/// plain scalar, no key twice in a mapping, nesting and alias expansion within limits::kMaxYamlDepth and
/// limits::kMaxYamlNodes.
YAML::Node parse_yaml(const std::string& text, const std::string& file);

/// FNV-1a (64 bit) of an input's bytes, as "fnv1a64:<16 hex digits>": a stable fingerprint for run.json.
std::string fingerprint(const std::string& text);

/// read_input_file, then parse_yaml.
YAML::Node load_yaml_file(const std::string& path);

/// A YAML mapping being read, with its location for error messages.
///
/// Read with a key table (spec/keys.hpp), a map takes its allowed keys, ranges, words and defaults from the
/// table: the accessors without a range below. Those with a range are for documents without a table, and a
/// map with one refuses them (std::logic_error), as it refuses any key its table lacks.
class YamlMap {
 public:
  YamlMap(const YAML::Node& node, std::string file, std::string path, const Schema* schema = nullptr);
  /// An element of a list under this map ("jobs[3]"), read with this map's table.
  YamlMap element(const YAML::Node& node, const std::string& field) const;
  const Schema* schema() const { return schema_; }

  /// Raises InputError naming the first key not in `keys`.
  void allow_only(std::initializer_list<const char*> keys) const;
  /// Raises InputError naming the first key not in the table under this map.
  void allow_only() const;

  // With a table: the range, words and default are the table's.
  std::int64_t integer(const char* key) const;
  std::int64_t integer_or(const char* key) const;
  double real(const char* key) const;  ///< [lo, hi], or (0, hi] for a positive key
  double real_or(const char* key) const;
  /// One of the key's words. `what` given: "unknown WHAT 'x' (expected a or b[: note])", else "must be a or b
  /// (got 'x')"; both with a "did you mean" when a word is near.
  std::string word(const char* key, const std::string& what = "", const std::string& note = "") const;
  std::string word_or(const char* key, const std::string& what = "", const std::string& note = "") const;
  /// `value` (at `field`) checked against the words of this map's key `key` (a list of words, say).
  std::string checked_word(const char* key, const std::string& value, const std::string& field,
                           const std::string& what = "", const std::string& note = "") const;
  /// A duration given as exactly one of `<stem>_us` and `<stem>_ms`, in seconds, in the table's range.
  double duration(const std::string& stem) const;
  bool boolean_or(const char* key) const;
  bool has(const char* key) const;
  YAML::Node node(const char* key) const;  ///< raises if missing
  std::string field(const std::string& key) const;
  const std::string& file() const { return file_; }

  /// A whole number in [lo, hi] (core/numbers.hpp).
  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;
  /// A finite real in (0, hi] (sizes, capacities and delays are never zero or negative).
  double positive(const char* key, double hi) const;
  /// A finite real in [lo, hi].
  double real(const char* key, double lo, double hi) const;
  std::string text(const char* key) const;
  std::string text_or(const char* key, const std::string& fallback) const;
  /// true or false (nothing else: not yes, on or 1).
  bool boolean(const char* key) const;
  YamlMap map(const char* key) const;
  /// A duration given as exactly one of `<stem>_us` and `<stem>_ms`, in seconds, within the limits of every
  /// duration (limits::kMinSeconds to limits::kMaxSeconds).
  /// `allow_zero`: 0 is a valid duration (an ideal switch), else it must be at least limits::kMinSeconds.
  double duration_us_or_ms(const std::string& stem, bool allow_zero = false) const;
  /// A non-empty list of strings, each with its own field name ("key[i]") for errors about it.
  std::vector<std::pair<std::string, std::string>> text_list(const char* key) const;

 private:
  const Key& key_of(const char* key) const;  ///< its table entry (std::logic_error without one)
  void no_table() const;                      ///< std::logic_error when this map has a table
  YAML::Node node_;
  std::string file_;
  std::string path_;
  const Schema* schema_ = nullptr;
};

std::int64_t as_integer(const YAML::Node& n, const std::string& file, const std::string& field, std::int64_t lo,
                        std::int64_t hi);
std::string as_text(const YAML::Node& n, const std::string& file, const std::string& field);

/// A name that ends up in CSV cells, JSON strings and terminal lines: 1 to limits::kMaxJobNameBytes bytes,
/// without control characters, commas or double quotes. Returns `name` or raises InputError.
std::string checked_name(const std::string& name, const std::string& file, const std::string& field);

}  // namespace odcn::spec
