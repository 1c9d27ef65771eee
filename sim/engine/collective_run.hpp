#pragma once
// One collective, for the collective benchmark (odcnsim bench --collective) and its closed-form tests, through
// the engine's ordinary path: the steps become one job's transfer tasks (a barrier between steps) that
// engine::run simulates on a net::Network, as any run's jobs. SimGrid's Engine is a per-process singleton: call
// this once per process.
//
//   ep-0 ─nic-0─┐
//   ep-1 ─nic-1─┼─ non-blocking switch (a SimGrid star zone: route i -> j = nic-i up, nic-j down)
//   ...         │
//   ep-(n+i) ───┘  (a compacted all-to-all step's flow from rank i ends at a sink of its own, n + i, so that only
//                   the sources' NICs limit it: workload::compact_for_uniform_nics)
#include <cstddef>

#include "core/units.hpp"
#include "graph/collective.hpp"

namespace odcn::engine {

struct CollectiveRun {
  Seconds simulated_s = 0;      ///< when the last byte arrived
  std::size_t transfers = 0;    ///< transfer tasks the run simulated (one SimGrid transfer each)
};

/// Runs `steps` (workload::lower_compact, or a full lowering as EngineSteps) over n endpoints whose NICs carry
/// `nic` bytes/s each way.
CollectiveRun run_collective_electrical(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond nic);
/// One collective among ranks 0..n-1 of a job.
struct CollectiveSpec {
  workload::CollectiveOp op;
  workload::CollectiveAlgorithm algorithm;
  int n = 2;
  Bytes bytes = 0;
  int root = 0;
};
/// The collective as one task of one job, which the engine lowers itself (workload::lower_collective: one
/// transfer per flow and step), as a run's jobs' collectives: behind one switch of NICs of `port` each way
/// (circuits_per_edge = 0), or on a flat_ocs ring of `circuits_per_edge` circuits of `port` per edge (ring
/// algorithms only; raises ConfigError otherwise).
CollectiveRun run_collective_task(const CollectiveSpec& c, BytesPerSecond port, int circuits_per_edge = 0);

/// The same on a flat_ocs fabric of n servers whose d_S ports form a ring of circuits: `circuits_per_edge`
/// full-duplex circuits of `port` bytes/s between each server and the next (the only candidate circuits built,
/// so that thousands of servers stay cheap). Every flow must go from a rank to the next one (ring algorithms);
/// raises ConfigError otherwise.
CollectiveRun run_collective_flat_ring(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond port,
                                       int circuits_per_edge);

}  // namespace odcn::engine
