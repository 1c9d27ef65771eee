#include "spec/fabric_kinds.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "spec/keys.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::spec {

namespace {

using namespace limits;


std::string name_of(const YamlMap& root, const std::string& path) {
  return root.has("name") ? checked_name(root.text("name"), path, "name") : path;
}

void check_gpus(std::int64_t endpoints, std::int64_t gpus_each, const std::string& path, const std::string& field) {
  if (endpoints * gpus_each > kMaxTotalGpus)
    throw InputError(path, field,
                     fmt::format("the platform holds {} GPUs, above the limit of {} (see docs/limits.md)",
                                 endpoints * gpus_each, kMaxTotalGpus));
}

/// The memory of a fabric's tables, estimated from its sizes (limits.hpp), refused above the limit before
/// anything is built: `what` says what gives them ("4096 servers give 8386560 candidate circuit pairs").
void check_table_bytes(double bytes, const std::string& path, const std::string& field, const std::string& what) {
  constexpr double gib = 1024.0 * 1024 * 1024;
  if (bytes > kMaxPairTableBytes)
    throw InputError(path, field,
                     fmt::format("{}, whose tables would take about {:.1f} GiB, above the limit of {:g} GiB (see "
                                 "docs/limits.md)",
                                 what, bytes / gib, kMaxPairTableBytes / gib));
}

/// flat_ocs and photonic_rail: a table entry per candidate circuit pair and per endpoint pair. `field` names the
/// size that sets the number of pairs.
void check_pair_tables(std::int64_t endpoints, std::int64_t pairs, double bytes_per_pair, const std::string& path,
                       const std::string& field, const std::string& what) {
  const double e = static_cast<double>(endpoints);
  check_table_bytes(bytes_per_pair * static_cast<double>(pairs) + kPairTableBytesPerEndpointPair * e * e,
                    path, field,
                    fmt::format("{} give {} candidate circuit pairs among {} endpoints", what, pairs, endpoints));
}

FlatOcsSpec parse_flat(const YamlMap& root, const std::string& path) {
  root.allow_only();
  FlatOcsSpec f;
  f.file = path;
  f.name = name_of(root, path);
  const YamlMap s = root.map("servers");
  s.allow_only();
  f.servers = static_cast<int>(s.integer("count"));
  f.gpus_per_server = static_cast<int>(s.integer_or("gpus_per_server"));
  f.nic_ports = static_cast<int>(s.integer("nic_ports"));
  f.port_bytes_per_s = gbps_to_bytes_per_s(s.real("nic_gbps"));
  const YamlMap o = root.map("ocs");
  o.allow_only();
  f.ocs_count = static_cast<int>(o.integer("count"));
  f.ocs_ports = static_cast<int>(o.integer("ports"));
  // 0 is allowed: an idealised OCS that changes circuits at slot boundaries for free (TOPO-X's own reading).
  f.reconfig_delay_s = o.duration("reconfig_delay");
  f.duplex = read_duplex(o);
  f.slot_s = root.duration("slot");  // TOPO-X's time slot τ
  if (root.has("flexnet")) {  // FlexNet's estimate of TopoOpt (docs/topox.md); absent keys keep the defaults
    const YamlMap x = root.map("flexnet");
    x.allow_only();
    if (x.has("segment_kib")) f.flexnet.segment_bytes = 1024.0 * static_cast<double>(x.integer("segment_kib"));
    if (x.has("hop_latency_us")) f.flexnet.hop_latency_s = 1e-6 * x.real("hop_latency_us");
    if (x.has("nvlink_gbps")) f.flexnet.nvlink_bytes_per_s = gbps_to_bytes_per_s(x.real("nvlink_gbps"));
  }
  check_gpus(f.servers, f.gpus_per_server, path, "servers.gpus_per_server");
  const std::int64_t servers = f.servers;
  check_pair_tables(servers, servers * (servers - 1) / 2, kFlatOcsBytesPerPair, path, "servers.count",
                    fmt::format("{} servers", servers));
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
  root.allow_only();
  PhotonicRailSpec r;
  r.file = path;
  r.name = name_of(root, path);
  const YamlMap s = root.map("scaleup");
  s.allow_only();
  r.domains = static_cast<int>(s.integer("domains"));
  r.gpus_per_domain = static_cast<int>(s.integer("gpus_per_domain"));
  r.scaleup_bytes_per_s = gbps_to_bytes_per_s(s.real("gbps"));
  const YamlMap n = root.map("nic");
  n.allow_only();
  const std::string split = n.word("split");
  r.nic_ports = split == "1x400" ? 1 : split == "2x200" ? 2 : 4;
  r.port_bytes_per_s = gbps_to_bytes_per_s(400.0 / r.nic_ports);
  r.counter_rotating_rings = n.word_or("rings") == "bidirectional";
  r.split_hop_circuits = n.word_or("hop_circuits") == "split";
  const YamlMap o = root.map("ocs");
  o.allow_only();
  if (o.has("technology")) {
    // The technology gives the delay and the radix; either may be overridden (a delay sweep, say), and the
    // technology's name then says so.
    const std::string t = o.word("technology", "technology", "Opus Table 3");
    for (const auto& tech : ocs_technologies())
      if (tech.name == t) r.ocs = tech;
    if (o.has("reconfig_delay_us") || o.has("reconfig_delay_ms")) {
      r.ocs.reconfig_delay_s = o.duration("reconfig_delay");  // 0: Opus Fig. 8's ideal OCS
      r.ocs.name += " (delay set)";
    }
    if (o.has("radix")) {
      r.ocs.radix = static_cast<int>(o.integer("radix"));
      r.ocs.name += " (radix set)";
    }
  } else {
    r.ocs.name = "custom";
    r.ocs.reconfig_delay_s = o.duration("reconfig_delay");
    r.ocs.radix = static_cast<int>(o.integer("radix"));
  }
  r.duplex = read_duplex(o);
  check_gpus(r.domains, r.gpus_per_domain, path, "scaleup.gpus_per_domain");
  const std::int64_t domains = r.domains, rails = r.gpus_per_domain;
  // The GPU pairs of the whole fabric grow with the GPUs per domain squared, the rails' pairs with the domains
  // squared: the field named is the larger factor.
  check_pair_tables(domains * rails, rails * domains * (domains - 1) / 2, kPhotonicRailBytesPerPair, path,
                    rails > domains ? "scaleup.gpus_per_domain" : "scaleup.domains",
                    fmt::format("{} domains of {} GPUs (one rail each)", domains, rails));
  if (static_cast<std::int64_t>(r.domains) * r.nic_ports > r.ocs.radix)
    throw InputError(path, "ocs",
                     fmt::format("port budget overflow: a rail's OCS needs {} domains x {} ports = {}, its radix is {}",
                                 r.domains, r.nic_ports, r.domains * r.nic_ports, r.ocs.radix));
  return r;
}

ElectricalSpec parse_electrical(const YamlMap& root, const std::string& path) {
  root.allow_only();
  ElectricalSpec e;
  e.file = path;
  e.name = name_of(root, path);
  const YamlMap s = root.map("servers");
  s.allow_only();
  e.servers = static_cast<int>(s.integer("count"));
  e.gpus_per_server = static_cast<int>(s.integer("gpus_per_server"));
  e.nic_ports = static_cast<int>(s.integer("nic_ports"));
  e.port_bytes_per_s = gbps_to_bytes_per_s(s.real("nic_gbps"));
  if (s.has("scaleup_gbps")) e.scaleup_bytes_per_s = gbps_to_bytes_per_s(s.real("scaleup_gbps"));
  e.switching = root.word("switch") == "single" ? ElectricalSpec::Switching::single : ElectricalSpec::Switching::per_rail;
  check_gpus(e.servers, e.gpus_per_server, path, "servers.gpus_per_server");
  if (e.switching == ElectricalSpec::Switching::per_rail && e.nic_ports % e.gpus_per_server != 0)
    throw InputError(path, "servers.nic_ports",
                     fmt::format("per_rail switching gives each GPU its own NIC ports: {} ports cannot be shared "
                                 "by {} GPUs",
                                 e.nic_ports, e.gpus_per_server));
  if (e.switching == ElectricalSpec::Switching::per_rail) {
    // GPU endpoints with scale-up domains: one route per GPU pair of a rail (and of a server), in a table of
    // every GPU pair. (One switch without domains is a star whose memory is linear in the servers.)
    const double g = e.gpus_per_server, gpus = static_cast<double>(e.servers) * g;
    const double routes = gpus * (e.servers - 1) + (e.scaleup_bytes_per_s > 0 ? gpus * (g - 1) : 0);
    check_table_bytes(kRouteTableBytesPerEndpointPair * gpus * gpus + kRouteBytes * routes, path,
                      e.gpus_per_server > e.servers ? "servers.gpus_per_server" : "servers.count",
                      fmt::format("{} servers of {} GPUs on per-rail switches give {:.0f} GPU routes", e.servers,
                                  e.gpus_per_server, routes));
  }
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
  const std::string kind = YamlMap(doc, path, "").text("kind");
  AnyPlatform p;
  if (kind == "clos_ocs") {
    p.kind = PlatformKind::clos_ocs;
    p.clos = parse_platform(doc, path);
  } else if (kind == "flat_ocs") {
    p.kind = PlatformKind::flat_ocs;
    p.flat = parse_flat(YamlMap(doc, path, "", &flat_ocs_keys()), path);
  } else if (kind == "photonic_rail") {
    p.kind = PlatformKind::photonic_rail;
    p.rail = parse_rail(YamlMap(doc, path, "", &photonic_rail_keys()), path);
  } else if (kind == "electrical") {
    p.kind = PlatformKind::electrical;
    p.electrical = parse_electrical(YamlMap(doc, path, "", &electrical_keys()), path);
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
