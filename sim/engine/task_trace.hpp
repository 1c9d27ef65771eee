#pragma once
// The slices a job's tasks leave in trace.json (trace::TraceEvent, docs/outputs.md). A pod-level job (TDM-4's
// and INC-AOI's generated graphs, whose compute runs on every rank at once) has one thread: its tasks run one
// after another, so its slices nest. A rank-level job (a job-graph file, TorchTitan, DLRM, a profile) runs
// many tasks at once on different ranks, so each of its slices goes on the thread of the rank it ran on, and a
// communication on every rank it involves; ChromeTraceWriter splits a rank's slices further into lanes that
// never overlap.
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "graph/task_graph.hpp"
#include "trace/rows.hpp"

namespace odcn::engine {

class TaskTrace {
 public:
  TaskTrace(trace::RunRecord& record, const std::string& endpoint_word)
      : record_(record), endpoint_word_(endpoint_word) {}
  /// Names a rank-level job's rank threads ("rank R · gpu E"); call it for every job, in id order, before
  /// its first slice.
  void add_job(const JobToRun& job);
  /// Where and when a task ran, and of which iteration.
  struct Slice {
    const JobToRun* job = nullptr;
    const workload::Task* task = nullptr;
    int iteration = 0;
    bool warm = false;
    Seconds start_s = 0;
    Seconds duration_s = 0;
  };
  void compute(const Slice& s);
  /// A transfer or collective that moved `bytes` and waited `stall_s` on circuits being set up.
  void comm(const Slice& s, Bytes bytes, Seconds stall_s);

 private:
  bool rank_level(const JobToRun& job) const;
  std::string base_args(const Slice& s) const;
  int endpoint(const JobToRun& job, int rank) const;
  /// Adds the slice on the rank's thread (rank -1: the job's own thread).
  void add(const Slice& s, const char* category, int rank, const std::string& args);
  trace::RunRecord& record_;
  std::string endpoint_word_;
  std::vector<char> rank_level_;  ///< by job id
  std::vector<int> endpoints_;    ///< scratch: the endpoints of a communication
  std::vector<int> ranks_;        ///< scratch: the ranks of a communication
};

}  // namespace odcn::engine
