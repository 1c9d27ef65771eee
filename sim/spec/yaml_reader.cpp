#include "spec/yaml_reader.hpp"

#include <fcntl.h>
#include <yaml-cpp/eventhandler.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "spec/field_path.hpp"
#include "spec/keys.hpp"

namespace odcn::spec {

std::string read_input_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not hang waiting for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw InputError(path, "(file)", errno == ENOENT ? "cannot be read" : fmt::format("cannot be read ({})", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(path, "(file)", fmt::format("cannot be read ({})", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "(file)", "is a folder, not a file");
  if (!S_ISREG(st.st_mode)) throw InputError(path, "(file)", "is not a regular file (a device, pipe or socket)");
  const auto max = limits::kMaxInputFileBytes;
  if (st.st_size > max)
    throw InputError(path, "(file)", fmt::format("is {} bytes, above the limit of {} bytes (64 MiB)", st.st_size, max));
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t used = 0;
  // Read until end of file, never more than the limit: the file may grow while it is read.
  while (true) {
    if (used == text.size()) {
      if (static_cast<std::int64_t>(text.size()) > max)
        throw InputError(path, "(file)", fmt::format("grew above the limit of {} bytes while being read", max));
      text.resize(std::min<std::size_t>(text.size() * 2, static_cast<std::size_t>(max) + 1));
    }
    const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(path, "(file)", fmt::format("cannot be read ({})", std::strerror(errno)));
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  text.resize(used);
  return text;
}

namespace {


/// Walks the parsed tree once: keys are scalars and unique, nesting is bounded, and the walk (which follows
/// aliases, so that an alias bomb or a cycle is counted as what it expands to) is bounded too.
void check_structure(const YAML::Node& n, const std::string& file, const std::string& path, int depth,
                     std::int64_t& visited) {
  if (++visited > limits::kMaxYamlNodes)
    throw InputError(file, field_or_root(path),
                     fmt::format("expands to more than {} YAML nodes (through aliases?)", limits::kMaxYamlNodes));
  if (depth > limits::kMaxYamlDepth)
    throw InputError(file, field_or_root(path),
                     fmt::format("is nested more than {} levels deep (or an alias refers to itself)",
                                 limits::kMaxYamlDepth));
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        throw InputError(file, field_or_root(path), "has a key that is a mapping, a list or empty; keys must be plain text");
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second) throw InputError(file, join_field(path, key), "duplicate key");
      check_structure(kv.second, file, join_field(path, key), depth + 1, visited);
    }
  } else if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i)
      check_structure(n[i], file, fmt::format("{}[{}]", path, i), depth + 1, visited);
  }
}

/// Counts documents without building them, and stops when the parser makes no progress. yaml-cpp 0.7's
/// LoadAll loops forever (taking memory) on input such as "," (jbeder/yaml-cpp#1040): the parser reports a
/// null document without consuming the token, again and again.
class DocumentCounter : public YAML::EventHandler {
 public:
  explicit DocumentCounter(std::string file) : file_(std::move(file)) {}
  int documents = 0;
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents > 0 && mark.pos <= last_start_)
      throw InputError(file_, "(file)",
                       fmt::format("not valid YAML at line {}: a token that starts no value", mark.line + 1));
    last_start_ = mark.pos;
    ++documents;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  std::string file_;
  int last_start_ = -1;
};

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  if (const auto bad = first_bad_utf8(text); bad != std::string::npos)
    throw InputError(file, "(file)", fmt::format("is not UTF-8 text (byte {} is 0x{:02x})", bad,
                                                 static_cast<unsigned char>(text[bad])));
  YAML::Node root;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentCounter counter(file);
    while (parser.HandleNextDocument(counter)) {
    }
    if (counter.documents > 1)
      throw InputError(file, "(file)", fmt::format("holds {} YAML documents; give exactly one", counter.documents));
    if (counter.documents == 1) root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, "(file)", fmt::format("not valid YAML at line {}: {}", e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(file, "(root)", "must be a YAML mapping");
  std::int64_t visited = 0;
  check_structure(root, file, "", 0, visited);
  return root;
}

std::string fingerprint(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

YAML::Node load_yaml_file(const std::string& path) { return parse_yaml(read_input_file(path), path); }

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string path, const Schema* schema)
    : node_(node), file_(std::move(file)), path_(std::move(path)), schema_(schema) {
  if (!node_.IsMap()) throw InputError(file_, field_or_root(path_), "must be a mapping");
}

