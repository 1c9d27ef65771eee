#pragma once
// TOPO-X (Y.-X. Hu, H. Tian, Y. Zhao, F. Wu, X.-Y. Li, "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML
// Training Parallelism", §III): one training iteration's tasks and the circuits of a flat layer of OCSes
// scheduled together, time slot by time slot, as a resource-constrained project scheduling problem (RCPSP), and
// the TopoOpt baseline it is compared with (one static topology for the whole run, systems/topox/topoopt.hpp).
//
// Both schedule a *flow graph*: the job graph lowered to servers, with compute, transfer and barrier tasks only.
// A ring all-reduce becomes one transfer per ring edge and ring path, each member sending 2(g-1)/g·S/paths bytes
// to its successor (the "simplified ring all-reduce model" of TOPO-X §VII; TopoOpt's FlexNet expands it the same
// way). Circuits are full duplex: a circuit {x, y} on OCS r carries B from x to y and B from y to x.
//
// The time-slotted model (Eq. 2-10), as built here:
//   - a transfer j starts at a slot boundary (Eq. 3-4) and holds one circuit direction x_j -> y_j for
//     k_j = ceil(p_j / τ) slots, p_j = bytes / B; it finishes at its start + p_j;
//   - compute and barrier tasks start as soon as their inputs are done and use no network (Eq. 5);
//   - in every slot, a directed pair carries at most as many transfers as it has circuits (Eq. 6, counted per
//     pair, not per transfer: the paper's Eq. 6 lets any number of transfers share one circuit at full rate;
//     TopoxOptions::per_transfer, policy topox:paper, plans by the paper's reading instead);
//   - each server has one port on each OCS (Eq. 8-10): a port holds at most one circuit per slot, and an OCS of
//     d_OCS ports at most d_OCS / 2 duplex circuits (Eq. 7);
//   - reconfiguration (ours; the paper sets τ equal to the reconfiguration latency without saying how it is
//     paid): with a delay δ, a port that changes circuit stays dark for ceil(δ / τ) slots in between.
// Under these rules every transfer gets at least B on the engine for its whole window, so the engine's iteration
// is never longer than the plan (tests check both).
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "net/network.hpp"
#include "net/port_circuits.hpp"
#include "policy/controller.hpp"
#include "spec/fabric_kinds.hpp"
#include "graph/task_graph.hpp"

