#include "systems/opus/torchtitan_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace odcn::workload {

std::string pipeline_schedule_error(int pp, int v, int m) {
  if (pp < 1 || v < 1 || m < 1) return "pp, virtual_stages and microbatches must be at least 1";
  if (v == 1) return "";
  if (pp < 2) return fmt::format("virtual_stages {} needs pp of at least 2 (interleaved 1F1B)", v);
  const int rounds = std::max(1, m / pp);
  if (m % rounds != 0)
    return fmt::format("interleaved 1F1B (virtual_stages {}) needs microbatches to be a multiple of its rounds, "
                       "max(1, microbatches / pp) = {} (got microbatches {}, pp {})",
                       v, rounds, m, pp);
  return "";
}

namespace {

// Schedule1F1B: warm-up forwards, then 1F1B, then the backwards left (the order PyTorch's Schedule1F1B runs on
// stage `rank` of `pp`).
std::vector<PipelineOp> one_f_one_b(int pp, int m, int rank) {
  std::vector<PipelineOp> ops;
  const int warm = std::min(pp - rank - 1, m);
  for (int i = 0; i < warm; ++i) ops.push_back({rank, false, i});
  for (int i = 0; i < m - warm; ++i) {
    ops.push_back({rank, false, warm + i});
    ops.push_back({rank, true, i});
  }
  for (int i = m - warm; i < m; ++i) ops.push_back({rank, true, i});
  return ops;
}

// ScheduleInterleaved1F1B._calculate_single_rank_operations and _get_1f1b_rank_ops (PyTorch,
// torch/distributed/pipelining/schedules.py, commit 00722e648b740f91d0e71494baa17891749fd291), without the idle
// (None) slots, which only align the ranks' steps in PyTorch's table:
//   rounds = max(1, m / pp), per_round = m / rounds;
//   warm-up = min((v − 1) · per_round + 2 · (pp − 1 − rank), m · v); then m · v − warm-up 1F1B steps (one forward,
//   one backward); then warm-up backwards;
//   step k's forward is on local stage (k / per_round) mod v, its backward on local stage
//   v − 1 − ((k − warm-up) / per_round) mod v; local stage j is model stage j · pp + rank;
//   each model stage takes its micro-batches in order 0, 1, ….
std::vector<PipelineOp> interleaved(int pp, int v, int m, int rank) {
  const int rounds = std::max(1, m / pp), per_round = m / rounds;
  const int total = m * v;
  const int warmup = std::min((v - 1) * per_round + 2 * (pp - 1 - rank), total);
  const int fwd_bwd = total - warmup;
  auto forward_stage = [&](int step) { return ((step / per_round) % v) * pp + rank; };
  auto backward_stage = [&](int step) { return (v - 1 - ((step - warmup) / per_round) % v) * pp + rank; };
  std::map<int, int> next_fwd, next_bwd;  // model stage -> its next micro-batch
  std::vector<PipelineOp> ops;
  auto forward = [&](int step) {
    const int s = forward_stage(step);
    ops.push_back({s, false, next_fwd[s]++});
  };
  auto backward = [&](int step) {
    const int s = backward_stage(step);
    ops.push_back({s, true, next_bwd[s]++});
  };
  for (int step = 0; step < warmup + fwd_bwd + warmup; ++step) {
    if (step < warmup) {
      forward(step);
    } else if (step < warmup + fwd_bwd) {
      forward(step);
      backward(step);
    } else {
      backward(step);
    }
  }
  return ops;
}

}  // namespace

std::vector<PipelineOp> pipeline_order(int pp, int v, int m, int rank) {
  return v == 1 ? one_f_one_b(pp, m, rank) : interleaved(pp, v, m, rank);
}

}  // namespace odcn::workload
