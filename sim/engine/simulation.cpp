#include "engine/simulation.hpp"

#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <fmt/format.h>

#include "engine/circuits.hpp"
#include "engine/executor.hpp"
#include "engine/sim_platform.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;
using detail::Executor;

std::vector<std::string> simgrid_settings() {
  auto settings = exact_fluid_settings();
  settings.emplace_back("all link latencies 0");
  return settings;
}

std::string simgrid_version() {
  return fmt::format("{}.{}.{}", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
}

trace::RunRecord run(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options) {
  network.check(controller.initial_circuits());  // before SimPlatform reads it
  Executor executor(network, jobs, controller, options);
  return executor.run();
}

trace::RunRecord run(const net::Fabric& fabric, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options) {
  const net::Network network = net::network_of(fabric);
  return run(network, jobs, controller, options);
}

ScriptResult run_script(const net::Fabric& fabric, const net::CircuitConfig& initial,
                        const std::vector<ScriptTransfer>& transfers, const std::vector<ScriptReconfig>& reconfigs) {
  sg4::Engine& engine = make_engine();
  const net::Network network = net::network_of(fabric);
  network.check(initial);
  ScriptResult result;
  SimPlatform platform(network, initial);
  Circuits circuits(platform, network, initial, result.record);
  result.finish_s.assign(transfers.size(), -1.0);
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    sg4::Actor::create(fmt::format("transfer{}", i), platform.control_host(), [&platform, &transfers, &result, i] {
      const auto& t = transfers[i];
      sg4::this_actor::sleep_until(t.start_s);
      sg4::CommPtr c = t.kind == ScriptTransfer::Kind::tor ? platform.send_to_tor(t.src_pod, t.bytes)
                                                           : platform.send_over_circuit(t.src_pod, t.dst_pod, t.bytes);
      c->wait();
      result.finish_s[i] = sg4::Engine::get_clock();
    });
  }
  sg4::Actor::create("scheduler", platform.control_host(), [&] {
    for (std::size_t i = 0; i < reconfigs.size(); ++i) {
      sg4::this_actor::sleep_until(reconfigs[i].at_s);
      circuits.apply(reconfigs[i].config, fmt::format("script {}", i + 1));
    }
  });
  engine.run();
  return result;
}

}  // namespace odcn::engine
