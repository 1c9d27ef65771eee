#pragma once
// INC-AOI's online scheduler (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs",
// §II.B, §III, §IV): a time-slotted controller that, at the start of every slot, decides which jobs start, which
// use in-network aggregation (INC) in their racks' ToRs, and the circuits of the optical cross-connect. Pure: no
// SimGrid. docs/inc-aoi.md states every rule below with its tie-breaks.
//
//   inc-ljf, noinc-ljf    Large-job-first (§III a): jobs in the order (workers desc, push size desc, arrival asc,
//                         id asc). Every slot: admit waiting jobs in that order whose servers are free and whose
//                         rack pairs can get a circuit (a job that does not fit is passed over); give INC to the
//                         running jobs in that order while every ToR of the job has room (at most pods.inc_jobs
//                         jobs per ToR); reconfigure only when an admitted job needs a rack pair that has no
//                         circuit: then one circuit per pair in use and the spare ports to the pairs with the most
//                         bytes per circuit.
//   inc-fcfs, noinc-fcfs  First-come-first-served (§IV): waiting jobs in arrival order; each takes INC if every ToR
//                         of its racks has room (for its whole run) and, for each of its rack pairs, the circuits
//                         that carry its stream at its NICs' rate, as far as free ports go; the first job that
//                         cannot start (servers busy, or a pair without a free port) blocks the ones behind it.
//                         Earlier allocations are never revisited.
//   inc-group             Grouping-based interleaving (§III b) on top of inc-ljf: running jobs form two cohorts
//                         of comparable computation/communication ratios; cohort A starts its pushes in the first
//                         half of each slot, cohort B in the second; at each rotation the spare ports go to the
//                         pairs of the cohort whose turn begins.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "net/network.hpp"
#include "policy/controller.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

namespace odcn::sched {

enum class IncPolicy { inc_ljf, inc_fcfs, noinc_ljf, noinc_fcfs, inc_group };
const char* to_string(IncPolicy p);
bool parse_inc_policy(const std::string& name, IncPolicy& p);
bool uses_inc(IncPolicy p);
bool is_ljf(IncPolicy p);  ///< inc-ljf, noinc-ljf and inc-group (built on inc-ljf)

/// Large-job-first order of `jobs` (indices into `all`): workers desc, push size desc, arrival asc, id asc; or,
/// by_volume, workers × push size desc, then workers desc, arrival asc, id asc.
std::vector<int> ljf_order(const std::vector<workload::PsJob>& all, std::vector<int> jobs, bool by_volume = false);

/// One slot (or half slot of inc-group) as the controller saw it after deciding.
struct SlotRecord {
  Seconds time_s = 0;
  int waiting = 0;          ///< arrived, not started
  int running = 0;          ///< started, not finished (including those admitted now)
  int admitted = 0;         ///< started at this slot
  int inc_assigned = 0;     ///< running jobs given INC
  int inc_max_per_tor = 0;  ///< the most jobs one ToR aggregated for at once during the slot
  int circuits_lit = 0;
  int circuits_changed = 0; ///< circuits added or removed by this slot's reconfiguration (0: none)
  int spanning_started = 0; ///< jobs started at this slot whose workers span racks (they need circuits)
  int allocations = 0;      ///< jobs started at this slot for which a rack pair of theirs gained circuits
  std::string blocked;      ///< FCFS: why the head of the queue could not start ("servers", "ports"), else empty
  std::string cohort;       ///< inc-group: the cohort whose turn begins ("A" or "B"), else empty
};

class IncAoiController : public Controller {
 public:
  /// `ports_per_rack`: OCS ports of each ToR. Raises ConfigError when a job spans racks without a candidate
  /// circuit between them (different OXC groups) or asks for more ports than a ToR has.
  IncAoiController(const net::Network& network, int ports_per_rack, const std::vector<workload::PsJob>& jobs,
                   IncPolicy policy, Seconds slot_s, const spec::PsSchedulerSpec& options = {});