YamlMap YamlMap::element(const YAML::Node& node, const std::string& field) const {
  return YamlMap(node, file_, field, schema_);
}

std::string YamlMap::field(const std::string& key) const { return join_field(path_, key); }

const Key& YamlMap::key_of(const char* key) const {
  if (!schema_) throw std::logic_error(std::string("odcnsim bug: ") + field(key) + " read by the table without one");
  return schema_->at(schema_path(field(key)));
}

void YamlMap::no_table() const {
  if (schema_)
    throw std::logic_error("odcnsim bug: a range given by hand under " + field_or_root(path_) + ", which has a key table");
}

void YamlMap::allow_only(std::initializer_list<const char*> keys) const {
  no_table();
  for (const auto& kv : node_) {
    const std::string& key = kv.first.Scalar();  // parse_yaml made every key a scalar
    require_known_key(key, keys, file_, field(shown(key)));
  }
}

void YamlMap::allow_only() const {
  if (!schema_) throw std::logic_error("odcnsim bug: allow_only() without a key table");
  const auto& keys = schema_->children(schema_path(path_));
  for (const auto& kv : node_) require_known_key(kv.first.Scalar(), keys, file_, field(shown(kv.first.Scalar())));
}

bool YamlMap::has(const char* key) const { return static_cast<bool>(node_[key]); }

YAML::Node YamlMap::node(const char* key) const {
  if (schema_ && !schema_->knows(schema_path(field(key))))
    throw std::logic_error("odcnsim bug: a reader reads '" + field(key) + "', which the key table " + schema_->name() +
                           " lacks");
  YAML::Node n = node_[key];
  if (!n) throw InputError(file_, field(key), "is required");
  return n;
}

std::int64_t as_integer(const YAML::Node& n, const std::string& file, const std::string& field, std::int64_t lo,
                        std::int64_t hi) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a whole number");
  return parse_integer(n.Scalar(), lo, hi, file, field);
}

std::string as_text(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsScalar()) throw InputError(file, field, "must be a string");
  return n.Scalar();
}

std::string checked_name(const std::string& name, const std::string& file, const std::string& field) {
  bool ok = !name.empty() && static_cast<std::int64_t>(name.size()) <= limits::kMaxJobNameBytes;
  for (char c : name) ok = ok && static_cast<unsigned char>(c) >= 0x20 && c != 0x7F && c != ',' && c != '"';
  if (!ok)
    throw InputError(file, field,
                     fmt::format("must be 1 to {} characters without commas, quotes, line breaks or other control "
                                 "characters (got '{}')",
                                 limits::kMaxJobNameBytes, shown(name)));
  return name;
}

