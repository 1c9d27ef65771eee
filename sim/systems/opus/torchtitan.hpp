#pragma once
// A TorchTitan-like training iteration as a job graph (Opus: Ouyang, Ding, Singh, "Photonic Rails in ML
// Datacenters", §3.1): a Llama-3 transformer under tensor (TP, inside a scale-up domain), fully sharded data
// (FSDP) and pipeline (PP, 1F1B) parallelism, with the communication TorchTitan issues per rank:
//   - FSDP all-gather of every unit (the token embedding, each transformer block, [norm, output]) once per
//     iteration, before the first micro-batch's forward (with PP, TorchTitan keeps units unsharded after
//     forward: reshard_after_forward = not pp_enabled), in bf16;
//   - FSDP reduce-scatter of every unit's gradients once, after the last micro-batch's backward, in fp32
//     (PyTorch's pipelining reduces only on the last micro-batch), in reverse order;
//   - PP send/recv of each micro-batch's activations (forward) and their gradients (backward), sequence-sharded
//     over TP: micro_batch · (seq / TP) · dim · 2 bytes;
//   - the gradient-norm all-reduces (a few bytes) over the stage's TP ranks, its FSDP ranks, then the PP ranks
//     (hierarchically, so that every hop is inside a scale-up domain or on one rail).
// Rank layout is TorchTitan's mesh order (pp, dp, tp): rank = p · (dp · tp) + d · tp + t. Compute is each
// micro-batch's model FLOPs on one GPU at `gpu_tflops` × `utilisation`; then each GPU's AdamW step, memory-bound
// (optimizer_seconds). Not modelled: TP's own collectives (inside the scale-up domain, hidden from the rails),
// FSDP prefetch overlapping the first forward, the loss all-reduces of logging steps.
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

/// Llama-3 shapes (TorchTitan's models/llama3 arguments).
struct TransformerShape {
  int layers = 32;
  int dim = 4096;
  int heads = 32;
  int kv_heads = 8;
  int ffn_hidden = 14336;  ///< SwiGLU hidden size (ffn_hidden_dim)
  int vocab = 128256;
};

/// TorchTitan's compute_ffn_hidden_dim: 4·dim, ×2/3, × multiplier, rounded up to a multiple of multiple_of.
int ffn_hidden_dim(int dim, int multiple_of, double multiplier);
std::int64_t params_per_layer(const TransformerShape& s);  ///< attention + SwiGLU MLP + two RMS norms
std::int64_t embedding_params(const TransformerShape& s);  ///< = the (untied) output projection
std::int64_t total_params(const TransformerShape& s);       ///< layers, embedding, final norm, output

struct TorchTitanConfig {
  std::string name = "llama3-8b";
  TransformerShape model;
  int tp = 4;
  int fsdp = 2;
  int pp = 2;
  int microbatches = 2;      ///< per iteration and data-parallel rank (m); 1F1B needs m ≥ pp
  int microbatch_size = 2;   ///< sequences per micro-batch
  int seq_len = 8192;
  double param_bytes = 2;    ///< all-gathered parameters (bf16)
  double reduce_bytes = 4;   ///< reduce-scattered gradients (fp32)
  double gpu_tflops = 312;   ///< peak of one GPU at the training precision (A100 bf16)
  double utilisation = 0.45;
  double recompute = 0;      ///< extra forward work in backward from activation checkpointing (0 – 1)
  /// The optimizer step on each GPU, after the gradient norm: AdamW over the GPU's shard of fp32 parameters is
  /// memory-bound and moves this many bytes per parameter (ours: it reads the parameter, its gradient and both
  /// moments, 4 x 4 B, and writes the parameter and both moments, 3 x 4 B, as PyTorch's AdamW update does).
  /// 0: no optimizer step (the graph before 2026-11-27).
  double optimizer_bytes_per_param = 28;
  double memory_gbps = 1555;  ///< GPU memory bandwidth, GB/s (A100 40 GB HBM2, NVIDIA's A100 datasheet)
  /// Micro-batch 0's forward runs unit by unit, each unit after its own all-gather (FSDP prefetches the next
  /// unit's parameters while this one computes; Opus §3.1: "forward pass (overlapped with per-layer ALLGATHER
  /// calls)"). false: every all-gather before the forward.
  bool prefetch = true;
  /// On stages after the first, the first all-gather starts once micro-batch 0's activations have arrived
  /// (Opus §3.1: "PyTorch's lazy DTensor operation (e.g., the first ALLGATHER call for stage 1 only starts when
  /// it receives the activation from stage 0)"). false: at the start of the iteration.
  bool lazy_gather = true;
  int iterations = 1;
};

