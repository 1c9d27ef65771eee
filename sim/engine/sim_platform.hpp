#pragma once
// Internal to sim/engine: the SimGrid platform of a clos_ocs fabric.
//
//   pod-i (server pool) ──tor-i (SHARED, B_tor)── tor-i host ══circuit-a-b══ tor-j host ── … ── pod-j
//
// One host per pod's server pool and one per ToR; every *candidate* circuit (each pod pair of an OXC group)
// is a link created up front, because SimGrid zones are sealed. A circuit link uses the NONLINEAR sharing
// policy: its capacity is read from capacity_ (L × B, or 1 B/s while dark), so that changing the table and
// calling set_bandwidth(get_bandwidth()) re-solves running transfers at their new rate. The link is SHARED
// between both directions, which makes it half-duplex.
#include <simgrid/s4u.hpp>

#include <vector>

#include "core/units.hpp"
#include "net/fabric.hpp"

namespace odcn::engine {

/// The SimGrid settings that make every closed-form case exact (DESIGN.md §3); links also get latency 0.
const std::vector<std::string>& exact_fluid_settings();
/// Applies exact_fluid_settings() before any platform is built.
void configure_exact_fluid(simgrid::s4u::Engine& e);
/// The one SimGrid Engine of this process, created on first use with exact_fluid_settings() (and odcnsim's
/// signal handling restored over SimGrid's).
simgrid::s4u::Engine& make_engine();

class SimPlatform {
 public:
  SimPlatform(const net::Fabric& fabric, const net::CircuitConfig& initial);

  simgrid::s4u::Host* control_host() const { return control_; }
  simgrid::s4u::Host* pod_host(int pod) const { return pod_hosts_[static_cast<std::size_t>(pod)]; }
  simgrid::s4u::CommPtr send_over_circuit(int src_pod, int dst_pod, Bytes bytes) const;
  simgrid::s4u::CommPtr send_to_tor(int pod, Bytes bytes) const;
  /// Sets the capacity a pair offers now and makes the solver use it for running transfers.
  void set_pair_capacity(int pair, BytesPerSecond capacity);
  BytesPerSecond pair_capacity(int pair) const { return capacity_[static_cast<std::size_t>(pair)]; }

 private:
  const net::Fabric& fabric_;
  simgrid::s4u::Host* control_ = nullptr;
  std::vector<simgrid::s4u::Host*> pod_hosts_;
  std::vector<simgrid::s4u::Host*> tor_hosts_;
  std::vector<simgrid::s4u::Link*> circuit_links_;
  std::vector<double> capacity_;
};

}  // namespace odcn::engine
