#pragma once
// An exact model of one slot of INC-AOI's scheduling problem (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating
// DML Training in OCS-based DCNs", §II.B): at the start of a slot, which waiting jobs start, which use in-network
// aggregation (INC), how many circuits each rack pair gets and how each pair's bandwidth is split among its jobs.
// §III says the optimum "can be derived by solving an integer linear programming (ILP) model" but gives none:
// everything below is ours (docs/inc-aoi.md, "An exact one-slot model"). Pure: no SimGrid. For small instances
// only (a handful of racks and jobs), to bound the heuristics in tests.
//
// Per started job j (W workers, w_r in rack r, root rack r0, push S, compute c, I iterations), with INC (y = 1)
// or through its CPU parameter server (y = 0), the closed forms of ps_jobs.hpp:
//   NIC time     N_j(0) = (W-1)·S/b (the PS's incast; 0 for W = 1),   N_j(1) = S/b
//   pair bytes   D_jp(0) = w_r·S,  D_jp(1) = S                     for each pair p = {r, r0}, r != r0
//   push time    t_j = max(N_j(y), max_p D_jp(y) / bw_jp)           (a pull takes as long: circuits are duplex)
//   completion   C_j = stall_j + I·(c + 2·t_j),   stall_j = δ if a pair of j has no circuit now, else 0
// A job not started waits: W_j = slot + I·(c + 2·min allowed N_j): it starts at the next slot at the earliest,
// then at best at its NICs' rate (an optimistic bound, so waiting is never penalised too much).
// Objective: minimise Σ_j (x_j·C_j + (1 - x_j)·W_j), our stand-in for "the overall completion time for the batch".
//
// Bandwidth is shared in units of B/g (g = units_per_circuit; default: the number of jobs, so every job on a
// pair can get a share of even one circuit): bw_jp = u_jp·B/g with u_jp ≥ 1 integer, Σ_j u_jp ≤ g·n_p. This
// discretisation is the model's, and the ILP is exact for it.
//
// Constraints: busy servers keep a job waiting; two jobs sharing a server do not both start; y_j ≤ x_j; at most
// inc_jobs INC jobs on every ToR of their racks; Σ_{p ∋ r} n_p ≤ ports (the port budget of every ToR). Running jobs are
// represented only by the busy servers (give them fewer ports or INC room by lowering the budgets).
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "net/network.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"

namespace odcn::sched::inc_ilp {

struct SlotJob {
  std::vector<std::pair<int, int>> workers_per_rack;  ///< (rack, workers), racks ascending
  int root = 0;                                       ///< rank 0's rack (the PS and the INC root)
  Bytes push_bytes = 0;                               ///< S
  Seconds compute_s = 0;
  int iterations = 1;
  std::vector<int> servers;
  int workers() const;
};

struct SlotProblem {
  int racks = 2;
  int ports = 1;                          ///< OCS ports per ToR
  int inc_jobs = 1;                       ///< INC jobs per ToR at once
  BytesPerSecond circuit_bytes_per_s = 0; ///< B, each way
  BytesPerSecond server_bytes_per_s = 0;  ///< b, each way
  Seconds reconfig_delay_s = 0;           ///< δ
  Seconds slot_s = 1;
  int units_per_circuit = 0;              ///< g (0: the number of jobs)
  std::vector<int> circuits;              ///< lit now, by pair() (empty: none)
  std::vector<int> busy_servers;
  std::vector<SlotJob> jobs;

  int pairs() const { return racks * (racks - 1) / 2; }
  int pair(int a, int b) const;  ///< index of {a, b}, a != b: (0,1), (0,2), ..., (1,2), ...
  int units() const { return units_per_circuit > 0 ? units_per_circuit : static_cast<int>(jobs.size()); }
  int lit(int p) const { return circuits.empty() ? 0 : circuits[static_cast<std::size_t>(p)]; }
};

/// The slot as INC-AOI's controller sees it at time 0: `jobs` all waiting, nothing lit, no server busy. Raises
/// ConfigError unless circuits are duplex and servers have NICs.
SlotProblem slot_problem(const net::Network& network, int ports_per_rack, const std::vector<workload::PsJob>& jobs,
                         Seconds slot_s);

/// A decision: start and INC per job, circuits per pair (the bandwidth split is optimised by evaluate()).
struct SlotDecision {
  std::vector<char> start, inc;
  std::vector<int> circuits;
};

/// The job's pairs (pair index, rack other than the root, its workers).
struct JobPair {
  int pair, rack, workers;
};
std::vector<JobPair> job_pairs(const SlotProblem& pb, int j);
/// C_j for a started job with `units[k]` shares of B/g on its k-th pair (job_pairs order).
Seconds completion(const SlotProblem& pb, int j, bool inc, const std::vector<int>& units);
/// W_j of a job that waits.
Seconds waiting_cost(const SlotProblem& pb, int j);

struct SlotScore {
  bool feasible = false;
  std::string why;                      ///< when not feasible
  double objective = 0;
  std::vector<std::vector<int>> units;  ///< per job, per job pair: the best split found
};
/// Scores any decision: checks it against every constraint, then the best bandwidth split by enumeration.
SlotScore evaluate(const SlotProblem& pb, const SlotDecision& d);

struct SlotSolution {
  bool solved = false;
  bool optimal = false;
  double objective = 0;      ///< the decision's value by evaluate() (exact: its best bandwidth split)
  double cbc_objective = 0;  ///< solve_ilp: CBC's value, within its tolerances (about 1e-7 s here)
  SlotDecision decision;
};
/// The ILP (docs/inc-aoi.md), solved by CBC. Raises ConfigError above 5 racks or 6 jobs.
SlotSolution solve_ilp(const SlotProblem& pb, double time_limit_s = 10);
/// Every start set, INC set and circuit count per used pair, each scored by evaluate(): tiny instances only.
SlotSolution brute_force(const SlotProblem& pb);

}  // namespace odcn::sched::inc_ilp
