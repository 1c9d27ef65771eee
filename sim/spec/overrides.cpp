#include "spec/overrides.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "spec/keys.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

namespace {

/// The top-level keys of every platform kind, or of every workload kind (spec/keys.hpp), in table order.
std::vector<std::string> top_keys(bool platform) {
  std::vector<std::string> keys;
  for (const Schema* s : all_schemas()) {
    const bool is_platform = platform_schema(s->name()) != nullptr;
    if (is_platform != platform) continue;
    for (const auto& k : s->children(""))
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}
const std::vector<std::string>& platform_keys() {
  static const std::vector<std::string> keys = top_keys(true);
  return keys;
}
const std::vector<std::string>& workload_keys() {
  static const std::vector<std::string> keys = top_keys(false);
  return keys;
}

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("command line", "--set", fmt::format("expects key.path=value (got '{}')", shown(text)));
  Override o;
  o.text = text;
  o.path = text.substr(0, eq);
  o.value = text.substr(eq + 1);
  for (const auto& part : split(o.path))
    if (part.empty()) throw InputError("command line", "--set", fmt::format("'{}' has an empty key", shown(o.path)));
  std::string first = split(o.path).front();
  if (first == "platform" || first == "workload") {
    o.platform = first == "platform";
    if (o.path.size() <= first.size() + 1)
      throw InputError("command line", "--set", fmt::format("'{}' names no key", shown(o.path)));
    o.path = o.path.substr(first.size() + 1);
  } else if (first == "name") {
    throw InputError("command line", "--set", "'name' is in the platform and in the workload: write platform.name "
                                              "or workload.name");
  } else if (contains(platform_keys(), first)) {
    o.platform = true;
  } else if (contains(workload_keys(), first)) {
    o.platform = false;
  } else {
    std::vector<std::string> all = platform_keys();
    for (const auto& k : workload_keys())
      if (!contains(all, k)) all.push_back(k);
    std::string known;
    for (const auto& k : all) known += (known.empty() ? "" : ", ") + k;
    throw InputError("command line", set_field(text),
                     fmt::format("'{}' is no key of a platform or a workload (top-level keys: {}; 'odcnsim show "
                                 "--list-keys' lists them all){}",
                                 shown(first), known, with_hint(first, all)));
  }
  return o;
}

std::string set_field(const std::string& text) { return "--set " + shown(text, 80); }

std::string field_of(const Override& o) {
  std::string f;
  for (const auto& part : split(o.path)) {
    if (is_index(part)) f += "[" + part + "]";
    else f += (f.empty() ? "" : ".") + part;
  }
  return f;
}

void apply_overrides(YAML::Node& doc, const std::vector<Override>& overrides, bool platform) {
  for (const auto& o : overrides) {
    if (o.platform != platform) continue;
    const auto fail = [&](const std::string& reason) { throw InputError("command line", set_field(o.text), reason); };
    if (!doc.IsMap()) fail("the file is not a mapping of keys");
    // The value is read as the value of a one-key document, by the same strict reader as the files.
    if (o.value.find('\n') != std::string::npos || o.value.find('\r') != std::string::npos) fail("the value spans lines");
    YAML::Node value;
    try {
      value = parse_yaml("v: " + o.value + "\n", "command line")["v"];
    } catch (const InputError& e) {
      fail(fmt::format("the value is not valid YAML ({})", e.reason()));
    }
    const auto parts = split(o.path);
    YAML::Node node = doc;
    std::string walked;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      const bool last = i + 1 == parts.size();
      YAML::Node next;
      if (node.IsSequence()) {
        if (!is_index(part) || std::stoul(part) >= node.size())
          fail(fmt::format("{} has {} elements; '{}' is none of them", walked, node.size(), shown(part)));
        if (last) {
          node[std::stoul(part)] = value;
          break;
        }
        next.reset(node[std::stoul(part)]);
      } else if (node.IsMap() || node.IsNull()) {
        if (last) {
          node[part] = value;
          // A key whose name carries a unit replaces its sibling in the other unit.
          const auto sibling = [&](const char* from, const char* to) {
            const std::string f(from);
            if (part.size() > f.size() && part.compare(part.size() - f.size(), f.size(), f) == 0)
              node.remove(part.substr(0, part.size() - f.size()) + to);
          };
          sibling("_us", "_ms");
          sibling("_ms", "_us");
          break;
        }
        if (!node[part]) node[part] = YAML::Node(YAML::NodeType::Map);
        next.reset(node[part]);
      } else {
        fail(fmt::format("{} is a single value, not a mapping or a list", walked));
      }
      walked += (walked.empty() ? "" : ".") + part;
      node.reset(next);
    }
  }
}

}  // namespace odcn::spec
