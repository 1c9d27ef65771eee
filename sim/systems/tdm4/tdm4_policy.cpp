#include "systems/tdm4/tdm4_policy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <set>

#include <fmt/format.h>

#include "systems/tdm4/stage_demand.hpp"

namespace odcn::sched {

using workload::Job;
using workload::JobType;

namespace {

constexpr int kStages = 4;
int stage_k(int s) { return s % 2; }
int stage_t(int s) { return s / 2; }
int prev_stage(int s) { return (s + kStages - 1) % kStages; }

struct GroupResult {
  bool idle = true;  ///< no job of this pod group communicates in the stage
  Seconds comm = 0;
  std::vector<int> circuits;
};

/// The circuits a pod group actually holds in each stage. A group with nothing to send in a stage keeps
/// the circuits of its last communicating stage (cyclically): tearing them down would only cost a
/// reconfiguration later.
using StageResults = std::array<GroupResult, kStages>;

std::array<const std::vector<int>*, kStages> held_circuits(const StageResults& r) {
  std::array<const std::vector<int>*, kStages> held{};
  for (int s = 0; s < kStages; ++s) {
    held[static_cast<std::size_t>(s)] = &r[s].circuits;
    for (int back = 0; back < kStages; ++back) {
      const int from = (s - back + kStages) % kStages;
      if (!r[static_cast<std::size_t>(from)].idle) {
        held[static_cast<std::size_t>(s)] = &r[static_cast<std::size_t>(from)].circuits;
        break;
      }
    }
  }
  return held;
}

std::array<int, kStages> reconfigures(const StageResults& r) {
  const auto held = held_circuits(r);
  std::array<int, kStages> diff{};
  for (int s = 0; s < kStages; ++s)
    diff[static_cast<std::size_t>(s)] = *held[static_cast<std::size_t>(s)] != *held[static_cast<std::size_t>(prev_stage(s))];
  return diff;
}

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
             HillClimbStats& stats)
      : fabric_(fabric), jobs_(jobs), cache_(cache), assign_(std::move(assign)), stats_(stats) {
    const auto groups = static_cast<std::size_t>(fabric.groups());
    members_.assign(groups, {});
    results_.assign(groups, {});
    eval_.assign(groups, std::array<SetEval, 2>{});
    diff_.assign(groups, {});
    for (const auto& j : jobs) members_[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(assign_[static_cast<std::size_t>(j.id)])].push_back(j.id);
    base_.resize(groups);
    for (int g = 0; g < fabric.groups(); ++g) {
      for (int k = 0; k < 2; ++k)
        base_[static_cast<std::size_t>(g)][static_cast<std::size_t>(k)] =
            fixed_demand(fabric, members_[static_cast<std::size_t>(g)][static_cast<std::size_t>(k)], 0, cache_);
      rebuild_group(g);
    }
    group_idle_.assign(groups, {});
    local_.assign(groups, 0.0);
    for (const auto& j : jobs)
      for (int s = 0; s < kStages; ++s)
        if (assign_[static_cast<std::size_t>(j.id)] != stage_k(s)) {
          const Seconds c = idle_compute_s(j, assign_[static_cast<std::size_t>(j.id)], s);
          idle_[s].insert(c);
          group_idle_[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(s)].insert(c);
        }
    group_top_.assign(groups, {});
    for (int g = 0; g < fabric.groups(); ++g) {
      update_local(g);
      refresh_tops(g);
    }
    refresh_summary();
  }

  const std::vector<int>& assign() const { return assign_; }
  /// The longest communication of stage s over the pod groups.
  Seconds stage_comm(int s) const { return top1_[s]; }

  /// Eq. (1) + ε for the current grouping, with its tie-breaker.
  Objective objective() const {
    Objective o{total(), 0.0};
    for (Seconds l : local_) o.spread += l;
    return o;
  }

  /// Eq. (1) + ε.
  Seconds total() const {
    Seconds sum = 0;
    int reconfigs = 0;
    for (int s = 0; s < kStages; ++s) {
      sum += std::max(top1_[s], max_of(idle_[s]));
      reconfigs += diff_count_[s] > 0;
    }
    return sum + reconfigs * fabric_.reconfig_delay_s();
  }