namespace odcn::sched {

/// How a ring all-reduce over g members is lowered: one ring path per entry, member i sending to the member
/// `stride` places further in the group's order. Every path carries the same share.
struct RingPaths {
  std::vector<int> strides;
  /// FlexNet's intra-server all-reduce term (systems/topox/flexnet_estimate.hpp): when > 0, a compute task of
  /// this many seconds per all-reduced byte runs before the ring's transfers (2 / (k·B_nvlink) for servers of k
  /// GPUs). 0: none (the engine's runs).
  Seconds intra_seconds_per_byte = 0;
};

/// TOPO-X's lowering of a ring all-reduce on servers of `nic_ports` ports: half the paths towards each member's
/// successor (stride 1), half towards its predecessor (stride -1), one per port.
RingPaths topox_ring_paths(int nic_ports);

/// The flow graph of job graph `g` whose rank r runs on server endpoints[r]: transfers between servers, each
/// all-reduce (ring) lowered onto `rings` (strides taken modulo the group size; for a group of g members a stride
/// is applied in the group's order). Raises InputError(file, field, ...) for a collective that is not a ring
/// all-reduce, naming the task.
workload::JobGraph flow_graph(const workload::JobGraph& g, const std::vector<int>& endpoints, const RingPaths& rings,
                              const std::string& file, const std::string& field);

/// TopoOpt's multi-hop forwarding: every transfer between servers without a direct circuit becomes one transfer
/// per hop of `route(src, dst)` (the servers from src to dst), all starting together when the original's inputs
/// are done (cut-through: each hop carries all the bytes, so the bytes use bandwidth on every hop); the
/// original's dependents wait for every hop. Transfers and hops with the same inputs on the same link are then
/// one transfer of their summed bytes. Raises ConfigError when a route is empty.
struct MultiHop {
  workload::JobGraph graph;
  int forwarded = 0;  ///< transfers without a direct circuit
  int legs = 0;       ///< hop transfers they became
  Bytes forwarded_bytes = 0;
  Bytes hop_bytes = 0;  ///< bytes × hops of the forwarded transfers
  int transfers = 0;    ///< transfer tasks of `graph`, after merging
};
MultiHop multi_hop(const workload::JobGraph& flows, const std::function<bool(int, int)>& direct,
                   const std::function<std::vector<int>(int, int)>& route);

/// A plan: per slot, the circuits that carry traffic (A_t), and when each transfer starts.
struct TopoxPlan {
  Seconds slot_s = 0;
  int reconfig_slots = 0;                            ///< ceil(δ/τ): dark slots a port pays to change circuit
  std::vector<std::vector<net::PortCircuit>> slots;  ///< A_t, circuits with a < b
  std::vector<int> start_slot;                       ///< per flow-graph task: its slot (transfers), -1 otherwise
  std::vector<Seconds> start_s, finish_s;            ///< per task, as planned
  Seconds makespan_s = 0;                            ///< the virtual task j_v's start (Eq. 2)
  std::string method;                                ///< "heuristic" or "mip"
  bool per_transfer = false;  ///< Eq. 6 as the paper writes it (TopoxOptions::per_transfer): no circuit capacity
  bool aligned = true;  ///< transfers start at slot boundaries (Eq. 4), else when ready and a circuit is free
  int server_circuits = 0;  ///< circuits a server may hold per slot (TopoxOptions::server_circuits); 0: d_S
  /// The MIP's outcome (method "mip", or a heuristic plan that the MIP could not improve).
  struct Mip {
    std::string status;  ///< "optimal", "time limit: gap x %", "not run: ...", ...
    double objective_s = 0, bound_s = 0, gap = 0, wall_s = 0;
    int columns = 0, rows = 0;
  };
  Mip mip;
  Seconds heuristic_makespan_s = 0;   ///< the slot-aligned heuristic's (the MIP's warm start)
  Seconds continuous_makespan_s = 0;  ///< the heuristic with continuous starts (0: not run)
  /// The configuration the fabric holds during slot t: A_t and the circuits being set up for the next
  /// reconfig_slots slots (their ports are dark meanwhile).
  std::vector<net::PortCircuit> lit_during(int t) const;
};

/// The variant of policy topox as TopoxOptions::mip: heuristic never solves the MIP, mip always does, auto (or
/// anything else) when the model is small enough.
std::string topox_mip_mode(const std::string& variant);

struct TopoxOptions {
  Seconds slot_s = 1e-3;        ///< τ
  Seconds reconfig_delay_s = 0; ///< δ
  /// Transfers start at slot boundaries (Eq. 4; the MIP's model), or, when false, as soon as their inputs are done
  /// and a circuit direction of their pair is free; circuits still change only at slot boundaries.
  bool aligned = true;
  /// MIP: "auto" runs it when the model has at most max_mip_vars columns, "always", or "never".
  std::string mip = "auto";
  int max_mip_vars = 20000;
  int max_forced_mip_vars = 60000;  ///< "always" refuses a larger model (ConfigError)
  double time_limit_s = 30;
  bool warm_start = true;  ///< start CBC from the heuristic plan (tests turn it off to solve independently)
  /// Eq. 6 as the paper writes it: transfer j needs a circuit of its pair (x_j, y_j) lit in every slot it runs,
  /// and any number of transfers may share that circuit, each at the full rate B (no capacity). Off (odcnsim's
  /// reading): a circuit direction carries one transfer at a time. Such a plan can run longer on the engine,
  /// where transfers sharing a circuit share its B.
  bool per_transfer = false;
  /// Circuits a server may hold in one slot; 0: one per port, d_S (odcnsim's reading of Eq. 8, a duplex circuit
  /// counted once). The paper's Eq. 8 counts directed circuits, in + out <= d_S: with duplex circuits, each counts
  /// once in and once out, so d_S / 2 (policy topox:eq8, a sensitivity).
  int server_circuits = 0;
};

/// The circuits per server and slot that `o` allows on `flat`: o.server_circuits, or d_S when it is 0.
int server_circuits_of(const spec::FlatOcsSpec& flat, const TopoxOptions& o);

/// Slot by slot, critical path first: the ready transfers in decreasing order of their longest path to the end
/// of the iteration each get a circuit direction for their k_j slots (an existing circuit of their pair with a
/// free direction, else a new one on an OCS where both ports are free, preferring the OCS that holds the pair
/// already), or wait for the next slot.
TopoxPlan plan_topox_heuristic(const spec::FlatOcsSpec& flat, const workload::JobGraph& flows,
                               const TopoxOptions& options);

/// The heuristic, then the time-slotted RCPSP MIP (Eq. 2-10 as above) with CBC, warm-started from the heuristic
/// plan, over a horizon of the heuristic's slots; the better plan is returned with the MIP's status and gap.
TopoxPlan plan_topox(const spec::FlatOcsSpec& flat, const workload::JobGraph& flows, const TopoxOptions& options);

/// A lower bound on the makespan of any plan of `flows` on `flat` that respects capacity (a circuit direction
/// carries one transfer at a time at B; slot-aligned or continuous starts) with a reconfiguration delay of
/// `reconfig_delay_s` (0 gives a bound for every δ): the larger of
///   - the critical path, every transfer at B (Eq. 2-5 without port limits), where a task whose inputs include
///     several transfers sent (or received) by one server x also waits until x could have carried them all:
///     their port time Σ p_j / d_S after the first of them can start, and their peer slots: a port joins one peer
///     per slot, so D distinct peers take some port ceil(D / d_S) slots, with ceil(δ/τ) dark slots between
///     changes (an all-to-all's chain of slots);
///   - per server and direction, and for every time e at which some of its transfers can start at the earliest: e
///     plus the time its d_S ports need to carry the transfers that cannot start before e (Σ p_j / d_S), plus the
///     shortest path that must follow the last of them.
/// docs/topox.md ("A lower bound"). A plan by the paper's reading (per_transfer) can go below it.
Seconds topox_lower_bound(const spec::FlatOcsSpec& flat, const workload::JobGraph& flows, Seconds reconfig_delay_s = 0);

/// Why `plan` breaks a rule above for `flows` on `flat` ("" when it does not): Eq. 7-10 in every slot, Eq. 6 for
/// every transfer in every slot of its window, precedence (Eq. 5), slot-aligned starts (Eq. 4), the reconfiguration
/// gap, and the makespan (Eq. 2).
std::string plan_violation(const spec::FlatOcsSpec& flat, const workload::JobGraph& flows, const TopoxPlan& plan);

/// Replays a TOPO-X plan on the engine for one job of flow graph `flows`: slot t of iteration i begins at
/// base_i + t·τ (base_0 = 0; later iterations begin when the previous one ends, after ceil(δ/τ) slots when
/// their first slot's circuits differ from the last ones); at each slot it lights lit_during(t); each transfer
/// starts at its planned time, or when its inputs are done if that is later (counted as late: the plan's bound
/// holds when there is none); compute tasks start when ready.
///
/// A plan by the paper's reading (TopoxPlan::per_transfer) puts transfers that share a circuit at full rate,
/// which the fabric cannot carry: its transfers outlast their slots. Its slots therefore *stretch*: slot t begins
/// τ after slot t - 1 began, or later, when every transfer whose planned window ends at t has finished (so no
/// transfer loses its circuit while it runs), and the transfers planned in slot t start when it begins.
class TopoxController : public Controller {
 public:
  TopoxController(const spec::FlatOcsSpec& flat, const net::Network& network, const TopoxPlan& plan);
  net::CircuitConfig initial_circuits() const override;
  bool sends_job_flows_only() const override { return true; }  // (no routing of its own)
  void on_timer(Seconds now, Actions& act) override;
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;
  void on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end, Actions& act) override;

