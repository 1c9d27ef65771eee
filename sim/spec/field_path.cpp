#include "spec/field_path.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::spec {

std::string join_field(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string field_or_root(const std::string& path) { return path.empty() ? "(root)" : path; }

void require_known_key(const std::string& key, std::initializer_list<const char*> allowed, const std::string& file,
                       const std::string& field) {
  require_known_key(key, std::vector<std::string>(allowed.begin(), allowed.end()), file, field);
}

void require_known_key(const std::string& key, const std::vector<std::string>& allowed, const std::string& file,
                       const std::string& field) {
  for (const auto& k : allowed)
    if (key == k) return;
  std::string list;
  for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
  throw InputError(file, field, "unknown key (allowed: " + list + ")" + with_hint(key, allowed));
}

}  // namespace odcn::spec
