#include "spec/platform_spec.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

PlatformSpec load_platform(const std::string& path) {
  const YamlMap root(load_yaml_file(path), path, "");
  root.allow_only({"kind", "name", "pods", "ocs"});
  PlatformSpec p;
  p.file = path;
  const std::string kind = root.text("kind");
  if (kind != "clos_ocs")
    throw InputError(path, "kind", fmt::format("unsupported platform kind '{}' (supported: clos_ocs)", kind));
  p.name = root.text_or("name", path);

  const YamlMap pods = root.map("pods");
  pods.allow_only({"count", "gpus_per_pod", "tor_gbps"});
  p.pods = static_cast<int>(pods.positive_integer("count"));
  p.gpus_per_pod = static_cast<int>(pods.positive_integer("gpus_per_pod"));
  p.tor_bytes_per_s = gbps_to_bytes_per_s(pods.positive("tor_gbps"));

  const YamlMap ocs = root.map("ocs");
  ocs.allow_only({"ports_per_pod", "port_gbps", "oxcs", "ports_per_oxc", "pods_per_group", "reconfig_delay_us",
                  "reconfig_delay_ms"});
  p.ports_per_pod = static_cast<int>(ocs.positive_integer("ports_per_pod"));
  p.port_bytes_per_s = gbps_to_bytes_per_s(ocs.positive("port_gbps"));
  p.oxcs = static_cast<int>(ocs.positive_integer("oxcs"));
  p.ports_per_oxc = static_cast<int>(ocs.positive_integer("ports_per_oxc"));
  p.pods_per_group = static_cast<int>(ocs.positive_integer("pods_per_group"));
  if (ocs.has("reconfig_delay_us") == ocs.has("reconfig_delay_ms"))
    throw InputError(path, "ocs.reconfig_delay_us", "give exactly one of reconfig_delay_us and reconfig_delay_ms");
  p.reconfig_delay_s = ocs.has("reconfig_delay_us") ? microseconds(ocs.positive("reconfig_delay_us"))
                                                     : milliseconds(ocs.positive("reconfig_delay_ms"));

  if (p.pods_per_group < 2)
    throw InputError(path, "ocs.pods_per_group", fmt::format("must be >= 2 (got {})", p.pods_per_group));
  if (p.pods % p.pods_per_group != 0)
    throw InputError(path, "ocs.pods_per_group",
                     fmt::format("{} pods cannot be split into groups of {}", p.pods, p.pods_per_group));
  if (p.oxcs != p.pods / p.pods_per_group)
    throw InputError(path, "ocs.oxcs",
                     fmt::format("must equal pods / pods_per_group = {} (one OXC per pod group; got {})",
                                 p.pods / p.pods_per_group, p.oxcs));
  // Every port of every ToR in a group lands on the group's OXC: the OXC radix must hold them all.
  if (p.ports_per_pod * p.pods_per_group > p.ports_per_oxc)
    throw InputError(path, "ocs.ports_per_pod",
                     fmt::format("port budget overflow: {} pods x {} ports exceed the OXC's {} ports",
                                 p.pods_per_group, p.ports_per_pod, p.ports_per_oxc));
  return p;
}

}  // namespace odcn::spec