  int late_releases() const { return late_; }
  int reconfigurations() const { return changes_; }
  int circuits_changed() const { return circuits_changed_; }

 private:
  void begin_iteration(int iteration, Seconds now, Actions& act);
  void enter_slot(int t, Actions& act);
  void wake(Seconds at, Actions& act);

  const spec::FlatOcsSpec& flat_;
  const net::Network& network_;
  const TopoxPlan& plan_;
  int job_ = 0;
  int iteration_ = -1;
  Seconds base_ = 0;
  int next_slot_ = 0;  ///< the next slot whose boundary has not been handled
  /// Ready transfers waiting for their planned start: (time, iteration, task), earliest first.
  std::priority_queue<std::tuple<Seconds, int, int>, std::vector<std::tuple<Seconds, int, int>>, std::greater<>> held_;
  std::set<Seconds> woken_;  ///< times a timer is asked for already
  std::vector<net::PortCircuit> current_;
  int late_ = 0, changes_ = 0, circuits_changed_ = 0;
  // Stretched slots (a plan by the paper's reading).
  void on_timer_stretched(Seconds now, Actions& act);
  bool stretch_ = false;
  Seconds slot_begin_ = 0;              ///< when the slot last entered began
  std::vector<int> window_end_;         ///< per task: the slot its planned window ends at (-1: not a transfer)
  std::vector<int> unfinished_;         ///< per slot u: transfers of this iteration whose window ends at u, running
  std::vector<std::vector<int>> held_in_slot_;  ///< per slot: ready transfers waiting for it to begin
};

}  // namespace odcn::sched