  /// What job `n`'s move would make of its own pod group: the communication time and reconfiguration flag of
  /// each stage. Two Alg. 2 runs (one per group, both phases share it) are the only planning a move needs.
  struct Neighbour {
    Seconds comm[kStages];
    bool diff[kStages];
    int rebuilds;  ///< Alg. 2 runs from scratch it took (for HillClimbStats: it may run on a worker thread)
  };
  Neighbour neighbour_group(int n) {
    const Job& j = jobs_[static_cast<std::size_t>(n)];
    const auto g = static_cast<std::size_t>(j.group);
    const auto a = static_cast<std::size_t>(assign_[static_cast<std::size_t>(n)]);
    const auto b = 1 - a;
    const bool rar = j.type == JobType::rar;
    // The sets' non-RAR traffic after the move, built only when a set must be planned from scratch.
    auto moved_base = [&](std::size_t k, int sign) {
      GroupDemand d = base_[g][k];
      if (!rar) shift_fixed(d, cache_, n, 0, sign);
      return d;
    };
    thread_local GroupDemand scratch;  // reused: no allocation per neighbour
    int rebuilds = 0;
    std::array<GroupResult, 2> r;
    // Leaving group a. When every pair stays linked without the job (its ring came after the pod group's
    // links were complete, or the other jobs' fixed traffic links every pair), Alg. 3 gives every other RAR
    // job the same ring, so the new demand is the old one minus the job's load, exactly (whole bytes).
    if (members_[g][a].size() == 1) {
      r[a].circuits.assign(static_cast<std::size_t>(fabric_.pairs_per_group()), 0);  // idle
    } else if (leaves_exactly(g, a, n)) {
      scratch = eval_[g][a].demand;
      if (rar)
        shift_full(scratch, cache_, n, 0, -1);
      else
        shift_fixed(scratch, cache_, n, 0, -1);
      r[a] = from_demand(scratch);
    } else {
      auto ids = members_[g][a];
      ids.erase(std::find(ids.begin(), ids.end(), n));
      r[a] = build(j.group, ids, moved_base(a, -1), nullptr, false);
      ++rebuilds;
    }
    // Joining group b: the same when every pair was linked before the job's turn in Alg. 2.
    if (joins_exactly(g, b, n)) {
      scratch = eval_[g][b].demand;
      if (rar)
        shift_full(scratch, cache_, n, 0, +1);
      else
        shift_fixed(scratch, cache_, n, 0, +1);
      r[b] = from_demand(scratch);
    } else {
      auto ids = members_[g][b];
      ids.insert(std::upper_bound(ids.begin(), ids.end(), n), n);
      r[b] = build(j.group, ids, moved_base(b, +1), nullptr, false);
      ++rebuilds;
    }
    // Stages 3 and 4 repeat 1 and 2 (phase 1 has the loads of phase 0), so what reconfigures(r) would find
    // is simple: with both sets communicating, every transition changes circuits iff their circuits differ;
    // with one idle, it keeps the other's circuits all round and nothing changes.
    Neighbour out{};
    out.rebuilds = rebuilds;
    const bool change = !r[0].idle && !r[1].idle && r[0].circuits != r[1].circuits;
    for (int s = 0; s < kStages; ++s) {
      out.comm[s] = r[static_cast<std::size_t>(s % 2)].comm;
      out.diff[s] = change;
    }
    return out;
  }

  /// The objective if job `n` moved, from this state and `nb`: other pod groups' maxima from the top-2 per
  /// stage, compute maxima from the multisets. The tie-breaker is summed over pod groups in their order
  /// (O(pod groups)), and only when it can matter: when the round ties `best` and an O(1) estimate of the sum
  /// is not clearly above best's, or when the round is below best's. Otherwise the neighbour cannot be better
  /// than `best` and the spread returned is +inf. The comparisons are thus exactly those of the full sum.
  Objective neighbour_objective(int n, const Neighbour& nb, const Objective& best) const {
    const Job& j = jobs_[static_cast<std::size_t>(n)];
    const auto g = static_cast<std::size_t>(j.group);
    const int a = assign_[static_cast<std::size_t>(n)];
    Seconds sum = 0, local = 0;
    int reconfigs = 0, local_reconfigs = 0;
    for (int s = 0; s < kStages; ++s) {
      const Seconds others = top1_group_[s] == j.group ? top2_[s] : top1_[s];
      const Seconds comm = std::max(others, nb.comm[s]);
      sum += std::max(comm, compute_after_move(idle_top_[s], j, a, s));
      local += std::max(nb.comm[s], compute_after_move(group_top_[g][static_cast<std::size_t>(s)], j, a, s));
      reconfigs += diff_count_[s] - diff_[g][static_cast<std::size_t>(s)] + nb.diff[s] > 0;
      local_reconfigs += nb.diff[s];
    }
    Objective o{sum + reconfigs * fabric_.reconfig_delay_s(), kInfeasible};
    if (o.round > best.round) return o;
    const Seconds group_local = local + local_reconfigs * fabric_.reconfig_delay_s();
    if (o.round == best.round && best.spread < kInfeasible) {
      // The sum in another order differs from the ordered one by far less than 1e-9 of it.
      const Seconds estimate = spread_total_ - local_[g] + group_local;
      if (estimate > best.spread + 1e-9 * std::max(1.0, std::abs(best.spread))) return o;
    }
    o.spread = 0;
    for (std::size_t other = 0; other < local_.size(); ++other) o.spread += other == g ? group_local : local_[other];
    return o;
  }

