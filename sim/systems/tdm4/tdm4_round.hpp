#pragma once
// TDM4's hill-climbing state (Alg. 1 over Alg. 2 per pod group and stage) and the climb, shared by the searches
// (tdm4_policy.cpp), the climb (tdm4_climb.cpp) and the plan of a grouping (tdm4_grouping_plan.cpp); private to
// systems/tdm4.
#include <array>
#include <set>
#include <vector>

#include "systems/tdm4/stage_demand.hpp"
#include "systems/tdm4/tdm4_policy.hpp"

namespace odcn::sched::tdm4_internal {

using workload::Job;
using workload::JobType;

inline constexpr int kStages = 4;
inline int stage_k(int s) { return s % 2; }
inline int stage_t(int s) { return s / 2; }
inline int prev_stage(int s) { return (s + kStages - 1) % kStages; }

struct GroupResult {
  bool idle = true;  ///< no job of this pod group communicates in the stage
  Seconds comm = 0;
  std::vector<int> circuits;
};

/// The circuits a pod group actually holds in each stage. A group with nothing to send in a stage keeps
/// the circuits of its last communicating stage (cyclically): tearing them down would only cost a
/// reconfiguration later.
using StageResults = std::array<GroupResult, kStages>;

std::array<const std::vector<int>*, kStages> held_circuits(const StageResults& r);
/// Which stages a pod group reconfigures entering (its held circuits differ from the previous stage's).
std::array<int, kStages> reconfigures(const StageResults& r);

/// What Alg. 1 minimises. `round` is Eq. (1) + ε. At scale the round is a max over many pod groups, so a
/// single move rarely lowers it and the seed's Alg. 1 stops on the first plateau; odcnsim breaks ties with
/// `spread`, the sum over pod groups of each group's own four-stage time, so it keeps moving while some
/// group improves and the round does not get worse. Lexicographic order keeps the climb finite.
struct Objective {
  Seconds round = 0;
  Seconds spread = 0;
  bool operator<(const Objective& o) const { return round < o.round || (round == o.round && spread < o.spread); }
};

/// Everything Alg. 1 needs about one grouping: Alg. 2 results per (pod group, stage), the idle compute
/// times per stage, and which pod groups reconfigure at each stage transition.
class RoundState {
 public:
  RoundState(const net::Fabric& fabric, const std::vector<Job>& jobs, const TrafficCache& cache, std::vector<int> assign,
             HillClimbStats& stats);

  const std::vector<int>& assign() const { return assign_; }
  /// The longest communication of stage s over the pod groups.
  Seconds stage_comm(int s) const { return top1_[s]; }

  /// Eq. (1) + ε for the current grouping, with its tie-breaker.
  Objective objective() const;

  /// Eq. (1) + ε.
  Seconds total() const;

  /// What job `n`'s move would make of its own pod group: the communication time and reconfiguration flag of
  /// each stage. Two Alg. 2 runs (one per group, both phases share it) are the only planning a move needs.
  struct Neighbour {
    Seconds comm[kStages];
    bool diff[kStages];
    int rebuilds;  ///< Alg. 2 runs from scratch it took (for HillClimbStats: it may run on a worker thread)
  };
  Neighbour neighbour_group(int n);

  /// The objective if job `n` moved, from this state and `nb`: other pod groups' maxima from the top-2 per
  /// stage, compute maxima from the multisets. The tie-breaker is summed over pod groups in their order
  /// (O(pod groups)), and only when it can matter: when the round ties `best` and an O(1) estimate of the sum
  /// is not clearly above best's, or when the round is below best's. Otherwise the neighbour cannot be better
  /// than `best` and the spread returned is +inf. The comparisons are thus exactly those of the full sum.
  Objective neighbour_objective(int n, const Neighbour& nb, const Objective& best) const;

  /// The pod groups whose change can lower the round: in some stage, the one with the longest communication
  /// when communication bounds the stage, one holding the longest idle compute when compute bounds it and at
  /// most two jobs hold it, or the only one reconfiguring.
  std::vector<char> critical_groups() const;

  void move(int n);

