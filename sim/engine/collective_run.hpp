#pragma once
// One collective on the electrical fabric, for the collective benchmark (odcnsim bench --collective) and its
// closed-form tests. SimGrid's Engine is a per-process singleton: call this once per process.
//
//   ep-0 ─nic-0─┐
//   ep-1 ─nic-1─┼─ non-blocking switch (a SimGrid star zone: route i -> j = nic-i up, nic-j down)
//   ...         │
//   hub ────────┘  (carries compacted all-to-all steps; its link never binds)
#include <cstddef>

#include "core/units.hpp"
#include "graph/collective.hpp"

namespace odcn::engine {

struct CollectiveRun {
  Seconds simulated_s = 0;      ///< when the last byte arrived
  std::size_t transfers = 0;    ///< SimGrid transfers the run started
};

/// Runs `steps` (workload::lower_compact, or a full lowering as EngineSteps) over n endpoints whose NICs carry
/// `nic` bytes/s each way.
CollectiveRun run_collective_electrical(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond nic);
/// The full lowering, one transfer per flow and step.
CollectiveRun run_collective_electrical(const workload::CollectiveSchedule& schedule, int n, BytesPerSecond nic);

/// The same on a flat_ocs fabric of n servers whose d_S ports form a ring of circuits: `circuits_per_edge`
/// full-duplex circuits of `port` bytes/s between each server and the next (the only candidate circuits built,
/// so that thousands of servers stay cheap). Every flow must go from a rank to the next one (ring algorithms);
/// raises ConfigError otherwise.
CollectiveRun run_collective_flat_ring(const std::vector<workload::EngineStep>& steps, int n, BytesPerSecond port,
                                       int circuits_per_edge);

}  // namespace odcn::engine
