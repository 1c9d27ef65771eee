#pragma once
// The platform kinds beyond clos_ocs (docs/platforms.md draws each), read and validated here. The engine
// simulates them through net/network.hpp; they run workloads of job graphs. Port and radix limits of a
// circuit configuration on them are checked by net/port_circuits.hpp and net::Network::check.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "spec/platform_spec.hpp"

namespace odcn::spec {

/// flat_ocs (TOPO-X, Hu et al., §III): N_S servers of G GPUs with d_S NIC ports of B each; N_OCS switches of
/// d_OCS ports. Server port r is cabled to OCS r, so d_S = N_OCS and d_OCS >= N_S (Table III: 16 servers,
/// 4 OCSes of 16 ports, 4 ports per server). A circuit joins two servers' ports on one OCS (Eq. 7-10).
struct FlatOcsSpec {
  std::string file, name;
  int servers = 0;
  int gpus_per_server = 4;
  int nic_ports = 0;                 ///< d_S
  BytesPerSecond port_bytes_per_s = 0;  ///< B
  int ocs_count = 0;                 ///< N_OCS
  int ocs_ports = 0;                 ///< d_OCS
  Seconds reconfig_delay_s = 0;
  Seconds slot_s = 0;                ///< τ, the time slot of slotted controllers
  Duplex duplex = Duplex::full;
  /// FlexNet's estimator of the TopoOpt baseline (systems/topox/flexnet_estimate.hpp), the optional `flexnet:`
  /// block; the defaults are TopoOpt's DLRM scripts' (--network-latency 1, --big-gpu 4, --inter-gpu-bandwidth 200)
  /// and FlexNet's fixed 1 MiB segment.
  struct Flexnet {
    double segment_bytes = 1024.0 * 1024.0;  ///< FlexNet's segment_size
    Seconds hop_latency_s = 1e-6;            ///< --network-latency 1 (µs)
    double nvlink_bytes_per_s = 200e9 / 8;   ///< --inter-gpu-bandwidth 200 (Gb/s), for the intra-server term
  };
  Flexnet flexnet;
};

/// An optical circuit switch technology of Opus's Table 3 (Ouyang et al., "Photonic Rails in ML
/// Datacenters"): reconfiguration time and radix.
struct OcsTechnology {
  std::string name;
  Seconds reconfig_delay_s = 0;
  int radix = 0;
};
const std::vector<OcsTechnology>& ocs_technologies();

/// photonic_rail (Opus): D scale-up domains of G GPUs joined inside by a scale-up fabric; GPU g of every
/// domain is on rail g, whose OCS joins the rail's GPUs. Each GPU's 400 Gb/s NIC is split into 1x400, 2x200
/// or 4x100 Gb/s ports, all cabled to the rail's OCS, so the OCS needs D x ports radix.
struct PhotonicRailSpec {
  std::string file, name;
  int domains = 0;
  int gpus_per_domain = 0;                 ///< G, and the number of rails
  BytesPerSecond scaleup_bytes_per_s = 0;  ///< per GPU, inside a domain
  int nic_ports = 0;                       ///< ports of one GPU's NIC (the split)
  BytesPerSecond port_bytes_per_s = 0;
  /// nic.rings: a ring collective of more than two GPUs runs as two counter-rotating rings, half the bytes each,
  /// one on each neighbour's circuit (bidirectional, the default), or one way round (one-way).
  bool counter_rotating_rings = true;
  /// nic.hop_circuits: a pipeline hop's circuits under Opus, every port of both GPUs (whole-nic, the default) or
  /// each GPU's ports shared among its pipeline peers (split); sched::HopCircuits.
  bool split_hop_circuits = false;
  OcsTechnology ocs;
  Duplex duplex = Duplex::full;
};

/// electrical: the same endpoints behind non-blocking packet switches of the same port bandwidth, the
/// baseline of TOPO-X (one switch) and Opus (one switch per rail). No circuits, no reconfiguration.
struct ElectricalSpec {
  enum class Switching { single, per_rail };
  std::string file, name;
  int servers = 0;
  int gpus_per_server = 0;
  int nic_ports = 0;  ///< per server; per_rail needs a multiple of gpus_per_server (ports of one GPU's NIC)
  BytesPerSecond port_bytes_per_s = 0;
  BytesPerSecond scaleup_bytes_per_s = 0;  ///< 0: no scale-up fabric (servers' GPUs talk through the NIC)
  Switching switching = Switching::single;
};

enum class PlatformKind { clos_ocs, flat_ocs, photonic_rail, electrical };
const char* to_string(PlatformKind k);

/// A platform file of any kind: exactly one of the members is set, the one `kind` names.
struct AnyPlatform {
  PlatformKind kind = PlatformKind::clos_ocs;
  std::optional<PlatformSpec> clos;
  std::optional<FlatOcsSpec> flat;
  std::optional<PhotonicRailSpec> rail;
  std::optional<ElectricalSpec> electrical;
};

AnyPlatform load_any_platform(const std::string& path);
AnyPlatform parse_any_platform(const YAML::Node& doc, const std::string& path);

}  // namespace odcn::spec
