#include "engine/circuits.hpp"

#include <fmt/format.h>

#include "sched/plan.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;

Circuits::Circuits(SimPlatform& platform, const net::Network& network, net::CircuitConfig initial,
                   trace::RunRecord& record)
    : platform_(platform),
      network_(network),
      current_(std::move(initial)),
      record_(record),
      generation_(network.pairs.size(), 0),
      windows_(network.pairs.size(), {0.0, 0.0}) {
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    const int l = current_.circuits[p];
    if (l == 0) continue;
    const auto [a, b] = network.pairs[p];
    record_.circuits.push_back({0.0, network.pair_switch[p], a, b, 0, l, "initial"});
  }
}

int Circuits::apply(const net::CircuitConfig& config, const std::string& reason) {
  network_.check(config);
  const Seconds now = sg4::Engine::get_clock();
  const Seconds delay = network_.reconfig_delay_s;
  const BytesPerSecond port = network_.circuit_bytes_per_s;
  std::vector<std::pair<int, std::uint64_t>> rising;  // pairs whose added circuits light up after δ
  int changed = 0;
  for (int p = 0; p < static_cast<int>(network_.pairs.size()); ++p) {
    const auto pi = static_cast<std::size_t>(p);
    const int before = current_.circuits[pi];
    const int after = config.circuits[pi];
    if (before == after) continue;
    changed += std::abs(after - before);
    const auto [a, b] = network_.pairs[pi];
    record_.circuits.push_back({now, network_.pair_switch[pi], a, b, before, after, reason});
    const int kept = std::min(before, after);
    platform_.set_pair_capacity(p, kept > 0 ? kept * port : sched::kDarkBytesPerSecond);
    ++generation_[pi];
    if (after > before) {
      rising.emplace_back(p, generation_[pi]);
      windows_[pi] = {now, now + delay};
    }
  }
  current_ = config;
  if (changed == 0) return 0;
  record_.reconfigurations += 1;
  record_.circuits_changed += changed;
  if (rising.empty()) return changed;
  record_.add_event({reason, "reconfigure", 2, 0, now, delay});
  sg4::Actor::create("ocs-setup", platform_.control_host(), [this, rising, delay, port] {
    sg4::this_actor::sleep_for(delay);
    for (const auto& [p, gen] : rising)
      if (generation_[static_cast<std::size_t>(p)] == gen)  // not superseded by a later request
        platform_.set_pair_capacity(p, current_.circuits[static_cast<std::size_t>(p)] * port);
  })->daemonize();
  return changed;
}

}  // namespace odcn::engine
