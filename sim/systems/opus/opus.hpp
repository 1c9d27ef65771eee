#pragma once
// Opus (Ouyang, Ding, Singh, "Photonic Rails in ML Datacenters", §4): a photonic_rail fabric's rail OCSes are
// reconfigured between the parallelism phases of the jobs' traces.
//
// Communication groups. Every task whose bytes leave a scale-up domain belongs to a group, whose circuits it
// needs on its rail:
//   * a collective: the ring of its process group (neighbours in the group's order; a group of two is one pair);
//   * a transfer (send/recv): the pair of its two GPUs. A pipeline hop is its own group, so one stage's
//     data-parallel collective and another stage's send/recv hold their circuits at once (§5, "Reconfiguration
//     granularity": circuits are configured per communication group, Fig. 3(b)).
// Tasks of the same rank pairs share a group, so FSDP's all-gathers, reduce-scatters and gradient-norm
// all-reduce over {0, 4} need one configuration, and the pipeline hop {0, 8} another. A group's circuits give
// each of its GPUs' NIC ports to its neighbours in the group: a pair of GPUs whose group links each of them to d
// peers gets min(ports / d) circuits (two GPUs: all ports; a ring with two ports: one each way round). A ring's
// collective then runs as two counter-rotating rings, one on each neighbour's circuit (the engine's lowering on
// photonic rails), so that a GPU sends on both of its ports as it would through an electrical NIC.
// Bytes between GPUs on different rails and domains go as NCCL's PXN sends them (net::Path::pxn): over the
// scale-up domain to the proxy (the source domain's GPU on the destination's rail), then on the proxy's circuit
// to the destination; the group's circuits are then the proxies' pairs, and its set-up takes the proxies' ports.
//
// The controller (§4.2). A task whose group's circuits are lit starts at once. Otherwise it waits until no
// running task uses a circuit that must change, and until every task that asked earlier for one of those ports
// has been served (first come, first served), then the circuits change: the group's own, and of its GPUs' other
// circuits only as many as free the ports it needs (idle ones first); every other circuit keeps carrying
// traffic. The task starts on them: its bytes wait for the reconfiguration delay, which the engine reports as
// reconfiguration stall.
//   on-demand     exactly that: every change is on the critical path of the collective that needs it;
//   provisioned   the first iteration is profiled (each GPU's sequence of groups); from then on, when a GPU's
//                 task ends and its ports fall idle, the circuits of its next group are set up at once, in the
//                 window before that group's first task is ready.
// On an electrical fabric the controller only observes (there is nothing to reconfigure): with it, the same
// phases and windows are measured on the electrical baseline.
//
// Windows (§3.1): on each GPU, a phase is a maximal run of consecutive tasks of one group that involve that GPU;
// the window between phases P1 and P2 is min_{c in P2} T_start(c) - max_{c in P1} T_end(c), with a collective's
// start the moment its slowest rank joins (the engine starts it then) and its end its last byte. Phases that
// overlap have no window between them (PhaseWindows::overlaps counts them).
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/network.hpp"
#include "policy/controller.hpp"
#include "policy/graph_static.hpp"

namespace odcn::sched {

enum class OpusMode { on_demand, provisioned };
const char* to_string(OpusMode m);
/// "on-demand" or "provisioned".
bool parse_opus_mode(const std::string& name, OpusMode& m);

/// A communication group: the endpoint pairs its tasks' bytes cross between scale-up domains, and the circuits it
/// wants on each (empty on fabrics without circuits).
struct RailGroup {
  std::vector<std::pair<int, int>> edges;  ///< endpoint pairs, a < b, sorted
  std::vector<int> endpoints;              ///< the GPUs its tasks involve, sorted
  /// endpoints and the GPUs whose NIC ports its circuits take (the proxies of cross-rail traffic), sorted
  std::vector<int> holders;
  std::vector<std::pair<int, int>> circuits;  ///< (candidate pair index, circuits), on circuit fabrics
  int rail = -1;                           ///< the OCS (or packet switch) of its pairs; -1 when they span rails
  bool hop = false;                        ///< a split pipeline hop (HopCircuits::split)
  std::string label;                       ///< e.g. "gpus 0-4", "gpus 0-8 4-12", "gpus 0-5 via 1-5"
};

/// The circuits of a pipeline hop (a send/recv group of two GPUs): `whole_nic`, every port of both GPUs (the rule
/// above: the hop runs at the NIC's rate, and a middle stage reconfigures between its two hops); `split`, each
/// GPU's ports shared among its pipeline peers, as one chain over the pipeline would (a middle stage keeps a
/// circuit to each neighbour, at a share of the NIC's rate, and never reconfigures between them).
enum class HopCircuits { whole_nic, split };

/// The groups of every task of the jobs (rules above). Raises InputError(file, job field, reason) when a task's
/// bytes have no path, or when a group links a GPU to more peers than it has NIC ports.
class RailGroups {
 public:
  /// `ports`: NIC ports per GPU on its rail's OCS (0 on fabrics without circuits).
  RailGroups(const net::Network& network, const std::vector<GraphJob>& jobs, int ports, const std::string& file,
             HopCircuits hops = HopCircuits::whole_nic);
  /// The group of a task; -1 when its bytes stay inside scale-up domains (or it moves none).
  int group_of(int job, int task) const { return of_[static_cast<std::size_t>(job)][static_cast<std::size_t>(task)]; }
  const RailGroup& group(int id) const { return groups_[static_cast<std::size_t>(id)]; }
  int count() const { return static_cast<int>(groups_.size()); }
  /// NIC ports per GPU on its rail's OCS.
  int ports() const { return ports_; }
  HopCircuits hops() const { return hops_; }

