#include "engine/collective_run.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "engine/sim_platform.hpp"
#include "net/network.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;

CollectiveRun run_collective_electrical(const workload::CollectiveSchedule& schedule, int n, BytesPerSecond nic) {
  std::vector<workload::EngineStep> steps;
  for (const auto& s : schedule.steps) steps.push_back({s, false});
  return run_collective_electrical(steps, n, nic);
}

CollectiveRun run_collective_electrical(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond nic) {
  sg4::Engine& engine = make_engine();
  auto* zone = sg4::create_star_zone("electrical");
  std::vector<sg4::Host*> hosts;
  const auto attach = [&](const std::string& name, BytesPerSecond bw) {
    sg4::Host* h = zone->create_host(name, 1.0);
    sg4::Link* link = zone->create_split_duplex_link("nic-" + name, bw)->set_latency(0)->seal();
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
    return h;
  };
  for (int i = 0; i < n; ++i) hosts.push_back(attach(fmt::format("ep-{}", i), nic));
  // The hub's link carries every source's compacted share at once; twice their sum keeps it from binding.
  sg4::Host* hub = attach("hub", 2.0 * n * nic);
  zone->seal();

  CollectiveRun result;
  sg4::Actor::create("collective", hub, [&] {
    for (const auto& step : steps) {
      std::vector<sg4::CommPtr> comms;
      comms.reserve(step.flows.size());
      for (const auto& f : step.flows)
        comms.push_back(sg4::Comm::sendto_async(hosts[static_cast<std::size_t>(f.src)],
                                                step.to_hub ? hub : hosts[static_cast<std::size_t>(f.dst)],
                                                static_cast<std::uint64_t>(std::llround(f.bytes))));
      result.transfers += comms.size();
      for (auto& c : comms) c->wait();
    }
    result.simulated_s = sg4::Engine::get_clock();
  });
  engine.run();
  return result;
}

CollectiveRun run_collective_flat_ring(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond port,
                                       int circuits_per_edge) {
  net::Network ring;
  ring.kind = "flat_ocs";
  ring.endpoint_word = "server";
  ring.endpoints = n;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    if (n == 2 && i == 1) break;  // two servers: one pair
    ring.pairs.emplace_back(std::min(i, j), std::max(i, j));
    ring.pair_switch.push_back(0);
  }
  ring.pair_index_of = [n](int a, int b) {
    if (a > b) std::swap(a, b);
    if (b == a + 1) return a;
    if (a == 0 && b == n - 1 && n > 2) return n - 1;
    return -1;
  };
  ring.circuit_bytes_per_s = port;
  ring.pair_max_bytes_per_s = circuits_per_edge * port;
  ring.full_duplex = true;
  net::CircuitConfig config = ring.empty_config();
  for (auto& l : config.circuits) l = circuits_per_edge;
  for (const auto& step : steps) {
    if (step.to_hub) throw ConfigError("flat_ocs ring: this collective needs a hub (all-to-all); use electrical");
    for (const auto& f : step.flows)
      if (f.dst != (f.src + 1) % n)
        throw ConfigError(fmt::format("flat_ocs ring: a flow from server {} to {} has no circuit (only ring "
                                      "neighbours are joined)", f.src, f.dst));
  }
  sg4::Engine& engine = make_engine();
  SimPlatform platform(ring, config);
  CollectiveRun result;
  sg4::Actor::create("collective", platform.control_host(), [&] {
    for (const auto& step : steps) {
      std::vector<sg4::CommPtr> comms;
      comms.reserve(step.flows.size());
      for (const auto& f : step.flows) comms.push_back(platform.send(net::Path::circuit, f.src, f.dst, f.bytes));
      result.transfers += comms.size();
      for (auto& c : comms) c->wait();
    }
    result.simulated_s = sg4::Engine::get_clock();
  });
  engine.run();
  return result;
}

}  // namespace odcn::engine
