#include "spec/platform_spec.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "spec/keys.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

namespace {

/// ocs.base_topology: a word, then whether one OXC group holds every rack and each ToR has the ports it takes
/// (ring 2, torus up to 4, all-to-all one per other rack).
std::string read_base_topology(const YamlMap& ocs, const PlatformSpec& p) {
  const std::string kind = ocs.word_or("base_topology");
  if (kind == "none") return kind;
  if (p.pods_per_group != p.pods)
    throw InputError(ocs.file(), ocs.field("base_topology"),
                     fmt::format("a base {} joins every pod, so one OXC group must hold them all (pods_per_group "
                                 "= {}, pods = {})", kind, p.pods_per_group, p.pods));
  const int ports = base_topology_ports(kind, p.pods);
  if (ports > p.ports_per_pod)
    throw InputError(ocs.file(), ocs.field("base_topology"),
                     fmt::format("a base {} over {} pods takes {} ports of each ToR, which has {} (ports_per_pod)",
                                 kind, p.pods, ports, p.ports_per_pod));
  return kind;
}

}  // namespace

int base_topology_ports(const std::string& kind, int pods) {
  if (kind == "ring") return pods > 2 ? 2 : pods - 1;
  if (kind == "all-to-all") return pods - 1;
  if (kind == "torus") {
    const auto [rows, cols] = torus_shape(pods);
    return (rows > 2 ? 2 : rows - 1) + (cols > 2 ? 2 : cols - 1);
  }
  return 0;
}

std::pair<int, int> torus_shape(int pods) {
  int rows = 1;
  for (int d = 1; d * d <= pods; ++d)
    if (pods % d == 0) rows = d;
  return {rows, pods / rows};
}

Duplex read_duplex(const YamlMap& m) { return m.word_or("duplex") == "full" ? Duplex::full : Duplex::half; }

PlatformSpec load_platform(const std::string& path) {
  const std::string text = read_input_file(path);
  PlatformSpec p = parse_platform(parse_yaml(text, path), path);
  p.hash = fingerprint(text);
  return p;
}

PlatformSpec parse_platform(const YAML::Node& doc, const std::string& path) {
  const YamlMap root(doc, path, "", &clos_ocs_keys());
  const std::string kind = root.text("kind");
  if (kind == "flat_ocs" || kind == "photonic_rail" || kind == "electrical")
    throw InputError(path, "kind",
                     fmt::format("{} platforms are read and validated ('odcnsim validate'), but the engine simulates "
                                 "only clos_ocs so far",
                                 kind));
  if (kind != "clos_ocs")
    throw InputError(path, "kind",
                     fmt::format("unknown platform kind '{}' (known: clos_ocs, flat_ocs, photonic_rail, electrical)",
                                 shown(kind)));
  root.allow_only();
  PlatformSpec p;
  p.file = path;
  p.name = root.has("name") ? checked_name(root.text("name"), path, "name") : path;

  using namespace limits;
  const YamlMap pods = root.map("pods");
  pods.allow_only();
  p.pods = static_cast<int>(pods.integer("count"));
  p.gpus_per_pod = static_cast<int>(pods.integer("gpus_per_pod"));
  p.tor_bytes_per_s = gbps_to_bytes_per_s(pods.real("tor_gbps"));
  p.inc_jobs = static_cast<int>(pods.integer_or("inc_jobs"));
  if (pods.has("servers_per_pod") != pods.has("server_gbps"))
    throw InputError(path, pods.field(pods.has("server_gbps") ? "servers_per_pod" : "server_gbps"),
                     "servers_per_pod and server_gbps go together (the servers of a pod and each one's NIC)");
  if (pods.has("servers_per_pod")) {
    p.servers_per_pod = static_cast<int>(pods.integer("servers_per_pod"));
    p.server_bytes_per_s = gbps_to_bytes_per_s(pods.real("server_gbps"));
    // The ToR switches its servers' traffic without blocking: B_tor must carry every NIC at once.
    if (p.tor_bytes_per_s < p.servers_per_pod * p.server_bytes_per_s * (1 - 1e-12))
      throw InputError(path, pods.field("tor_gbps"),
                       fmt::format("must be at least servers_per_pod x server_gbps = {} Gb/s (a ToR switches its "
                                   "servers' NICs without blocking; got {} Gb/s)",
                                   p.servers_per_pod * p.server_bytes_per_s * 8 / 1e9, p.tor_bytes_per_s * 8 / 1e9));
  }

  const YamlMap ocs = root.map("ocs");
  ocs.allow_only();
  p.duplex = read_duplex(ocs);
  p.ports_per_pod = static_cast<int>(ocs.integer("ports_per_pod"));
  p.port_bytes_per_s = gbps_to_bytes_per_s(ocs.real("port_gbps"));
  p.oxcs = static_cast<int>(ocs.integer("oxcs"));
  p.ports_per_oxc = static_cast<int>(ocs.integer("ports_per_oxc"));
  p.pods_per_group = static_cast<int>(ocs.integer("pods_per_group"));
  p.reconfig_delay_s = ocs.duration("reconfig_delay");
  p.base_topology = read_base_topology(ocs, p);

  if (p.pods % p.pods_per_group != 0)
    throw InputError(path, "ocs.pods_per_group",
                     fmt::format("{} pods cannot be split into groups of {}", p.pods, p.pods_per_group));
  if (p.oxcs != p.pods / p.pods_per_group)
    throw InputError(path, "ocs.oxcs",
                     fmt::format("must equal pods / pods_per_group = {} (one OXC per pod group; got {})",
                                 p.pods / p.pods_per_group, p.oxcs));
  const std::int64_t gpus = static_cast<std::int64_t>(p.pods) * p.gpus_per_pod;
  if (gpus > kMaxTotalGpus)
    throw InputError(path, "pods.gpus_per_pod",
                     fmt::format("the platform holds {} GPUs, above the limit of {} (see docs/limits.md)", gpus,
                                 kMaxTotalGpus));
  const std::int64_t candidates = static_cast<std::int64_t>(p.pods) * (p.pods_per_group - 1) / 2;
  if (candidates > kMaxCandidateCircuits)
    throw InputError(path, "ocs.pods_per_group",
                     fmt::format("{} pods in groups of {} give {} candidate circuits, above the limit of {} (see "
                                 "docs/limits.md)",
                                 p.pods, p.pods_per_group, candidates, kMaxCandidateCircuits));
  // Every port of every ToR in a group lands on the group's OXC: the OXC radix must hold them all.
  if (p.ports_per_pod * p.pods_per_group > p.ports_per_oxc)
    throw InputError(path, "ocs.ports_per_pod",
                     fmt::format("port budget overflow: {} pods x {} ports exceed the OXC's {} ports",
                                 p.pods_per_group, p.ports_per_pod, p.ports_per_oxc));
  return p;
}

}  // namespace odcn::spec