  /// The pod groups whose change can lower the round: in some stage, the one with the longest communication
  /// when communication bounds the stage, one holding the longest idle compute when compute bounds it and at
  /// most two jobs hold it, or the only one reconfiguring.
  std::vector<char> critical_groups() const {
    std::vector<char> critical(static_cast<std::size_t>(fabric_.groups()), 0);
    for (int s = 0; s < kStages; ++s) {
      const Seconds compute = max_of(idle_[s]);
      if (top1_group_[s] >= 0 && top1_[s] >= compute) critical[static_cast<std::size_t>(top1_group_[s])] = 1;
      // Two moves can take the longest compute out of a stage only if at most two jobs hold it.
      const bool compute_critical = compute >= top1_[s] && compute > 0 && idle_[s].count(compute) <= 2;
      for (int g = 0; g < fabric_.groups(); ++g) {
        const auto gi = static_cast<std::size_t>(g);
        if (diff_count_[s] == 1 && diff_[gi][static_cast<std::size_t>(s)]) critical[gi] = 1;
        if (compute_critical && max_of(group_idle_[gi][static_cast<std::size_t>(s)]) == compute) critical[gi] = 1;
      }
    }
    return critical;
  }

  void move(int n) {
    const Job& j = jobs_[static_cast<std::size_t>(n)];
    const auto g = static_cast<std::size_t>(j.group);
    const int a = assign_[static_cast<std::size_t>(n)];
    // Decided on the state before the move, as in neighbour_group.
    const bool exact_from = leaves_exactly(g, static_cast<std::size_t>(a), n);
    const bool exact_to = joins_exactly(g, static_cast<std::size_t>(1 - a), n);
    for (int s = 0; s < kStages; ++s)
      if (a != stage_k(s)) {
        idle_[s].erase(idle_[s].find(idle_compute_s(j, a, s)));
        auto& gi = group_idle_[g][static_cast<std::size_t>(s)];
        gi.erase(gi.find(idle_compute_s(j, a, s)));
      }
    auto& from = members_[g][static_cast<std::size_t>(a)];
    from.erase(std::find(from.begin(), from.end(), n));
    auto& to = members_[g][static_cast<std::size_t>(1 - a)];
    to.insert(std::upper_bound(to.begin(), to.end(), n), n);
    assign_[static_cast<std::size_t>(n)] = 1 - a;
    if (j.type != JobType::rar) {
      shift_fixed(base_[g][static_cast<std::size_t>(a)], cache_, n, 0, -1);
      shift_fixed(base_[g][static_cast<std::size_t>(1 - a)], cache_, n, 0, +1);
    }
    for (int s = 0; s < kStages; ++s)
      if (1 - a != stage_k(s)) {
        idle_[s].insert(idle_compute_s(j, 1 - a, s));
        group_idle_[g][static_cast<std::size_t>(s)].insert(idle_compute_s(j, 1 - a, s));
      }
    // Each set's demand: the kept one plus or minus the job's load when exact (its saturation point does not
    // move), else planned from scratch.
    const bool rar = j.type == JobType::rar;
    for (int k = 0; k < 2; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      const bool leaving = k == a;
      if (leaving ? exact_from : exact_to) {
        SetEval& e = eval_[g][ki];
        if (rar)
          shift_full(e.demand, cache_, n, 0, leaving ? -1 : +1);
        else
          shift_fixed(e.demand, cache_, n, 0, leaving ? -1 : +1);
        results_[g][ki] = from_demand(e.demand);
        ++stats_.group_rebuilds;
      } else {
        results_[g][ki] = build(j.group, members_[g][ki], base_[g][ki], &eval_[g][ki]);
      }
      results_[g][ki + 2] = results_[g][ki];
    }
    diff_[g] = reconfigures(results_[g]);
    update_local(j.group);
    refresh_tops(j.group);
    refresh_summary();
  }

