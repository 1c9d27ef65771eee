#include "spec/json_reader.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <memory>
#include <unordered_set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/field_path.hpp"

namespace odcn::spec {

namespace {

using Json = nlohmann::json;


/// Builds JsonValue trees from nlohmann's SAX events, checking keys, depth and size as it goes.
class Builder : public nlohmann::json_sax<Json> {
 public:
  explicit Builder(std::string file, const JsonStream* stream = nullptr) : file_(std::move(file)), stream_(stream) {}
  JsonValue root;

  bool null() override { return add(JsonValue{}); }
  bool boolean(bool v) override { return add(JsonValue::scalar(JsonValue::Kind::boolean, v ? "true" : "false", false)); }
  bool number_integer(number_integer_t v) override {
    return add(JsonValue::scalar(JsonValue::Kind::number, std::to_string(v), true));
  }
  bool number_unsigned(number_unsigned_t v) override {
    return add(JsonValue::scalar(JsonValue::Kind::number, std::to_string(v), true));
  }
  bool number_float(number_float_t, const string_t& s) override { return add(JsonValue::scalar(JsonValue::Kind::number, s, false)); }
  // (nlohmann passes its token buffer by reference so that it may be moved from)
  bool string(string_t& v) override { return add(JsonValue::scalar(JsonValue::Kind::string, std::move(v), false)); }
  bool binary(binary_t&) override { return add(JsonValue{}); }
  bool start_object(std::size_t) override { return open(JsonValue::Kind::object); }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.fresh_key(k)) throw InputError(file_, join_field(path_of(stack_.size() - 1), shown(k)), "duplicate key");
    f.pending_key = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(JsonValue::Kind::array); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& e) override {
    if (e.id == 406)  // a number that overflows a double: name its field, as for every other bad number
      throw InputError(file_, field_or_root(child_path()),
                       fmt::format("is too large or too small for a number (got '{}')", shown(last_token)));
    std::string what = e.what();
    if (const auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    throw InputError(file_, "(file)", fmt::format("not valid JSON at byte {}: {}", position, what));
  }

 private:
  // Paths are for error messages only: built from the stack when one is needed, not for every value.
  struct Frame {
    JsonValue value;
    std::string pending_key;
    std::unique_ptr<std::unordered_set<std::string>> keys;  ///< a large object's keys (a small one is scanned)
    std::size_t taken = 0;  ///< array elements handed to the stream, before items
    bool fresh_key(const std::string& k) {
      constexpr std::size_t kScan = 16;
      if (!keys && value.members.size() < kScan)
        return std::none_of(value.members.begin(), value.members.end(), [&](const auto& m) { return m.first == k; });
      if (!keys) {
        keys = std::make_unique<std::unordered_set<std::string>>();
        for (const auto& m : value.members) keys->insert(m.first);
      }
      return keys->insert(k).second;
    }
  };
  /// The path of the value that stack_[depth] holds (of the value being read when depth is the stack's size).
  std::string path_of(std::size_t depth) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      const JsonValue& v = stack_[i].value;
      path = v.kind == JsonValue::Kind::object ? join_field(path, stack_[i].pending_key)
                                               : fmt::format("{}[{}]", path, stack_[i].taken + v.items.size());
    }
    return path;
  }
  std::string child_path() const { return path_of(stack_.size()); }
  bool count() {
    if (++nodes_ > limits::kMaxYamlNodes)
      throw InputError(file_, "(file)", fmt::format("holds more than {} JSON values", limits::kMaxYamlNodes));
    return true;
  }
  bool add(JsonValue v) {
    count();
    if (stack_.empty()) {
      root = std::move(v);
      return true;
    }
    Frame& f = stack_.back();
    if (streamed(f)) {
      if (stream_->take(v, f.taken + f.value.items.size(), stack_.front().value)) {
        ++f.taken;
        return true;
      }
      declined_ = true;
    }
    if (f.value.kind == JsonValue::Kind::object)
      f.value.members.emplace_back(f.pending_key, std::move(v));
    else
      f.value.items.push_back(std::move(v));
    return true;
  }
  bool open(JsonValue::Kind k) {
    count();
    if (static_cast<int>(stack_.size()) >= limits::kMaxYamlDepth)
      throw InputError(file_, field_or_root(child_path()),
                       fmt::format("is nested more than {} levels deep", limits::kMaxYamlDepth));
    stack_.emplace_back();
    stack_.back().value.kind = k;
    if (k == JsonValue::Kind::object) stack_.back().value.members.reserve(8);  // (a job graph's tasks have 4 to 8)
    return true;
  }
  bool close() {
    JsonValue v = std::move(stack_.back().value);
    stack_.pop_back();
    --nodes_;  // counted when opened
    return add(std::move(v));
  }
  /// Whether a value added to f is an element of the streamed array.
  bool streamed(const Frame& f) const {
    return stream_ != nullptr && !declined_ && stack_.size() == 2 && &f == &stack_[1] &&
           f.value.kind == JsonValue::Kind::array && stack_[0].value.kind == JsonValue::Kind::object &&
           stack_[0].pending_key == stream_->key;
  }
  std::string file_;
  const JsonStream* stream_;
  bool declined_ = false;
  std::vector<Frame> stack_;
  std::int64_t nodes_ = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text, const std::string& file) { return parse_json(text, file, {}); }

