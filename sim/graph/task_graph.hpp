#pragma once
// A job as a task graph (DESIGN §2): compute, transfer, collective and barrier tasks with dependencies,
// repeated for a number of iterations, arriving at a given time. Ranks (0..ranks-1) are the job's endpoints;
// a placement maps them onto the fabric's endpoints (pods, servers or GPUs). The engine issues a task when
// all its dependencies of the same iteration are done; iteration i+1 starts when iteration i has finished.
//
// This is the data model and its graph algorithms (Boost.Graph), tested without SimGrid; sim/engine runs it.
#include <functional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "graph/collective.hpp"

namespace odcn::workload {

enum class TaskKind { compute, transfer, collective, barrier };
/// A compute task's rank meaning every rank of the job at once, for the same time (generators of pod-level
/// graphs use it; job-graph files name one rank).
constexpr int kAllRanks = -1;
const char* to_string(TaskKind k);

struct Task {
  std::string name;
  TaskKind kind = TaskKind::compute;
  int rank = 0;                ///< compute: where it runs
  Seconds duration_s = 0;      ///< compute
  int src = 0, dst = 0;        ///< transfer: ranks
  Bytes bytes = 0;             ///< transfer: bytes; collective: S (collective.hpp)
  CollectiveOp op = CollectiveOp::all_reduce;                      ///< collective
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;       ///< collective
  std::vector<int> group;      ///< collective: its ranks, in ring order
  int root = 0;                ///< collective: index into `group` (broadcast, ps-push, ps-pull)
  std::vector<int> deps;       ///< indices of tasks of the same iteration that must finish first
};

/// `duration` of computation on `rank` (kAllRanks: every rank at once), after the tasks `deps`.
Task compute_task(std::string name, int rank, Seconds duration, std::vector<int> deps = {});
/// `bytes` from rank src to rank dst, after the tasks `deps`.
Task transfer_task(std::string name, int src, int dst, Bytes bytes, std::vector<int> deps = {});
/// A collective `op` by `algorithm` over `group` (its ranks, in ring order) of `bytes`, after the tasks `deps`.
Task collective_task(std::string name, CollectiveOp op, CollectiveAlgorithm algorithm, std::vector<int> group,
                     Bytes bytes, std::vector<int> deps = {});

struct JobGraph {
  std::string name;
  int ranks = 1;
  std::vector<Task> tasks;
  int iterations = 1;
  Seconds arrival_s = 0;
  /// What an importer read other than at the trace's face value (a whole trace for want of a step, CPU-op
  /// timing, collectives without a process group, events dropped), one line per kind with its count, for the
  /// command line. Not part of the job-graph file.
  std::vector<std::string> notes;
};

/// Checks ranks, groups, sizes and dependencies (indices in range, no self-dependency, no cycle). Raises
/// InputError(file, "<field>.tasks[i]...", reason); an empty `field` names the fields from the root.
void validate(const JobGraph& g, const std::string& file, const std::string& field);

/// A topological order of the tasks (Boost.Graph's topological_sort); ties keep the lower index first, so
/// the order is deterministic. Raises InputError(file, field, ...) naming a task on a cycle.
std::vector<int> topological_order(const JobGraph& g, const std::string& file = "(graph)",
                                   const std::string& field = "tasks");

/// The longest chain of dependent tasks when each task takes `duration(task)`: its length and its tasks in
/// order (a lower bound of one iteration's time on any fabric).
struct CriticalPath {
  Seconds length_s = 0;
  std::vector<int> tasks;
};
CriticalPath critical_path(const JobGraph& g, const std::function<Seconds(const Task&)>& duration);

}  // namespace odcn::workload
