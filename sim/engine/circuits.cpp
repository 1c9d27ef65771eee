#include "engine/circuits.hpp"

#include <fmt/format.h>

#include <map>

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
      windows_(network.pairs.size(), {0.0, 0.0}),
      lit_(current_.circuits) {
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
  // All book-keeping first, then the SimGrid calls: another actor may apply a configuration while this one is
  // inside set_pair_capacity, and must find current_, lit_ and the generations already up to date.
  std::map<Seconds, std::vector<std::pair<int, std::uint64_t>>> rising;  // how long until dark circuits light
  std::vector<int> touched;
  int changed = 0;
  for (int p = 0; p < static_cast<int>(network_.pairs.size()); ++p) {
    const auto pi = static_cast<std::size_t>(p);
    const int before = current_.circuits[pi];
    const int after = config.circuits[pi];
    if (before == after) continue;
    changed += std::abs(after - before);
    const auto [a, b] = network_.pairs[pi];
    record_.circuits.push_back({now, network_.pair_switch[pi], a, b, before, after, reason});
    // Lit circuits that stay keep carrying traffic; added ones light up after δ; circuits still being set up
    // by an earlier configuration light up when that set-up ends.
    const bool pending = lit_[pi] < before;
    lit_[pi] = std::min(lit_[pi], after);
    ++generation_[pi];
    touched.push_back(p);
    if (after > before) {
      windows_[pi] = {now, now + delay};
      rising[delay].emplace_back(p, generation_[pi]);
    } else if (pending && lit_[pi] < after) {
      rising[windows_[pi].second - now].emplace_back(p, generation_[pi]);
    }
  }
  current_ = config;
  if (changed == 0) return 0;
  record_.reconfigurations += 1;
  record_.circuits_changed += changed;
  for (int p : touched) push(p);
  if (rising.count(delay)) record_.add_event({reason, "reconfigure", 2, 0, now, delay});
  for (const auto& [wait, list] : rising) {
    sg4::Actor::create("ocs-setup", platform_.control_host(), [this, list = list, wait] {
      sg4::this_actor::sleep_for(wait);
      std::vector<int> lit;
      for (const auto& [p, gen] : list)
        if (generation_[static_cast<std::size_t>(p)] == gen) {  // not superseded by a later configuration
          lit_[static_cast<std::size_t>(p)] = current_.circuits[static_cast<std::size_t>(p)];
          lit.push_back(p);
        }
      for (int p : lit) push(p);
    })->daemonize();
  }
  return changed;
}

void Circuits::push(int pair) {
  // Read at the time of the call, so that whichever push comes last sets the latest state.
  const int l = lit_[static_cast<std::size_t>(pair)];
  platform_.set_pair_capacity(pair, l > 0 ? l * network_.circuit_bytes_per_s : sched::kDarkBytesPerSecond);
}

}  // namespace odcn::engine
