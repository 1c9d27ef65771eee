#pragma once
// Policies topox and topoopt on one job graph of a flat_ocs platform, as `run` carries them out: the plan
// (TOPO-X, Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training Parallelism", Eq. 2-10; or
// TopoOpt's one static topology), the flow graph the engine runs, and the outputs beyond the common ones
// (summary.json's topox/topoopt block, slots.csv, slot_circuits.csv, console lines). Pure: no SimGrid.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/task_graph.hpp"
#include "policy/graph_static.hpp"
#include "spec/fabric_kinds.hpp"
#include "systems/topox/flexnet_estimate.hpp"
#include "systems/topox/topoopt.hpp"
#include "systems/topox/topox.hpp"
#include "trace/output_dir.hpp"
#include "trace/rows.hpp"

namespace odcn::sched {

/// What topox or topoopt planned for one job.
struct FlatPlan {
  bool topox = true;             ///< else topoopt
  std::string variant;           ///< the policy's variant (topox: auto, heuristic, mip, paper, aligned; topoopt: released, proportional)
  workload::JobGraph flows;      ///< the job lowered to transfers on servers (ranks are servers)
  TopoxPlan plan;                ///< topox
  Seconds lower_bound_s = 0;     ///< topox: topox_lower_bound of the flow graph (capacity-respecting plans)
  TopoOptTopology topology;      ///< topoopt
  MultiHop hops;                 ///< topoopt: transfers forwarded through servers
  FlexnetOptions flexnet;        ///< topoopt: FlexNet's estimator's parameters (the platform's flexnet block)
  FlexnetEstimate estimate;      ///< topoopt: FlexNet's estimate of the same topology and job
  int transfers() const;
};

/// Refuses what neither policy runs (half-duplex circuits; topox without a slot), then plans. Raises InputError
/// (platform_file, ...) for the platform and ConfigError for a job the fabric cannot carry.
FlatPlan plan_flat(const spec::FlatOcsSpec& flat, const std::string& platform_file, const workload::JobGraph& graph,
                   const GraphJob& job, bool topox, const std::string& variant, double mip_seconds,
                   const std::string& file);

/// summary.json's topox or topoopt block, with slots.csv and slot_circuits.csv for topox. `late_releases` is
/// the TOPO-X controller's count of transfers started after their planned time.
nlohmann::ordered_json flat_extras(trace::OutputDir& out, const FlatPlan& p, int late_releases);
/// The console lines after the metrics; a warning on stderr when an iteration outlasted TOPO-X's plan.
void print_flat(const FlatPlan& p, int late_releases, const trace::RunRecord& rec);

}  // namespace odcn::sched