 private:
  /// Whether set a's demand without job n is exactly its kept demand minus n's load: n comes after the point
  /// where every pair of the pod group became linked (RAR), or the other jobs' fixed traffic alone links every
  /// pair (non-RAR). Then Alg. 3 gives every other RAR job the same ring as before. Not when n is the only job.
  bool leaves_exactly(std::size_t g, std::size_t a, int n) const {
    if (members_[g][a].size() == 1) return false;
    if (jobs_[static_cast<std::size_t>(n)].type == JobType::rar) return eval_[g][a].saturated_after < n;
    const GroupDemand& d = base_[g][a];
    if (d.linked_pairs != static_cast<int>(d.linked.size())) return false;
    for (const auto& [p, bytes] : cache_.local(n, 0).pairs)
      if (d.pair_load[static_cast<std::size_t>(p)] - bytes <= 0) return false;
    return true;
  }
  /// The same for job n joining set b: every pair was linked before n's turn in Alg. 2.
  bool joins_exactly(std::size_t g, std::size_t b, int n) const {
    if (members_[g][b].empty()) return false;
    const int saturated = eval_[g][b].saturated_after;
    return jobs_[static_cast<std::size_t>(n)].type == JobType::rar ? saturated < n : saturated == -1;
  }

  /// A (pod group, A/B) set's demand after Alg. 2 lines 1-8, and when its pairs were all linked
  /// (add_ring_loads): what a neighbour evaluation can start from.
  struct SetEval {
    GroupDemand demand = GroupDemand(0);
    int saturated_after = kNeverSaturated;
  };

  /// Alg. 2 lines 9-17 on a demand.
  GroupResult from_demand(const GroupDemand& d) const {
    GroupResult r;
    r.idle = false;
    GroupTopology topo = build_topology(d, limits_of(fabric_));
    r.comm = topo.t_comm;
    r.circuits = std::move(topo.circuits);
    return r;
  }

  /// Alg. 2 for pod group g and the jobs `ids`, whose non-RAR traffic is already summed in `fixed`.
  GroupResult build(int g, const std::vector<int>& ids, const GroupDemand& fixed, SetEval* keep = nullptr,
                    bool count = true) {
    if (count) ++stats_.group_rebuilds;
    GroupDemand demand = fixed;
    if (ids.empty()) {
      GroupResult r;
      r.circuits.assign(static_cast<std::size_t>(fabric_.pairs_per_group()), 0);
      if (keep) *keep = {std::move(demand), kNeverSaturated};
      return r;
    }
    const int saturated = add_ring_loads(demand, fabric_, g, ids, 0, cache_, nullptr);
    GroupResult r = from_demand(demand);
    if (keep) *keep = {std::move(demand), saturated};
    return r;
  }

  /// Alg. 2 for the four stages of pod group g. PS pull is the transpose of push and circuits are
  /// undirected, so phase 1 has exactly the loads of phase 0: each (group, k) is planned once.
  StageResults build_stages(int g, const std::array<std::vector<int>, 2>& members,
                            const std::array<GroupDemand, 2>& fixed, std::array<SetEval, 2>* keep = nullptr) {
    StageResults r;
    for (int k = 0; k < 2; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      r[ki] = build(g, members[ki], fixed[ki], keep ? &(*keep)[ki] : nullptr);
      r[ki + 2] = r[ki];
    }
    return r;
  }

  void rebuild_group(int g) {
    const auto gi = static_cast<std::size_t>(g);
    results_[gi] = build_stages(g, members_[gi], base_[gi], &eval_[gi]);
    diff_[gi] = reconfigures(results_[gi]);
  }

  void refresh_summary() {
    for (int s = 0; s < kStages; ++s) {
      top1_[s] = top2_[s] = 0;
      top1_group_[s] = -1;
      diff_count_[s] = 0;
      for (int g = 0; g < fabric_.groups(); ++g) {
        const Seconds c = results_[static_cast<std::size_t>(g)][s].comm;
        if (top1_group_[s] < 0 || c > top1_[s]) {
          top2_[s] = top1_[s];
          top1_[s] = c;
          top1_group_[s] = g;
        } else if (c > top2_[s]) {
          top2_[s] = c;
        }
        diff_count_[s] += diff_[static_cast<std::size_t>(g)][s];
      }
    }
  }

