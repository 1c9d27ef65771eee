#pragma once
// Naming fields in error messages the same way for every input format: dotted paths from the root
// ("ocs.port_gbps", "jobs[3].placement.1", "(root)").
#include <initializer_list>
#include <string>
#include <vector>

namespace odcn::spec {

/// "path.key", or "key" at the root.
std::string join_field(const std::string& path, const std::string& key);
/// The path itself, or "(root)" for the root.
std::string field_or_root(const std::string& path);
/// Raises InputError(file, field, "unknown key (allowed: ...)") unless `key` is one of `allowed`.
void require_known_key(const std::string& key, std::initializer_list<const char*> allowed, const std::string& file,
                       const std::string& field);
void require_known_key(const std::string& key, const std::vector<std::string>& allowed, const std::string& file,
                       const std::string& field);

}  // namespace odcn::spec
