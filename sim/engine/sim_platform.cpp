#include "engine/sim_platform.hpp"

#include <fmt/format.h>
#include <boost/pending/disjoint_sets.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "core/interrupt.hpp"
#include "systems/tdm4/plan.hpp"

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

namespace {

/// The zone of each endpoint. A full zone keeps a route slot for every pair of its hosts, so one zone over a large
/// fabric grows with its square (2 GiB for 8,000 pods in groups of two). A fabric of circuits only (no scale-up
/// domain, no packet switch) whose candidate circuits join its endpoints in separate groups (clos_ocs: one per OXC
/// group) therefore gets several full zones under `root`, whole groups packed into each up to kZoneEndpoints
/// endpoints (a larger group gets its own): memory grows linearly with the fabric for groups of a bounded size.
/// Not more, smaller zones: SimGrid 3.32 scans every host of the platform to seal each zone.
std::vector<sg4::NetZone*> endpoint_zones(const net::Network& network, sg4::NetZone* root,
                                          const std::vector<char>& linked) {
  constexpr int kZoneEndpoints = 512;
  std::vector<sg4::NetZone*> zone_of(static_cast<std::size_t>(network.endpoints), root);
  if (!network.domain_of.empty() || !network.switch_of.empty() || network.endpoints <= kZoneEndpoints) return zone_of;
  boost::disjoint_sets_with_storage<> joined(static_cast<std::size_t>(network.endpoints));
  for (std::size_t p = 0; p < network.pairs.size(); ++p)
    if (linked.empty() || linked[p] != 0) joined.union_set(network.pairs[p].first, network.pairs[p].second);
  std::map<int, std::size_t> group_of_root;  // groups in the order of their smallest endpoint
  std::vector<std::vector<int>> groups;
  for (int i = 0; i < network.endpoints; ++i) {
    const auto [it, added] = group_of_root.emplace(static_cast<int>(joined.find_set(i)), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  if (groups.size() < 2) return zone_of;
  sg4::NetZone* zone = nullptr;
  int filled = 0;
  for (const auto& members : groups) {
    if (zone == nullptr || filled + static_cast<int>(members.size()) > kZoneEndpoints) {
      zone = sg4::create_full_zone(fmt::format("endpoints-from-{}", members.front()))->set_parent(root);
      filled = 0;
    }
    filled += static_cast<int>(members.size());
    for (int e : members) zone_of[static_cast<std::size_t>(e)] = zone;
  }
  return zone_of;
}

/// Whether every endpoint hangs off one packet switch, with no circuit and no scale-up domain: then a SimGrid star
/// zone holds the fabric (an up and a down link per endpoint, routes made on the fly), whose memory grows
/// linearly, instead of a full zone's route slot per pair.
bool one_switch(const net::Network& network) {
  if (!network.pairs.empty() || !network.domain_of.empty() || network.switch_of.empty() ||
      network.nic_bytes_per_s <= 0 || network.uplink_bytes_per_s > 0)
    return false;
  return std::all_of(network.switch_of.begin(), network.switch_of.end(),
                     [&](int s) { return s == network.switch_of.front(); });
}

}  // namespace

SimPlatform::SimPlatform(const net::Network& network, const net::CircuitConfig& initial,
                         const Needs& needs)
    : network_(network), capacity_(network.pairs.size(), sched::kDarkBytesPerSecond) {
  const bool star = one_switch(network);
  auto* zone = star ? sg4::create_star_zone("fabric") : sg4::create_full_zone("fabric");
  control_ = zone->create_host("control", 1.0);
  const std::vector<sg4::NetZone*> zone_of = endpoint_zones(network, zone, needs.linked);
  const bool clos = network.uplink_bytes_per_s > 0;
  for (int i = 0; i < network.endpoints; ++i) {
    // An endpoint computes at 1 "flop"/s per core, so an Exec of t flops is a t-second computation, and
    // computations on one endpoint never slow each other down.
    auto* z = zone_of[static_cast<std::size_t>(i)];
    hosts_.push_back(z->create_host(fmt::format("{}-{}", network.endpoint_word, i), 1.0)->set_core_count(network.cores));
    if (clos) tor_hosts_.push_back(z->create_host(fmt::format("tor-{}", i), 1.0));
  }
  if (clos) add_tor_links(zone_of);
  add_circuits(zone_of, needs.linked);
  if (star) {
    add_switch_ports(zone);
  } else {
    const Star scaleup = add_stars(zone, network.domain_of, network.scaleup_bytes_per_s, "scaleup");
    const Star nic = add_stars(zone, network.switch_of, network.nic_bytes_per_s, "nic");
    // NCCL's PXN: over the scale-up domain to the proxy, then its NIC (electrical rails) or its rail circuit.
    for (const auto& [a, b] : needs.pxn_pairs) {
      const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
      const int proxy = network.proxy(a, b);
      const auto ip = static_cast<std::size_t>(proxy);
      std::vector<sg4::LinkInRoute> links{sg4::LinkInRoute(scaleup.up.at(ia)), sg4::LinkInRoute(scaleup.down.at(ip))};
      if (!nic.up.empty()) {
        links.emplace_back(nic.up.at(ip));
        links.emplace_back(nic.down.at(ib));
      } else {
        const auto& circuit = circuit_links_.at(static_cast<std::size_t>(network.pair_index(proxy, b)));
        if (circuit.fwd == nullptr) continue;  // not linked: no transfer takes it
        // rev: the direction the higher endpoint sends
        links.emplace_back(circuit.rev != nullptr && proxy > b ? circuit.rev : circuit.fwd);
      }
      zone->add_route(hosts_[ia]->get_netpoint(), hosts_[ib]->get_netpoint(), nullptr, nullptr, links, false);
    }
  }
  for (auto* z : std::set<sg4::NetZone*>(zone_of.begin(), zone_of.end()))
    if (z != zone) z->seal();
  zone->seal();
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    const int l = initial.circuits[p];
    capacity_[p] = l > 0 ? l * network.circuit_bytes_per_s : sched::kDarkBytesPerSecond;
  }
}

/// clos_ocs: each pod's pool <-> ToR link. With servers (INC-AOI), a transfer on it stands for one server's NIC: each
/// gets the NIC's rate whatever the others do (FATPIPE at server_gbps; the ToR switches its servers without blocking).
void SimPlatform::add_tor_links(const std::vector<sg4::NetZone*>& zone_of) {
  const bool nics = network_.servers_per_endpoint > 0;
  for (int i = 0; i < network_.endpoints; ++i) {
    auto* z = zone_of[static_cast<std::size_t>(i)];
    auto* link = z->create_link(fmt::format("tor-{}", i), nics ? network_.server_bytes_per_s : network_.uplink_bytes_per_s)
                     ->set_latency(0)
                     ->set_sharing_policy(nics ? sg4::Link::SharingPolicy::FATPIPE : sg4::Link::SharingPolicy::SHARED)
                     ->seal();
    z->add_route(hosts_[static_cast<std::size_t>(i)]->get_netpoint(), tor_hosts_[static_cast<std::size_t>(i)]->get_netpoint(),
                 nullptr, nullptr, {sg4::LinkInRoute(link)}, true);
  }
}

/// Every candidate circuit (or every one `linked` names): a NONLINEAR link (one per direction when full duplex)
/// whose capacity is read from capacity_. A pair can never carry more than every port of an endpoint: that is the
/// nominal (upper) bandwidth.
void SimPlatform::add_circuits(const std::vector<sg4::NetZone*>& zone_of, const std::vector<char>& linked) {
  const auto ends = [&](int e) { return (tor_hosts_.empty() ? hosts_ : tor_hosts_)[static_cast<std::size_t>(e)]->get_netpoint(); };
  const auto circuit_link = [&](sg4::NetZone* z, const std::string& name, const double* cap) {
    auto* link = z->create_link(name, network_.pair_max_bytes_per_s)->set_latency(0);
    link->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR, [cap](double, int) { return *cap; });
    link->set_data(const_cast<double*>(cap));  // capacity_of() reads it: which pair's capacity this link offers
    link->seal();
    return link;
  };
  circuit_links_.resize(network_.pairs.size());
  for (std::size_t p = 0; p < network_.pairs.size(); ++p) {
    if (!linked.empty() && linked[p] == 0) continue;
    const auto [a, b] = network_.pairs[p];
    const double* cap = &capacity_[p];
    auto* z = zone_of[static_cast<std::size_t>(a)];
    if (!network_.full_duplex) {
      auto* link = circuit_link(z, fmt::format("circuit-{}-{}", a, b), cap);
      circuit_links_[p] = {link, nullptr};
      z->add_route(ends(a), ends(b), nullptr, nullptr, {sg4::LinkInRoute(link)}, true);
    } else {
      auto* fwd = circuit_link(z, fmt::format("circuit-{}-{}", a, b), cap);
      auto* rev = circuit_link(z, fmt::format("circuit-{}-{}", b, a), cap);
      circuit_links_[p] = {fwd, rev};
      z->add_route(ends(a), ends(b), nullptr, nullptr, {sg4::LinkInRoute(fwd)}, false);
      z->add_route(ends(b), ends(a), nullptr, nullptr, {sg4::LinkInRoute(rev)}, false);
    }
  }
}