std::int64_t YamlMap::integer(const char* key, std::int64_t lo, std::int64_t hi) const {
  no_table();
  return as_integer(node(key), file_, field(key), lo, hi);
}
std::int64_t YamlMap::integer_or(const char* key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const {
  return has(key) ? integer(key, lo, hi) : fallback;
}

double YamlMap::real(const char* key, double lo, double hi) const {
  no_table();
  const YAML::Node n = node(key);
  if (!n.IsScalar()) throw InputError(file_, field(key), "must be a number");
  return parse_real(n.Scalar(), lo, hi, false, file_, field(key));
}

double YamlMap::positive(const char* key, double hi) const {
  no_table();
  const YAML::Node n = node(key);
  if (!n.IsScalar()) throw InputError(file_, field(key), "must be a number");
  return parse_real(n.Scalar(), 0, hi, true, file_, field(key));
}

double YamlMap::duration_us_or_ms(const std::string& stem, bool allow_zero) const {
  no_table();
  const std::string us = stem + "_us", ms = stem + "_ms";
  if (has(us.c_str()) == has(ms.c_str()))
    throw InputError(file_, field(us), fmt::format("give exactly one of {} and {}", us, ms));
  const double lo = allow_zero ? 0.0 : limits::kMinSeconds;
  return has(us.c_str()) ? microseconds(real(us.c_str(), lo * 1e6, limits::kMaxSeconds * 1e6))
                         : milliseconds(real(ms.c_str(), lo * 1e3, limits::kMaxSeconds * 1e3));
}

std::int64_t YamlMap::integer(const char* key) const {
  const Key& k = key_of(key);
  if (k.type != KeyType::integer) throw std::logic_error("odcnsim bug: " + k.path + " read as an integer");
  return as_integer(node(key), file_, field(key), static_cast<std::int64_t>(k.lo), static_cast<std::int64_t>(k.hi));
}

std::int64_t YamlMap::integer_or(const char* key) const {
  const Key& k = key_of(key);
  if (has(key)) return integer(key);
  return parse_integer(k.fallback, static_cast<std::int64_t>(k.lo), static_cast<std::int64_t>(k.hi), "key table",
                       k.path);
}

double YamlMap::real(const char* key) const {
  const Key& k = key_of(key);
  if (k.type != KeyType::real && k.type != KeyType::positive)
    throw std::logic_error("odcnsim bug: " + k.path + " read as a number");
  const YAML::Node n = node(key);
  if (!n.IsScalar()) throw InputError(file_, field(key), "must be a number");
  return parse_real(n.Scalar(), k.lo, k.hi, k.type == KeyType::positive, file_, field(key));
}

double YamlMap::real_or(const char* key) const {
  const Key& k = key_of(key);
  if (has(key)) return real(key);
  return parse_real(k.fallback, k.lo, k.hi, k.type == KeyType::positive, "key table", k.path);
}

std::string YamlMap::checked_word(const char* key, const std::string& value, const std::string& field,
                                  const std::string& what, const std::string& note) const {
  const Key& k = key_of(key);
  if (k.words.empty()) throw std::logic_error("odcnsim bug: " + k.path + " has no words");
  for (const auto& w : k.words)
    if (w == value) return value;
  std::string list;
  for (std::size_t i = 0; i < k.words.size(); ++i)
    list += (i == 0 ? "" : i + 1 == k.words.size() ? " or " : ", ") + k.words[i];
  const std::string hint = with_hint(value, k.words);
  if (what.empty())
    throw InputError(file_, field, fmt::format("must be {} (got '{}'){}", list, shown(value), hint));
  throw InputError(file_, field, fmt::format("unknown {} '{}' (expected {}{}){}", what, shown(value), list,
                                             note.empty() ? "" : ": " + note, hint));
}

std::string YamlMap::word(const char* key, const std::string& what, const std::string& note) const {
  return checked_word(key, text(key), field(key), what, note);
}

std::string YamlMap::word_or(const char* key, const std::string& what, const std::string& note) const {
  const Key& k = key_of(key);
  if (has(key)) return word(key, what, note);
  if (k.fallback.empty() || k.fallback[0] == '(') throw std::logic_error("odcnsim bug: " + k.path + " has no default word");
  return k.fallback;
}

double YamlMap::duration(const std::string& stem) const {
  const std::string us = stem + "_us", ms = stem + "_ms";
  if (has(us.c_str()) == has(ms.c_str()))
    throw InputError(file_, field(us), fmt::format("give exactly one of {} and {}", us, ms));
  return has(us.c_str()) ? microseconds(real(us.c_str())) : milliseconds(real(ms.c_str()));
}

std::string YamlMap::text(const char* key) const {
  if (schema_) key_of(key);
  return as_text(node(key), file_, field(key));
}
std::string YamlMap::text_or(const char* key, const std::string& fallback) const {
  if (schema_) {
    const Key& k = key_of(key);
    if (!k.fallback.empty() && k.fallback[0] != '(' && k.fallback != fallback)
      throw std::logic_error("odcnsim bug: " + k.path + " defaults to '" + fallback + "' in its reader, '" +
                             k.fallback + "' in its table");
  }
  return has(key) ? text(key) : fallback;
}

bool YamlMap::boolean(const char* key) const {
  if (schema_) key_of(key);
  const YAML::Node n = node(key);
  if (n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false")) return n.Scalar() == "true";
  throw InputError(file_, field(key), "must be true or false");
}

bool YamlMap::boolean_or(const char* key) const {
  const Key& k = key_of(key);
  if (has(key)) return boolean(key);
  if (k.fallback != "true" && k.fallback != "false") throw std::logic_error("odcnsim bug: " + k.path + " has no default");
  return k.fallback == "true";
}

YamlMap YamlMap::map(const char* key) const { return YamlMap(node(key), file_, field(key), schema_); }

std::vector<std::pair<std::string, std::string>> YamlMap::text_list(const char* key) const {
  if (schema_) key_of(key);
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
