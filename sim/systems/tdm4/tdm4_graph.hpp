#pragma once
// The training jobs of the TDM-4 paper (Tang, Chen, Zhu: PS, ring all-reduce and all-to-all jobs, §II.B) as
// task graphs at pod granularity: rank r is the job's r-th pod (ascending), and one rank stands for the job's
// GPUs in that pod (DESIGN.md §3: aggregate, don't enumerate).
//
//   PS:                train ─► push ─► aggregate (on the parameter server's pod) ─► pull
//   RAR, all-to-all:   train ─► collective
//
// Training runs on every rank at once for t_train (Eq. 8); how a collective's bytes cross the fabric (the pod
// flows and ToR volumes of Eq. 4-5, and for RAR the ring Alg. 3 chose) is the policy's routing decision, which
// its controller gives when the task starts.
#include <vector>

#include "systems/tdm4/job.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

/// Task indices of the graphs above.
struct Tdm4Task {
  static constexpr int train = 0;
  static constexpr int push = 1;        ///< PS
  static constexpr int aggregate = 2;   ///< PS
  static constexpr int pull = 3;        ///< PS
  static constexpr int collective = 1;  ///< RAR, all-to-all
};

/// The job's graph, with `iterations` iterations.
JobGraph tdm4_job_graph(const Job& job, int iterations);

/// The communication phase a task carries (PS: push 0, pull 1; others: the collective, 0), or -1 for compute.
int tdm4_comm_phase(const Job& job, int task);

/// The task that runs communication phase `phase` (the inverse of tdm4_comm_phase).
int tdm4_comm_task(const Job& job, int phase);

/// The pods of the job's ranks, in rank order.
std::vector<int> tdm4_rank_pods(const Job& job);

}  // namespace odcn::workload
