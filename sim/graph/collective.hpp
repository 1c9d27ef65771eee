#pragma once
// Collectives lowered to transfers: a small algorithm library. A collective among n ranks is a list of steps;
// the flows of a step run at the same time, and a step starts when the previous one has ended. Byte counts
// follow NCCL's conventions (S is the per-rank buffer the operation is named after):
//
//   operation        S is                      ring                             direct / parameter server
//   all-reduce       each rank's buffer        2(n-1) steps of S/n to the next  reduce-scatter + all-gather, 2 steps
//   reduce-scatter   each rank's input         n-1 steps of S/n to the next     1 step: S/n to every other rank
//   all-gather       each rank's output        n-1 steps of S/n to the next     1 step: S/n to every other rank
//   all-to-all       each rank's send buffer   (not offered)                    1 step: S/n to every other rank
//   broadcast        the root's buffer         1 step: S along the chain        1 step: S from the root to each
//                                              (the fluid limit of a pipeline)
//   ps-push/ps-pull  each worker's gradients   (not offered)                    1 step: S from each worker to the
//                                                                               root (push) or back (pull)
//   send-recv        the message               (not offered)                    1 step: S from rank 0 to rank 1
//
// On n ranks whose NICs send and receive at B each, behind a non-blocking switch, each algorithm takes its
// textbook time, e.g. ring all-reduce 2(n-1)/n * S / B (closed_form_seconds, tested per algorithm).
// Bytes are kept as real numbers here; the engine rounds each transfer to whole bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace odcn::workload {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, ps_push, ps_pull, send_recv };
enum class CollectiveAlgorithm { ring, direct, parameter_server };

const char* to_string(CollectiveOp op);
const char* to_string(CollectiveAlgorithm a);
/// The names above with '-' ("all-reduce", "ps-push", ...); false when `name` is none of them.
bool parse_collective_op(const std::string& name, CollectiveOp& op);
bool parse_collective_algorithm(const std::string& name, CollectiveAlgorithm& a);

/// Whether `a` implements `op` (the table above); ps-push/ps-pull take only parameter_server, send-recv only
/// direct.
bool supports(CollectiveOp op, CollectiveAlgorithm a);

/// One transfer between ranks of the collective's group (0..n-1).
struct RankFlow {
  int src = 0;
  int dst = 0;
  Bytes bytes = 0;
};

struct CollectiveSchedule {
  std::vector<std::vector<RankFlow>> steps;
  Bytes total_bytes() const;
};

/// Lowers `op` with algorithm `a` over n ranks, S bytes, rooted at `root` (broadcast, ps-push, ps-pull).
/// Requires supports(op, a), n >= 2 (send-recv: n == 2), 0 <= root < n, S > 0; raises std::invalid_argument
/// otherwise (specs validate before lowering, so this is a programming error).
CollectiveSchedule lower_collective(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root = 0);

/// The flows of lower_collective(op, a, n, ...) summed over its steps, from the table above without lowering
/// (an all-to-all over 65,536 ranks has 4.3e9): the work bound of a job graph (docs/limits.md). Requires
/// supports(op, a) and n >= 2.
std::int64_t flow_count(CollectiveOp op, CollectiveAlgorithm a, int n);

/// The ring schedule `ring` of an all-reduce, reduce-scatter or all-gather over n > 2 ranks as two
/// counter-rotating rings, as NCCL runs a ring over a NIC whose ports reach the two neighbours separately: every
/// flow of b bytes from rank i to rank i+1 becomes b/2 to i+1 and b/2 to i-1. A rank still sends and receives b
/// per step, so closed_form_seconds is unchanged; on circuits of one port to each neighbour, both ports carry
/// traffic each way. Raises std::invalid_argument for a flow that does not go to the next rank.
CollectiveSchedule counter_rotating(const CollectiveSchedule& ring, int n);
/// Whether counter_rotating applies: a ring all-reduce, reduce-scatter or all-gather over more than two ranks.
bool has_counter_rotating(CollectiveOp op, CollectiveAlgorithm a, int n);
/// lower_collective as the engine runs it: as counter-rotating rings where `counter_rotating_rings` (the
/// network's, net::Network) and has_counter_rotating say so.
CollectiveSchedule lower_collective(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root,
                                    bool counter_rotating_rings);

/// Consecutive identical steps of a schedule: `flows`, `times` times in a row.
struct StepRun {
  std::vector<RankFlow> flows;
  int times = 1;
};
/// lower_collective(op, a, n, s, root, counter_rotating_rings) as runs of identical consecutive steps, in order,
/// without building the repeats: a ring's 2(n - 1) steps are one run (2 million flows over 1,024 ranks otherwise).
std::vector<StepRun> lower_collective_runs(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root,
                                          bool counter_rotating_rings);

/// A step as the engine runs it: `flows` start together; with `to_hub`, each flow stands for a source's
/// equal share to every other rank and is sent to a hub that only the sources' NICs limit.
struct EngineStep {
  std::vector<RankFlow> flows;
  bool to_hub = false;
};

/// Fewer, larger transfers with the same fluid timing when every NIC has the same rate both ways, so that
/// thousands of ranks stay cheap to simulate:
/// - consecutive identical steps in which every rank sends at most one flow and receives at most one, all of
///   the same size (a ring step), become one step of the summed sizes: each flow runs at the full NIC rate in
///   every step, so k steps take k times as long as one;
/// - a step in which every rank sends the same bytes to every other rank (all-to-all) becomes one flow per
///   source carrying its total, to a hub: by symmetry every flow of the original step runs at B/(n-1) and all
///   end together, exactly when the source's total has left at B.
/// Any other step is kept as it is. closed_form_seconds of the result equals that of the input.
std::vector<EngineStep> compact_for_uniform_nics(const CollectiveSchedule& schedule, int n);

/// compact_for_uniform_nics(lower_collective(op, a, n, s, root), n) without building the O(n^2) flows of the
/// full lowering first (a ring all-reduce over 4,096 ranks has 33 million): the same steps, built directly.
std::vector<EngineStep> lower_compact(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root = 0);

/// The textbook time of each operation on n ranks with NICs of B each way behind a non-blocking switch,
/// written from the formulas of the table above (not from a lowering): e.g. ring all-reduce 2(n-1)/n * S/B.
Seconds textbook_seconds(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, BytesPerSecond nic);

/// The time of `schedule` on n ranks whose NICs each send at B and receive at B (full duplex) behind a
/// non-blocking switch, when every step is bound by its busiest NIC: the sum over steps of
/// max(bytes a rank sends, bytes a rank receives) / B. The closed forms of the table above are this value.
Seconds closed_form_seconds(const CollectiveSchedule& schedule, int n, BytesPerSecond nic);

}  // namespace odcn::workload
