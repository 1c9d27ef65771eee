// The platform kinds beyond clos_ocs: the examples in platforms/ read with exact units, Opus's Table 3 is
// available by name, every inconsistency is an InputError naming its field, and circuit configurations that
// break a port or radix limit are ConfigErrors (TOPO-X Eq. 7-10, Opus rails), never clipped.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "net/network.hpp"
#include "net/port_circuits.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/yaml_reader.hpp"

using namespace odcn;

namespace {

spec::AnyPlatform load(const std::string& rel) {
  return spec::load_any_platform(std::string(ODCNSIM_SOURCE_DIR) + "/platforms/" + rel);
}

std::string error_of(const std::string& yaml) {
  try {
    spec::parse_any_platform(spec::parse_yaml(yaml, "p.yaml"), "p.yaml");
    return "ok";
  } catch (const InputError& e) {
    return e.what();
  }
}

const char* kFlat = "kind: flat_ocs\nservers: {count: 16, nic_ports: 4, nic_gbps: 40}\n"
                    "ocs: {count: 4, ports: 16, reconfig_delay_ms: 1}\nslot_ms: 1\n";
const char* kRail = "kind: photonic_rail\nscaleup: {domains: 4, gpus_per_domain: 4, gbps: 2400}\n"
                    "nic: {split: 2x200}\nocs: {technology: piezo}\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

}  // namespace

TEST(FabricKinds, ExamplesReadWithExactUnits) {
  const auto flat = load("flat-ocs-16.yaml");
  ASSERT_TRUE(flat.flat);
  EXPECT_EQ(flat.flat->servers, 16);
  EXPECT_EQ(flat.flat->gpus_per_server, 4);
  EXPECT_DOUBLE_EQ(flat.flat->port_bytes_per_s, 5e9);  // 40 Gb/s
  EXPECT_DOUBLE_EQ(flat.flat->reconfig_delay_s, 1e-3);
  EXPECT_DOUBLE_EQ(flat.flat->slot_s, 1e-3);
  EXPECT_EQ(flat.flat->duplex, spec::Duplex::full);

  const auto rail = load("photonic-rail-16.yaml");
  ASSERT_TRUE(rail.rail);
  EXPECT_EQ(rail.rail->nic_ports, 2);
  EXPECT_DOUBLE_EQ(rail.rail->port_bytes_per_s, 25e9);  // 200 Gb/s
  EXPECT_EQ(rail.rail->ocs.name, "piezo");
  EXPECT_DOUBLE_EQ(rail.rail->ocs.reconfig_delay_s, 0.025);
  EXPECT_EQ(rail.rail->ocs.radix, 576);
  EXPECT_DOUBLE_EQ(rail.rail->scaleup_bytes_per_s, 300e9);

  const auto el = load("electrical-16.yaml");
  ASSERT_TRUE(el.electrical);
  EXPECT_EQ(el.electrical->switching, spec::ElectricalSpec::Switching::single);
  EXPECT_DOUBLE_EQ(el.electrical->port_bytes_per_s, 5e9);

  EXPECT_TRUE(load("clos-8pod.yaml").clos);  // clos_ocs through the same entry point
}

TEST(FabricKinds, OpusTable3TechnologiesByName) {
  const std::vector<std::tuple<std::string, double, int>> table{
      {"plzt", 1e-8, 16},   {"sip", 7e-6, 32},       {"rotornet", 1e-5, 128},        {"3d_mems", 0.015, 320},
      {"piezo", 0.025, 576}, {"liquid_crystal", 0.1, 512}, {"robotic", 120.0, 1008}};
  ASSERT_EQ(spec::ocs_technologies().size(), table.size());
  for (const auto& [name, delay, radix] : table) {
    SCOPED_TRACE(name);
    const auto p = spec::parse_any_platform(
        spec::parse_yaml(replace(replace(kRail, "piezo", name), "domains: 4", "domains: 8"), "p.yaml"), "p.yaml");
    EXPECT_NEAR(p.rail->ocs.reconfig_delay_s, delay, 1e-15 + 1e-12 * delay);
    EXPECT_EQ(p.rail->ocs.radix, radix);
  }
  EXPECT_EQ(spec::parse_any_platform(spec::parse_yaml(replace(kRail, "technology: piezo", "reconfig_delay_us: 3, radix: 64"),
                                                      "p.yaml"),
                                     "p.yaml")
                .rail->ocs.radix,
            64);
}

