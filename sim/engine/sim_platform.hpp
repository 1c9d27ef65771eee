#pragma once
// Internal to sim/engine: the SimGrid platform of any fabric kind (net/network.hpp), in one full zone.
//
//   clos_ocs:      pod-i (server pool) ──tor-i (SHARED, B_tor)── tor-i host ══circuit-a-b══ tor-j host ── pod-j
//                  with servers (INC-AOI): tor-i is FATPIPE at one NIC's rate: each transfer on it is one NIC's
//   flat_ocs:      server-a ══circuit-a-b (one link per direction when full duplex)══ server-b
//   photonic_rail: gpu-a ──up-a── (scale-up) ──down-b── gpu-b in one domain; gpu ══circuit══ gpu on a rail
//   electrical:    ep-a ──nic-up-a── (switch) ──nic-down-b── ep-b
//                  on rails, across rails and domains (PXN): gpu-a ──scaleup-up-a──scaleup-down-a'── gpu-a'
//                  ──nic-up-a'── (a' and b's rail switch) ──nic-down-b── gpu-b, a' = a's domain on b's rail
//
// Every *candidate* circuit is a link created up front, because SimGrid zones are sealed. A circuit link uses
// the NONLINEAR sharing policy: its capacity is read from capacity_ (L × B, or 1 B/s while dark), so that
// changing the table and calling set_bandwidth(get_bandwidth()) re-solves running transfers at their new rate.
// A half-duplex circuit is one SHARED link for both directions; a full-duplex one is a link per direction.
//
// Transfers (docs/model.md, "SimGrid behaviours that shaped the engine"): SimGrid 3.32 keeps every host-to-host
// Comm (Comm::sendto_async) in one list owned by maestro and removes each finished one with std::list::remove, so
// F such transfers in flight cost O(F) each. A Comm put into a mailbox is kept instead in the list of the actor
// that put it, and removed from there when that actor waits for it. So up to kDirectInFlight transfers in flight
// send() uses sendto_async (cheaper each), and beyond it moves the calling actor to the source host and puts the
// transfer into the destination host's mailbox, whose permanent receiver (an actor on that host) makes it start
// at once. Either way the caller must be the actor that waits for it (and tell waited()), and keep few transfers
// in flight (the engine spreads a step's transfers over actors, engine/executor.hpp).
#include <simgrid/s4u.hpp>

#include <unordered_map>
#include <vector>