JsonValue parse_json(const std::string& text, const std::string& file, const JsonStream& stream) {
  Builder b(file, stream.take ? &stream : nullptr);
  Json::sax_parse(text, &b);
  if (b.root.kind != JsonValue::Kind::object) throw InputError(file, "(root)", "must be a JSON object");
  return std::move(b.root);
}

JsonMap::JsonMap(const JsonValue& value, std::string file, std::string path)
    : value_(value), file_(std::move(file)), path_(std::move(path)) {
  if (value_.kind != JsonValue::Kind::object) throw InputError(file_, field_or_root(path_), "must be an object");
}

std::string JsonMap::field(const std::string& key) const { return join_field(path_, key); }

void JsonMap::allow_only(std::initializer_list<const char*> keys) const {
  for (const auto& member : value_.members) {  // (the field is named only when the key is unknown)
    const std::string& key = member.first;
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; }))
      require_known_key(key, keys, file_, field(shown(key)));
  }
}

const JsonValue* JsonMap::find(const char* key) const {
  for (const auto& [k, v] : value_.members)
    if (k == key) return &v;
  return nullptr;
}

bool JsonMap::has(const char* key) const { return find(key) != nullptr; }

const JsonValue& JsonMap::value(const char* key) const {
  const JsonValue* v = find(key);
  if (!v) throw InputError(file_, field(key), "is required");
  return *v;
}

std::int64_t json_integer(const JsonValue& v, const std::string& file, const std::string& field, std::int64_t lo,
                          std::int64_t hi) {
  if (v.kind != JsonValue::Kind::number) throw InputError(file, field, "must be a whole number");
  if (!v.integral) throw InputError(file, field, fmt::format("must be a whole number (got {})", shown(v.text)));
  return parse_integer(v.text, lo, hi, file, field);
}

std::string json_text(const JsonValue& v, const std::string& file, const std::string& field) {
  if (v.kind != JsonValue::Kind::string) throw InputError(file, field, "must be a string");
  return v.text;
}

// A field's name is made only when there is an error to report: a job graph reads hundreds of thousands of them.
std::int64_t JsonMap::integer(const char* key, std::int64_t lo, std::int64_t hi) const {
  return json_integer(value(key), file_, [&] { return field(key); }, lo, hi);
}

double JsonMap::real(const char* key, double lo, double hi) const {
  return named_at(key, [&](const std::string& f) {
    const JsonValue& v = value(key);
    if (v.kind != JsonValue::Kind::number) throw InputError(file_, f, "must be a number");
    return parse_real(v.text, lo, hi, false, file_, f);
  });
}

double JsonMap::positive(const char* key, double hi) const {
  return named_at(key, [&](const std::string& f) {
    const JsonValue& v = value(key);
    if (v.kind != JsonValue::Kind::number) throw InputError(file_, f, "must be a number");
    return parse_real(v.text, 0, hi, true, file_, f);
  });
}

std::string JsonMap::text(const char* key) const { return json_text(value(key), file_, [&] { return field(key); }); }

const std::vector<JsonValue>& JsonMap::array(const char* key) const {
  const JsonValue& v = value(key);
  if (v.kind != JsonValue::Kind::array) throw InputError(file_, field(key), "must be a list");
  return v.items;
}

}  // namespace odcn::spec
