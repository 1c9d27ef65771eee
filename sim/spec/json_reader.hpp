#pragma once
// Strict JSON reading, with the same guarantees as yaml_reader.hpp: one value whose root is an object, no key
// twice in an object, bounded nesting and size, numbers read exactly and range-checked from their text, and
// every error as InputError("file: field: reason"). nlohmann::json's own parser keeps the last of two equal
// keys and turns 1e400 into infinity; this reader uses its SAX interface and refuses both.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace odcn::spec {

/// A parsed JSON value. Numbers keep their text, so that each field can be parsed with its own range.
struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  std::string text;  ///< number: as written; string: the value; boolean: "true"/"false"
  bool integral = false;  ///< number: written without fraction or exponent
  std::vector<JsonValue> items;                          ///< array
  std::vector<std::pair<std::string, JsonValue>> members;  ///< object, in file order

  /// A boolean, number or string value (for readers that build values from SAX events).
  static JsonValue scalar(Kind k, std::string text, bool integral) {
    JsonValue v;
    v.kind = k;
    v.text = std::move(text);
    v.integral = integral;
    return v;
  }
};

/// Parses `text` (named `file` in errors). Raises InputError for invalid JSON, a root that is not an
/// object, a duplicate key, nesting deeper than limits::kMaxYamlDepth or more than limits::kMaxYamlNodes values.
JsonValue parse_json(const std::string& text, const std::string& file);

/// Hands the elements of the root's array `key` to `take` one by one as they are parsed, instead of keeping them:
/// take(element, index, the root as read so far) returns false to keep this one and every later one in the
/// array after all (for instance while a key it needs has not been read yet).
struct JsonStream {
  std::string key;
  std::function<bool(const JsonValue&, std::size_t, const JsonValue&)> take;
};
JsonValue parse_json(const std::string& text, const std::string& file, const JsonStream& stream);

/// An object being read, with its location for error messages (the JSON twin of YamlMap).
class JsonMap {
 public:
  JsonMap(const JsonValue& value, std::string file, std::string path);
  void allow_only(std::initializer_list<const char*> keys) const;
  bool has(const char* key) const;
  const JsonValue& value(const char* key) const;  ///< raises if missing
  std::string field(const std::string& key) const;
  const std::string& file() const { return file_; }

  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const;
  double real(const char* key, double lo, double hi) const;
  double positive(const char* key, double hi) const;
  std::string text(const char* key) const;
  const std::vector<JsonValue>& array(const char* key) const;  ///< raises unless an array
  /// read(""): a check that names its field; an InputError it raises with no field is raised again naming
  /// field(key). For a check of a value read many times over, so that the name is made only for an error.
  template <class Read>
  auto named_at(const char* key, Read read) const -> decltype(read(std::string())) {
    try {
      return read(std::string());
    } catch (const InputError& e) {
      if (!e.field().empty()) throw;
      throw InputError(file_, field(key), e.reason());
    }
  }

 private:
  const JsonValue* find(const char* key) const;
  const JsonValue& value_;
  std::string file_;
  std::string path_;
};

std::int64_t json_integer(const JsonValue& v, const std::string& file, const std::string& field, std::int64_t lo,
                          std::int64_t hi);
std::string json_text(const JsonValue& v, const std::string& file, const std::string& field);

/// The same two, with the field's name made only when there is an error to report (the elements of long lists).
template <class Field, class = std::enable_if_t<std::is_invocable_r_v<std::string, Field>>>
std::int64_t json_integer(const JsonValue& v, const std::string& file, Field field, std::int64_t lo, std::int64_t hi) {
  try {
    return json_integer(v, file, std::string(), lo, hi);
  } catch (const InputError& e) {
    throw InputError(file, field(), e.reason());
  }
}
template <class Field, class = std::enable_if_t<std::is_invocable_r_v<std::string, Field>>>
std::string json_text(const JsonValue& v, const std::string& file, Field field) {
  if (v.kind != JsonValue::Kind::string) throw InputError(file, field(), "must be a string");
  return v.text;
}

}  // namespace odcn::spec
