#pragma once
#include <utility>
#include <vector>

#include "net/fabric.hpp"
#include "policy/topology.hpp"
#include "systems/tdm4/job.hpp"
#include "systems/tdm4/traffic.hpp"

namespace odcn::sched {

using Arcs = std::vector<std::pair<int, int>>;


/// Per-job traffic that does not depend on the other jobs (Eq. 4–5), computed once per job.
class TrafficCache {
 public:
  TrafficCache(const std::vector<workload::Job>& jobs, const net::Fabric& fabric);
  const workload::Job& job(int id) const { return (*jobs_)[static_cast<std::size_t>(id)]; }
  /// PS: phase 0 push / 1 pull. AllToAll: its collective. RAR: the intra-unit gathers and ToR volumes only.
  const workload::PhaseTraffic& fixed(int id, int phase) const;
  const std::vector<int>& ring_members(int id) const { return members_[static_cast<std::size_t>(id)]; }
  Bytes ring_edge(int id) const { return ring_edge_[static_cast<std::size_t>(id)]; }

  /// fixed(id, phase) in the job's pod group's local indices, both directions of a pair summed: what Alg. 2
  /// adds for the job. Byte counts are whole numbers, so these sums are exact in any order.
  struct LocalLoad {
    std::vector<std::pair<int, Bytes>> pairs;  ///< (local pair, bytes)
    std::vector<std::pair<int, Bytes>> tor;    ///< (local pod, bytes)
  };
  const LocalLoad& local(int id, int phase) const { return local_[phase][static_cast<std::size_t>(id)]; }

  /// Alg. 3 for job `id` given which pairs among its ring members are linked. Alg. 3 depends on nothing
  /// else, so the last answer per job is remembered and reused when the linked pairs are the same. Each of
  /// the kMemoSlots threads that may plan at once keeps its own memory (use_slot).
  const Arcs& ring(int id, const std::vector<char>& linked) const;
  static constexpr int kMemoSlots = 8;
  /// The memory the calling thread uses (0 on the main thread; a planner's worker threads 1..kMemoSlots-1).
  static void use_slot(int slot);
  /// The local pair of ring members a and b at [a·m + b] (−1 on the diagonal).
  const std::vector<int>& member_pairs(int id) const { return member_pairs_[static_cast<std::size_t>(id)]; }
  /// Alg. 3's ring when every pair among the members is linked, and local(id, phase) plus its arcs' bytes.
  const Arcs& full_ring(int id) const { return full_ring_[static_cast<std::size_t>(id)]; }
  const LocalLoad& full_local(int id, int phase) const { return full_local_[phase][static_cast<std::size_t>(id)]; }

 private:
  const std::vector<workload::Job>* jobs_;
  std::vector<workload::PhaseTraffic> fixed_[2];
  std::vector<LocalLoad> local_[2];
  std::vector<std::vector<int>> members_;
  std::vector<Bytes> ring_edge_;
  std::vector<std::vector<int>> member_pairs_;
  std::vector<Arcs> full_ring_;
  std::vector<LocalLoad> full_local_[2];
  struct RingMemo {
    bool valid = false;
    std::vector<char> linked;
    Arcs ring;
  };
  mutable std::vector<RingMemo> ring_memo_[kMemoSlots];
};

/// Traffic of one OXC pod group in one communication stage, and the rings chosen for its RAR jobs.
struct GroupStage {
  GroupDemand demand;
  std::vector<std::pair<int, Arcs>> rings;  ///< (job id, ring arcs in global pods)
  /// The ring chosen for job `id`; empty for a job that has none (non-RAR, or not in this stage).
  const Arcs& ring_of(int id) const;
};

/// Lines 1–8 of Alg. 2: add the fixed traffic of every non-RAR job first, then form each RAR job's ring
/// with Alg. 3 against the links demanded so far, in job-id order. `phase` is the stage's t (PS push/pull;
/// RAR and AllToAll run their collective in both).
GroupStage group_stage_demand(const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
                              const TrafficCache& cache);

/// Alg. 2 lines 2-4 alone: the summed traffic of the non-RAR jobs among `job_ids`.
GroupDemand fixed_demand(const net::Fabric& fabric, const std::vector<int>& job_ids, int phase,
                         const TrafficCache& cache);
/// Adds (sign = +1) or removes (sign = -1) one job's fixed traffic. Byte counts are whole numbers, so this is
/// exact: removing a job gives bit for bit the demand computed without it.
void shift_fixed(GroupDemand& d, const TrafficCache& cache, int id, int phase, int sign);
/// Alg. 2 lines 5-8 on top of `gs`: the rings of the RAR jobs among `job_ids`, in id order.
void add_rings(GroupStage& gs, const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
               const TrafficCache& cache);

/// add_rings on a bare demand; the rings are appended to `rings` when it is given (a planner that only needs
/// the times passes nullptr). Returns when every pair of the pod group became linked: −1 before the first ring
/// (by the fixed traffic), the id of the RAR job whose ring linked the last pair, or kNeverSaturated. From then
/// on Alg. 3 forms every ring on a fully linked sub-topology (TrafficCache::full_ring).
int add_ring_loads(GroupDemand& d, const net::Fabric& fabric, int group, const std::vector<int>& job_ids, int phase,
                   const TrafficCache& cache, std::vector<std::pair<int, Arcs>>* rings);
constexpr int kNeverSaturated = 2'147'483'647;
/// Adds (+1) or removes (−1) a RAR job's full-ring load (full_local). Exact, as shift_fixed.
void shift_full(GroupDemand& d, const TrafficCache& cache, int id, int phase, int sign);

/// The traffic of job `id` in `phase` given the ring chosen for it (ignored for non-RAR jobs).
workload::PhaseTraffic job_traffic(const TrafficCache& cache, int id, int phase, const Arcs& ring);

TopologyLimits limits_of(const net::Fabric& fabric);

}  // namespace odcn::sched
