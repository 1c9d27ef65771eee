#pragma once
// `--set key.path=value`: one field of the platform or the workload changed for one run, without a copy of the
// file. The override is written into the parsed document before the document is read, so it is validated
// exactly as the file would be; keys whose name carries a unit (`reconfig_delay_us`, `reconfig_delay_ms`)
// replace their sibling in the other unit. An error in an overridden field names the override:
// `command line: --set ocs.port_gbps=-1: must be > 0`.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace odcn::spec {

struct Override {
  std::string text;   ///< as given: "ocs.reconfig_delay_us=10000"
  std::string path;   ///< within its document: "ocs.reconfig_delay_us" (list elements as ".3")
  std::string value;  ///< "10000" (YAML: a scalar, or a flow list or map)
  bool platform = true;  ///< which document it changes
};

/// Parses one --set argument. The document is named by the path's first key (platform: kind, name, pods, ocs,
/// servers, scaleup, nic, switch, slot_us, slot_ms; workload: training, jobs, generator, job_graphs), or by an
/// explicit `platform.` / `workload.` prefix. Raises InputError("command line", "--set", reason).
Override parse_override(const std::string& text);

/// Writes the overrides meant for this document into it. Raises InputError("command line", "--set TEXT",
/// reason) when a path does not fit the document (a list index out of range, a key under a scalar).
void apply_overrides(YAML::Node& doc, const std::vector<Override>& overrides, bool platform);

/// Runs `read` on the document; an InputError it raises about an overridden field (or one below it) is
/// reported against the override instead of the file.
template <class F>
auto read_with_overrides(const std::vector<Override>& overrides, bool platform, F&& read) -> decltype(read());

/// The override's path in the style of error fields ("jobs[0].train_s").
std::string field_of(const Override& o);

/// How an error names a --set: "--set TEXT", TEXT escaped and cut to 80 characters (with its length).
std::string set_field(const std::string& text);

}  // namespace odcn::spec

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::spec {

template <class F>
auto read_with_overrides(const std::vector<Override>& overrides, bool platform, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    for (const auto& o : overrides) {
      if (o.platform != platform) continue;
      const std::string f = field_of(o);
      // The overridden field or one below it; or a section the override made that the document's kind lacks
      // (--set ocs.port_gbps on an electrical platform: "ocs: unknown key").
      const bool below = e.field() == f || e.field().rfind(f + ".", 0) == 0 || e.field().rfind(f + "[", 0) == 0;
      const bool made = f.rfind(e.field() + ".", 0) == 0 && e.reason().rfind("unknown key", 0) == 0;
      if (below || made) throw InputError("command line", set_field(o.text), e.reason());
    }
    throw;
  }
}

}  // namespace odcn::spec
