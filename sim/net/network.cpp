#include "net/network.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include <memory>

#include "core/error.hpp"
#include "net/fabric.hpp"

namespace odcn::net {

bool Network::route(int a, int b, Path& path, std::string& why) const {
  path = Path::none;
  if (a == b) return true;
  const auto same = [](const std::vector<int>& of, int x, int y) {
    return !of.empty() && of[static_cast<std::size_t>(x)] == of[static_cast<std::size_t>(y)];
  };
  if (scaleup_bytes_per_s > 0 && same(domain_of, a, b)) path = Path::scaleup;
  else if (nic_bytes_per_s > 0 && same(switch_of, a, b)) path = Path::nic;
  else if (pair_index(a, b) >= 0) path = Path::circuit;
  else if (pxn_stride > 0 && scaleup_bytes_per_s > 0 && !domain_of.empty() &&
           (nic_bytes_per_s > 0 || pair_index(proxy(a, b), b) >= 0))
    path = Path::pxn;
  else {
    why = fmt::format("no path from {} {} to {} {} on this {} fabric (odcnsim forwards through another endpoint "
                      "only across rails and scale-up domains of a rail fabric, as NCCL's PXN does)",
                      endpoint_word, a, endpoint_word, b, kind);
    return false;
  }
  return true;
}

int Network::crossed_pair(int a, int b, Path path) const {
  if (path == Path::circuit) return pair_index(a, b);
  if (path == Path::pxn) return pair_index(proxy(a, b), b);
  return -1;
}

Path Network::path(int a, int b) const {
  Path p = Path::none;
  std::string why;
  if (!route(a, b, p, why)) throw ConfigError(why);
  return p;
}

void Network::check(const CircuitConfig& c) const {
  if (!violation) return;
  if (auto v = violation(c); !v.empty()) throw ConfigError(v);
}

std::string Network::changes_violation(const CircuitConfig& before,
                                       const std::vector<std::pair<int, int>>& changes) const {
  if (!violation) return {};
  if (violation_of_changes) return violation_of_changes(before, changes);
  CircuitConfig after = before;
  for (const auto& [p, l] : changes) {
    if (p < 0 || static_cast<std::size_t>(p) >= after.circuits.size()) return fmt::format("no pair {}", p);
    after.circuits[static_cast<std::size_t>(p)] = l;
  }
  return violation(after);
}

void Network::check_changes(const CircuitConfig& before, const std::vector<std::pair<int, int>>& changes) const {
  if (auto v = changes_violation(before, changes); !v.empty()) throw ConfigError(v);
}

Network network_of(const Fabric& f) {
  Network n;
  n.kind = "clos_ocs";
  n.endpoint_word = "pod";
  n.endpoints = f.pods();
  n.cores = f.spec().gpus_per_pod;
  n.pairs.reserve(static_cast<std::size_t>(f.pair_count()));
  n.pair_switch.reserve(static_cast<std::size_t>(f.pair_count()));
  for (int p = 0; p < f.pair_count(); ++p) {
    n.pairs.push_back(f.pair_pods(p));
    n.pair_switch.push_back(f.group_of(f.pair_pods(p).first));
  }
  n.pair_index_of = [&f](int a, int b) { return f.pair_index(a, b); };
  n.circuit_bytes_per_s = f.port_bytes_per_s();
  n.pair_max_bytes_per_s = f.ports_per_pod() * f.port_bytes_per_s();
  n.full_duplex = f.spec().duplex == spec::Duplex::full;
  n.reconfig_delay_s = f.reconfig_delay_s();
  n.base_topology = f.spec().base_topology;
  n.violation = [&f](const CircuitConfig& c) { return f.violation(c); };
  n.uplink_bytes_per_s = f.tor_bytes_per_s();
  n.inc_jobs = f.spec().inc_jobs;
  n.servers_per_endpoint = f.spec().servers_per_pod;
  n.server_bytes_per_s = f.spec().server_bytes_per_s;
  return n;
}

namespace {

/// Dense pair indices for endpoints 0..n-1 from an explicit list of candidate pairs.
std::function<int(int, int)> dense_index(int endpoints, const std::vector<std::pair<int, int>>& pairs) {
  auto table = std::make_shared<std::vector<int>>(static_cast<std::size_t>(endpoints) * endpoints, -1);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    (*table)[static_cast<std::size_t>(a) * endpoints + b] = static_cast<int>(p);
    (*table)[static_cast<std::size_t>(b) * endpoints + a] = static_cast<int>(p);
  }
  return [table, endpoints](int a, int b) {
    if (a < 0 || b < 0 || a >= endpoints || b >= endpoints) return -1;
    return (*table)[static_cast<std::size_t>(a) * endpoints + b];
  };
}

/// The port budgets of a kind whose circuits are counted per endpoint pair: each endpoint at most `ports`
/// circuits, each pair at most `per_pair`, each switch at most `radix` ports (two per circuit).
struct CountLimits {
  Network view;  ///< endpoint_word, endpoints, pairs, pair_switch
  int ports = 0, per_pair = 0, switches = 0, radix = 0;
  /// For count_violation_of_changes, built on its first call (a flat OCS layer of 4,096 servers has 8.4 M
  /// pairs: the index is not paid for by runs that never check changes).
  std::vector<std::vector<int>> pairs_of_endpoint, pairs_of_switch;
  /// Per switch: whether its endpoints' ports cannot fill it (ports x endpoints on it <= radix), so that a
  /// configuration within the endpoints' ports is within its radix and it need not be summed.
  std::vector<char> roomy;
  void index() {
    if (!pairs_of_endpoint.empty() || view.endpoints == 0) return;
    pairs_of_endpoint.resize(static_cast<std::size_t>(view.endpoints));
    pairs_of_switch.resize(static_cast<std::size_t>(switches));
    std::vector<std::set<int>> on_switch(static_cast<std::size_t>(switches));
    for (std::size_t p = 0; p < view.pairs.size(); ++p) {
      const auto [a, b] = view.pairs[p];
      const auto s = static_cast<std::size_t>(view.pair_switch[p]);
      pairs_of_endpoint[static_cast<std::size_t>(a)].push_back(static_cast<int>(p));
      pairs_of_endpoint[static_cast<std::size_t>(b)].push_back(static_cast<int>(p));
      pairs_of_switch[s].push_back(static_cast<int>(p));
      on_switch[s].insert({a, b});
    }
    for (const auto& e : on_switch)
      roomy.push_back(static_cast<std::int64_t>(ports) * static_cast<std::int64_t>(e.size()) <= radix);
  }
};

std::string count_violation(const CountLimits& k, const CircuitConfig& c) {
  const Network& n = k.view;
  const int ports = k.ports, per_pair = k.per_pair, switches = k.switches, radix = k.radix;
  if (c.circuits.size() != n.pairs.size())
    return (fmt::format("circuit configuration has {} pairs, fabric has {}", c.circuits.size(), n.pairs.size()));
  std::vector<int> used(static_cast<std::size_t>(n.endpoints), 0), sw(static_cast<std::size_t>(switches), 0);
  for (std::size_t p = 0; p < n.pairs.size(); ++p) {
    const int l = c.circuits[p];
    if (l < 0) return (fmt::format("negative circuit count on pair {}", p));
    if (l > per_pair)
      return (fmt::format("{} circuits between {} {} and {} {}, at most {} fit", l, n.endpoint_word,
                                    n.pairs[p].first, n.endpoint_word, n.pairs[p].second, per_pair));
    used[static_cast<std::size_t>(n.pairs[p].first)] += l;
    used[static_cast<std::size_t>(n.pairs[p].second)] += l;
    sw[static_cast<std::size_t>(n.pair_switch[p])] += 2 * l;
  }
  for (int e = 0; e < n.endpoints; ++e)
    if (used[static_cast<std::size_t>(e)] > ports)
      return (fmt::format("{} {} needs {} ports but has {}", n.endpoint_word, e, used[static_cast<std::size_t>(e)], ports));
  for (int s = 0; s < switches; ++s)
    if (sw[static_cast<std::size_t>(s)] > radix)
      return (fmt::format("OCS {} needs {} ports but has {}", s, sw[static_cast<std::size_t>(s)], radix));
  return {};
}

/// count_violation of `before` with `changes` applied, when `before` breaks no limit: only the changed pairs,
/// their endpoints and their switches can, so only they are checked, in the full check's order (the same
/// message for the same configuration).
std::string count_violation_of_changes(const CountLimits& k, const CircuitConfig& before,
                                       const std::vector<std::pair<int, int>>& changes) {
  const Network& n = k.view;
  std::map<int, int> after;  // pair -> circuits
  for (const auto& [p, l] : changes) {
    if (p < 0 || static_cast<std::size_t>(p) >= n.pairs.size()) return fmt::format("no pair {}", p);
    after[p] = l;
  }
  const auto now = [&](int p) {
    const auto it = after.find(p);
    return it != after.end() ? it->second : before.circuits[static_cast<std::size_t>(p)];
  };
  std::set<int> endpoints, switches;
  for (const auto& [p, l] : after) {
    const auto [a, b] = n.pairs[static_cast<std::size_t>(p)];
    if (l < 0) return fmt::format("negative circuit count on pair {}", p);
    if (l > k.per_pair)
      return fmt::format("{} circuits between {} {} and {} {}, at most {} fit", l, n.endpoint_word, a, n.endpoint_word,
                         b, k.per_pair);
    endpoints.insert({a, b});
    switches.insert(n.pair_switch[static_cast<std::size_t>(p)]);
  }
  for (int e : endpoints) {
    int used = 0;
    for (int p : k.pairs_of_endpoint[static_cast<std::size_t>(e)]) used += now(p);
    if (used > k.ports) return fmt::format("{} {} needs {} ports but has {}", n.endpoint_word, e, used, k.ports);
  }
  for (int s : switches) {
    if (k.roomy[static_cast<std::size_t>(s)]) continue;
    int used = 0;
    for (int p : k.pairs_of_switch[static_cast<std::size_t>(s)]) used += 2 * now(p);
    if (used > k.radix) return fmt::format("OCS {} needs {} ports but has {}", s, used, k.radix);
  }
  return {};
}

/// A violation function for `n` (its endpoints, pairs and switches copied once, shared by every call), and, in
/// `of_changes`, the same for a valid configuration with a few pairs changed.
std::function<std::string(const CircuitConfig&)> count_checker(const Network& n, int ports, int per_pair,
                                                               int switches, int radix, ChangeChecker& of_changes) {
  auto k = std::make_shared<CountLimits>();
  k->view.endpoint_word = n.endpoint_word;
  k->view.endpoints = n.endpoints;
  k->view.pairs = n.pairs;
  k->view.pair_switch = n.pair_switch;
  k->ports = ports;
  k->per_pair = per_pair;
  k->switches = switches;
  k->radix = radix;
  of_changes = [k](const CircuitConfig& before, const std::vector<std::pair<int, int>>& changes) {
    k->index();
    return count_violation_of_changes(*k, before, changes);
  };
  return [k](const CircuitConfig& c) { return count_violation(*k, c); };
}

}  // namespace

