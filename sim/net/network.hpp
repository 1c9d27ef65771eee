#pragma once
// Every platform kind as the engine simulates it (DESIGN.md §2: fabrics are data). A Network has endpoints
// (clos_ocs: pods; flat_ocs: servers; photonic_rail: GPUs; electrical: servers, or GPUs with per-rail
// switches), the candidate circuits between them (endpoint pairs; a configuration gives each pair L circuits of
// B each), and each endpoint's local links:
//
//   clos_ocs       pod pool ──ToR link (B_tor, shared both ways)── ToR ══circuits══ ToR of another pod
//   flat_ocs       server ══circuits (full duplex: B each way per circuit)══ server
//   photonic_rail  GPU ──scale-up── GPUs of its domain;  GPU ══rail circuits══ GPU of the same rail elsewhere
//   electrical     endpoint ──NIC── non-blocking packet switch ──NIC── endpoint (and scale-up inside a server)
//
// Transfers take the only path the kind offers between two endpoints: scale-up inside a domain, the NIC where
// both endpoints hang off one switch, else a circuit between them. The one forwarding through a third endpoint
// is NCCL's PXN on rail fabrics (Path::pxn): across rails and domains, over the scale-up domain to the GPU of
// the source's domain on the destination's rail (the proxy), then over its NIC (electrical rails) or its rail
// circuit to the destination (photonic rails). Any other pair with no such path is an error.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/circuit_config.hpp"
#include "net/port_circuits.hpp"
#include "spec/fabric_kinds.hpp"

namespace odcn::net {

class Fabric;

/// pxn: across rails and scale-up domains on a rail fabric, as NCCL's PXN does it: over the scale-up domain to
/// the GPU of the source's domain on the destination's rail, then through that GPU's NIC and rail (electrical
/// rails) or its rail circuit to the destination (photonic rails).
enum class Path { none, circuit, uplink, scaleup, nic, pxn };

/// Why a configuration that breaks no limit breaks one once `changes` (pair, circuits) are applied ("" if not).
using ChangeChecker =
    std::function<std::string(const CircuitConfig& before, const std::vector<std::pair<int, int>>& changes)>;

struct Network {
  std::string kind;          ///< clos_ocs, flat_ocs, photonic_rail, electrical
  std::string endpoint_word; ///< "pod", "server", "gpu": host names and messages
  int endpoints = 0;
  int cores = 1;             ///< computations an endpoint runs at once at full speed

  // Circuits: CircuitConfig::circuits[p] circuits on pairs[p].
  std::vector<std::pair<int, int>> pairs;  ///< a < b
  std::vector<int> pair_switch;            ///< the OCS (clos: OXC group; photonic_rail: rail) of each pair
  std::function<int(int, int)> pair_index_of;  ///< -1 when a and b are no candidate pair
  BytesPerSecond circuit_bytes_per_s = 0;  ///< B, one circuit, one direction
  BytesPerSecond pair_max_bytes_per_s = 0; ///< the most a pair can ever carry (all of an endpoint's ports)
  bool full_duplex = false;                ///< false: a circuit carries one direction at a time (TDM-4)
  /// Ring all-reduce, reduce-scatter and all-gather over more than two endpoints run as two counter-rotating
  /// rings, half the bytes each (photonic_rail's nic.rings: each neighbour is reached over its own circuit).
  bool counter_rotating_rings = false;
  Seconds reconfig_delay_s = 0;
  std::string base_topology = "none";      ///< clos_ocs: circuits lit at time 0 and kept (spec::PlatformSpec)
  std::function<std::string(const CircuitConfig&)> violation;  ///< why a configuration breaks a limit, or 