 private:
  /// Whether set a's demand without job n is exactly its kept demand minus n's load: n comes after the point
  /// where every pair of the pod group became linked (RAR), or the other jobs' fixed traffic alone links every
  /// pair (non-RAR). Then Alg. 3 gives every other RAR job the same ring as before. Not when n is the only job.
  bool leaves_exactly(std::size_t g, std::size_t a, int n) const;
  /// The same for job n joining set b: every pair was linked before n's turn in Alg. 2.
  bool joins_exactly(std::size_t g, std::size_t b, int n) const;

  /// A (pod group, A/B) set's demand after Alg. 2 lines 1-8, and when its pairs were all linked
  /// (add_ring_loads): what a neighbour evaluation can start from.
  struct SetEval {
    GroupDemand demand = GroupDemand(0);
    int saturated_after = kNeverSaturated;
  };

  /// Alg. 2 lines 9-17 on a demand.
  GroupResult from_demand(const GroupDemand& d) const;

  /// Alg. 2 for pod group g and the jobs `ids`, whose non-RAR traffic is already summed in `fixed`.
  GroupResult build(int g, const std::vector<int>& ids, const GroupDemand& fixed, SetEval* keep = nullptr,
                    bool count = true);

  /// Alg. 2 for the four stages of pod group g. PS pull is the transpose of push and circuits are
  /// undirected, so phase 1 has exactly the loads of phase 0: each (group, k) is planned once.
  StageResults build_stages(int g, const std::array<std::vector<int>, 2>& members,
                            const std::array<GroupDemand, 2>& fixed, std::array<SetEval, 2>* keep = nullptr);

  void rebuild_group(int g);

  void refresh_summary();

  /// The two largest elements of a multiset (the second may equal the first; 0 when missing): enough to
  /// know its maximum after one element leaves.
  struct Top2 {
    Seconds first = 0, second = 0;
  };
  static Top2 top2_of(const std::multiset<Seconds>& m);
  void refresh_tops(int g);

  /// Max idle compute of a stage after job j leaves group a for 1 − a (max_without on the top two).
  static Seconds compute_after_move(const Top2& idle, const Job& j, int a, int s);

  /// A pod group's own four-stage time, as if it were alone: the tie-breaker of Objective.
  void update_local(int g);

  static Seconds max_of(const std::multiset<Seconds>& m) { return m.empty() ? 0 : *m.rbegin(); }

  const net::Fabric& fabric_;
  const std::vector<Job>& jobs_;
  const TrafficCache& cache_;
  std::vector<int> assign_;
  HillClimbStats& stats_;
  std::vector<std::array<std::vector<int>, 2>> members_;  ///< [pod group][A/B] → job ids, ascending
  std::vector<std::array<GroupDemand, 2>> base_;         ///< [pod group][A/B] → non-RAR traffic, summed
  std::vector<StageResults> results_;
  std::vector<std::array<SetEval, 2>> eval_;  ///< [pod group][A/B]
  std::vector<std::array<int, kStages>> diff_;  ///< pod group reconfigures entering stage s
  std::multiset<Seconds> idle_[kStages];
  std::vector<std::array<std::multiset<Seconds>, kStages>> group_idle_;  ///< per pod group
  Top2 idle_top_[kStages];                                  ///< top two of idle_[s]
  std::vector<std::array<Top2, kStages>> group_top_;        ///< top two of group_idle_[g][s]
  std::vector<Seconds> local_;  ///< per pod group: its own four-stage time
  Seconds spread_total_ = 0;    ///< Σ local_, in pod group order
  Seconds top1_[kStages]{}, top2_[kStages]{};
  int top1_group_[kStages]{};
  int diff_count_[kStages]{};
};

/// Alg. 1 lines 5-13 from `state`: repeatedly move the single job whose move gives the best objective, until
/// no move improves it. With `pairs` (multistart), a stall is followed by a pass over moves of two jobs of the
/// same pod group at once (i, then the best j given i; pod groups of at most kPairMoveGroupJobs jobs that can
/// lower the round); the first pair that lowers the round itself (not only the tie-breaker) is taken and the
/// single moves resume. Returns the final objective.
Objective climb(RoundState& state, const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options,
                HillClimbStats& stats, bool pairs);

}  // namespace odcn::sched::tdm4_internal
