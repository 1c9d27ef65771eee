#include "spec/fabric_kinds.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

namespace {

using namespace limits;

Duplex duplex(const YamlMap& m) { return read_duplex(m, Duplex::full); }

std::string name_of(const YamlMap& root, const std::string& path) {
  return root.has("name") ? checked_name(root.text("name"), path, "name") : path;
}

void check_gpus(std::int64_t endpoints, std::int64_t gpus_each, const std::string& path, const std::string& field) {
  if (endpoints * gpus_each > kMaxTotalGpus)
    throw InputError(path, field,
                     fmt::format("the platform holds {} GPUs, above the limit of {} (see docs/limits.md)",
                                 endpoints * gpus_each, kMaxTotalGpus));
}

FlatOcsSpec parse_flat(const YamlMap& root, const std::string& path) {
  root.allow_only({"kind", "name", "servers", "ocs", "slot_ms", "slot_us", "flexnet"});
  FlatOcsSpec f;
  f.file = path;
  f.name = name_of(root, path);
  const YamlMap s = root.map("servers");
  s.allow_only({"count", "gpus_per_server", "nic_ports", "nic_gbps"});
  f.servers = static_cast<int>(s.integer("count", 2, kMaxPods));
  f.gpus_per_server = static_cast<int>(s.integer_or("gpus_per_server", 4, 1, kMaxGpusPerPod));
  f.nic_ports = static_cast<int>(s.integer("nic_ports", 1, kMaxPortsPerPod));
  f.port_bytes_per_s = gbps_to_bytes_per_s(s.real("nic_gbps", kMinGbps, kMaxGbps));
  const YamlMap o = root.map("ocs");
  o.allow_only({"count", "ports", "reconfig_delay_us", "reconfig_delay_ms", "duplex"});
  f.ocs_count = static_cast<int>(o.integer("count", 1, kMaxPortsPerPod));
  f.ocs_ports = static_cast<int>(o.integer("ports", 2, kMaxPortsPerOxc));
  // 0 is allowed: an idealised OCS that changes circuits at slot boundaries for free (TOPO-X's own reading).
  f.reconfig_delay_s = o.duration_us_or_ms("reconfig_delay", true);
  f.duplex = duplex(o);
  f.slot_s = root.duration_us_or_ms("slot");  // TOPO-X's time slot τ
  if (root.has("flexnet")) {  // FlexNet's estimate of TopoOpt (docs/topox.md); absent keys keep the defaults
    const YamlMap x = root.map("flexnet");
    x.allow_only({"segment_kib", "hop_latency_us", "nvlink_gbps"});
    if (x.has("segment_kib")) f.flexnet.segment_bytes = 1024.0 * static_cast<double>(x.integer("segment_kib", 1, 1 << 20));
    if (x.has("hop_latency_us")) f.flexnet.hop_latency_s = 1e-6 * x.real("hop_latency_us", 0, 1e6);
    if (x.has("nvlink_gbps")) f.flexnet.nvlink_bytes_per_s = gbps_to_bytes_per_s(x.real("nvlink_gbps", kMinGbps, kMaxGbps));
  }
  check_gpus(f.servers, f.gpus_per_server, path, "servers.gpus_per_server");
  if (f.nic_ports != f.ocs_count)
    throw InputError(path, "servers.nic_ports",
                     fmt::format("must equal ocs.count: server port r is cabled to OCS r (got {} ports, {} OCSes)",
                                 f.nic_ports, f.ocs_count));
  if (f.ocs_ports < f.servers)
    throw InputError(path, "ocs.ports",
                     fmt::format("port budget overflow: {} servers each need a port on every OCS, which has {}",
                                 f.servers, f.ocs_ports));
  return f;
}

PhotonicRailSpec parse_rail(const YamlMap& root, const std::string& path) {
  root.allow_only({"kind", "name", "scaleup", "nic", "ocs"});
  PhotonicRailSpec r;
  r.file = path;
  r.name = name_of(root, path);
  const YamlMap s = root.map("scaleup");
  s.allow_only({"domains", "gpus_per_domain", "gbps"});
  r.domains = static_cast<int>(s.integer("domains", 2, kMaxPods));
  r.gpus_per_domain = static_cast<int>(s.integer("gpus_per_domain", 1, kMaxGpusPerPod));
  r.scaleup_bytes_per_s = gbps_to_bytes_per_s(s.real("gbps", kMinGbps, kMaxGbps));
  const YamlMap n = root.map("nic");
  n.allow_only({"split", "rings", "hop_circuits"});
  const std::string split = n.text("split");
  if (split == "1x400") r.nic_ports = 1;
  else if (split == "2x200") r.nic_ports = 2;
  else if (split == "4x100") r.nic_ports = 4;
  else
    throw InputError(path, "nic.split", fmt::format("must be 1x400, 2x200 or 4x100 (got '{}')", shown(split)));
  r.port_bytes_per_s = gbps_to_bytes_per_s(400.0 / r.nic_ports);
  // nic's optional fields of two words: the word given, or none.
  const auto two_words = [&](const char* key, const char* a, const char* b) -> std::optional<std::string> {
    if (!n.has(key)) return std::nullopt;
    std::string v = n.text(key);
    if (v != a && v != b)
      throw InputError(path, fmt::format("nic.{}", key), fmt::format("must be {} or {} (got '{}')", a, b, shown(v)));
    return v;
  };
  if (const auto v = two_words("rings", "bidirectional", "one-way")) r.counter_rotating_rings = *v == "bidirectional";
  if (const auto v = two_words("hop_circuits", "whole-nic", "split")) r.split_hop_circuits = *v == "split";
  const YamlMap o = root.map("ocs");
  o.allow_only({"technology", "reconfig_delay_us", "reconfig_delay_ms", "radix", "duplex"});
  if (o.has("technology")) {
    // The technology gives the delay and the radix; either may be overridden (a delay sweep, say), and the
    // technology's name then says so.
    const std::string t = o.text("technology");
    std::string names;
    for (const auto& tech : ocs_technologies()) {
      if (tech.name == t) r.ocs = tech;
      names += (names.empty() ? "" : ", ") + tech.name;
    }
    if (r.ocs.name.empty())
      throw InputError(path, "ocs.technology", fmt::format("unknown technology '{}' (Opus Table 3: {})", shown(t), names));
    if (o.has("reconfig_delay_us") || o.has("reconfig_delay_ms")) {
      r.ocs.reconfig_delay_s = o.duration_us_or_ms("reconfig_delay", true);  // 0: Opus Fig. 8's ideal OCS
      r.ocs.name += " (delay set)";
    }
    if (o.has("radix")) {
      r.ocs.radix = static_cast<int>(o.integer("radix", 2, kMaxPortsPerOxc));
      r.ocs.name += " (radix set)";
    }
  } else {
    r.ocs.name = "custom";
    r.ocs.reconfig_delay_s = o.duration_us_or_ms("reconfig_delay", true);
    r.ocs.radix = static_cast<int>(o.integer("radix", 2, kMaxPortsPerOxc));
  }
  r.duplex = duplex(o);
  check_gpus(r.domains, r.gpus_per_domain, path, "scaleup.gpus_per_domain");
  if (static_cast<std::int64_t>(r.domains) * r.nic_ports > r.ocs.radix)
    throw InputError(path, "ocs",
                     fmt::format("port budget overflow: a rail's OCS needs {} domains x {} ports = {}, its radix is {}",
                                 r.domains, r.nic_ports, r.domains * r.nic_ports, r.ocs.radix));
  return r;
}

ElectricalSpec parse_electrical(const YamlMap& root, const std::string& path) {
  root.allow_only({"kind", "name", "servers", "switch"});
  ElectricalSpec e;
  e.file = path;
  e.name = name_of(root, path);
  const YamlMap s = root.map("servers");
  s.allow_only({"count", "gpus_per_server", "nic_ports", "nic_gbps", "scaleup_gbps"});
  e.servers = static_cast<int>(s.integer("count", 2, kMaxPods));
  e.gpus_per_server = static_cast<int>(s.integer("gpus_per_server", 1, kMaxGpusPerPod));
  e.nic_ports = static_cast<int>(s.integer("nic_ports", 1, kMaxPortsPerPod));
  e.port_bytes_per_s = gbps_to_bytes_per_s(s.real("nic_gbps", kMinGbps, kMaxGbps));
  if (s.has("scaleup_gbps")) e.scaleup_bytes_per_s = gbps_to_bytes_per_s(s.real("scaleup_gbps", kMinGbps, kMaxGbps));
  const std::string sw = root.text("switch");
  if (sw == "single") e.switching = ElectricalSpec::Switching::single;
  else if (sw == "per_rail") e.switching = ElectricalSpec::Switching::per_rail;
  else throw InputError(path, "switch", fmt::format("must be single or per_rail (got '{}')", shown(sw)));
  check_gpus(e.servers, e.gpus_per_server, path, "servers.gpus_per_server");
  if (e.switching == ElectricalSpec::Switching::per_rail && e.nic_ports % e.gpus_per_server != 0)
    throw InputError(path, "servers.nic_ports",
                     fmt::format("per_rail switching gives each GPU its own NIC ports: {} ports cannot be shared "
                                 "by {} GPUs",
                                 e.nic_ports, e.gpus_per_server));
  return e;
}

}  // namespace