  /// The two largest elements of a multiset (the second may equal the first; 0 when missing): enough to
  /// know its maximum after one element leaves.
  struct Top2 {
    Seconds first = 0, second = 0;
  };
  static Top2 top2_of(const std::multiset<Seconds>& m) {
    Top2 t;
    auto it = m.rbegin();
    if (it == m.rend()) return t;
    t.first = *it++;
    if (it != m.rend()) t.second = *it;
    return t;
  }
  void refresh_tops(int g) {
    for (int s = 0; s < kStages; ++s) {
      idle_top_[s] = top2_of(idle_[s]);
      group_top_[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)] =
          top2_of(group_idle_[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)]);
    }
  }

  /// Max idle compute of a stage after job j leaves group a for 1 − a (max_without on the top two).
  static Seconds compute_after_move(const Top2& idle, const Job& j, int a, int s) {
    Seconds compute = idle.first;
    if (a != stage_k(s)) compute = idle.first != idle_compute_s(j, a, s) ? idle.first : idle.second;
    if (1 - a != stage_k(s)) compute = std::max(compute, idle_compute_s(j, 1 - a, s));
    return compute;
  }

  /// A pod group's own four-stage time, as if it were alone: the tie-breaker of Objective.
  void update_local(int g) {
    const auto gi = static_cast<std::size_t>(g);
    Seconds local = 0;
    int reconfigs = 0;
    for (int s = 0; s < kStages; ++s) {
      local += std::max(results_[gi][static_cast<std::size_t>(s)].comm, max_of(group_idle_[gi][static_cast<std::size_t>(s)]));
      reconfigs += diff_[gi][static_cast<std::size_t>(s)];
    }
    local_[gi] = local + reconfigs * fabric_.reconfig_delay_s();
    spread_total_ = 0;
    for (Seconds l : local_) spread_total_ += l;
  }

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

}  // namespace

Activity idle_activity(const Job& job, int group, int stage) {
  // A PS job pushes in stage `group` and pulls two stages later; it aggregates in the stage between.
  if (job.type == JobType::ps && stage == group + 1) return Activity::aggregate;
  return Activity::train;
}

Seconds idle_compute_s(const Job& job, int group, int stage) {
  return idle_activity(job, group, stage) == Activity::aggregate ? job.aggregate_s : job.train_s;
}

namespace {

/// Runs body(0..count-1) on up to `threads` threads (0: the hardware's, at most TrafficCache::kMemoSlots);
/// below 64 items, or with one thread, on this one. Items are handed out one by one.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
  int t = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  t = std::clamp(t, 1, TrafficCache::kMemoSlots);
  if (t == 1 || count < 64) {
    for (std::size_t k = 0; k < count; ++k) body(k);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&](int slot) {
    TrafficCache::use_slot(slot);
    for (std::size_t k; (k = next.fetch_add(1)) < count;) body(k);
    TrafficCache::use_slot(0);
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < t; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& th : pool) th.join();
}

/// Alg. 1 lines 5-13 from `state`: repeatedly move the single job whose move gives the best objective, until
/// no move improves it. With `pairs` (multistart), a stall is followed by a pass over moves of two jobs of the
/// same pod group at once (i, then the best j given i; pod groups of at most kPairMoveGroupJobs jobs that can
/// lower the round); the first pair that lowers the round itself (not only the tie-breaker) is taken and the
/// single moves resume. Returns the final objective.
Objective climb(RoundState& state, const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options,
                HillClimbStats& stats, bool pairs) {
  Objective feasible = state.objective();  // lines 2-4
  const auto n = jobs.size();
  std::vector<RoundState::Neighbour> cached(n);
  std::vector<char> valid(n, 0);
  std::vector<std::vector<int>> members_of_group;  // filled at the first pair pass
  auto invalidate = [&](int moved) {
    const int g = jobs[static_cast<std::size_t>(moved)].group;
    for (std::size_t i = 0; i < n; ++i)
      if (jobs[i].group == g) valid[i] = 0;
  };
  std::vector<int> todo;
  while (true) {  // lines 5-13
    if (options.incremental) {
      // The neighbours to re-plan (those of the last moved pod group), on several threads: each is a pure
      // function of the state, so the results do not depend on the threads.
      todo.clear();
      for (std::size_t i = 0; i < n; ++i)
        if (!valid[i]) todo.push_back(static_cast<int>(i));
      parallel_for(todo.size(), options.threads, [&](std::size_t k) {
        cached[static_cast<std::size_t>(todo[k])] = state.neighbour_group(todo[k]);
      });
      for (int i : todo) {
        valid[static_cast<std::size_t>(i)] = 1;
        stats.group_rebuilds += cached[static_cast<std::size_t>(i)].rebuilds;
      }
    }
    Objective best{kInfeasible, kInfeasible};
    int best_job = -1;
    for (std::size_t i = 0; i < n; ++i) {  // lines 8-12
      Objective v;
      if (options.incremental) {
        v = state.neighbour_objective(static_cast<int>(i), cached[i], best);
      } else {
        std::vector<int> assign = state.assign();
        assign[i] = 1 - assign[i];
        v = RoundState(fabric, jobs, TrafficCache(jobs, fabric), assign, stats).objective();
      }
      ++stats.evaluations;
      if (v < best) {
        best = v;
        best_job = static_cast<int>(i);
      }
    }
    const bool improves = best_job >= 0 && best < feasible && (options.break_ties || best.round < feasible.round);
    if (improves) {
      state.move(best_job);  // line 7
      feasible = best;
      ++stats.moves;
      if (options.on_move) options.on_move(stats.moves, feasible.round);
      invalidate(best_job);
      continue;
    }
    if (!pairs) break;  // line 5: no neighbour is better
    // Two jobs of one pod group at once (they interact through that group's Alg. 2): move i, evaluate
    // every j of its pod group from there, move i back. Moving twice restores the state exactly.
    if (members_of_group.empty()) {
      members_of_group.resize(static_cast<std::size_t>(fabric.groups()));
      for (std::size_t i = 0; i < n; ++i) members_of_group[static_cast<std::size_t>(jobs[i].group)].push_back(static_cast<int>(i));
    }
    // Only pod groups that can lower the round are tried (RoundState::critical_groups).
    const std::vector<char> critical = state.critical_groups();
    int best_first = -1;
    for (std::size_t i = 0; i < n && best_first < 0; ++i) {
      const auto& mates = members_of_group[static_cast<std::size_t>(jobs[i].group)];
      if (mates.size() < 2 || mates.size() > kPairMoveGroupJobs || !critical[static_cast<std::size_t>(jobs[i].group)])
        continue;
      state.move(static_cast<int>(i));
      Objective pair_best = feasible;
      int second = -1;
      for (int jj : mates) {
        const auto j = static_cast<std::size_t>(jj);
        if (j == i) continue;
        const RoundState::Neighbour nb = state.neighbour_group(jj);
        stats.group_rebuilds += nb.rebuilds;
        const Objective v = state.neighbour_objective(jj, nb, pair_best);
        ++stats.evaluations;
        if (v < pair_best && v.round < feasible.round) {
          pair_best = v;
          second = static_cast<int>(j);
        }
      }
      if (second >= 0) {
        state.move(second);
        feasible = pair_best;
        stats.moves += 2;
        ++stats.pair_moves;
        if (options.on_move) options.on_move(stats.moves, feasible.round);
        invalidate(static_cast<int>(i));
        invalidate(second);
        best_first = static_cast<int>(i);
      } else {
        state.move(static_cast<int>(i));
      }
    }
    if (best_first < 0) break;
  }
  return feasible;
}

