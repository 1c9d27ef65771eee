#pragma once
// Internal to sim/engine: the OCS state owns the circuits. apply() takes a configuration at the current
// simulated time; only the circuits that change go dark: a pair keeps min(old, new) circuits lit at once, and
// its added circuits come up after δ (a pooled set-up actor lights them). Removed circuits go dark immediately.
//
// It also reports the fabric's trace events, per switch (net::Network::pair_switch): the switch's name, a
// "lit circuits" counter whenever the number of circuits carrying traffic on it changes (from the initial
// configuration at time 0), and for each configuration that changes circuits on it an instant event and,
// when circuits were added there, a slice for their set-up window δ.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <tuple>
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
  /// `record_at`: the time circuits.csv shows (a controller's wake-up time; the clock when negative), which the
  /// clock matches only to SimGrid's rounding (about 1e-13 s after tens of seconds).
  int apply(const net::CircuitConfig& config, const std::string& reason, Seconds record_at = -1);
  /// The same for the configuration now with `changes` (pair, circuits; ascending pairs, each once) applied, in
  /// time proportional to the changes. The caller has checked them (net::Network::changes_violation against
  /// current(): the executor does, so that no actor throws); they are not checked again here.
  int apply_changes(const std::vector<std::pair<int, int>>& changes, const std::string& reason, Seconds record_at = -1);

  const net::CircuitConfig& current() const { return current_; }
  /// Whether no circuit is being set up at `now` or later: no capacity changes unless a new configuration is
  /// applied (the executor's proof that a step's transfers end together, executor_tasks.cpp).
  bool settled(Seconds now) const { return now > lit_by_; }

  /// The first error raised while reporting trace events from a set-up actor (null: none). Such an actor must
  /// not let it escape to SimGrid; the owner ends the run and raises it (see `on_error`).
  std::exception_ptr error() const { return error_; }
  /// Called (from an actor, outside any handler) when a set-up actor has recorded an error.
  void on_error(std::function<void()> f) { on_error_ = std::move(f); }

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
  Seconds lit_by_ = -1;   ///< the latest time a set-up scheduled so far lights circuits
  void push(int pair);    ///< makes SimGrid use lit_[pair]
  int change(const std::vector<std::pair<int, int>>& changes, const std::string& reason, Seconds record_at);

  // Per switch, for the trace (the scratch vectors are members, not locals of the actors that use them)
  std::vector<int> lit_on_switch_;  ///< Σ lit_ over the switch's pairs
  std::vector<int> counted_;        ///< the last "lit circuits" value reported (-1: none yet)
  std::vector<int> added_, removed_;  ///< scratch: circuits apply() adds and removes on each switch
  void count(int sw, Seconds now);    ///< reports lit_on_switch_[sw] if it changed
  std::exception_ptr error_;
  std::function<void()> on_error_;

  // Set-up actors, reused: making a SimGrid actor maps a stack (a few microseconds of system calls), and a run
  // may set up tens of thousands of configurations (the 405B Opus preset: 24,320 in one iteration).
  using Rising = std::vector<std::tuple<int, std::uint64_t, int>>;  ///< (pair, generation, circuits lit then)
  struct SetUp {
    simgrid::s4u::SemaphorePtr go = simgrid::s4u::Semaphore::create(0);
    Seconds wait = 0;
    Rising list;
    SetUp* next_idle = nullptr;
  };
  std::vector<std::unique_ptr<SetUp>> setups_;
  SetUp* idle_setups_ = nullptr;
  void start_setup(Seconds wait, Rising list);  ///< lights `list` after `wait`, from an idle set-up actor
  void light(const Rising& list);               ///< the end of a set-up
};

}  // namespace odcn::engine
