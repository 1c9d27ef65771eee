#include "engine/sim_platform.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

#include <cmath>
#include <map>
#include <string>

#include "core/interrupt.hpp"
#include "systems/tdm4/plan.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;

const std::vector<std::string>& exact_fluid_settings() {
  // DESIGN.md §3: LV08 (the default) makes transfers 3-8 % slow; cross-traffic and TCP-gamma add more error.
  // Small stacks (KiB) keep thousands of actors cheap.
  static const std::vector<std::string> settings{"network/model:CM02", "network/crosstraffic:0",
                                                 "network/TCP-gamma:0", "contexts/stack-size:256"};
  return settings;
}

void configure_exact_fluid(sg4::Engine& e) {
  for (const auto& s : exact_fluid_settings()) e.set_config(s);
}

sg4::Engine& make_engine() {
  static int argc = 1;
  static char name[] = "odcnsim";
  static char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thres:critical");
  static sg4::Engine engine(&argc, argv);
  // SimGrid's Engine installs a SIGINT handler that prints every actor and exits 1; odcnsim's own handling
  // (core/interrupt.hpp) removes the unfinished output and exits 130.
  static const bool configured = [] {
    interrupt::restore_dispositions();
    configure_exact_fluid(engine);
    return true;
  }();
  (void)configured;
  return engine;
}

SimPlatform::SimPlatform(const net::Network& network, const net::CircuitConfig& initial)
    : network_(network), capacity_(network.pairs.size(), sched::kDarkBytesPerSecond) {
  auto* zone = sg4::create_full_zone("fabric");
  control_ = zone->create_host("control", 1.0);
  const bool clos = network.uplink_bytes_per_s > 0;
  for (int i = 0; i < network.endpoints; ++i) {
    // An endpoint computes at 1 "flop"/s per core, so an Exec of t flops is a t-second computation, and
    // computations on one endpoint never slow each other down.
    hosts_.push_back(zone->create_host(fmt::format("{}-{}", network.endpoint_word, i), 1.0)->set_core_count(network.cores));
    if (clos) tor_hosts_.push_back(zone->create_host(fmt::format("tor-{}", i), 1.0));
  }
  const auto ends = [&](int e) { return (clos ? tor_hosts_ : hosts_)[static_cast<std::size_t>(e)]->get_netpoint(); };
  if (clos)
    for (int i = 0; i < network.endpoints; ++i) {
      // With servers (INC-AOI), a transfer between the pool and the ToR stands for one server's NIC: each gets the
      // NIC's rate whatever the others do (FATPIPE at server_gbps; the ToR switches its servers without blocking).
      const bool nics = network.servers_per_endpoint > 0;
      auto* link = zone->create_link(fmt::format("tor-{}", i), nics ? network.server_bytes_per_s : network.uplink_bytes_per_s)
                       ->set_latency(0)
                       ->set_sharing_policy(nics ? sg4::Link::SharingPolicy::FATPIPE
                                                                             : sg4::Link::SharingPolicy::SHARED)
                       ->seal();
      zone->add_route(hosts_[static_cast<std::size_t>(i)]->get_netpoint(), tor_hosts_[static_cast<std::size_t>(i)]->get_netpoint(),
                      nullptr, nullptr, {sg4::LinkInRoute(link)}, true);
    }
  // A pair can never carry more than every port of an endpoint: that is the nominal (upper) bandwidth.
  const double nominal = network.pair_max_bytes_per_s;
  const auto circuit_link = [&](const std::string& name, const double* cap) {
    auto* link = zone->create_link(name, nominal)->set_latency(0);
    link->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR, [cap](double, int) { return *cap; });
    link->seal();
    return link;
  };
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    const auto [a, b] = network.pairs[p];
    const double* cap = &capacity_[p];
    if (!network.full_duplex) {
      auto* link = circuit_link(fmt::format("circuit-{}-{}", a, b), cap);
      circuit_links_.push_back({link});
      zone->add_route(ends(a), ends(b), nullptr, nullptr, {sg4::LinkInRoute(link)}, true);
    } else {
      auto* fwd = circuit_link(fmt::format("circuit-{}-{}", a, b), cap);
      auto* rev = circuit_link(fmt::format("circuit-{}-{}", b, a), cap);
      circuit_links_.push_back({fwd, rev});
      zone->add_route(ends(a), ends(b), nullptr, nullptr, {sg4::LinkInRoute(fwd)}, false);
      zone->add_route(ends(b), ends(a), nullptr, nullptr, {sg4::LinkInRoute(rev)}, false);
    }
  }
  // Scale-up domains and packet switches: an up and a down link per endpoint, routes between the endpoints
  // that share a domain (or a switch).
  const auto star = [&](const std::vector<int>& member_of, double bw, const char* what) {
    if (member_of.empty() || bw <= 0) return;
    std::vector<sg4::Link*> up, down;
    for (int i = 0; i < network.endpoints; ++i) {
      up.push_back(zone->create_link(fmt::format("{}-up-{}", what, i), bw)->set_latency(0)->seal());
      down.push_back(zone->create_link(fmt::format("{}-down-{}", what, i), bw)->set_latency(0)->seal());
    }
    std::map<int, std::vector<int>> members;
    for (int i = 0; i < network.endpoints; ++i) members[member_of[static_cast<std::size_t>(i)]].push_back(i);
    for (const auto& [id, list] : members)
      for (int a : list)
        for (int b : list)
          if (a != b && (what[0] == 's' || network.domain_of.empty() ||
                         network.domain_of[static_cast<std::size_t>(a)] != network.domain_of[static_cast<std::size_t>(b)]))
            zone->add_route(hosts_[static_cast<std::size_t>(a)]->get_netpoint(), hosts_[static_cast<std::size_t>(b)]->get_netpoint(),
                            nullptr, nullptr,
                            {sg4::LinkInRoute(up[static_cast<std::size_t>(a)]), sg4::LinkInRoute(down[static_cast<std::size_t>(b)])},
                            false);
  };
  star(network.domain_of, network.scaleup_bytes_per_s, "scaleup");
  star(network.switch_of, network.nic_bytes_per_s, "nic");
  zone->seal();
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    const int l = initial.circuits[p];
    capacity_[p] = l > 0 ? l * network.circuit_bytes_per_s : sched::kDarkBytesPerSecond;
  }
}

sg4::CommPtr SimPlatform::send(net::Path path, int a, int b, Bytes bytes) const {
  const auto size = static_cast<uint64_t>(std::llround(bytes));
  const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
  switch (path) {
    case net::Path::uplink: return sg4::Comm::sendto_async(hosts_[ia], tor_hosts_[ia], size);
    case net::Path::circuit:
      if (!tor_hosts_.empty()) return sg4::Comm::sendto_async(tor_hosts_[ia], tor_hosts_[ib], size);
      return sg4::Comm::sendto_async(hosts_[ia], hosts_[ib], size);
    default: return sg4::Comm::sendto_async(hosts_[ia], hosts_[ib], size);
  }
}

void SimPlatform::set_pair_capacity(int pair, BytesPerSecond capacity) {
  capacity_[static_cast<std::size_t>(pair)] = capacity;
  for (auto* link : circuit_links_[static_cast<std::size_t>(pair)]) link->set_bandwidth(link->get_bandwidth());
}

}  // namespace odcn::engine