  BytesPerSecond uplink_bytes_per_s = 0;   ///< clos_ocs: pod pool <-> ToR (0: none)
  std::vector<int> domain_of;              ///< scale-up domain of each endpoint (empty: none)
  BytesPerSecond scaleup_bytes_per_s = 0;  ///< per endpoint, each way
  std::vector<int> switch_of;              ///< packet switch of each endpoint (empty: none)
  BytesPerSecond nic_bytes_per_s = 0;      ///< per endpoint, each way
  /// Rail fabrics (electrical and photonic): GPUs per domain (endpoint = domain · this + rail), so that traffic
  /// across rails and domains takes Path::pxn through proxy(); 0: no such forwarding.
  int pxn_stride = 0;
  /// In-network aggregation (INC-AOI, Xie et al.): each endpoint's ToR aggregates for at most this many jobs
  /// at once (0: none). An INC collective sends one stream per endpoint instead of one per rank.
  int inc_jobs = 0;
  /// clos_ocs with servers (INC-AOI): servers behind each pod's ToR and each one's NIC, each way (0: none).
  int servers_per_endpoint = 0;
  BytesPerSecond server_bytes_per_s = 0;

  int pair_index(int a, int b) const { return pair_index_of ? pair_index_of(a, b) : -1; }
  CircuitConfig empty_config() const { return CircuitConfig{std::vector<int>(pairs.size(), 0)}; }
  /// Raises ConfigError when `c` breaks a port or radix limit.
  void check(const CircuitConfig& c) const;
  /// The same for `before` (which breaks none) with `changes` applied: with violation_of_changes, in time
  /// proportional to the pairs of the endpoints and switches they touch, not to all pairs.
  void check_changes(const CircuitConfig& before, const std::vector<std::pair<int, int>>& changes) const;
  /// The same without raising: why, or "".
  std::string changes_violation(const CircuitConfig& before, const std::vector<std::pair<int, int>>& changes) const;
  ChangeChecker violation_of_changes;  ///< optional: violation for a few changed pairs
  /// The path a transfer from a to b takes (none when a == b); raises ConfigError when there is none.
  Path path(int a, int b) const;
  /// The same without raising (the engine's actors must not throw: ASan misreads throws on SimGrid stacks):
  /// false, with the reason in `why`, when there is no path.
  bool route(int a, int b, Path& path, std::string& why) const;
  /// Whether a ring over `group` (ranks, mapped to endpoints by endpoint_of) runs as two counter-rotating rings:
  /// counter_rotating_rings, and the ring leaves a scale-up domain. Inside one domain a ring runs one way on the
  /// scale-up fabric, as on the electrical twin (the same time unshared, half the flows to simulate).
  template <class EndpointOf>
  bool counter_rotates(const std::vector<int>& group, EndpointOf endpoint_of) const {
    if (!counter_rotating_rings || group.empty() || domain_of.empty()) return counter_rotating_rings;
    const int first = domain_of[static_cast<std::size_t>(endpoint_of(group.front()))];
    for (int r : group)
      if (domain_of[static_cast<std::size_t>(endpoint_of(r))] != first) return true;
    return false;
  }
  /// Path::pxn's forwarding GPU: a's domain, b's rail.
  int proxy(int a, int b) const { return domain_of[static_cast<std::size_t>(a)] * pxn_stride + b % pxn_stride; }
  /// The candidate circuit pair a transfer from a to b on `path` crosses: (a, b) on Path::circuit, (proxy, b) on
  /// Path::pxn over photonic rails; -1 when it crosses none.
  int crossed_pair(int a, int b, Path path) const;
};

Network network_of(const Fabric& clos);
Network network_of(const spec::FlatOcsSpec& f);
Network network_of(const spec::PhotonicRailSpec& r);
Network network_of(const spec::ElectricalSpec& e);
/// `servers` servers of one GPU and one NIC port of `nic` bytes/s each way, behind one packet switch (the
/// collective bench's fabric).
Network one_switch(int servers, BytesPerSecond nic);

/// The GPU endpoint of (domain, local rank) on a photonic_rail network.
inline int rail_gpu(const spec::PhotonicRailSpec& r, int domain, int local) { return domain * r.gpus_per_domain + local; }

/// Port-level circuits (checked against Eq. 7-10, or the rails' port and radix limits) as a configuration.
CircuitConfig counts_of(const spec::FlatOcsSpec& f, const Network& n, const std::vector<PortCircuit>& circuits);
CircuitConfig counts_of(const spec::PhotonicRailSpec& r, const Network& n, const std::vector<PortCircuit>& circuits);

}  // namespace odcn::net
