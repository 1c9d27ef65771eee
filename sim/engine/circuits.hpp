#pragma once
// Internal to sim/engine: the OCS state owns the circuits. apply() takes a configuration at the current
// simulated time; only the circuits that change go dark: a pair keeps min(old, new) circuits lit at once, and
// its added circuits come up after δ (a short-lived actor lights them). Removed circuits go dark immediately.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/sim_platform.hpp"
#include "net/network.hpp"
#include "trace/rows.hpp"

namespace odcn::engine {

class Circuits {
 public:
  Circuits(SimPlatform& platform, const net::Network& network, net::CircuitConfig initial, trace::RunRecord& record);

  /// Called from an actor: applies `config` now and returns at once (same instant); returns the number of
  /// circuits changed. Raises ConfigError, before changing anything, if it breaks a port budget.
  int apply(const net::CircuitConfig& config, const std::string& reason);

  /// The part [lo, hi] of [start, end] that overlapped the pair's latest set-up window (the δ during which
  /// circuits added to it were dark); empty when hi <= lo.
  std::pair<Seconds, Seconds> stall_window(int pair, Seconds start, Seconds end) const {
    const auto [since, until] = windows_[static_cast<std::size_t>(pair)];
    return {std::max(start, since), std::min(end, until)};
  }

 private:
  SimPlatform& platform_;
  const net::Network& network_;
  net::CircuitConfig current_;
  trace::RunRecord& record_;
  std::vector<std::uint64_t> generation_;
  std::vector<std::pair<Seconds, Seconds>> windows_;
  std::vector<int> lit_;  ///< circuits of each pair carrying traffic now (the rest are being set up)
  void push(int pair);    ///< makes SimGrid use lit_[pair]
};

}  // namespace odcn::engine
