#pragma once
// Circuits on fabrics whose OCS ports belong to single endpoints (flat_ocs servers, photonic_rail GPUs), and
// the limits a configuration must respect. A configuration that breaks one is an error, never clipped.
#include <vector>

#include "spec/fabric_kinds.hpp"

namespace odcn::net {

/// A circuit through switch `ocs` between endpoints a and b: for flat_ocs, servers a and b through OCS `ocs`;
/// for photonic_rail, the GPUs of rail `ocs` in domains a and b.
struct PortCircuit {
  int ocs = 0;
  int a = 0;
  int b = 0;
};

/// TOPO-X Eq. (7)-(10): every OCS exists, joins two different existing servers, uses at most d_OCS ports
/// (two per circuit), and gives each server at most one circuit (its one port on that OCS). Raises ConfigError.
void check_flat_ocs(const spec::FlatOcsSpec& f, const std::vector<PortCircuit>& circuits);

/// Opus rails: circuits stay on their rail (ocs < G) between two different domains; each GPU has nic_ports
/// ports on its rail's OCS, and the OCS at most radix ports. Raises ConfigError.
void check_photonic_rail(const spec::PhotonicRailSpec& r, const std::vector<PortCircuit>& circuits);

/// Ports that change between two configurations of one fabric: circuits torn down plus circuits set up, as a
/// multiset (a circuit present in both is unchanged and keeps carrying traffic while others reconfigure).
int changed_circuits(std::vector<PortCircuit> from, std::vector<PortCircuit> to);

}  // namespace odcn::net
