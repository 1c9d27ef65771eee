#pragma once
// Internal to sim/engine: the OCS actor owns the circuits. Another actor asks it for a configuration with
// request(); the OCS darkens only the circuits that change: a pair keeps min(old, new) circuits lit at once,
// and its added circuits come up after δ. Removed circuits go dark immediately.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/inbox.hpp"
#include "engine/sim_platform.hpp"
#include "net/fabric.hpp"
#include "trace/rows.hpp"

namespace odcn::engine {

class OcsActor {
 public:
  OcsActor(SimPlatform& platform, const net::Fabric& fabric, net::CircuitConfig initial, trace::RunRecord& record);

  /// Spawns the actor (a daemon: it ends with the simulation).
  void start();
  /// Called from another actor: hands over a configuration and returns once it is applied (same instant).
  /// Raises ConfigError, before changing anything, if the configuration breaks a port budget.
  void request(const net::CircuitConfig& config, const std::string& reason);

  /// How long a transfer on `pair` that ran over [start, end] overlapped the pair's latest set-up window (the
  /// δ during which circuits added to it were dark); 0 when it never overlapped.
  Seconds stall(int pair, Seconds start, Seconds end) const {
    const auto [since, until] = windows_[static_cast<std::size_t>(pair)];
    return std::max(0.0, std::min(end, until) - std::max(start, since));
  }

 private:
  struct Request {
    net::CircuitConfig config;
    std::string reason;
  };
  void run();
  void apply(const Request& r);

  SimPlatform& platform_;
  const net::Fabric& fabric_;
  net::CircuitConfig current_;
  trace::RunRecord& record_;
  std::vector<std::uint64_t> generation_;
  std::vector<std::pair<Seconds, Seconds>> windows_;
  Inbox<Request> inbox_;
  simgrid::s4u::SemaphorePtr applied_;
};

}  // namespace odcn::engine