Network network_of(const spec::FlatOcsSpec& f) {
  Network n;
  n.kind = "flat_ocs";
  n.endpoint_word = "server";
  n.endpoints = f.servers;
  n.cores = 1 << 16;
  for (int a = 0; a < f.servers; ++a)
    for (int b = a + 1; b < f.servers; ++b) {
      n.pairs.emplace_back(a, b);
      n.pair_switch.push_back(0);  // pairs are not tied to one OCS: port-level circuits say which
    }
  n.pair_index_of = dense_index(n.endpoints, n.pairs);
  n.circuit_bytes_per_s = f.port_bytes_per_s;
  n.pair_max_bytes_per_s = f.nic_ports * f.port_bytes_per_s;
  n.full_duplex = f.duplex == spec::Duplex::full;
  n.reconfig_delay_s = f.reconfig_delay_s;
  // Server port r is cabled to OCS r: at most d_S circuits per server and one per OCS between two servers.
  // (Which OCS carries which circuit, Eq. 7-10, is checked on port-level configurations by counts_of.)
  n.violation = count_checker(n, f.nic_ports, f.ocs_count, 1, f.ocs_count * f.ocs_ports, n.violation_of_changes);
  return n;
}

Network network_of(const spec::PhotonicRailSpec& r) {
  Network n;
  n.kind = "photonic_rail";
  n.endpoint_word = "gpu";
  n.endpoints = r.domains * r.gpus_per_domain;
  n.cores = 1 << 16;
  for (int g = 0; g < r.gpus_per_domain; ++g)
    for (int a = 0; a < r.domains; ++a)
      for (int b = a + 1; b < r.domains; ++b) {
        n.pairs.emplace_back(rail_gpu(r, a, g), rail_gpu(r, b, g));
        n.pair_switch.push_back(g);
      }
  n.pair_index_of = dense_index(n.endpoints, n.pairs);
  n.circuit_bytes_per_s = r.port_bytes_per_s;
  n.pair_max_bytes_per_s = r.nic_ports * r.port_bytes_per_s;
  n.full_duplex = r.duplex == spec::Duplex::full;
  n.counter_rotating_rings = r.counter_rotating_rings;
  n.reconfig_delay_s = r.ocs.reconfig_delay_s;
  for (int e = 0; e < n.endpoints; ++e) n.domain_of.push_back(e / r.gpus_per_domain);
  n.scaleup_bytes_per_s = r.scaleup_bytes_per_s;
  n.pxn_stride = r.gpus_per_domain;  // GPU g of a domain is on rail g: cross-rail traffic goes through a proxy
  n.violation = count_checker(n, r.nic_ports, r.nic_ports, r.gpus_per_domain, r.ocs.radix, n.violation_of_changes);
  return n;
}