 private:
  int ports_ = 0;
  HopCircuits hops_ = HopCircuits::whole_nic;
  std::vector<RailGroup> groups_;
  std::vector<std::vector<int>> of_;
};

/// A communication task as one GPU it involves saw it.
struct PhaseRecord {
  int endpoint = 0;
  int job = 0;
  int iteration = 0;
  int task = 0;
  int group = 0;
  Seconds start_s = 0;
  Seconds end_s = 0;
  Bytes bytes = 0;  ///< the task's size S (a collective's per-rank buffer, a message's bytes)
};

/// The idle time between two consecutive phases of different groups on one GPU.
struct Window {
  int endpoint = 0;
  int job = 0;
  int iteration = 0;     ///< of P2's first task
  int from_group = 0, to_group = 0;
  Seconds opens_s = 0;   ///< max end of P1
  Seconds length_s = 0;  ///< min start of P2 - max end of P1, >= 0
  int next_task = 0;     ///< P2's first task
  Bytes next_bytes = 0;  ///< P2's traffic: the sizes of its tasks (Fig. 4(b)'s "traffic volume after the window")
};

struct PhaseWindows {
  std::vector<Window> windows;  ///< GPU by GPU in time order
  /// Consecutive phases that overlap (P2 starts before P1 ends): there is no idle time between them, so no
  /// window; counted here instead.
  int overlaps = 0;
};

/// The windows of the records (any order).
PhaseWindows phase_windows(std::vector<PhaseRecord> records);

/// The first iteration of the steady state: the smallest k >= 1 from which every iteration of every job lasts as
/// long as that job's last one (to 1e-9 relative). Iteration 0 starts with dark rails (and is the provisioned
/// mode's profile), and a provisioned run may take more iterations to settle. -1 when a job has one iteration.
/// `durations`: per job, its iterations' durations in order.
int steady_from(const std::vector<std::vector<Seconds>>& durations);

class OpusController : public Controller {
 public:
  /// `reconfigure` false: observe only (fabrics without circuits).
  OpusController(const net::Network& network, const std::vector<GraphJob>& jobs, const RailGroups& groups,
                 OpusMode mode, bool reconfigure);

  net::CircuitConfig initial_circuits() const override { return network_.empty_config(); }
  bool sends_job_flows_only() const override { return true; }  // (no routing of its own)
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;
  void on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end,
                    Actions& act) override;

  /// Every communication task that needed a group, per GPU of its group, in the order they ended.
  const std::vector<PhaseRecord>& records() const { return records_; }
  /// Configurations applied for a task that waited for them (on demand) and ahead of time (provisioned).
  int on_demand_changes() const { return on_demand_; }
  int provisioned_changes() const { return provisioned_; }

 private:
  struct Waiting {
    TaskRef ref;
    int group = 0;
  };
  /// The circuits that change to give `group` its circuits, (pair, circuits after): its own, and of its GPUs'
  /// other circuits only where its GPUs would otherwise have more circuits than ports.
  std::vector<std::pair<int, int>> with_group(int group) const;
  /// Whether a waiting task wants one of the group's GPUs.
  bool awaited(const RailGroup& g) const;
  /// Lights `group`'s circuits unless they are lit already: true when they are (or now will be), false when a
  /// circuit that must change is in use. Counts a change in `changes_made`.
  bool set_up(int group, const std::string& reason, int& changes_made, Actions& act);
  std::string reason(int group) const;
  void start(const TaskRef& ref, int group);
  /// Serves waiting tasks in order; a task waits while an earlier one waits for one of its ports.
  void serve(Actions& act);
  void provision(int endpoint, Actions& act);

  const net::Network& network_;
  const std::vector<GraphJob>& jobs_;
  const RailGroups& groups_;
  OpusMode mode_;
  bool reconfigure_;
  net::CircuitConfig current_;
  std::vector<int> users_;                      ///< running tasks on each candidate pair
  std::vector<std::vector<int>> pairs_of_endpoint_;
  std::vector<Waiting> waiting_;
  std::vector<int> running_on_;                 ///< running communication tasks on each endpoint
  // Provisioning: each endpoint's sequence of groups in the first iteration that used it, and how many of its
  // tasks have started since.
  std::vector<std::vector<int>> profile_;
  std::vector<int> profile_job_;  ///< the job whose first iteration was profiled on the endpoint (-1: none yet)
  std::vector<long> started_on_;
  std::vector<char> profiled_;    ///< per job: its first iteration has ended, so its profile is complete
  std::vector<long> done_in_first_;  ///< per job: tasks of its first iteration that have ended
  std::vector<PhaseRecord> records_;
  int on_demand_ = 0, provisioned_ = 0;
};

}  // namespace odcn::sched
