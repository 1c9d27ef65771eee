#pragma once
// A workload of parameter-server jobs arriving over time on racks of servers: the jobs of INC-AOI (X. Xie,
// B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs", §IV). docs/inc-aoi.md explains every
// key and where each default comes from.
//
//   ps_jobs:
//     slot_s: 1                      # the scheduler's time slot (§II.B)
//     ps_server: colocated           # or dedicated, sharded: where a job without INC aggregates
//     scheduler: {ljf_key: workers, reserve: false, group_delay: 0.5, group_gate: every-iteration,
//                 group_cohorts: ratio}    # (the base topology is the platform's: ocs.base_topology)
//     generator:                     # Poisson arrivals, drawn jobs, placed by the service layer
//       jobs: 800
//       seed: 1
//       arrivals_per_s: 20
//       workers: uniform             # uniform over {2, 4, 8, 16}, philly, or weights {2: 1, 4: 3, ...}
//       iterations: 20               # per job (kDefaultPsIterations)
//       models:                      # drawn uniformly: push size per worker and compute time per iteration
//         - {name: vgg16, push_gb: 0.552, compute_ms: 47.6}
//     jobs:                          # or explicit jobs, placed by the user
//       - {name: a, arrival_s: 0, push_gb: 1, compute_ms: 10, iterations: 2, servers: [[0, 0], [1, 5]]}
//
// A job's rank r runs on servers[r] = [rack, server in the rack]; rank 0's server also runs the job's CPU
// parameter server (and, with INC, its rack's ToR is the aggregation root).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"

namespace odcn::spec {

struct PsModel {
  std::string name;
  Bytes push_bytes = 0;  ///< S: what each worker pushes (and pulls) per iteration
  Seconds compute_s = 0; ///< one iteration's local computation on a worker
};

struct PsJobSpec {
  std::string name;
  Seconds arrival_s = 0;
  std::string model;  ///< informative
  Bytes push_bytes = 0;
  Seconds compute_s = 0;
  int iterations = 1;
  std::vector<std::pair<int, int>> servers;  ///< per rank: (rack, server in the rack)
  std::optional<std::pair<int, int>> ps;      ///< ps_server dedicated: the PS's (rack, server)
};

/// Iterations of a generated job when the workload does not say (ours: the paper gives none; docs/inc-aoi.md).
constexpr int kDefaultPsIterations = 20;

struct PsGeneratorSpec {
  int jobs = 0;
  std::uint64_t seed = 1;
  double arrivals_per_s = 20;
  std::string workers_name = "uniform";  ///< uniform, philly, or "weights"
  std::map<int, double> workers;          ///< workers -> weight
  int iterations = kDefaultPsIterations;
  std::vector<PsModel> models;
};

/// Where a job's CPU parameter server runs when the job does not aggregate in the ToRs (docs/inc-aoi.md, "Where
/// the parameter server sits"): on rank 0's server (colocated), on a server of its own in another rack
/// (dedicated), or in one shard per rack of the job, on the server of the rack's first rank (sharded).
enum class PsServer { colocated, dedicated, sharded };
const char* to_string(PsServer p);

/// Where one job's CPU parameter server is: the mode, and for dedicated its server (rack × servers_per_pod +
/// server) and rack.
struct PsAt {
  PsServer mode = PsServer::colocated;
  int server = -1;
  int rack = -1;
};

/// INC-AOI's scheduler choices the paper leaves open (docs/inc-aoi.md, "Scheduler options").
struct PsSchedulerSpec {
  bool ljf_by_volume = false;   ///< ljf_key: workers (workers, then push size) or volume (workers × push size)
  bool reserve = false;         ///< LJF: the first job in LJF order that cannot start holds its servers and ports
  double group_delay = 0.5;     ///< inc-group: cohort B's turn begins this fraction of a slot after cohort A's
  bool group_every_iteration = true;  ///< inc-group: gate every push (every-iteration) or only the first (once)
  bool group_by_arrival = false;      ///< inc-group: cohorts alternate by compute/communication ratio or arrival
};

struct PsWorkloadSpec {
  std::string file;
  std::string hash;
  Seconds slot_s = 1;
  PsServer ps_server = PsServer::colocated;
  PsSchedulerSpec scheduler;
  std::vector<PsJobSpec> jobs;
  std::optional<PsGeneratorSpec> generator;
};

/// The models of INC-AOI §IV (VGG16, GPT2-large, Llama3-8B) with the compute-time estimates of docs/inc-aoi.md.
const std::vector<PsModel>& inc_aoi_models();
/// Worker-count weights: "uniform" ({2,4,8,16} equally) or "philly" (docs/inc-aoi.md); empty for another name.
std::map<int, double> worker_weights(const std::string& name);

bool is_ps_workload(const YAML::Node& doc);
/// Reads and validates; rack and server numbers are checked against the platform by workload::make_ps_jobs.
PsWorkloadSpec parse_ps_workload(const YAML::Node& doc, const std::string& path, const std::string& hash);

}  // namespace odcn::spec
