#pragma once
// INC-AOI's jobs (X. Xie, B. Tang, X. Chen, Z. Zhu, "Accelerating DML Training in OCS-based DCNs", §III-§IV):
// parameter-server data parallelism on servers of racks, one iteration = compute, push, aggregate, pull. This is
// the data model and its closed forms, without SimGrid (docs/inc-aoi.md).
//
// Flow-level model of one push (a pull is the same with every direction reversed). W workers, w_r of them in
// rack r (R racks), S bytes each. With INC the ToRs aggregate and rank 0's rack r0 is the root. Without INC the
// job's CPU parameter server (PS) sits where ps_jobs.ps_server says (docs/inc-aoi.md, "Where the parameter
// server sits"):
//
//                     bytes on a worker's NIC   on the PS's NIC(s)        between racks
//   INC               S (all W workers)         -                         S from each rack r != r0 to r0
//   colocated         S (W-1 workers)           (W-1)·S (rank 0's server)  w_r·S from r != r0 to r0
//   dedicated         S (all W workers)         W·S (own server, rack p)   w_r·S from every r to p
//   sharded           S (W-R workers); a shard  (W-1)·S/R into each shard  w_r·S/R from r to every q != r
//                     host sends ·S/R      (the first rank of a rack)
//
// Inter-rack total per direction: (R - 1)·S with INC; (W - w_r0)·S colocated; W·S dedicated; W·S·(R-1)/R
// sharded. The legs start together and the phase ends when the last has drained; a leg does not slow another leg
// of the same stream.
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
  spec::PsAt ps;                    ///< where its CPU parameter server is (when it does not use INC)
  int workers() const { return static_cast<int>(rack_of_rank.size()); }
  int root_rack() const { return rack_of_rank.front(); }
  /// (rack, workers in it), racks ascending.
  std::vector<std::pair<int, int>> workers_per_rack() const;
  int racks() const { return static_cast<int>(workers_per_rack().size()); }
};

/// Every server the job holds while it runs: its workers', and its dedicated parameter server's.
std::vector<int> servers_of(const PsJob& j);

/// The legs of one push or pull (the table above), for a collective over `group` (ranks) rooted at
/// group[root], in the push's direction.
struct NicLeg {
  int rack = 0;
  int copies = 1;  ///< NICs in the rack that each carry `bytes`
  Bytes bytes = 0;
  bool operator==(const NicLeg& o) const { return rack == o.rack && copies == o.copies && bytes == o.bytes; }
};
struct RackLeg {
  int from = 0, to = 0;
  Bytes bytes = 0;
  bool operator==(const RackLeg& o) const { return from == o.from && to == o.to && bytes == o.bytes; }
};
struct PsLegs {
  std::vector<NicLeg> nics;    ///< workers' NICs (racks ascending), then the PS's NIC(s)
  std::vector<RackLeg> racks;  ///< between racks
};
PsLegs ps_legs(const std::vector<int>& group, int root, Bytes bytes, const std::vector<int>& rack_of_rank,
               const std::vector<int>& server_of_rank, bool inc, const spec::PsAt& at = {});
/// The legs of the job's push over all its ranks.
PsLegs job_legs(const PsJob& j, bool inc);

/// Bytes between racks in one direction of one push (or pull): the table's inter-rack total.
Bytes inter_rack_bytes(const PsJob& j, bool inc);
/// The bytes of one push (or pull) on the job's busiest NIC.
Bytes busiest_nic_bytes(const PsJob& j, bool inc);

/// One iteration: compute (every rank, compute_s), then ps-push, then ps-pull of S. Task indices are those below.
constexpr int kPsCompute = 0, kPsPush = 1, kPsPull = 2;
JobGraph ps_job_graph(const PsJob& j);

/// The jobs of a workload on a clos_ocs platform with servers (pods.servers_per_pod). Explicit jobs are checked
/// against the platform; generated ones are drawn (Poisson arrivals, worker counts by weight, models uniformly)
/// and placed by the service layer (docs/inc-aoi.md, "Placement"). `seed` overrides the generator's. Raises
/// InputError(file, field, reason).
std::vector<PsJob> make_ps_jobs(const spec::PsWorkloadSpec& w, const spec::PlatformSpec& p,
                                std::optional<std::uint64_t> seed = std::nullopt);

/// INC-AOI's controller decides every slot until the last job ends, which is no earlier than its arrival plus
/// its iterations' compute: raises InputError(file, field) when that lower bound exceeds limits::kMaxIncSlots.
void check_slots(const std::vector<PsJob>& jobs, Seconds slot_s, const std::string& file, const std::string& field);

}  // namespace odcn::workload
