#pragma once
// A parallelisation strategy for the DLRM of TOPO-X's Table II (Hu et al., "TOPO-X: Co-optimize Flow Scheduling,
// Topology, and ML Training Parallelism") in the space FlexNet's measurements allow, and the job graph it gives.
//
// FlexNet (TopoOpt's FlexFlow fork) searches, per operator, a data-parallel degree k (the batch split over k
// servers) and the k servers that run it; its measured tables (measures/dlrm16.json, measures/dlrm128.json,
// commit 0af0ca11, Apache-2.0) give each dense operator and the concat at k = 1, 2, 4, ... N, and each embedding
// table only whole, on one server. With --net-opt 1 (TopoOpt's DLRM scripts) a group of k servers is
// {first, first + N/k, first + 2N/k, ...} with first < N/k (FlexFlow's Op::get_random_parallel_config).
//
// The job graph of a strategy: part p of an operator of degree k runs on its group's p-th server on samples
// [p·batch/k, (p+1)·batch/k) of the global batch, for the measured time at degree k. Between two operators the
// activations (forward) and their gradients (backward) are re-sharded: each part of the consumer receives, from
// every producer part whose samples overlap its own, overlap × width × bytes_per_value bytes (a transfer when the
// two parts sit on different servers, a plain dependency otherwise). An embedding table sends each concat part its
// samples' pooled vectors and receives their gradients. A dense operator of degree k > 1 all-reduces its weight
// and bias over its group (a ring) after its backward; of degree 1, it has nothing to reduce. Tables that share a
// server run one after another (forward, then backward, in table order); otherwise, as in build_dlrm, a server's
// tasks are not serialised (docs/dlrm.md).
#include <cstdint>
#include <string>
#include <vector>

#include "graph/task_graph.hpp"
#include "systems/topox/dlrm.hpp"

namespace odcn::workload {

/// One measured operator at data-parallel degree k: per-server forward and backward time on batch/k samples.
struct DlrmOpTimes {
  int degree = 1;
  double fwd_ms = 0, bwd_ms = 0;
};

/// FlexNet's measured table for one Table II configuration, per kind of operator, in increasing degree.
struct DlrmMeasurements {
  std::string source;  ///< where the numbers come from, for reports
  std::vector<DlrmOpTimes> bottom, concat, top_first, top_middle, top_last;
  DlrmOpTimes embedding;  ///< degree 1 only: a table is placed whole
};

/// "table2-1": measures/dlrm128.json (k = 1 ... 128); "table2-2": measures/dlrm16.json (k = 1 ... 16). Raises
/// std::invalid_argument for another preset.
DlrmMeasurements dlrm_measurements(const std::string& preset);

/// The servers of one operator: `degree` of them, strided N / degree apart from `first` (< N / degree).
struct DlrmPlacement {
  int degree = 1;
  int first = 0;
  bool operator==(const DlrmPlacement& o) const { return degree == o.degree && first == o.first; }
};
/// The group's servers in ring order (increasing).
std::vector<int> dlrm_group(int servers, const DlrmPlacement& p);

struct DlrmStrategy {
  std::vector<DlrmPlacement> dense;  ///< per dense layer, in dlrm_dense_layers' order (bottom, then top)
  DlrmPlacement concat;
  std::vector<int> table_server;     ///< per table, the server that holds it whole
  bool operator==(const DlrmStrategy& o) const {
    return dense == o.dense && concat == o.concat && table_server == o.table_server;
  }
};

/// FlexNet's starting ("usual hybrid") strategy: every dense operator and the concat data-parallel over all N
/// servers, table t on server t mod N. Its graph schedules as build_dlrm(c)'s.
DlrmStrategy dlrm_hybrid_strategy(const DlrmConfig& c);

/// The measured times of one operator kind (an entry of DlrmMeasurements) at `degree`; raises
/// std::invalid_argument when that degree was not measured.
const DlrmOpTimes& dlrm_times_at(const std::vector<DlrmOpTimes>& kind, int degree);
/// The measured times of dense layer `index` (of dlrm_dense_layers(c)) at `degree`.
const DlrmOpTimes& dlrm_layer_times(const DlrmConfig& c, const DlrmMeasurements& m, int index, int degree);

/// Raises std::invalid_argument naming the first operator whose placement is not in the measured space (a degree
/// not measured or not dividing N, first >= N / degree, a table's server out of range, or a size mismatch).
void check_dlrm_strategy(const DlrmConfig& c, const DlrmStrategy& s, const DlrmMeasurements& m);

/// The iteration of strategy `s` as a job graph (validated). Compute times come from `m`; c's own *_ms fields are
/// not used. Calls check_dlrm and check_dlrm_strategy first.
JobGraph build_dlrm(const DlrmConfig& c, const DlrmStrategy& s, const DlrmMeasurements& m);

/// One line per operator (or run of consecutive dense layers with the same placement): "bot1-bot7  k=16 ...".
std::vector<std::string> describe_dlrm_strategy(const DlrmConfig& c, const DlrmStrategy& s);

}  // namespace odcn::workload
