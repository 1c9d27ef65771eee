#pragma once
// A TorchTitan-like training iteration as a job graph (Opus: Ouyang, Ding, Singh, "Photonic Rails in ML
// Datacenters", §3.1): a Llama-3 transformer under tensor (TP, inside a scale-up domain), fully sharded data
// (FSDP) and pipeline (PP) parallelism, with the communication TorchTitan issues per rank:
//   - FSDP all-gather of every unit (the token embedding, each transformer block, [norm, output]) once per
//     iteration, before the first micro-batch's forward of its model stage (with PP, TorchTitan keeps units
//     unsharded after forward: reshard_after_forward = not pp_enabled), in bf16, prefetched unit by unit
//     (`prefetch`) and, on model stages after the first, lazily (`lazy_gather`); a rank's gathers, over all its
//     model stages, one after another (one all-gather stream);
//   - FSDP reduce-scatter of every unit's gradients once, after its model stage's last micro-batch's backward, in
//     fp32 (PyTorch's pipelining reduces only on the last micro-batch), in reverse order;
//   - PP send/recv of each micro-batch's activations (forward) and their gradients (backward) between model stages
//     s and s + 1, i.e. from pipeline rank s mod pp to (s + 1) mod pp, sequence-sharded over TP:
//     micro_batch · (seq / TP) · dim · 2 bytes;
//   - TP's own collectives (`tp_collectives`), inside the scale-up domain;
//   - the gradient-norm all-reduces (a few bytes) over the stage's TP ranks, its FSDP ranks, then the PP ranks
//     (hierarchically, so that every hop is inside a scale-up domain or on one rail), then each GPU's AdamW step
//     (optimizer_seconds), then on logging steps the loss all-reduces (`loss_allreduce`).
// Pipeline: 1F1B, or interleaved 1F1B with `virtual_stages` model stages per rank (torchtitan_schedule.hpp).
// Rank layout is TorchTitan's mesh order (pp, dp, tp): rank = p · (dp · tp) + d · tp + t. Compute is each
// micro-batch's model FLOPs on one GPU at `gpu_tflops` × `utilisation`, the backward twice the forward plus the
// recomputation of activation checkpointing (`activation_checkpoint`, `recompute`).
#include <cstdint>
#include <optional>
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

/// TorchTitan's [activation_checkpoint] mode, applied to each transformer block (apply_ac): none; selective
/// (selective_ac_option "op": the block's forward saves the outputs of attention and of every matmul but every
/// second one, so the backward recomputes every second matmul, wk, wo and w3, and the cheap element-wise ops);
/// full (the block's forward again).
enum class ActivationCheckpoint { none, selective, full };

struct TorchTitanConfig {
  std::string name = "llama3-8b";
  TransformerShape model;
  int tp = 4;
  int fsdp = 2;
  int pp = 2;
  /// Model stages per pipeline rank (v): the model is split into pp · v stages, model stage s on pipeline rank
  /// s mod pp, run by interleaved 1F1B (PyTorch's ScheduleInterleaved1F1B, TorchTitan's
  /// pipeline_parallel_schedule "Interleaved1F1B"). 1: one stage per rank, 1F1B (Schedule1F1B; Opus §3.1: "The
  /// PP schedule is 1-forward-1-backward").
  int virtual_stages = 1;
  int microbatches = 2;      ///< per iteration and data-parallel rank (m)
  int microbatch_size = 2;   ///< sequences per micro-batch
  int seq_len = 8192;
  double param_bytes = 2;    ///< all-gathered parameters (bf16)
  double reduce_bytes = 4;   ///< reduce-scattered gradients (fp32)
  double gpu_tflops = 312;   ///< peak of one GPU at the training precision (A100 bf16)
  double utilisation = 0.45;
  /// Default selective: TorchTitan's llama3_8b.toml ([activation_checkpoint] mode = "selective",
  /// selective_ac_option = "op"); its llama3_405b.toml says full.
  ActivationCheckpoint activation_checkpoint = ActivationCheckpoint::selective;
  /// When set (0 – 1), overrides activation_checkpoint: the share of the transformer blocks' forward that the
  /// backward recomputes (and of their forward TP collectives).
  std::optional<double> recompute;
  /// TP's collectives (sequence parallelism, TorchTitan's parallelize_llama): per transformer block and
  /// micro-batch, the forward all-gathers the input of attention and of the MLP and reduce-scatters their
  /// outputs, 2 all-gathers and 2 reduce-scatters of micro_batch · seq · dim · param_bytes over the TP group; the
  /// backward the same; the embedding one reduce-scatter, the output projection one all-gather. Default true:
  /// TorchTitan issues them whenever TP > 1 (without async TP, on the compute's critical path).
  bool tp_collectives = true;
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
  /// The iteration is a logging step: after the optimizer step every rank all-reduces the loss over its
  /// data-parallel (FSDP) group twice, its mean and its max (TorchTitan's train_step: dist_mean and dist_max over
  /// the dp_cp mesh when metrics_processor.should_log(step); ranks without the last stage send -1). Default false:
  /// TorchTitan's llama3 tomls log every metrics.log_freq = 10 steps, so 9 steps in 10 have none.
  bool loss_allreduce = false;
  int iterations = 1;
};

