#include "net/port_circuits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.hpp"

namespace odcn::net {

namespace {

/// Counts ports per (switch, endpoint) and per switch; raises when a count exceeds its budget.
void check_ports(const std::vector<PortCircuit>& circuits, int switches, int endpoints, int ports_per_endpoint,
                 int ports_per_switch, const char* endpoint_name, const char* switch_name) {
  std::map<std::pair<int, int>, int> used;
  std::vector<int> per_switch(static_cast<std::size_t>(switches), 0);
  for (const auto& c : circuits) {
    if (c.ocs < 0 || c.ocs >= switches)
      throw ConfigError(fmt::format("{} {} does not exist ({} of them)", switch_name, c.ocs, switches));
    if (c.a == c.b || c.a < 0 || c.b < 0 || c.a >= endpoints || c.b >= endpoints)
      throw ConfigError(fmt::format("a circuit on {} {} must join two different {}s below {} (got {} and {})",
                                    switch_name, c.ocs, endpoint_name, endpoints, c.a, c.b));
    for (int e : {c.a, c.b})
      if (++used[{c.ocs, e}] > ports_per_endpoint)
        throw ConfigError(fmt::format("{} {} needs {} ports on {} {} but has {}", endpoint_name, e, used[{c.ocs, e}],
                                      switch_name, c.ocs, ports_per_endpoint));
    if ((per_switch[static_cast<std::size_t>(c.ocs)] += 2) > ports_per_switch)
      throw ConfigError(fmt::format("{} {} needs {} ports but has {}", switch_name, c.ocs,
                                    per_switch[static_cast<std::size_t>(c.ocs)], ports_per_switch));
  }
}

}  // namespace

void check_flat_ocs(const spec::FlatOcsSpec& f, const std::vector<PortCircuit>& circuits) {
  check_ports(circuits, f.ocs_count, f.servers, 1, f.ocs_ports, "server", "OCS");  // Eq. (7)-(10)
}

void check_photonic_rail(const spec::PhotonicRailSpec& r, const std::vector<PortCircuit>& circuits) {
  check_ports(circuits, r.gpus_per_domain, r.domains, r.nic_ports, r.ocs.radix, "domain", "rail OCS");
}

int changed_circuits(std::vector<PortCircuit> from, std::vector<PortCircuit> to) {
  const auto key = [](const PortCircuit& c) { return std::make_tuple(c.ocs, std::min(c.a, c.b), std::max(c.a, c.b)); };
  const auto less = [&](const PortCircuit& x, const PortCircuit& y) { return key(x) < key(y); };
  std::sort(from.begin(), from.end(), less);
  std::sort(to.begin(), to.end(), less);
  std::vector<PortCircuit> common;
  std::set_intersection(from.begin(), from.end(), to.begin(), to.end(), std::back_inserter(common), less);
  return static_cast<int>(from.size() + to.size() - 2 * common.size());
}

}  // namespace odcn::net
