#pragma once
// INC-AOI's jobs (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs", §III-§IV):
// parameter-server data parallelism on servers of racks, one iteration = compute, push, aggregate, pull. This is
// the data model and its closed forms, without SimGrid (docs/inc-aoi.md).
//
// Flow-level model of one push (a pull is the same with every direction reversed). W workers, w_r of them in
// rack r, S bytes each; rank 0's server also runs the CPU parameter server (PS) of the job, in the root rack r0.
//
//                     bytes on a worker's NIC   on the PS's NIC   between rack r != r0 and r0
//   without INC       S (W-1 workers)           (W-1)·S           w_r·S
//   with INC          S (all W workers)         0                 S  (rack r's ToR forwards one partial sum)
//
// Inter-rack total per direction: (W - w_r0)·S without INC, (R - 1)·S with INC (R racks). The legs start
// together and the phase ends when the last has drained; a leg does not slow another leg of the same stream.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "spec/platform_spec.hpp"
#include "spec/ps_workload.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

struct PsJob {
  int id = 0;
  std::string name;
  std::string model;
  Seconds arrival_s = 0;
  Bytes push_bytes = 0;   ///< S
  Seconds compute_s = 0;  ///< per iteration
  int iterations = 1;
  std::vector<int> rack_of_rank;    ///< the pod (rack) of each rank; rank 0 is the PS and the INC root
  std::vector<int> server_of_rank;  ///< rack × servers_per_pod + server in the rack
  int workers() const { return static_cast<int>(rack_of_rank.size()); }
  int root_rack() const { return rack_of_rank.front(); }
  /// (rack, workers in it), racks ascending.
  std::vector<std::pair<int, int>> workers_per_rack() const;
  int racks() const { return static_cast<int>(workers_per_rack().size()); }
};

/// Bytes between racks in one direction of one push (or pull): (W - w_r0)·S without INC, (R - 1)·S with INC.
Bytes inter_rack_bytes(const PsJob& j, bool inc);

/// The bytes of one push (or pull) on the job's busiest NIC: S with INC (every worker's NIC), else the PS's NIC:
/// (W - 1)·S, the PS sharing rank 0's server (S when W = 1).
Bytes busiest_nic_bytes(const PsJob& j, bool inc);

/// The legs of one push or pull (the table above), for a collective over `group` (ranks) rooted at
/// group[root].
struct PsLegs {
  std::vector<std::pair<int, int>> worker_nics;  ///< (rack, NICs of workers there that send or receive S)
  Bytes worker_nic_bytes = 0;                    ///< S, on each of those NICs
  Bytes ps_nic_bytes = 0;                        ///< on the PS server's NIC (0 with INC)
  std::vector<std::pair<int, Bytes>> racks;      ///< (rack r != r0, bytes between r and r0)
};
PsLegs ps_legs(const std::vector<int>& group, int root, Bytes bytes, const std::vector<int>& rack_of_rank,
               const std::vector<int>& server_of_rank, bool inc);

/// One iteration: compute (every rank, compute_s), then ps-push, then ps-pull of S. Task indices are those below.
constexpr int kPsCompute = 0, kPsPush = 1, kPsPull = 2;
JobGraph ps_job_graph(const PsJob& j);

/// The jobs of a workload on a clos_ocs platform with servers (pods.servers_per_pod). Explicit jobs are checked
/// against the platform; generated ones are drawn (Poisson arrivals, worker counts by weight, models uniformly)
/// and placed by the service layer (docs/inc-aoi.md, "Placement"). `seed` overrides the generator's. Raises
/// InputError(file, field, reason).
std::vector<PsJob> make_ps_jobs(const spec::PsWorkloadSpec& w, const spec::PlatformSpec& p,
                                std::optional<std::uint64_t> seed = std::nullopt);

}  // namespace odcn::workload
