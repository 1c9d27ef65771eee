#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "net/circuit_config.hpp"
#include "net/fabric.hpp"
#include "systems/tdm4/job.hpp"
#include "systems/tdm4/traffic.hpp"
#include "trace/rows.hpp"

namespace odcn::sched {

/// Policy `static`: one circuit configuration for the whole run; every job iterates on its own.
struct StaticPlan {
  net::CircuitConfig config;
  /// job_phases[job][phase]: the traffic of each communication phase (PS: push, pull; others: one).
  std::vector<std::vector<workload::PhaseTraffic>> job_phases;
};

enum class Activity { communicate, train, aggregate };
const char* to_string(Activity a);

/// What one job does in one stage of a TDM round.
struct StageWork {
  int job = 0;
  Activity activity = Activity::train;
  int phase = 0;          ///< communication phase t (PS: 0 push, 1 pull)
  Seconds compute_s = 0;  ///< train or aggregate time
  workload::PhaseTraffic traffic;
};

/// Stage (k, t) of a round (seed 001 §II.C): group k communicates phase t while the other group computes.
struct StagePlan {
  int index = 0;  ///< 2t + k, i.e. the seed's stage number minus one
  int k = 0;
  int t = 0;
  net::CircuitConfig config;
  std::vector<StageWork> work;
  Seconds comm_s = 0;       ///< t_comm^{k,t} of Eq. (2), the max over pod groups of Alg. 2's time
  Seconds compute_s = 0;    ///< max compute time of the idle group's jobs
  Seconds seed_s = 0;       ///< t_{k,t} of Eq. (3)
  Seconds predicted_s = 0;  ///< what the engine will measure: Eq. (3) with the partial reconfiguration stall
  std::string bound;        ///< "comm", "compute" or "reconfig" (a changed circuit's stall decided it)
  int circuits_changed = 0; ///< versus the previous stage
  int bound_group = -1;     ///< the pod group whose Alg. 2 time is comm_s (-1: nobody communicates)
  std::string bound_at;     ///< where in it (global pods): "pods I-J" (that pair's circuits) or "tor I"
  Seconds comm_lower_bound_s = 0;  ///< fractional optimum of Eq. (2) under Eq. (6), max over pod groups
};

struct HillClimbStats {
  int moves = 0;       ///< jobs moved, over every climb of the search
  int pair_moves = 0;  ///< moves of two jobs at once (multistart)
  long long evaluations = 0;  ///< neighbour evaluations
  long long group_rebuilds = 0;  ///< Alg. 2 runs on one pod group
};

/// A four-stage TDM round (policies `tdm4`, `tdm4-ilp`, `aggregate`).
struct TdmPlan {
  std::string policy;
  std::vector<int> group_of_job;  ///< 0 = A, 1 = B
  std::array<StagePlan, 4> stages;
  Seconds epsilon_s = 0;      ///< ε: δ for each stage transition whose topology differs (Alg. 1 line 3)
  Seconds seed_round_s = 0;   ///< Eq. (1) + ε, the objective Alg. 1 minimises
  Seconds round_s = 0;        ///< Σ predicted stage times: the round time the engine measures
  HillClimbStats stats;
  std::string search;        ///< tdm4: the search that found the grouping (paper, threshold, multistart)
  std::string search_start;  ///< tdm4: where the winning climb started: aggregate (A = J), threshold or balanced
  Seconds aggregate_comm_s = -1;  ///< tdm4, aggregate: stage 1's communication when every job is in A (-1: unknown)
  std::string ilp_status;         ///< tdm4-ilp: CBC's verdict ("optimal", or why not)
  Seconds ilp_objective_s = 0;    ///< tdm4-ilp: the optimum of Eq. (1) + ε
  Seconds ilp_bound_s = 0;        ///< tdm4-ilp: CBC's lower bound (= objective when optimal)
  Seconds heuristic_round_s = 0;  ///< tdm4-ilp: the hill climb's Eq. (1) + ε on the same instance
};

/// Capacity a circuit being set up offers while it is dark (the engine never uses 0, which SimGrid reads as
/// unlimited). Planners use the same constant so that predictions match the engine exactly.
constexpr BytesPerSecond kDarkBytesPerSecond = 1.0;

/// Time for `bytes` over a pair whose circuits change from `before` to `after` at time 0: the retained
/// min(before, after) circuits carry traffic at once, the new ones only after δ.
Seconds pair_time_with_reconfig(Bytes bytes, int before, int after, BytesPerSecond port, Seconds delay);

/// The engine's length of a stage in which `work` runs while the circuits change from `before` to `after` at
/// its start: only changed circuits stall, each for δ (docs/model.md, "Predicted vs the paper's time").
struct StageTiming {
  Seconds comm = 0;              ///< the slowest pair (with its stall) or ToR link
  Seconds comm_no_reconfig = 0;  ///< the same had no circuit changed
  Seconds compute = 0;           ///< the longest train or aggregate in `work`
  Seconds predicted = 0;         ///< max(comm, compute)
  std::string bound;             ///< "compute", "reconfig" or "comm"
};
StageTiming time_stage(const net::Fabric& fabric, const std::vector<const StageWork*>& work,
                       const net::CircuitConfig& before, const net::CircuitConfig& after);

/// The circuits stage `st` sets up, from `current`, when only `ran` of its work runs (the other jobs have
/// finished): a pod group in which nobody communicates keeps its circuits, as in the plan (docs/model.md).
net::CircuitConfig held_config(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                               const StagePlan& st, const std::vector<const StageWork*>& ran,
                               const net::CircuitConfig& current);

/// Fills a stages.csv row's predicted_s, compute_s, bound, pod_group, bottleneck and comm_lower_bound_s: the
/// plan's when the stage ran as planned, else those of what ran (`ran`, on circuits `before` → `after`).
void describe_stage(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, const StagePlan& st,
                    const std::vector<const StageWork*>& ran, const net::CircuitConfig& before,
                    const net::CircuitConfig& after, bool as_planned, trace::StageRow& row);

/// The measured length of round 1 when it ran in full: four stages, each with every job planned in it. Null
/// when a job finished within round 1, which includes every job finishing before its last stage.
std::optional<Seconds> measured_round_time(const std::vector<trace::StageRow>& stages);

}  // namespace odcn::sched