TEST(FabricKinds, InconsistentPlatformsAreRefusedNamingTheField) {
  EXPECT_EQ(error_of(replace(kFlat, "nic_ports: 4", "nic_ports: 3")),
            "p.yaml: servers.nic_ports: must equal ocs.count: server port r is cabled to OCS r (got 3 ports, 4 OCSes)");
  EXPECT_EQ(error_of(replace(kFlat, "ports: 16,", "ports: 15,")),
            "p.yaml: ocs.ports: port budget overflow: 16 servers each need a port on every OCS, which has 15");
  EXPECT_EQ(error_of(replace(kFlat, "slot_ms: 1\n", "")),
            "p.yaml: slot_us: give exactly one of slot_us and slot_ms");
  // PLZT has 16 ports: 16 domains of 2-port NICs need 32.
  EXPECT_EQ(error_of(replace(replace(kRail, "piezo", "plzt"), "domains: 4", "domains: 16")),
            "p.yaml: ocs: port budget overflow: a rail's OCS needs 16 domains x 2 ports = 32, its radix is 16");
  EXPECT_EQ(error_of(replace(kRail, "2x200", "3x133")), "p.yaml: nic.split: must be 1x400, 2x200 or 4x100 (got '3x133')");
  EXPECT_EQ(error_of(replace(kRail, "piezo", "mems")).rfind("p.yaml: ocs.technology: unknown technology 'mems' (expected "
                                                            "plzt, sip, rotornet, 3d_mems, piezo, liquid_crystal or "
                                                            "robotic: Opus Table 3)",
                                                            0),
            0u);
  // A technology's radix or delay may be overridden, and the overridden value is checked like any other.
  EXPECT_EQ(error_of(replace(kRail, "technology: piezo", "technology: piezo, radix: 6")),
            "p.yaml: ocs: port budget overflow: a rail's OCS needs 4 domains x 2 ports = 8, its radix is 6");
  EXPECT_EQ(error_of(replace(kRail, "technology: piezo", "technology: piezo, reconfig_delay_ms: -1")).rfind(
                "p.yaml: ocs.reconfig_delay_ms: ", 0),
            0u);
  EXPECT_EQ(error_of("kind: electrical\nservers: {count: 4, gpus_per_server: 4, nic_ports: 6, nic_gbps: 100}\n"
                     "switch: per_rail\n"),
            "p.yaml: servers.nic_ports: per_rail switching gives each GPU its own NIC ports: 6 ports cannot be shared "
            "by 4 GPUs");
  EXPECT_EQ(error_of("kind: torus\n"),
            "p.yaml: kind: unknown platform kind 'torus' (known: clos_ocs, flat_ocs, photonic_rail, electrical)");
  EXPECT_EQ(error_of(replace(kFlat, "nic_gbps: 40", "nic_gbps: 1e308")).rfind("p.yaml: servers.nic_gbps: must be between", 0),
            0u);
}

// The flat OCS layer's optional flexnet block (FlexNet's estimate of TopoOpt): TopoOpt's DLRM scripts' values when
// absent, each key read in its unit, anything else refused naming the field.
TEST(FabricKinds, FlatOcsFlexnetBlockHasTopoOptsDefaults) {
  const auto plain = spec::parse_any_platform(spec::parse_yaml(kFlat, "p.yaml"), "p.yaml").flat.value();
  EXPECT_DOUBLE_EQ(plain.flexnet.segment_bytes, 1048576.0);
  EXPECT_DOUBLE_EQ(plain.flexnet.hop_latency_s, 1e-6);
  EXPECT_DOUBLE_EQ(plain.flexnet.nvlink_bytes_per_s, 25e9);  // 200 Gb/s
  const std::string set = std::string(kFlat) + "flexnet: {segment_kib: 256, hop_latency_us: 0, nvlink_gbps: 800}\n";
  const auto f = spec::parse_any_platform(spec::parse_yaml(set, "p.yaml"), "p.yaml").flat.value();
  EXPECT_DOUBLE_EQ(f.flexnet.segment_bytes, 262144.0);
  EXPECT_DOUBLE_EQ(f.flexnet.hop_latency_s, 0.0);
  EXPECT_DOUBLE_EQ(f.flexnet.nvlink_bytes_per_s, 100e9);
  EXPECT_EQ(error_of(std::string(kFlat) + "flexnet: {segment: 1}\n").rfind("p.yaml: flexnet.segment: ", 0), 0u);
  EXPECT_EQ(error_of(std::string(kFlat) + "flexnet: {segment_kib: 0}\n").rfind("p.yaml: flexnet.segment_kib: ", 0), 0u);
  EXPECT_EQ(error_of(std::string(kFlat) + "flexnet: {hop_latency_us: -1}\n").rfind("p.yaml: flexnet.hop_latency_us: ", 0),
            0u);
}