/// A GPU by name sets gpu_tflops (dense BF16) and memory_gbps from NVIDIA's datasheets: a100-40gb (312,
/// 1,555), a100-80gb (312, 2,039), h100-sxm (989, 3,350). False for another name.
bool set_gpu(TorchTitanConfig& c, const std::string& name);
std::string gpu_names();

/// "llama3-8b": Opus §3.1, 16 A100s, TP 4 × FSDP 2 × PP 2, 1F1B, micro-batch 2, 2 micro-batches.
/// "llama3.1-405b": 1,024 H100s, TP 8 × PP 16 × FSDP 8, micro-batch 1, 16 micro-batches, 989 TFLOP/s at 40 %,
/// full activation checkpointing (TorchTitan's llama3_405b.toml), 1F1B (virtual_stages 1: the Opus paper states
/// no schedule for it; --set virtual_stages=V expresses the interleaved ones that its 127 windows may count).
/// Raises std::invalid_argument for another name.
TorchTitanConfig torchtitan_preset(const std::string& name);
const std::vector<std::string>& torchtitan_presets();

/// "none", "selective", "full" and back; false for another name.
bool parse_activation_checkpoint(const std::string& text, ActivationCheckpoint& mode);
const char* to_string(ActivationCheckpoint mode);

/// Model stages: pp · virtual_stages.
int model_stages(const TorchTitanConfig& c);

/// The layers of each model stage: evenly split; when they do not divide evenly, the first and last stages
/// (which also hold the embedding and the output) take one layer less each, then the middle ones absorb the
/// rest (126 layers on 16 stages: 7, 8 × 14, 7; on 128 stages, as Llama 3 (Dubey et al.) and TorchTitan's
/// split lay out pp 16 × v 8: 0, 1 × 126, 0, the first stage the embedding alone, the last the output alone).
std::vector<int> layers_per_stage(const TorchTitanConfig& c);

/// One FSDP unit of a model stage and what one rank moves for it.
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
/// Per model stage, each FSDP unit's share of forward_flops, in fsdp_units' order (the embedding lookup takes
/// none, the output projection 2 · vocab · dim per token).
std::vector<std::vector<double>> unit_forward_flops(const TorchTitanConfig& c);
/// Model FLOPs of one micro-batch's forward on one GPU of model stage s: 2 · matmul parameters · tokens, plus
/// causal attention 2 · seq · dim per token and layer, divided over TP.
double forward_flops(const TorchTitanConfig& c, int stage);
/// The share of a transformer block's forward FLOPs that selective (op) activation checkpointing recomputes:
/// wk, wo and w3, (dim · kv_dim + dim² + dim · ffn_hidden) / (block parameters + seq · dim); 0.317 for Llama-3 8B.
double selective_recompute_share(const TorchTitanConfig& c);
/// The recomputed share of the blocks' forward compute: `recompute` if set, else 0, selective_recompute_share or 1.
double recompute_fraction(const TorchTitanConfig& c);
/// The backward of one micro-batch on model stage s: twice the forward plus recompute_fraction of its blocks'
/// forward (the output projection is not checkpointed).
double backward_flops(const TorchTitanConfig& c, int stage);

/// One micro-batch's forward or backward on one GPU of model stage s at gpu_tflops × utilisation; a stage of the
/// embedding alone (more model stages than layers: TorchTitan then gives the embedding and the output stages of
/// their own) computes no FLOPs, and takes its lookup's micro_batch · seq · dim · param_bytes / TP written at
/// memory_gbps (twice that backward).
Seconds compute_seconds(const TorchTitanConfig& c, int stage, bool backward);

/// TP collectives of one micro-batch's forward or backward on model stage s, as the one all-reduce they are
/// aggregated into per compute: a reduce-scatter plus an all-gather of A = micro_batch · seq · dim · param_bytes
/// move what an all-reduce of A does (ring: 2 · A · (TP − 1) / TP per rank), so the blocks' 2 + 2 give
/// 2 · A per block, the embedding's reduce-scatter and the output's all-gather A / 2 each; the backward adds the
/// recomputed forward's: `recompute` of it if set, else none, the all-gathers (selective: the reduce-scatters'
/// outputs are saved) or all (full), i.e. 0, A or 2 · A per block. 0 when TP is 1 or tp_collectives is off.
Bytes tp_collective_bytes(const TorchTitanConfig& c, int stage, bool backward);

/// The parameters one GPU of pipeline rank p holds (its TP and FSDP shard of all its model stages) and its
/// optimizer step: their bytes moved (optimizer_bytes_per_param) at memory_gbps.
std::int64_t params_per_gpu(const TorchTitanConfig& c, int rank_p);
Seconds optimizer_seconds(const TorchTitanConfig& c, int rank_p);

/// The configuration checked: raises std::invalid_argument with the reason (seq not divisible by TP, more model
/// stages than layers, interleaving's micro-batches, ...).
void check_torchtitan(const TorchTitanConfig& c);

/// The iteration as a job graph (validated). Raises std::invalid_argument for a configuration it cannot
/// lay out (check_torchtitan).
JobGraph build_torchtitan(const TorchTitanConfig& c);

}  // namespace odcn::workload