Network network_of(const spec::ElectricalSpec& e) {
  Network n;
  n.kind = "electrical";
  n.cores = 1 << 16;
  if (e.switching == spec::ElectricalSpec::Switching::single) {
    n.endpoint_word = "server";
    n.endpoints = e.servers;
    n.switch_of.assign(static_cast<std::size_t>(e.servers), 0);
    n.nic_bytes_per_s = e.nic_ports * e.port_bytes_per_s;
  } else {
    // One switch per rail: GPU g of every server hangs off switch g with its share of the server's ports.
    n.endpoint_word = "gpu";
    n.endpoints = e.servers * e.gpus_per_server;
    for (int x = 0; x < n.endpoints; ++x) {
      n.switch_of.push_back(x % e.gpus_per_server);
      n.domain_of.push_back(x / e.gpus_per_server);
    }
    n.nic_bytes_per_s = e.nic_ports / e.gpus_per_server * e.port_bytes_per_s;
    n.scaleup_bytes_per_s = e.scaleup_bytes_per_s;
    n.pxn_stride = e.gpus_per_server;
  }
  n.violation = [](const CircuitConfig& c) -> std::string {
    for (int l : c.circuits)
      if (l != 0) return "an electrical fabric has no circuits to configure";
    return {};
  };
  return n;
}

Network one_switch(int servers, BytesPerSecond nic) {
  spec::ElectricalSpec e;
  e.servers = servers;
  e.gpus_per_server = 1;
  e.nic_ports = 1;
  e.port_bytes_per_s = nic;
  return network_of(e);
}

CircuitConfig counts_of(const spec::FlatOcsSpec& f, const Network& n, const std::vector<PortCircuit>& circuits) {
  check_flat_ocs(f, circuits);
  CircuitConfig c = n.empty_config();
  for (const auto& pc : circuits) ++c.circuits[static_cast<std::size_t>(n.pair_index(pc.a, pc.b))];
  return c;
}

CircuitConfig counts_of(const spec::PhotonicRailSpec& r, const Network& n, const std::vector<PortCircuit>& circuits) {
  check_photonic_rail(r, circuits);
  CircuitConfig c = n.empty_config();
  for (const auto& pc : circuits)
    ++c.circuits[static_cast<std::size_t>(n.pair_index(rail_gpu(r, pc.a, pc.ocs), rail_gpu(r, pc.b, pc.ocs)))];
  return c;
}

}  // namespace odcn::net