/// Scale-up domains and packet switches in a full zone: an up and a down link per endpoint, a route between every
/// two endpoints that share a domain (or a switch; through the NICs only across domains).
SimPlatform::Star SimPlatform::add_stars(sg4::NetZone* zone, const std::vector<int>& member_of, double bw,
                                         const char* what) {
  if (member_of.empty() || bw <= 0) return {};
  std::vector<sg4::Link*> up, down;
  for (int i = 0; i < network_.endpoints; ++i) {
    up.push_back(zone->create_link(fmt::format("{}-up-{}", what, i), bw)->set_latency(0)->seal());
    down.push_back(zone->create_link(fmt::format("{}-down-{}", what, i), bw)->set_latency(0)->seal());
  }
  const auto& domain = network_.domain_of;
  std::map<int, std::vector<int>> members;
  for (int i = 0; i < network_.endpoints; ++i) members[member_of[static_cast<std::size_t>(i)]].push_back(i);
  for (const auto& [id, list] : members)
    for (int a : list)
      for (int b : list)
        if (a != b && (what[0] == 's' || domain.empty() ||
                       domain[static_cast<std::size_t>(a)] != domain[static_cast<std::size_t>(b)]))
          zone->add_route(hosts_[static_cast<std::size_t>(a)]->get_netpoint(), hosts_[static_cast<std::size_t>(b)]->get_netpoint(),
                          nullptr, nullptr,
                          {sg4::LinkInRoute(up[static_cast<std::size_t>(a)]), sg4::LinkInRoute(down[static_cast<std::size_t>(b)])},
                          false);
  return {up, down};
}