/// The threshold groupings: B = every job whose training time is below a threshold, for every threshold
/// between two distinct training times. One sweep moves the jobs to B in order of training time, so each
/// grouping costs one pod group's Alg. 2 runs. Returns the best one (the first on a tie); `aggregate_comm`, when
/// given, receives stage 1's communication with every job in A (where the sweep starts).
std::vector<int> best_threshold_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs,
                                         const TrafficCache& cache, HillClimbStats& stats,
                                         Seconds* aggregate_comm = nullptr) {
  const auto n = jobs.size();
  std::vector<int> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return jobs[static_cast<std::size_t>(x)].train_s < jobs[static_cast<std::size_t>(y)].train_s;
  });
  RoundState state(fabric, jobs, cache, std::vector<int>(n, 0), stats);
  if (aggregate_comm) *aggregate_comm = state.stage_comm(0);
  Objective best = state.objective();
  std::size_t best_count = 0;
  for (std::size_t i = 0; i + 1 < n;) {  // all in B is all in A with the labels swapped: skipped
    const Seconds t = jobs[static_cast<std::size_t>(order[i])].train_s;
    while (i < n && jobs[static_cast<std::size_t>(order[i])].train_s == t) state.move(order[i++]);
    if (i == n) break;
    const Objective o = state.objective();
    if (o < best) {
      best = o;
      best_count = i;
    }
  }
  std::vector<int> assign(n, 0);
  for (std::size_t i = 0; i < best_count; ++i) assign[static_cast<std::size_t>(order[i])] = 1;
  return assign;
}

/// Each pod group's jobs split so that A and B carry about the same bytes: the jobs by decreasing bytes (over
/// both phases; ties by id), each to the side with fewer so far (longest processing time first). The round
/// takes each stage's maximum over pod groups, so every group's communication is halved at once, which no
/// sequence of single moves that each must lower the round can reach when many pod groups tie.
std::vector<int> balanced_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs, const TrafficCache& cache) {
  std::vector<Bytes> bytes(jobs.size(), 0.0);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (int t = 0; t < 2; ++t) {
      const auto& l = jobs[i].type == JobType::rar ? cache.full_local(static_cast<int>(i), t) : cache.local(static_cast<int>(i), t);
      for (const auto& [p, b] : l.pairs) bytes[i] += b;
    }
  std::vector<int> order(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return bytes[static_cast<std::size_t>(x)] > bytes[static_cast<std::size_t>(y)];
  });
  std::vector<std::array<Bytes, 2>> load(static_cast<std::size_t>(fabric.groups()), {0.0, 0.0});
  std::vector<int> assign(jobs.size(), 0);
  for (int id : order) {
    auto& l = load[static_cast<std::size_t>(jobs[static_cast<std::size_t>(id)].group)];
    const int side = l[1] < l[0] ? 1 : 0;
    assign[static_cast<std::size_t>(id)] = side;
    l[static_cast<std::size_t>(side)] += bytes[static_cast<std::size_t>(id)];
  }
  return assign;
}

}  // namespace

