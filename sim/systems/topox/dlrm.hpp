#pragma once
// One DLRM training iteration as a job graph, as TOPO-X (Hu et al., "TOPO-X: Co-optimize Flow Scheduling,
// Topology, and ML Training Parallelism", Table II) trains it: the two DLRM configurations of TopoOpt's
// scripts, built the way FlexNet's DLRMsim builds them (TopoOpt's FlexFlow fork, examples/cpp/DLRMsim/dlrm.cc)
// and placed with FlexNet's starting "hybrid" strategy:
//   - one rank per server; a server is 4 A100s that FlexFlow treats as one big GPU (--big-gpu 4), so a rank's
//     compute is the measured time of the whole server;
//   - the bottom MLP (bottom_layers × bottom_width → bottom_width), the concat interaction and the top MLP
//     (concat width → top_width, top_layers − 2 × top_width → top_width, top_width → 1) are data-parallel on
//     every server, each on its batch_per_gpu · gpus_per_server samples;
//   - embedding table t lives whole on server t mod N and looks up the whole global batch; its pooled vectors
//     go to every other server before the concat (a forward all-to-all of per-(table, destination) flows) and
//     their gradients come back after the concat's backward (the reverse flows);
//   - every dense layer's weight and bias gradients are all-reduced over all servers (a ring) after that
//     layer's backward on every server; then each server updates its parameters, and a zero-length barrier
//     closes the iteration (TOPO-X's virtual end task).
// Compute times are the per-operator A100 measurements TopoOpt's runs used (FlexNet measures/dlrm128.json and
// measures/dlrm16.json), per server, at the preset's number of servers. docs/dlrm.md says what is modelled.
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

struct DlrmConfig {
  std::string name = "dlrm-table2-2";
  int servers = 16;            ///< N: ranks 0..N-1, one per server
  int gpus_per_server = 4;     ///< FlexNet's --big-gpu: GPUs that act as one device
  int batch_per_gpu = 256;     ///< FlexNet's local batch
  int bottom_layers = 7;       ///< Dense+ReLU layers of bottom_width → bottom_width
  int bottom_width = 1024;     ///< also the dense input width
  int top_layers = 16;         ///< concat width → top_width, top_layers − 2 × top_width → top_width, top_width → 1
  int top_width = 2048;
  int tables = 16;
  std::int64_t table_rows = 10'000'000;  ///< enters only the embedding parameter count (and the measured times)
  int embedding_dim = 256;
  int bag_size = 100;          ///< lookups per sample and table; enters only the measured times
  int bytes_per_value = 4;     ///< FP32 activations, gradients and parameters
  int iterations = 1;
  // Measured per-server A100 times (ms) of one operator on its share of the batch, forward and backward.
  double bottom_fwd_ms = 0.1094, bottom_bwd_ms = 0.2535;        ///< each bottom layer
  double embedding_fwd_ms = 1.6130, embedding_bwd_ms = 3.2260;  ///< each table, on the whole global batch
  double concat_fwd_ms = 0.0548, concat_bwd_ms = 0.0553;
  double top_first_fwd_ms = 0.3261, top_first_bwd_ms = 0.6193;    ///< concat width → top_width
  double top_middle_fwd_ms = 0.1508, top_middle_bwd_ms = 0.2814;  ///< each top_width → top_width layer
  double top_last_fwd_ms = 0.0137, top_last_bwd_ms = 0.0433;      ///< top_width → 1
  double update_ms = 0;  ///< each server's parameter update; 0 (not measured): no update tasks are written
};

/// "table2-1": TOPO-X Table II configuration 1 = TopoOpt's dlrm128_dc.sh: 128 servers, 128 samples per GPU,
/// bottom 7 × 2048, top 10240 → 4096, 14 × 4096, 4096 → 1, 64 tables of 10,000,000 × 128.
/// "table2-2": configuration 2 = TopoOpt's topoopt_dlrm16.sh: 16 servers, 256 per GPU, bottom 7 × 1024, top
/// 5120 → 2048, 14 × 2048, 2048 → 1, 16 tables of 10,000,000 × 256 (the defaults of DlrmConfig).
/// Raises std::invalid_argument for another name.
DlrmConfig dlrm_preset(const std::string& name);
const std::vector<std::string>& dlrm_presets();

/// Raises std::invalid_argument naming the first field that is out of range (servers < 2, tables < 1,
/// top_layers < 2, a time that is not > 0 or an update_ms < 0, ...) or a graph that would be too large.
void check_dlrm(const DlrmConfig& c);

/// One dense (fully connected) layer, data-parallel on every server.
struct DlrmDenseLayer {
  std::string name;             ///< "bot1".."bot7", "top1".."top16"
  std::int64_t in = 0, out = 0;
  double fwd_ms = 0, bwd_ms = 0;
  std::int64_t params() const { return in * out + out; }  ///< weight and bias
};
/// The bottom layers, then the top layers, in forward order.
std::vector<DlrmDenseLayer> dlrm_dense_layers(const DlrmConfig& c);

std::int64_t dlrm_batch_per_server(const DlrmConfig& c);  ///< batch_per_gpu · gpus_per_server
std::int64_t dlrm_concat_width(const DlrmConfig& c);       ///< bottom_width + tables · embedding_dim
std::int64_t dlrm_bottom_params(const DlrmConfig& c);
std::int64_t dlrm_top_params(const DlrmConfig& c);
std::int64_t dlrm_dense_params(const DlrmConfig& c);       ///< bottom + top: what is all-reduced
std::int64_t dlrm_embedding_params(const DlrmConfig& c);   ///< tables · table_rows · embedding_dim
/// The one ring all-reduce of a dense layer: (in · out + out) · bytes_per_value.
Bytes dlrm_allreduce_bytes(const DlrmConfig& c, const DlrmDenseLayer& layer);
/// One pooled-embedding flow (and its gradient) between a table's owner and one other server:
/// batch_per_server · embedding_dim · bytes_per_value.
Bytes dlrm_pooled_bytes(const DlrmConfig& c);
/// All cross-server all-to-all bytes of one direction: tables · (servers − 1) · dlrm_pooled_bytes.
Bytes dlrm_alltoall_bytes(const DlrmConfig& c);
/// The server that holds table t: t mod servers.
int dlrm_table_owner(const DlrmConfig& c, int table);

/// The iteration as a job graph (validated); calls check_dlrm first.
JobGraph build_dlrm(const DlrmConfig& c);

}  // namespace odcn::workload