const std::vector<OcsTechnology>& ocs_technologies() {
  // Opus Table 3 (reconfiguration time in ms, radix in ports).
  static const std::vector<OcsTechnology> t{
      {"plzt", milliseconds(0.00001), 16},  {"sip", milliseconds(0.007), 32},
      {"rotornet", milliseconds(0.01), 128}, {"3d_mems", milliseconds(15), 320},
      {"piezo", milliseconds(25), 576},      {"liquid_crystal", milliseconds(100), 512},
      {"robotic", milliseconds(120000), 1008}};
  return t;
}

const char* to_string(PlatformKind k) {
  switch (k) {
    case PlatformKind::clos_ocs: return "clos_ocs";
    case PlatformKind::flat_ocs: return "flat_ocs";
    case PlatformKind::photonic_rail: return "photonic_rail";
    case PlatformKind::electrical: return "electrical";
  }
  return "?";
}

AnyPlatform parse_any_platform(const YAML::Node& doc, const std::string& path) {
  const YamlMap root(doc, path, "");
  const std::string kind = root.text("kind");
  AnyPlatform p;
  if (kind == "clos_ocs") {
    p.kind = PlatformKind::clos_ocs;
    p.clos = parse_platform(doc, path);
  } else if (kind == "flat_ocs") {
    p.kind = PlatformKind::flat_ocs;
    p.flat = parse_flat(root, path);
  } else if (kind == "photonic_rail") {
    p.kind = PlatformKind::photonic_rail;
    p.rail = parse_rail(root, path);
  } else if (kind == "electrical") {
    p.kind = PlatformKind::electrical;
    p.electrical = parse_electrical(root, path);
  } else {
    throw InputError(path, "kind",
                     fmt::format("unknown platform kind '{}' (known: clos_ocs, flat_ocs, photonic_rail, electrical)",
                                 shown(kind)));
  }
  return p;
}

AnyPlatform load_any_platform(const std::string& path) {
  const std::string text = read_input_file(path);
  AnyPlatform p = parse_any_platform(parse_yaml(text, path), path);
  if (p.clos) p.clos->hash = fingerprint(text);
  return p;
}

}  // namespace odcn::spec