const char* to_string(Tdm4Search s) {
  switch (s) {
    case Tdm4Search::paper: return "paper";
    case Tdm4Search::threshold: return "threshold";
    case Tdm4Search::multistart: return "multistart";
  }
  return "?";
}

bool parse_search(const std::string& name, Tdm4Search& out) {
  for (auto s : {Tdm4Search::paper, Tdm4Search::threshold, Tdm4Search::multistart})
    if (name == to_string(s)) {
      out = s;
      return true;
    }
  return false;
}

TdmPlan plan_tdm4(const net::Fabric& fabric, const std::vector<Job>& jobs, const Tdm4Options& options) {
  HillClimbStats stats;
  const TrafficCache cache(jobs, fabric);  // per-job traffic, shared by every climb
  std::vector<int> assign;
  std::string start = "aggregate";
  Seconds aggregate_comm = 0;  // stage 1's communication with every job in A, from the first RoundState
  if (options.search == Tdm4Search::threshold) {
    assign = best_threshold_grouping(fabric, jobs, cache, stats, &aggregate_comm);
    start = "threshold";
  } else {
    RoundState paper(fabric, jobs, cache, std::vector<int>(jobs.size(), 0), stats);  // Alg. 1 line 1: A = J, B = ∅
    aggregate_comm = paper.stage_comm(0);
    const bool pairs = options.search == Tdm4Search::multistart;
    const Objective from_paper = climb(paper, fabric, jobs, options, stats, pairs);
    assign = paper.assign();
    if (options.search == Tdm4Search::multistart) {
      // More climbs, from the best threshold grouping and from the balanced grouping; the best end point wins
      // (the earlier one on a tie).
      Objective best = from_paper;
      const std::pair<const char*, std::vector<int>> starts[] = {
          {"threshold", best_threshold_grouping(fabric, jobs, cache, stats)},
          {"balanced", balanced_grouping(fabric, jobs, cache)}};
      for (const auto& [name, grouping] : starts) {
        RoundState other(fabric, jobs, cache, grouping, stats);
        const Objective end = climb(other, fabric, jobs, options, stats, pairs);
        if (end < best) {
          best = end;
          assign = other.assign();
          start = name;
        }
      }
    }
  }
  TdmPlan plan = plan_for_grouping(fabric, jobs, assign, "tdm4");
  plan.stats = stats;
  plan.search = to_string(options.search);
  plan.search_start = start;
  plan.aggregate_comm_s = aggregate_comm;
  return plan;
}

TdmPlan plan_aggregate(const net::Fabric& fabric, const std::vector<Job>& jobs) {
  TdmPlan plan = plan_for_grouping(fabric, jobs, std::vector<int>(jobs.size(), 0), "aggregate");
  plan.aggregate_comm_s = plan.stages[0].comm_s;
  return plan;
}