/// One packet switch in a star zone: each endpoint's up link (to the switch) and down link (from it); the route
/// from a to b is a's up link, then b's down link, as add_stars makes it.
void SimPlatform::add_switch_ports(sg4::NetZone* zone) {
  const double bw = network_.nic_bytes_per_s;
  for (int i = 0; i < network_.endpoints; ++i) {
    auto* h = hosts_[static_cast<std::size_t>(i)]->get_netpoint();
    auto* up = zone->create_link(fmt::format("nic-up-{}", i), bw)->set_latency(0)->seal();
    auto* down = zone->create_link(fmt::format("nic-down-{}", i), bw)->set_latency(0)->seal();
    zone->add_route(h, nullptr, nullptr, nullptr, {sg4::LinkInRoute(up)}, false);
    zone->add_route(nullptr, h, nullptr, nullptr, {sg4::LinkInRoute(down)}, false);
  }
}

std::pair<sg4::Host*, sg4::Host*> SimPlatform::ends(net::Path path, int a, int b) const {
  const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
  switch (path) {
    case net::Path::uplink: return {hosts_[ia], tor_hosts_[ia]};
    case net::Path::circuit:
      if (!tor_hosts_.empty()) return {tor_hosts_[ia], tor_hosts_[ib]};
      return {hosts_[ia], hosts_[ib]};
    default: return {hosts_[ia], hosts_[ib]};
  }
}

sg4::CommPtr SimPlatform::send(net::Path path, int a, int b, Bytes bytes) {
  const auto [from, to] = ends(path, a, b);
  return send_between(from, to, bytes);
}

double SimPlatform::capacity_of(const sg4::Link* link) const {
  if (const double* cap = link->get_data<double>(); cap != nullptr) return *cap;
  return link->get_bandwidth();
}

