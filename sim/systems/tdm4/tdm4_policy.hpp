#pragma once
#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "net/fabric.hpp"
#include "systems/tdm4/plan.hpp"
#include "systems/tdm4/job.hpp"

namespace odcn::sched {

/// How policy `tdm4` groups the jobs (docs/model.md, "Searches").
enum class Tdm4Search {
  /// Algorithm 1 as published: hill climbing from A = J, B = ∅, one job per move (with odcnsim's tie-break).
  paper,
  /// The best threshold grouping: B = the jobs whose training time is below a threshold, for the best one.
  threshold,
  /// The paper's climb, and the same climb from the best threshold grouping and from the balanced grouping
  /// (each pod group's bytes split evenly between A and B), each continued by moves of two jobs of one pod
  /// group at once when no single move helps (in pod groups of up to kPairMoveGroupJobs jobs that can lower
  /// the round); the best of the three.
  multistart,
};
/// Multistart tries moves of two jobs only in pod groups of at most this many jobs (a pass over a group's pairs
/// costs its jobs squared evaluations).
constexpr std::size_t kPairMoveGroupJobs = 128;
const char* to_string(Tdm4Search s);
/// The search named `name` (paper, threshold, multistart); false for another name.
bool parse_search(const std::string& name, Tdm4Search& out);

struct Tdm4Options {
  Tdm4Search search = Tdm4Search::multistart;
  /// Incremental neighbour evaluation (recompute only the moved job's pod group, reuse every other
  /// neighbour's cached group result). false = rebuild every group for every neighbour; same answer, slower.
  bool incremental = true;
  /// Alg. 1 accepts a move only if it lowers the round time, and so stops on the first plateau. With
  /// break_ties, a move that keeps the round time but lowers the sum of the pod groups' own four-stage
  /// times is taken too (see docs/model.md). false = the seed's rule exactly.
  bool break_ties = true;
  /// Threads that re-plan a moved pod group's neighbours at once (0: one per CPU, at most 8). The grouping
  /// does not depend on it.
  int threads = 0;
  /// Called after every move with the number of moves so far and the current Eq. (1) + ε (for progress).
  std::function<void(int moves, Seconds round)> on_move;
};

/// Policy `tdm4`: the grouping found by options.search (paper: Algorithm 1 of TDM-4, hill climbing from A = J,
/// B = ∅, moving the single job whose move lowers Eq. (1) + ε the most, until no move helps), with Alg. 2/3
/// per stage and pod group.
TdmPlan plan_tdm4(const net::Fabric& fabric, const std::vector<workload::Job>& jobs, const Tdm4Options& options = {});

/// Policy `aggregate`: the non-TDM baseline of §I/§II.C. Every job computes together, then every job
/// communicates (PS push and pull are separate phases). This is the grouping A = J, B = ∅.
TdmPlan plan_aggregate(const net::Fabric& fabric, const std::vector<workload::Job>& jobs);

/// Choices that replace Alg. 2 / Alg. 3 when a plan is assembled (the ILP's solution).
struct PlanOverrides {
  std::vector<std::vector<std::pair<int, int>>> ring_of_job;  ///< RAR rings by job id (others empty)
  std::array<std::vector<int>, 2> circuits_of_group;          ///< per fabric pair, for the stages of group k
};

/// Evaluates a given grouping (0 = A, 1 = B) into a full four-stage plan with per-stage predictions. With
/// `overrides`, its rings and circuits are used instead of Alg. 3 and Alg. 2.
TdmPlan plan_for_grouping(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                          const std::vector<int>& group_of_job, const std::string& policy,
                          const PlanOverrides* overrides = nullptr);

/// Compute time of job `job` in stage `stage` (0..3) when its group is idle: train, or aggregate for a PS
/// job between its push and pull.
Seconds idle_compute_s(const workload::Job& job, int group, int stage);
Activity idle_activity(const workload::Job& job, int group, int stage);

}  // namespace odcn::sched
