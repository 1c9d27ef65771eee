#pragma once
// FlexNet's cost estimator (TopoOpt, W. Wang et al., "TopoOpt: Co-optimizing Network Topology and Parallelization
// Strategy for Distributed Training Jobs"; its FlexFlow fork, src/runtime/simulator.cc, SpMulMatSimulator), as a
// second reading of the TopoOpt baseline beside the engine's fluid flows. It is FlexNet's own cost model, the one
// its strategy and topology search optimises, not a simulation of the fabric: odcnsim reports it as an estimate
// (summary.json → topoopt.flexnet_estimate_s), and every iteration time it writes still comes from the engine.
//
// The model, as FlexNet's source has it:
//   - tasks are taken in order of their ready time (FlexNet's global queue); compute and barriers end p after
//     they are ready (odcnsim's engine runs compute without contention, and so does this estimate);
//   - a transfer is sent in segments of `segment_bytes` (1 MiB, fixed in FlexNet); each segment reserves every
//     link of the transfer's route at once: hop i starts at max(link free, ready_i), holds the link for
//     hop_latency + segment / bandwidth, and hop i + 1 is ready hop_latency after hop i starts (cut-through);
//     the segment is done when its last hop is; the next segment of the transfer is ready when this one leaves
//     the first link;
//   - a link is an exclusive FIFO device, one per direction of a pair of servers, its bandwidth the circuits
//     joining them times B (FlexNet merges parallel circuits into one link); there is no bandwidth sharing;
//   - the intra-server part of a ring all-reduce of S over servers of k GPUs, 2·S / k / B_nvlink (FlexNet's
//     --big-gpu and --inter-gpu-bandwidth: 4 and 200 Gb/s in TopoOpt's DLRM scripts), runs before its transfers
//     (flow_graph's RingPaths::intra_seconds_per_byte puts it there).
#include <functional>
#include <vector>

#include "core/units.hpp"
#include "graph/task_graph.hpp"
#include "spec/fabric_kinds.hpp"

namespace odcn::sched {

/// The segment, the hop latency and (for flow_graph's intra-server term) NVLink's bandwidth: the flat_ocs
/// platform's `flexnet` block, whose defaults are FlexNet's 1 MiB and TopoOpt's DLRM scripts' 1 µs and 200 Gb/s.
using FlexnetOptions = spec::FlatOcsSpec::Flexnet;

struct FlexnetEstimate {
  Seconds iteration_s = 0;            ///< the last task's end
  std::vector<Seconds> finish_s;      ///< per task of the flow graph
  long long segments = 0;             ///< segments sent
};

/// The estimate for flow graph `flows` (transfers end to end, before multi_hop) whose transfer from a to b follows
/// `route(a, b)` (the servers from a to b) over links of `bandwidth(a, b)` bytes per second (> 0 for every hop).
/// Raises ConfigError when a route is empty or a hop has no bandwidth.
FlexnetEstimate flexnet_estimate(const workload::JobGraph& flows, const std::function<std::vector<int>(int, int)>& route,
                                 const std::function<BytesPerSecond(int, int)>& bandwidth,
                                 const FlexnetOptions& options = {});

}  // namespace odcn::sched