SimPlatform::StandIn SimPlatform::stand_in(const std::vector<Hop>& hops, const std::vector<Bytes>& bytes) const {
  using Policy = sg4::Link::SharingPolicy;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<const sg4::Link*> links;  // every route's links, route i from start[i] to start[i + 1]
  std::vector<std::size_t> start(hops.size() + 1, 0);
  std::vector<sg4::Link*> route;
  std::unordered_map<const sg4::Link*, std::pair<int, double>> crossing;  // n_l, sum of solo_f
  crossing.reserve(hops.size());
  std::vector<double> solo(hops.size(), kInf);
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const auto [from, to] = ends(hops[i].path, hops[i].a, hops[i].b);
    double latency = 0;
    route.clear();
    from->route_to(to, route, &latency);
    if (latency != 0 || route.empty()) return {};
    for (const auto* l : route) {
      const auto p = l->get_sharing_policy();
      if (p != Policy::SHARED && p != Policy::NONLINEAR && p != Policy::FATPIPE) return {};
      solo[i] = std::min(solo[i], capacity_of(l));
    }
    for (const auto* l : route) {
      auto& [n, sum] = crossing[l];
      ++n;
      sum += solo[i];
    }
    links.insert(links.end(), route.begin(), route.end());
    start[i + 1] = links.size();
  }
  const auto shared = [](const sg4::Link* l) { return l->get_sharing_policy() != Policy::FATPIPE; };
  if (std::all_of(crossing.begin(), crossing.end(),
                  [&](const auto& c) { return !shared(c.first) || c.second.second <= capacity_of(c.first); })) {
    StandIn last{0, 1};  // independent: the largest bytes / solo
    for (std::size_t i = 1; i < hops.size(); ++i)
      if (bytes[i] / solo[i] > bytes[static_cast<std::size_t>(last.index)] / solo[static_cast<std::size_t>(last.index)])
        last.index = static_cast<int>(i);
    return last;
  }
  if (std::any_of(bytes.begin(), bytes.end(), [&](Bytes b) { return b != bytes.front(); })) return {};
  const auto share = [&](const sg4::Link* l) {  // C_l / n_l
    return shared(l) ? capacity_of(l) / crossing.at(l).first : capacity_of(l);
  };
  double r_star = kInf;
  for (const auto& c : crossing) r_star = std::min(r_star, share(c.first));
  StandIn found;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    bool frozen = false;
    for (std::size_t k = start[i]; k < start[i + 1]; ++k) {
      const sg4::Link* l = links[k];
      if (share(l) != r_star) continue;
      frozen = true;
      if (found.index < 0 && capacity_of(l) == solo[i])
        found = {static_cast<int>(i), shared(l) ? crossing.at(l).first : 1};
    }
    if (!frozen) return {};  // it would run faster than the others
  }
  return found;
}

sg4::CommPtr SimPlatform::send_between(sg4::Host* from, sg4::Host* to, Bytes bytes) {
  if (direct_in_flight_ < kDirectInFlight) {  // cheaper while maestro's list is short
    ++direct_in_flight_;
    return sg4::Comm::sendto_async(from, to, static_cast<uint64_t>(std::llround(bytes)));
  }
  static int token = 0;  // a mailbox transfer carries a pointer; nothing reads it
  sg4::Mailbox* box = box_of(to);
  if (sg4::this_actor::get_host() != from) sg4::this_actor::set_host(from);
  return box->put_async(&token, static_cast<uint64_t>(std::llround(bytes)));
}

/// The mailbox of `to`, made on first use. Its permanent receiver (an actor on `to`) makes every transfer put into
/// it start at once, from the putting actor's host to `to`; the receiver then takes the transfers in the order they
/// started, so the mailbox holds only those still running (and those that ended behind one still running). Making
/// the receiver lets other actors run (Actor::create is a SimGrid call): one of them asking for the same mailbox
/// then waits (yields) until it is permanent, since a transfer put into it before would start only when received,
/// from wherever its sender had moved by then.
sg4::Mailbox* SimPlatform::box_of(sg4::Host* to) {
  if (auto it = boxes_.find(to); it != boxes_.end()) {
    while (boxes_.at(to) == nullptr) sg4::this_actor::yield();
    return boxes_.at(to);
  }
  boxes_[to] = nullptr;  // being made
  sg4::Mailbox* box = sg4::Mailbox::by_name("to-" + to->get_name());
  auto receiver = sg4::Actor::create("receiver-" + to->get_name(), to, [box] {
    while (true) box->get<int>();
  });
  receiver->daemonize();
  box->set_receiver(receiver);
  boxes_[to] = box;
  return box;
}

void SimPlatform::waited(const sg4::ActivityPtr& a) {
  if (const auto* c = dynamic_cast<const sg4::Comm*>(a.get()); c != nullptr && c->get_mailbox() == nullptr)
    --direct_in_flight_;
}

void SimPlatform::set_pair_capacity(int pair, BytesPerSecond capacity) {
  capacity_[static_cast<std::size_t>(pair)] = capacity;
  const PairLinks& links = circuit_links_[static_cast<std::size_t>(pair)];
  for (auto* link : {links.fwd, links.rev})
    if (link != nullptr) link->set_bandwidth(link->get_bandwidth());
}

}  // namespace odcn::engine
