#pragma once
// The order in which one pipeline rank runs its forwards and backwards: 1F1B with one model stage per rank, and
// interleaved 1F1B with `v` model stages (virtual stages, chunks) per rank, model stage s on rank s mod pp, as
// PyTorch's torch.distributed.pipelining (schedules.py: Schedule1F1B, ScheduleInterleaved1F1B) orders them.
#include <string>
#include <vector>

namespace odcn::workload {

/// One compute action of a rank: the forward or the full backward of micro-batch `microbatch` on model stage
/// `stage` (0 … pp·v − 1).
struct PipelineOp {
  int stage = 0;
  bool backward = false;
  int microbatch = 0;
  bool operator==(const PipelineOp& o) const {
    return stage == o.stage && backward == o.backward && microbatch == o.microbatch;
  }
};

/// Empty when pp ranks with v model stages each can run m micro-batches; otherwise why not (v ≥ 2 needs pp ≥ 2
/// and m a multiple of the number of rounds, max(1, m / pp), as ScheduleInterleaved1F1B requires).
std::string pipeline_schedule_error(int pp, int v, int m);

/// Rank `rank`'s actions in order (PyTorch's pipeline_order without its idle slots). v = 1: Schedule1F1B,
/// min(pp − rank − 1, m) warm-up forwards, then one forward and one backward alternately, then the remaining
/// backwards. v ≥ 2: ScheduleInterleaved1F1B.
std::vector<PipelineOp> pipeline_order(int pp, int v, int m, int rank);

}  // namespace odcn::workload