#include "core/units.hpp"
#include "net/network.hpp"

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
  /// What the run will use of the network, known before it starts.
  struct Needs {
    /// The (a, b) endpoint pairs whose transfers take net::Path::pxn (a route is made for each: a full zone's
    /// routes are made up front, and all N² would be wasted on traffic that stays on its rail).
    std::vector<std::pair<int, int>> pxn_pairs;
    /// Per candidate pair, whether a transfer may cross it (empty: every pair may). Only those get a SimGrid link
    /// and a route, so the platform grows with what the run uses, not with the candidate pairs; no transfer may
    /// cross another pair (linked() says which are).
    std::vector<char> linked;
  };
  SimPlatform(const net::Network& network, const net::CircuitConfig& initial, const Needs& needs = {});

  simgrid::s4u::Host* control_host() const { return control_; }
  /// Where an endpoint computes (clos_ocs: the pod's server pool).
  simgrid::s4u::Host* endpoint_host(int e) const { return hosts_[static_cast<std::size_t>(e)]; }
  simgrid::s4u::Host* pod_host(int pod) const { return endpoint_host(pod); }
  /// A transfer between two endpoints along `path` (Network::path), or on a's uplink (on a clos_ocs fabric with
  /// servers: one server's NIC, at most server_gbps whatever else runs). Called from the actor that will wait for
  /// it, which it moves to the source host: that actor must have no computation (Exec) running.
  simgrid::s4u::CommPtr send(net::Path path, int a, int b, Bytes bytes);
  simgrid::s4u::CommPtr send_over_circuit(int a, int b, Bytes bytes) { return send(net::Path::circuit, a, b, bytes); }
  simgrid::s4u::CommPtr send_to_tor(int pod, Bytes bytes) { return send(net::Path::uplink, pod, pod, bytes); }
  /// A transfer of `bytes` from host `from` to host `to` (any two hosts with a route), as send() does it.
  simgrid::s4u::CommPtr send_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to, Bytes bytes);
  /// Receivers made so far (each an actor: Executor counts them against the actor limit).
  std::size_t receivers() const { return boxes_.size(); }
  /// Tells the platform that `a` (made by send, or a computation) has been waited for and has ended.
  void waited(const simgrid::s4u::ActivityPtr& a);
  /// Host-to-host transfers (Comm::sendto_async) in flight at most: below this, each costs less than a mailbox
  /// transfer (no receiver, no move, no second wait), and maestro's list is short enough to scan; above it, send()
  /// uses mailboxes. Measured: a ring all-reduce over 1,024 pods (1,024 transfers a step) 4 s direct, 25 s by
  /// mailbox; an all-to-all over 256 pods (65,280 at once) 52-97 s direct, 2 s by mailbox.
  static constexpr long kDirectInFlight = 1024;
  /// Whether n more transfers would all go direct (then one actor can send and wait for all of them).
  bool direct_room(std::size_t n) const { return direct_in_flight_ + static_cast<long>(n) <= kDirectInFlight; }
  /// One transfer of a step, as send() takes it.
  struct Hop {
    net::Path path = net::Path::circuit;
    int a = 0, b = 0;
    bool operator==(const Hop& o) const { return path == o.path && a == o.a && b == o.b; }
  };
  /// One transfer sent for a step of transfers started together and alone on their links while they run (the
  /// caller proves that), ending when the last of them would: the index of the one to send, and the factor its
  /// bytes are sent with. With latency 0 on every route (exact_fluid_settings), C_l a link's capacity, n_l the
  /// transfers crossing it and solo_f = min C_l over f's route:
  ///  - independent: when every shared link has Σ solo_f <= C_l, max-min sharing gives every transfer solo_f (it
  ///    can have no more) until it ends, and ending changes no other's rate: the step ends with the largest
  ///    bytes_f / solo_f, which is sent alone, factor 1;
  ///  - symmetric: transfers of equal bytes, each crossing a link whose C_l / n_l is the least r* of all links,
  ///    all freeze at r* together (progressive filling) and end together. One of them whose own bottleneck alone
  ///    is such a link b (solo = C_b) is sent with n_b × bytes: alone at C_b it ends at bytes / r*.
  /// Index -1: neither holds (or a link shares otherwise, or a route has latency).
  struct StandIn {
    int index = -1;
    int factor = 1;
  };
  StandIn stand_in(const std::vector<Hop>& hops, const std::vector<Bytes>& bytes) const;
  /// Sets the capacity a pair offers now and makes the solver use it for running transfers.
  void set_pair_capacity(int pair, BytesPerSecond capacity);
  /// Whether the pair has a SimGrid link (every candidate pair, unless Needs::linked said otherwise).
  bool linked(int pair) const { return circuit_links_[static_cast<std::size_t>(pair)].fwd != nullptr; }
  BytesPerSecond pair_capacity(int pair) const { return capacity_[static_cast<std::size_t>(pair)]; }

 private:
  const net::Network& network_;
  simgrid::s4u::Host* control_ = nullptr;
  std::vector<simgrid::s4u::Host*> hosts_;      ///< endpoints
  std::vector<simgrid::s4u::Host*> tor_hosts_;  ///< clos_ocs: each pod's ToR (the circuits' ends)
  /// A pair's circuit links: one for both directions (half duplex: rev null) or one each way (fwd: from the lower
  /// endpoint); none when not made (Needs::linked). Plain pointers, no vector each: a group of 1,024 pods has 523,776.
  struct PairLinks {
    simgrid::s4u::Link* fwd = nullptr;
    simgrid::s4u::Link* rev = nullptr;
  };
  std::vector<PairLinks> circuit_links_;
  std::vector<double> capacity_;
  /// Each destination host's mailbox, whose permanent receiver lives on that host (null while it is being made).
  std::unordered_map<const simgrid::s4u::Host*, simgrid::s4u::Mailbox*> boxes_;
  long direct_in_flight_ = 0;
  simgrid::s4u::Mailbox* box_of(simgrid::s4u::Host* to);
  /// The hosts a transfer along `path` between endpoints a and b goes from and to.
  std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> ends(net::Path path, int a, int b) const;
  /// A link's capacity now (a circuit's from capacity_: its link data is the pair's index + 1).
  double capacity_of(const simgrid::s4u::Link* link) const;
  void add_tor_links(const std::vector<simgrid::s4u::NetZone*>& zone_of);
  void add_circuits(const std::vector<simgrid::s4u::NetZone*>& zone_of, const std::vector<char>& linked);
  /// The up and down links of each endpoint, in the scale-up domain and at the NIC (electrical rails).
  struct Star {
    std::vector<simgrid::s4u::Link*> up, down;
  };
  Star add_stars(simgrid::s4u::NetZone* zone, const std::vector<int>& member_of, double bw, const char* what);
  void add_switch_ports(simgrid::s4u::NetZone* zone);
};

}  // namespace odcn::engine