TEST(FabricKinds, FlatOcsCircuitsFollowTopoXEq7To10) {
  const auto f = spec::parse_any_platform(spec::parse_yaml(kFlat, "p.yaml"), "p.yaml").flat.value();
  std::vector<net::PortCircuit> matching;
  for (int s = 0; s < 16; s += 2) matching.push_back({0, s, s + 1});  // a perfect matching on OCS 0: 16 ports
  matching.push_back({3, 0, 15});
  EXPECT_NO_THROW(net::check_flat_ocs(f, matching));
  auto twice = matching;
  twice.push_back({0, 1, 2});  // server 1 already has its port on OCS 0 in use (Eq. 9-10)
  try {
    net::check_flat_ocs(f, twice);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "server 1 needs 2 ports on OCS 0 but has 1");
  }
  EXPECT_THROW(net::check_flat_ocs(f, {{4, 0, 1}}), ConfigError);   // OCS 4 of 4
  EXPECT_THROW(net::check_flat_ocs(f, {{0, 3, 3}}), ConfigError);   // a circuit to itself
  EXPECT_THROW(net::check_flat_ocs(f, {{0, 0, 16}}), ConfigError);  // server 16 of 16
}

TEST(FabricKinds, RailCircuitsStayOnTheirRailWithinPortsAndRadix) {
  auto r = spec::parse_any_platform(spec::parse_yaml(kRail, "p.yaml"), "p.yaml").rail.value();
  // 2 ports per GPU: domain 0's GPU on rail 1 can join two others, not three.
  EXPECT_NO_THROW(net::check_photonic_rail(r, {{1, 0, 1}, {1, 0, 2}}));
  EXPECT_THROW(net::check_photonic_rail(r, {{1, 0, 1}, {1, 0, 2}, {1, 0, 3}}), ConfigError);
  EXPECT_THROW(net::check_photonic_rail(r, {{4, 0, 1}}), ConfigError);  // there are 4 rails
  r.ocs.radix = 4;  // a 4-port OCS carries two circuits
  EXPECT_NO_THROW(net::check_photonic_rail(r, {{0, 0, 1}, {0, 2, 3}}));
  try {
    net::check_photonic_rail(r, {{0, 0, 1}, {0, 2, 3}, {0, 0, 2}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "rail OCS 0 needs 6 ports but has 4");
  }
}

TEST(FabricKinds, OnlyCircuitsThatChangeCount) {
  // {0-1, 3-4} -> {1-0, 3-5}: 0-1 stays (either direction), 3-4 goes, 3-5 comes.
  EXPECT_EQ(net::changed_circuits({{0, 0, 1}, {0, 3, 4}}, {{0, 1, 0}, {0, 3, 5}}), 2);
  EXPECT_EQ(net::changed_circuits({{0, 0, 1}}, {{1, 0, 1}}), 2);  // same servers, another OCS
  EXPECT_EQ(net::changed_circuits({{0, 0, 1}, {0, 0, 1}}, {{0, 0, 1}}), 1);
}

// The sparse check of a few changed pairs (what the engine runs for a controller's configure_changes) says what
// the full check of the whole configuration says, message for message: the full check is the oracle, on valid
// configurations of a photonic rail (ports, radix 6 so that the OCS binds too) and a flat OCS layer, each changed
// at random.
TEST(FabricKinds, TheCheckOfChangesAgreesWithTheFullCheck) {
  auto r = spec::parse_any_platform(spec::parse_yaml(kRail, "p.yaml"), "p.yaml").rail.value();
  r.ocs.radix = 6;
  const auto f = spec::parse_any_platform(spec::parse_yaml(kFlat, "p.yaml"), "p.yaml").flat.value();
  std::mt19937 rng(7);
  for (const net::Network& n : {net::network_of(r), net::network_of(f)}) {
    ASSERT_TRUE(n.violation_of_changes) << n.kind;
    int agreed_valid = 0, agreed_invalid = 0;
    net::CircuitConfig before = n.empty_config();
    for (int trial = 0; trial < 4000; ++trial) {
      std::uniform_int_distribution<int> pair(0, static_cast<int>(n.pairs.size()) - 1), count(0, 3), how_many(1, 4);
      std::map<int, int> picked;
      for (int k = how_many(rng); k > 0; --k) picked[pair(rng)] = count(rng);
      const std::vector<std::pair<int, int>> changes(picked.begin(), picked.end());
      net::CircuitConfig after = before;
      for (const auto& [p, l] : changes) after.circuits[static_cast<std::size_t>(p)] = l;
      const std::string full = n.violation(after);
      EXPECT_EQ(n.changes_violation(before, changes), full) << n.kind << " trial " << trial;
      if (full.empty()) {
        before = after;  // walk through valid configurations
        ++agreed_valid;
      } else {
        ++agreed_invalid;
      }
    }
    EXPECT_GT(agreed_valid, 100) << n.kind;
    EXPECT_GT(agreed_invalid, 100) << n.kind;
  }
}

// NCCL's PXN on rail fabrics (4 servers or domains of 4 GPUs, one switch or OCS per rail): GPU 0 reaches GPU 5
// (another server, another rail) through GPU 1, its server's GPU on rail 1: over its NIC on electrical rails, on
// its circuit to GPU 5 (pair (1, 5)) on photonic rails.
TEST(FabricKinds, RailsForwardAcrossRailsThroughTheScaleUpDomain) {
  const auto e = load("electrical-rail-16.yaml").electrical.value();
  const net::Network n = net::network_of(e);
  EXPECT_EQ(n.path(0, 1), net::Path::scaleup);
  EXPECT_EQ(n.path(0, 4), net::Path::nic);
  EXPECT_EQ(n.path(0, 5), net::Path::pxn);
  EXPECT_EQ(n.proxy(0, 5), 1);
  EXPECT_EQ(n.proxy(15, 0), 12);  // server 3's GPU on rail 0
  EXPECT_EQ(n.crossed_pair(0, 5, net::Path::pxn), -1);  // no circuit
  const net::Network p = net::network_of(load("photonic-rail-16.yaml").rail.value());
  EXPECT_EQ(p.path(0, 4), net::Path::circuit);
  EXPECT_EQ(p.path(0, 5), net::Path::pxn);
  EXPECT_EQ(p.proxy(0, 5), 1);
  EXPECT_EQ(p.crossed_pair(0, 5, net::Path::pxn), p.pair_index(1, 5));
  EXPECT_EQ(p.crossed_pair(0, 4, net::Path::circuit), p.pair_index(0, 4));
  // Without a scale-up domain to forward over, there is no path.
  auto flat = load("photonic-rail-16.yaml").rail.value();
  flat.scaleup_bytes_per_s = 0;
  try {
    net::network_of(flat).path(0, 5);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& x) {
    EXPECT_NE(std::string(x.what()).find("as NCCL's PXN does"), std::string::npos) << x.what();
  }
}

// Counter-rotating rings are for rings that leave their scale-up domain (each neighbour on a circuit of its own);
// a ring inside one domain runs one way, as on the electrical twin; nic.rings one-way turns them off everywhere.
TEST(FabricKinds, OnlyRingsThatLeaveTheirDomainCounterRotate) {
  auto r = load("photonic-rail-16.yaml").rail.value();  // 4 domains of 4 GPUs
  const auto id = [](int rank) { return rank; };
  const net::Network n = net::network_of(r);
  EXPECT_FALSE(n.counter_rotates({0, 1, 2, 3}, id));  // one domain
  EXPECT_TRUE(n.counter_rotates({0, 4, 8}, id));      // rail 0 across domains
  EXPECT_TRUE(n.counter_rotates({2, 3, 4}, id));      // partly across
  EXPECT_FALSE(n.counter_rotates({1, 2, 3}, [](int rank) { return rank + 12; }));  // ranks on GPUs 13-15: one domain
  EXPECT_TRUE(n.counter_rotates({0, 1}, [](int rank) { return rank * 4; }));        // GPUs 0 and 4
  r.counter_rotating_rings = false;
  EXPECT_FALSE(net::network_of(r).counter_rotates({0, 4, 8}, id));
  const net::Network e = net::network_of(load("electrical-rail-16.yaml").electrical.value());
  EXPECT_FALSE(e.counter_rotates({0, 4, 8}, id));  // electrical rails: one way on the NIC
}

// Issue 28: the tables of a fabric are estimated from its sizes and refused above 8 GiB before anything is
// built (docs/limits.md). Each estimate below is worked by hand from limits.hpp's measured costs.
TEST(FabricKinds, FabricTablesAboveEightGibAreRefusedUpFront) {
  const auto flat = [](int n) {
    return fmt::format("kind: flat_ocs\nservers: {{count: {0}, gpus_per_server: 1, nic_ports: 4, nic_gbps: 40}}\n"
                       "ocs: {{count: 4, ports: {0}, reconfig_delay_ms: 1}}\nslot_ms: 1\n", n);
  };
  // 13,000 servers: 72 B x 84,493,500 pairs + 12 B x 13,000^2 = 8,111,532,000 B (7.55 GiB).
  EXPECT_EQ(error_of(flat(13000)), "ok");
  // 13,500 servers: 72 x 91,118,250 + 12 x 13,500^2 = 8,747,514,000 B (8.15 GiB).
  EXPECT_EQ(error_of(flat(13500)),
            "p.yaml: servers.count: 13500 servers give 91118250 candidate circuit pairs among 13500 endpoints, whose "
            "tables would take about 8.1 GiB, above the limit of 8 GiB (see docs/limits.md)");
  const auto rail = [](int domains) {
    return fmt::format("kind: photonic_rail\nscaleup: {{domains: {0}, gpus_per_domain: 4, gbps: 2400}}\n"
                       "nic: {{split: 1x400}}\nocs: {{reconfig_delay_us: 10, radix: {0}}}\n", domains);
  };
  // 4,800 domains x 4 rails: 86 x 46,070,400 + 12 x 19,200^2 = 8,385,734,400 B (7.81 GiB).
  EXPECT_EQ(error_of(rail(4800)), "ok");
  // 4,900: 86 x 48,010,200 + 12 x 19,600^2 = 8,738,797,200 B (8.14 GiB).
  EXPECT_EQ(error_of(rail(4900)).rfind("p.yaml: scaleup.domains: 4900 domains of 4 GPUs (one rail each) give 48010200 "
                                       "candidate circuit pairs among 19600 endpoints, whose tables would take about "
                                       "8.1 GiB",
                                       0),
            0u);
  const auto electrical = [](int servers, const char* sw) {
    return fmt::format("kind: electrical\nservers: {{count: {}, gpus_per_server: 4, nic_ports: 4, nic_gbps: 100, "
                       "scaleup_gbps: 2400}}\nswitch: {}\n", servers, sw);
  };
  // 4,000 servers of 4 GPUs per rail: 8 x 16,000^2 + 100 x (16,000 x 3,999 + 16,000 x 3) = 8,451,200,000 B.
  EXPECT_EQ(error_of(electrical(4000, "per_rail")), "ok");
  // 4,100: 8 x 16,400^2 + 100 x (16,400 x 4,099 + 16,400 x 3) = 8,878,960,000 B (8.27 GiB).
  EXPECT_EQ(error_of(electrical(4100, "per_rail")).rfind("p.yaml: servers.count: 4100 servers of 4 GPUs on per-rail "
                                                         "switches give 67272800 GPU routes, whose tables would take "
                                                         "about 8.3 GiB",
                                                         0),
            0u);
  // The field named is the size that makes the pairs: 2 domains of 40,000 GPUs are 80,000 GPUs (76.8 GB of
  // GPU pairs), not too many domains; and a per-rail platform whose ports cannot be shared says so first.
  EXPECT_EQ(error_of("kind: photonic_rail\nscaleup: {domains: 2, gpus_per_domain: 40000, gbps: 2400}\n"
                     "nic: {split: 1x400}\nocs: {reconfig_delay_us: 10, radix: 64}\n")
                .rfind("p.yaml: scaleup.gpus_per_domain: 2 domains of 40000 GPUs", 0),
            0u);
  EXPECT_EQ(error_of("kind: electrical\nservers: {count: 2, gpus_per_server: 65536, nic_ports: 1, nic_gbps: 100}\n"
                     "switch: per_rail\n")
                .rfind("p.yaml: servers.nic_ports: per_rail switching", 0),
            0u);
  // One switch: a star, linear in the servers, whatever their number.
  EXPECT_EQ(error_of(electrical(65536, "single")), "ok");
}
