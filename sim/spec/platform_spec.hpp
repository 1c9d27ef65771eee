#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>

#include "core/units.hpp"

namespace odcn::spec {

class YamlMap;

/// half: a circuit carries one direction at a time (TDM-4's model); full: each direction gets the port rate.
enum class Duplex { half, full };
/// The map's `duplex` key (full or half), its key table's default when it has none; raises InputError for another word.
Duplex read_duplex(const YamlMap& m);

/// A `clos_ocs` platform (seed 001 §II.A): pods of GPUs behind one ToR each; each ToR has a budget of OCS
/// ports; pods are partitioned into OXC groups of `pods_per_group` consecutive pods, one OXC per group.
///
///   server pool ──B_tor── ToR ══ports_per_pod × port_gbps══ OXC of its group ══ ToRs of the same group
struct PlatformSpec {
  std::string file;
  std::string hash;  ///< fingerprint of the bytes it was read from (load_platform only)
  std::string name;
  int pods = 0;
  int gpus_per_pod = 0;
  BytesPerSecond tor_bytes_per_s = 0;   ///< B_tor: ToR ↔ server-pool capacity of one pod
  int ports_per_pod = 0;                ///< N_link: OCS ports of each ToR
  BytesPerSecond port_bytes_per_s = 0;  ///< B: capacity of one OXC port (one circuit)
  int oxcs = 0;
  int ports_per_oxc = 0;
  int pods_per_group = 0;
  Seconds reconfig_delay_s = 0;  ///< δ: a changed circuit is dark for this long
  /// INC-capable ToRs (INC-AOI, Xie et al.): how many jobs one ToR can aggregate gradients for at once (0: no
  /// in-network aggregation).
  int inc_jobs = 0;
  /// Servers of a pod (a rack, in INC-AOI's words) and each server's NIC, each way (0: servers are not modelled,
  /// a pod is one pool behind B_tor). With them, parameter-server jobs placed on servers (INC-AOI's jobs) pay
  /// their workers' and their parameter server's NICs (docs/inc-aoi.md).
  int servers_per_pod = 0;
  BytesPerSecond server_bytes_per_s = 0;
  /// half (TDM-4's model, the default): a circuit carries one direction at a time; full: each direction gets
  /// the port rate (INC-AOI's OXC ports carry a fibre pair).
  Duplex duplex = Duplex::half;
  /// Circuits lit at time 0 and never taken down (INC-AOI, Xie et al., §II: the OCS gives the ToRs "diverse
  /// connectivity (all-to-all, Torus, etc.)"): none (the default), ring, torus or all-to-all
  /// (docs/inc-aoi.md, "Base topology and forwarding"). Only INC-AOI's policies light one.
  std::string base_topology = "none";
};

/// A base topology's 2-D torus over `pods` racks: rows × columns, rows the largest divisor of pods at most √pods
/// (64 → 8 × 8; a prime count is a 1 × n torus, a ring). Rack r sits at row r / columns, column r % columns.
std::pair<int, int> torus_shape(int pods);
/// The ports of each ToR a base topology takes (ring 2, torus up to 4, all-to-all pods - 1, none 0).
int base_topology_ports(const std::string& kind, int pods);

/// Loads and validates a platform file. Raises InputError("file: field: reason"). Every size and rate is
/// within the documented limits (core/limits.hpp, docs/limits.md).
PlatformSpec load_platform(const std::string& path);
/// The same from an already parsed document (spec/yaml_reader.hpp's parse_yaml), named `path` in errors.
PlatformSpec parse_platform(const YAML::Node& doc, const std::string& path);

}  // namespace odcn::spec