TdmPlan plan_for_grouping(const net::Fabric& fabric, const std::vector<Job>& jobs,
                          const std::vector<int>& group_of_job, const std::string& policy,
                          const PlanOverrides* overrides) {
  TdmPlan plan;
  plan.policy = policy;
  plan.group_of_job = group_of_job;
  // Which pod group, and which pair or ToR link in it, gives the stage its communication time, and the
  // fractional optimum of Eq. (2) under Eq. (6) for the same demand (stages.csv).
  auto explain = [&](StagePlan& st, int g, const GroupDemand& d, const GroupResult& r) {
    st.comm_lower_bound_s =
        std::max(st.comm_lower_bound_s, fractional_comm_bound(d, limits_of(fabric), fabric.spec().ports_per_oxc));
    if (st.bound_group >= 0 && r.comm <= st.comm_s) return;
    const Bottleneck b = bottleneck_of(d, r.circuits, limits_of(fabric));
    const int first = fabric.first_pod(g);
    st.bound_group = g;
    if (b.pair >= 0) {
      const auto [x, y] = d.pair_ends(b.pair);
      st.bound_at = fmt::format("pods {}-{}", first + x, first + y);
    } else {
      st.bound_at = b.tor_pod >= 0 ? fmt::format("tor {}", first + b.tor_pod) : "";
    }
  };
  const TrafficCache cache(jobs, fabric);
  std::vector<std::array<std::vector<int>, 2>> members(static_cast<std::size_t>(fabric.groups()));
  for (const auto& j : jobs) members[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(group_of_job[static_cast<std::size_t>(j.id)])].push_back(j.id);
  // Alg. 2 per pod group and stage; a pod group idle in a stage holds its previous circuits.
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    st.index = s;
    st.k = stage_k(s);
    st.t = stage_t(s);
    st.config = fabric.empty_config();
  }
  for (int g = 0; g < fabric.groups(); ++g) {
    StageResults r;
    for (int s = 0; s < kStages; ++s) {
      StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
      const auto& ids = members[static_cast<std::size_t>(g)][static_cast<std::size_t>(st.k)];
      r[s].circuits.assign(static_cast<std::size_t>(fabric.pairs_per_group()), 0);
      if (ids.empty()) continue;
      r[s].idle = false;
      if (overrides) {
        // The given rings and circuits; the communication time is Eq. (2) on them.
        GroupDemand d(fabric.pods_per_group());
        const int first = fabric.first_pod(g);
        for (int id : ids) {
          st.work.push_back({id, Activity::communicate, st.t, 0,
                             job_traffic(cache, id, st.t, overrides->ring_of_job[static_cast<std::size_t>(id)])});
          for (const auto& f : st.work.back().traffic.flows) d.add_flow(f.src - first, f.dst - first, f.bytes);
          for (const auto& v : st.work.back().traffic.tor) d.tor_load[static_cast<std::size_t>(v.pod - first)] += v.bytes;
        }
        const auto& all = overrides->circuits_of_group[static_cast<std::size_t>(st.k)];
        r[s].circuits.assign(all.begin() + g * fabric.pairs_per_group(), all.begin() + (g + 1) * fabric.pairs_per_group());
        for (std::size_t p = 0; p < d.pair_load.size(); ++p)
          if (d.pair_load[p] > 0)
            r[s].comm = std::max(r[s].comm, d.pair_load[p] / (r[s].circuits[p] * fabric.port_bytes_per_s()));
        for (Bytes b : d.tor_load) r[s].comm = std::max(r[s].comm, b / fabric.tor_bytes_per_s());
        explain(st, g, d, r[s]);
        st.comm_s = std::max(st.comm_s, r[s].comm);
        continue;
      }
      const GroupStage gs = group_stage_demand(fabric, g, ids, st.t, cache);
      const GroupTopology topo = build_topology(gs.demand, limits_of(fabric));
      r[s].comm = topo.t_comm;
      r[s].circuits = topo.circuits;
      explain(st, g, gs.demand, r[s]);
      st.comm_s = std::max(st.comm_s, topo.t_comm);
      for (int id : ids) st.work.push_back({id, Activity::communicate, st.t, 0, job_traffic(cache, id, st.t, gs.ring_of(id))});
    }
    const auto held = held_circuits(r);
    for (int s = 0; s < kStages; ++s)
      std::copy(held[static_cast<std::size_t>(s)]->begin(), held[static_cast<std::size_t>(s)]->end(),
                plan.stages[static_cast<std::size_t>(s)].config.circuits.begin() + g * fabric.pairs_per_group());
  }
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    for (const auto& j : jobs) {
      const int grp = group_of_job[static_cast<std::size_t>(j.id)];
      if (grp == st.k) continue;
      const Seconds c = idle_compute_s(j, grp, s);
      st.work.push_back({j.id, idle_activity(j, grp, s), 0, c, {}});
      st.compute_s = std::max(st.compute_s, c);
    }
    std::sort(st.work.begin(), st.work.end(), [](const StageWork& x, const StageWork& y) { return x.job < y.job; });
    st.seed_s = std::max(st.comm_s, st.compute_s);  // Eq. (3)
  }
  // ε (Alg. 1 line 3) and the engine's view: only changed circuits stall, each for δ.
  for (int s = 0; s < kStages; ++s) {
    StagePlan& st = plan.stages[static_cast<std::size_t>(s)];
    const auto& prev = plan.stages[static_cast<std::size_t>(prev_stage(s))].config;
    st.circuits_changed = net::CircuitConfig::changed(prev, st.config);
    if (prev != st.config) plan.epsilon_s += fabric.reconfig_delay_s();
    std::vector<const StageWork*> work;
    for (const auto& w : st.work) work.push_back(&w);
    const StageTiming timing = time_stage(fabric, work, prev, st.config);  // its compute is st.compute_s
    st.predicted_s = timing.predicted;
    st.bound = timing.bound;
    plan.round_s += st.predicted_s;
    plan.seed_round_s += st.seed_s;
  }
  plan.seed_round_s += plan.epsilon_s;  // Eq. (1) + ε
  return plan;
}

}  // namespace odcn::sched
