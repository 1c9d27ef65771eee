#include "systems/tdm4/tdm4_graph.hpp"

#include <algorithm>

namespace odcn::workload {

std::vector<int> tdm4_rank_pods(const Job& job) {
  std::vector<int> pods;
  for (const auto& [pod, gpus] : job.placement) pods.push_back(pod);
  return pods;
}

JobGraph tdm4_job_graph(const Job& job, int iterations) {
  JobGraph g;
  g.name = job.name;
  g.ranks = static_cast<int>(job.placement.size());
  g.iterations = iterations;
  std::vector<int> all(static_cast<std::size_t>(g.ranks));
  for (int r = 0; r < g.ranks; ++r) all[static_cast<std::size_t>(r)] = r;
  Task train;
  train.name = "train";
  train.kind = TaskKind::compute;
  train.rank = kAllRanks;
  train.duration_s = job.train_s;
  g.tasks.push_back(train);
  const Bytes per_rank = job.per_gpu_bytes * job.gpus_per_unit;
  if (job.type == JobType::ps) {
    const auto pods = tdm4_rank_pods(job);
    const int root = static_cast<int>(std::find(pods.begin(), pods.end(), job.ps_pod) - pods.begin());
    Task push;
    push.name = "push";
    push.kind = TaskKind::collective;
    push.op = CollectiveOp::ps_push;
    push.algorithm = CollectiveAlgorithm::parameter_server;
    push.group = all;
    push.root = root;
    push.bytes = per_rank;
    push.deps = {Tdm4Task::train};
    g.tasks.push_back(push);
    Task aggregate;
    aggregate.name = "aggregate";
    aggregate.kind = TaskKind::compute;
    aggregate.rank = root;
    aggregate.duration_s = job.aggregate_s;
    aggregate.deps = {Tdm4Task::push};
    g.tasks.push_back(aggregate);
    Task pull = push;
    pull.name = "pull";
    pull.op = CollectiveOp::ps_pull;
    pull.deps = {Tdm4Task::aggregate};
    g.tasks.push_back(pull);
  } else {
    Task c;
    c.name = "collective";
    c.kind = TaskKind::collective;
    c.op = job.type == JobType::rar ? CollectiveOp::all_reduce : CollectiveOp::all_to_all;
    c.algorithm = job.type == JobType::rar ? CollectiveAlgorithm::ring : CollectiveAlgorithm::direct;
    c.group = all;
    c.bytes = per_rank;
    c.deps = {Tdm4Task::train};
    g.tasks.push_back(c);
  }
  return g;
}

int tdm4_comm_phase(const Job& job, int task) {
  if (job.type == JobType::ps) return task == Tdm4Task::push ? 0 : task == Tdm4Task::pull ? 1 : -1;
  return task == Tdm4Task::collective ? 0 : -1;
}

int tdm4_comm_task(const Job& job, int phase) {
  if (job.type == JobType::ps) return phase == 0 ? Tdm4Task::push : Tdm4Task::pull;
  return Tdm4Task::collective;
}

}  // namespace odcn::workload
