#pragma once
// Per-rank traces as importers read them, and their assembly into one job graph (docs/traces.md).
//
// An importer (Kineto, Chakra ET) turns one rank's file into a RankTrace: its events in the order the rank
// issued them, each naming where in the file it came from. assemble_job_graph then joins the ranks:
//   * a compute event becomes a compute task on its rank;
//   * a collective is matched across the ranks of its process group by the group's name (or its member list
//     when it has no name) and its order on each rank: the k-th collective of group g on rank r is the same
//     collective as the k-th of g on every other member. Members must agree on the operation and the bytes;
//   * a send is matched with the receive of the same (sender, receiver) pair in order, into one transfer;
//   * a barrier is matched like the collectives of its group (it takes its place in their order) and moves
//     nothing; a relay-only barrier (a file format's way of carrying a dependency between ranks) is then left
//     out of the graph, its dependents waiting for its dependencies directly.
// An event depends on the previous event of its rank unless the trace gives its own dependencies (Chakra's data
// and control edges), in which case it depends exactly on those (indices into the rank's events).
// A matched task waits for the dependencies of all its members. Anything that does not match (a member rank that
// never joins, different bytes, a send without its receive, a cycle) is refused with InputError naming the file
// and the event; nothing is guessed.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"
#include "graph/collective.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

struct RankEvent {
  enum class Kind { compute, collective, send, recv, barrier };
  Kind kind = Kind::compute;
  std::string name;
  std::string field;  ///< where it is in the rank's file, for errors ("traceEvents[1204]", "node 77")
  Seconds duration_s = 0;           ///< compute
  CollectiveOp op = CollectiveOp::all_reduce;  ///< collective
  Bytes bytes = 0;                  ///< collective: S as collective.hpp defines it; send/recv: the message
  std::string group_name;           ///< collective, barrier: the process group's name ("" when the trace has none)
  bool relay_only = false;          ///< barrier: it only carries dependencies (left out of the graph)
  std::vector<int> group;           ///< collective, barrier: its global ranks, ascending
  int root = 0;                     ///< collective: index into `group` (broadcast)
  int peer = -1;                    ///< send: the receiver; recv: the sender (global ranks)
  /// Indices of earlier events of this rank that must finish first; unset: the previous event (a chain).
  std::optional<std::vector<int>> deps;
};

struct RankTrace {
  int rank = 0;        ///< global rank
  std::string file;    ///< for errors
  std::vector<RankEvent> events;
};

struct AssembleOptions {
  std::string name = "trace";
  /// Ranks of the job: every rank 0..ranks-1 must have a trace.
  int ranks = 0;
  int iterations = 1;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  ///< for all-reduce, reduce-scatter, all-gather
};

/// Joins the ranks' traces into one job graph (rules above) and validates it. Raises InputError(file, field,
/// reason) for the first event that cannot be matched.
JobGraph assemble_job_graph(const std::vector<RankTrace>& ranks, const AssembleOptions& options);

/// Copies of `trace` for every rank 0..ranks-1 that has none, for a job whose ranks all run the same program
/// (SPMD: data parallelism) when only some ranks were profiled. Used only when the user asks for it.
std::vector<RankTrace> replicate_ranks(const std::vector<RankTrace>& traces, int ranks);

/// `s` as (part of) a job-graph id or job name (spec::checked_name): commas, double quotes, control characters
/// and bytes that are not well-formed UTF-8 become '_', and the result is cut to at most `max_bytes` on a
/// character boundary.
std::string name_part(std::string_view s, std::size_t max_bytes);

/// Ranks as an error message shows them, bounded: "0, 1, 2" for up to 16, else the first 8, "...", the last one
/// and the count ("0, 1, ..., 7, ..., 99999 (100000 ranks)").
std::string ranks_text(const std::vector<int>& ranks);

/// A job name from a trace file's path: its name without its directory and, repeatedly, any of `endings`
/// (".gz", ".json", ".et", ...), then without a rank number that ends it (".0", "_0", "-0", "rank0");
/// then name_part; `fallback` when nothing is left.
std::string job_name_of_file(const std::string& path, std::initializer_list<const char*> endings,
                             const std::string& fallback);

/// The size in bytes of one element of a PyTorch dtype as profilers name it ("Float", "float32", "BFloat16",
/// "c10::Half", "Long", ...); 0 when the name is not known.
int dtype_bytes(const std::string& dtype);

}  // namespace odcn::workload