/// A GPU by name sets gpu_tflops (dense BF16) and memory_gbps from NVIDIA's datasheets: a100-40gb (312,
/// 1,555), a100-80gb (312, 2,039), h100-sxm (989, 3,350). False for another name.
bool set_gpu(TorchTitanConfig& c, const std::string& name);
std::string gpu_names();

/// "llama3-8b": Opus §3.1, 16 A100s, TP 4 × FSDP 2 × PP 2, 1F1B, micro-batch 2, 2 micro-batches.
/// "llama3.1-405b": 1,024 H100s, TP 8 × PP 16 × FSDP 8, micro-batch 1, 16 micro-batches, 989 TFLOP/s at 40 %.
/// Raises std::invalid_argument for another name.
TorchTitanConfig torchtitan_preset(const std::string& name);
const std::vector<std::string>& torchtitan_presets();

/// The layers of pipeline stage p: evenly split; when they do not divide evenly, the first and last stages
/// (which also hold the embedding and the output) take one layer less each, then the middle ones absorb the
/// rest (126 layers on 16 stages: 7, 8 × 14, 7).
std::vector<int> layers_per_stage(const TorchTitanConfig& c);

/// One FSDP unit of a stage and what one rank moves for it.
struct FsdpUnit {
  std::string name;           ///< "embedding", "layer12", "output" ([norm, output])
  std::int64_t params = 0;    ///< parameters held per TP rank (the unit's parameters / TP)
  Bytes gather_bytes = 0;     ///< all-gather S: each rank's bf16 output, params · param_bytes
  Bytes gather_received = 0;  ///< of it, what a rank receives: S · (FSDP − 1) / FSDP
  Bytes scatter_bytes = 0;    ///< reduce-scatter S: each rank's fp32 input, params · reduce_bytes
};
std::vector<FsdpUnit> fsdp_units(const TorchTitanConfig& c, int stage);
/// PP send/recv per micro-batch and direction: micro_batch · (seq / TP) · dim · param_bytes.
Bytes pipeline_bytes(const TorchTitanConfig& c);
/// Per stage, each FSDP unit's share of forward_flops, in fsdp_units' order (the embedding lookup takes none, the
/// output projection 2 · vocab · dim per token).
std::vector<std::vector<double>> unit_forward_flops(const TorchTitanConfig& c);
/// Model FLOPs of one micro-batch's forward on one GPU of stage p: 2 · matmul parameters · tokens, plus causal
/// attention 2 · seq · dim per token and layer, divided over TP. Backward is twice this (plus `recompute`).
double forward_flops(const TorchTitanConfig& c, int stage);

/// The parameters one GPU of stage p holds (its TP and FSDP shard) and its optimizer step: their bytes moved
/// (optimizer_bytes_per_param) at memory_gbps.
std::int64_t params_per_gpu(const TorchTitanConfig& c, int stage);
Seconds optimizer_seconds(const TorchTitanConfig& c, int stage);

/// The iteration as a job graph (validated). Raises std::invalid_argument for a configuration it cannot
/// lay out (m < pp, seq not divisible by TP, more stages than layers, ...).
JobGraph build_torchtitan(const TorchTitanConfig& c);

}  // namespace odcn::workload
