#include "engine/sim_platform.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

#include <cmath>

#include "core/interrupt.hpp"
#include "sched/plan.hpp"

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

SimPlatform::SimPlatform(const net::Fabric& fabric, const net::CircuitConfig& initial)
    : fabric_(fabric), capacity_(static_cast<std::size_t>(fabric.pair_count()), sched::kDarkBytesPerSecond) {
  auto* zone = sg4::create_full_zone("fabric");
  control_ = zone->create_host("control", 1.0);
  for (int i = 0; i < fabric.pods(); ++i) {
    // A pod's server pool computes at 1 "flop"/s per core with one core per GPU, so an Exec of t flops is
    // a t-second training step and the jobs of a pod never slow each other down.
    pod_hosts_.push_back(zone->create_host(fmt::format("pod-{}", i), 1.0)->set_core_count(fabric.spec().gpus_per_pod));
    tor_hosts_.push_back(zone->create_host(fmt::format("tor-{}", i), 1.0));
  }
  for (int i = 0; i < fabric.pods(); ++i) {
    auto* link = zone->create_link(fmt::format("tor-{}", i), fabric.tor_bytes_per_s())
                     ->set_latency(0)
                     ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                     ->seal();
    zone->add_route(pod_hosts_[static_cast<std::size_t>(i)]->get_netpoint(),
                    tor_hosts_[static_cast<std::size_t>(i)]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(link)}, true);
  }
  // A pair can never carry more than every port of a pod: that is the nominal (upper) bandwidth.
  const double nominal = fabric.ports_per_pod() * fabric.port_bytes_per_s();
  for (int p = 0; p < fabric.pair_count(); ++p) {
    const auto [a, b] = fabric.pair_pods(p);
    const double* cap = &capacity_[static_cast<std::size_t>(p)];
    auto* link = zone->create_link(fmt::format("circuit-{}-{}", a, b), nominal)->set_latency(0);
    link->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR, [cap](double, int) { return *cap; });
    link->seal();
    circuit_links_.push_back(link);
    zone->add_route(tor_hosts_[static_cast<std::size_t>(a)]->get_netpoint(),
                    tor_hosts_[static_cast<std::size_t>(b)]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(link)}, true);
  }
  zone->seal();
  for (int p = 0; p < fabric.pair_count(); ++p) {
    const int l = initial.circuits[static_cast<std::size_t>(p)];
    capacity_[static_cast<std::size_t>(p)] = l > 0 ? l * fabric.port_bytes_per_s() : sched::kDarkBytesPerSecond;
  }
}

sg4::CommPtr SimPlatform::send_over_circuit(int src_pod, int dst_pod, Bytes bytes) const {
  return sg4::Comm::sendto_async(tor_hosts_[static_cast<std::size_t>(src_pod)],
                                 tor_hosts_[static_cast<std::size_t>(dst_pod)], static_cast<uint64_t>(std::llround(bytes)));
}

sg4::CommPtr SimPlatform::send_to_tor(int pod, Bytes bytes) const {
  return sg4::Comm::sendto_async(pod_hosts_[static_cast<std::size_t>(pod)], tor_hosts_[static_cast<std::size_t>(pod)],
                                 static_cast<uint64_t>(std::llround(bytes)));
}

void SimPlatform::set_pair_capacity(int pair, BytesPerSecond capacity) {
  capacity_[static_cast<std::size_t>(pair)] = capacity;
  auto* link = circuit_links_[static_cast<std::size_t>(pair)];
  link->set_bandwidth(link->get_bandwidth());
}

}  // namespace odcn::engine