  net::CircuitConfig initial_circuits() const override { return base_; }
  std::vector<int> forward_path(int from, int to) const override;
  void on_start(Seconds now, Actions& act) override;
  void on_timer(Seconds now, Actions& act) override;
  bool on_arrival(int job, Seconds now, Actions& act) override;
  void on_job_done(int job, Seconds now, Actions& act) override;
  Gate on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds now, Actions& act) override;
  void on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end, Actions& act) override;

  const std::vector<SlotRecord>& slots() const { return slots_; }
  /// Per job: collectives run with INC and with the CPU parameter server; when it started (-1: never).
  const std::vector<int>& inc_collectives() const { return inc_collectives_; }
  const std::vector<int>& ps_collectives() const { return ps_collectives_; }
  const std::vector<Seconds>& admitted_s() const { return admitted_s_; }
  /// The most jobs any ToR aggregated for at once over the run (never above pods.inc_jobs).
  int peak_inc_per_tor() const { return peak_inc_; }
  int reconfigurations() const { return reconfigurations_; }
  /// Jobs that streamed between racks (needed circuits) while they ran.
  int spanning_jobs() const;

 private:
  struct Pair {
    int index;        ///< Network pair
    Bytes inc_bytes;  ///< between its racks in one push with INC (duplex circuits: the busier direction)
    Bytes ps_bytes;   ///< the same without INC
  };
  void plan(Seconds now, Actions& act, bool rotation);
  void admit_ljf(std::vector<int>& admitted);
  /// Starts waiting jobs in arrival order, adding their circuits to `next` (the configuration being built).
  void admit_fcfs(std::vector<int>& admitted, net::CircuitConfig& next);
  void assign_inc_ljf();
  bool servers_free(int job) const;
  void start(int job, Seconds now, Actions& act);
  Bytes pair_bytes(int job, const Pair& p) const;
  double stream_rate(int job, const Pair& p) const;
  net::CircuitConfig spread(const std::vector<int>& cohort_jobs) const;
  /// Circuits of `c` at a rack's ports (in_use_only: on pairs a running job uses).
  int circuits_at(const net::CircuitConfig& c, int rack, bool in_use_only) const;
  bool inc_room(int job) const;
  bool can_inc_now(int job) const;
  void note_inc_flight(int job);
  void hold_inc(int job);    ///< INC assigned to the job, on every ToR of its racks
  bool decide_inc(int job);  ///< whether the collective the job starts now runs in the ToRs (and counts it)
  Seconds tick_time(long tick) const;  ///< a slot each (inc-group: cohort A's turn, then B's after group_delay)
  long first_tick_at(Seconds now) const;  ///< the first wake-up at or after now
  bool blocks(int job, int reserved) const;  ///< LJF reservation: job uses a server of the reserved job
  bool in_use(int job, const Pair& p) const;
  void count_pairs(int job, int delta);
  void check_circuits(int job, bool inc) const;
  void join_cohorts(const std::vector<int>& admitted);
  // The base topology and forwarding (inc_forwarding.cpp).
  void build_base();
  std::vector<int> base_path(int a, int b) const;
  bool needs_circuit(std::size_t p) const;  ///< in use and not forwarded: it needs a circuit of its own
  std::vector<int> hop_load() const;
  bool pays_back(std::size_t p, const std::vector<int>& load, int starting) const;
  void decide_forwarding(const net::CircuitConfig& next, int job = -1);  ///< job >= 0: only its new pairs (FCFS)
  std::vector<int> committed_ports() const;  ///< per rack, LJF: base circuits and one per pair needing a circuit
  void apply(net::CircuitConfig next, Seconds now, const std::string& why, Actions& act);

  const net::Network& network_;
  int ports_;
  const std::vector<workload::PsJob>& jobs_;
  IncPolicy policy_;
  Seconds slot_s_;
  spec::PsSchedulerSpec options_;
  int inc_cap_;
  std::vector<std::vector<Pair>> pairs_;  ///< per job: the rack pairs it uses
  std::vector<std::vector<int>> racks_;   ///< per job: its racks, ascending
  std::vector<std::vector<int>> servers_; ///< per job: the servers it holds (workers', a dedicated PS's)
  std::vector<std::pair<Bytes, Bytes>> busiest_nic_;  ///< per job: its busiest NIC's bytes without and with INC
  std::vector<int> waiting_;              ///< arrived, not started (arrival order)
  std::set<int> running_;
  std::vector<char> done_;
  int finished_ = 0;
  std::vector<int> server_job_;           ///< server -> running job on it (-1: free)
  std::vector<int> need_;                 ///< pair -> running jobs using it
  net::CircuitConfig config_;
  std::vector<char> inc_assigned_;        ///< job -> INC (LJF: this slot; FCFS: for its run)
  std::map<int, std::set<int>> inc_flight_;  ///< rack -> jobs with an INC collective running
  std::map<int, std::set<int>> inc_holders_; ///< rack -> jobs assigned INC
  std::vector<char> cohort_b_;            ///< inc-group: job in cohort B
  std::vector<int> cohort_size_ = {0, 0};
  bool turn_b_ = false;                   ///< inc-group: cohort B's half of the slot
  std::vector<TaskRef> held_;             ///< inc-group: pushes waiting for their cohort's turn
  net::CircuitConfig base_;               ///< lit at time 0, never taken down (the platform's ocs.base_topology)
  bool forwards_ = false;                 ///< a base ring or torus: pairs without a circuit are forwarded over it
  int torus_cols_ = 1;                    ///< racks per row of the base ring (one row) or torus
  std::vector<char> forwarded_;           ///< pair -> in use, carried over the base ring or torus
  std::vector<int> iterations_done_;      ///< job -> iterations whose pull has ended
  std::vector<char> used_circuits_;       ///< job -> it streamed between racks (over circuits) at some point
  std::vector<char> gated_;               ///< inc-group, group_gate once: the job's first push was gated
  long tick_ = 0;      ///< the next wake-up is at tick_ × step()
  bool waking_ = false;
  std::vector<SlotRecord> slots_;
  std::vector<int> inc_collectives_, ps_collectives_;
  std::vector<Seconds> admitted_s_;
  int peak_inc_ = 0;
  int reconfigurations_ = 0;
};

}  // namespace odcn::sched
