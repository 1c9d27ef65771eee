#include "systems/opus/torchtitan.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "systems/opus/torchtitan_schedule.hpp"

namespace odcn::workload {

int ffn_hidden_dim(int dim, int multiple_of, double multiplier) {
  // TorchTitan models/common/feed_forward.py, compute_ffn_hidden_dim
  auto hidden = static_cast<std::int64_t>(4) * dim;
  hidden = 2 * hidden / 3;
  hidden = static_cast<std::int64_t>(multiplier * static_cast<double>(hidden));
  hidden = multiple_of * ((hidden + multiple_of - 1) / multiple_of);
  return static_cast<int>(hidden);
}

std::int64_t params_per_layer(const TransformerShape& s) {
  const std::int64_t d = s.dim, head_dim = s.dim / s.heads;
  const std::int64_t attention = 2 * d * d + 2 * d * (s.kv_heads * head_dim);  // wq, wo; wk, wv
  const std::int64_t mlp = 3 * d * s.ffn_hidden;                                // w1, w2, w3 (SwiGLU)
  return attention + mlp + 2 * d;                                              // + attention and FFN norms
}

std::int64_t embedding_params(const TransformerShape& s) { return static_cast<std::int64_t>(s.vocab) * s.dim; }

std::int64_t total_params(const TransformerShape& s) {
  return s.layers * params_per_layer(s) + 2 * embedding_params(s) + s.dim;  // + final norm
}

const std::vector<std::string>& torchtitan_presets() {
  static const std::vector<std::string> names{"llama3-8b", "llama3.1-405b"};
  return names;
}

TorchTitanConfig torchtitan_preset(const std::string& name) {
  TorchTitanConfig c;
  c.name = name;
  if (name == "llama3-8b") {
    c.model = {32, 4096, 32, 8, ffn_hidden_dim(4096, 1024, 1.3), 128256};
    return c;  // the defaults of TorchTitanConfig are Opus §3.1's run
  }
  if (name == "llama3.1-405b") {
    c.model = {126, 16384, 128, 8, ffn_hidden_dim(16384, 4096, 1.2), 128256};
    c.tp = 8;
    c.pp = 16;
    c.fsdp = 8;
    c.microbatch_size = 1;
    c.microbatches = 16;
    set_gpu(c, "h100-sxm");  // 989 TFLOP/s dense BF16, 3,350 GB/s
    c.utilisation = 0.40;
    c.activation_checkpoint = ActivationCheckpoint::full;  // TorchTitan's llama3_405b.toml
    return c;
  }
  throw std::invalid_argument(fmt::format("unknown preset '{}' (llama3-8b or llama3.1-405b)", name));
}

namespace {

struct Gpu {
  const char* name;
  double tflops, memory_gbps;
};
constexpr Gpu kGpus[] = {{"a100-40gb", 312, 1555}, {"a100-80gb", 312, 2039}, {"h100-sxm", 989, 3350}};

}  // namespace

bool set_gpu(TorchTitanConfig& c, const std::string& name) {
  for (const Gpu& g : kGpus)
    if (name == g.name) {
      c.gpu_tflops = g.tflops;
      c.memory_gbps = g.memory_gbps;
      return true;
    }
  return false;
}

std::string gpu_names() {
  std::string out;
  for (const Gpu& g : kGpus) out += (out.empty() ? "" : ", ") + std::string(g.name);
  return out;
}

bool parse_activation_checkpoint(const std::string& text, ActivationCheckpoint& mode) {
  for (auto m : {ActivationCheckpoint::none, ActivationCheckpoint::selective, ActivationCheckpoint::full})
    if (text == to_string(m)) {
      mode = m;
      return true;
    }
  return false;
}

const char* to_string(ActivationCheckpoint mode) {
  switch (mode) {
    case ActivationCheckpoint::none: return "none";
    case ActivationCheckpoint::selective: return "selective";
    case ActivationCheckpoint::full: return "full";
  }
  return "none";
}

int model_stages(const TorchTitanConfig& c) { return c.pp * c.virtual_stages; }

std::vector<int> layers_per_stage(const TorchTitanConfig& c) {
  const int stages = model_stages(c), layers = c.model.layers;
  std::vector<int> count(static_cast<std::size_t>(stages), layers / stages);
  int rest = layers % stages;
  for (int p = 1; p + 1 < stages && rest > 0; ++p, --rest) ++count[static_cast<std::size_t>(p)];
  for (int p : {0, stages - 1})
    if (rest > 0) {
      ++count[static_cast<std::size_t>(p)];
      --rest;
    }
  return count;
}

std::vector<FsdpUnit> fsdp_units(const TorchTitanConfig& c, int stage) {
  const auto counts = layers_per_stage(c);
  int first = 0;
  for (int p = 0; p < stage; ++p) first += counts[static_cast<std::size_t>(p)];
  std::vector<std::pair<std::string, double>> units;  // (name, parameters of the whole unit)
  if (stage == 0) units.emplace_back("embedding", static_cast<double>(embedding_params(c.model)));
  for (int l = first; l < first + counts[static_cast<std::size_t>(stage)]; ++l)
    units.emplace_back(fmt::format("layer{}", l), static_cast<double>(params_per_layer(c.model)));
  if (stage == model_stages(c) - 1)
    units.emplace_back("output", static_cast<double>(embedding_params(c.model) + c.model.dim));
  std::vector<FsdpUnit> out;
  for (const auto& [name, params] : units) {
    FsdpUnit u;
    u.name = name;
    u.params = static_cast<std::int64_t>(params / c.tp);
    u.gather_bytes = params / c.tp * c.param_bytes;
    u.gather_received = u.gather_bytes * (c.fsdp - 1) / c.fsdp;
    u.scatter_bytes = params / c.tp * c.reduce_bytes;
    out.push_back(u);
  }
  return out;
}

Bytes pipeline_bytes(const TorchTitanConfig& c) {
  return static_cast<double>(c.microbatch_size) * (c.seq_len / c.tp) * c.model.dim * c.param_bytes;
}

namespace {

double tokens(const TorchTitanConfig& c) { return static_cast<double>(c.microbatch_size) * c.seq_len; }

/// One transformer block's forward FLOPs per micro-batch on one GPU.
double block_flops(const TorchTitanConfig& c) {
  return (2.0 * static_cast<double>(params_per_layer(c.model)) * tokens(c) +
          2.0 * c.seq_len * c.model.dim * tokens(c)) / c.tp;
}

}  // namespace

double forward_flops(const TorchTitanConfig& c, int stage) {
  const int layers = layers_per_stage(c)[static_cast<std::size_t>(stage)];
  double matmul = static_cast<double>(layers) * static_cast<double>(params_per_layer(c.model));
  if (stage == model_stages(c) - 1) matmul += static_cast<double>(embedding_params(c.model));  // the output projection
  const double attention = 2.0 * c.seq_len * c.model.dim * tokens(c) * layers;  // causal: 4·s·d·½ per token
  return (2.0 * matmul * tokens(c) + attention) / c.tp;
}

std::vector<std::vector<double>> unit_forward_flops(const TorchTitanConfig& c) {
  const double layer = block_flops(c);
  const double output = 2.0 * static_cast<double>(embedding_params(c.model)) * tokens(c) / c.tp;
  std::vector<std::vector<double>> out;
  for (int s = 0; s < model_stages(c); ++s) {
    auto& v = out.emplace_back();
    for (const auto& u : fsdp_units(c, s))
      v.push_back(u.name == "embedding" ? 0.0 : u.name == "output" ? output : layer);
  }
  return out;
}

double selective_recompute_share(const TorchTitanConfig& c) {
  // TorchTitan's op-level selective AC counts the block's matmuls in forward order, wq wk wv (attention) wo,
  // w1 w3 w2 (SwiGLU), and recomputes every second one: wk, wo, w3.
  const double d = c.model.dim, kv = static_cast<double>(c.model.kv_heads) * (c.model.dim / c.model.heads);
  const double recomputed = d * kv + d * d + d * c.model.ffn_hidden;
  return recomputed / (static_cast<double>(params_per_layer(c.model)) + static_cast<double>(c.seq_len) * d);
}

double recompute_fraction(const TorchTitanConfig& c) {
  if (c.recompute) return *c.recompute;
  switch (c.activation_checkpoint) {
    case ActivationCheckpoint::none: return 0;
    case ActivationCheckpoint::selective: return selective_recompute_share(c);
    case ActivationCheckpoint::full: return 1;
  }
  return 0;
}

double backward_flops(const TorchTitanConfig& c, int stage) {
  const int layers = layers_per_stage(c)[static_cast<std::size_t>(stage)];
  return 2 * forward_flops(c, stage) + recompute_fraction(c) * layers * block_flops(c);
}

Seconds compute_seconds(const TorchTitanConfig& c, int stage, bool backward) {
  const double flops = backward ? backward_flops(c, stage) : forward_flops(c, stage);
  if (flops > 0) return flops / (c.gpu_tflops * 1e12 * c.utilisation);
  // A stage of the embedding alone: its lookup writes the micro-batch's rows, its backward adds them up.
  const double rows = static_cast<double>(c.microbatch_size) * c.seq_len * c.model.dim * c.param_bytes / c.tp;
  return (backward ? 2 : 1) * rows / (c.memory_gbps * 1e9);
}

Bytes tp_collective_bytes(const TorchTitanConfig& c, int stage, bool backward) {
  if (!c.tp_collectives || c.tp < 2) return 0;
  const double a = static_cast<double>(c.microbatch_size) * c.seq_len * c.model.dim * c.param_bytes;
  const double layers = layers_per_stage(c)[static_cast<std::size_t>(stage)];
  double units = 2 * layers;  // in all-reduces of A
  if (stage == 0) units += 0.5;                      // the embedding's reduce-scatter
  if (stage == model_stages(c) - 1) units += 0.5;    // the output projection's all-gather
  if (backward) {
    double again = 0;  // the recomputed forward's, in all-reduces of A per block
    if (c.recompute)
      again = 2 * *c.recompute;
    else if (c.activation_checkpoint == ActivationCheckpoint::selective)
      again = 1;
    else if (c.activation_checkpoint == ActivationCheckpoint::full)
      again = 2;
    units += again * layers;
  }
  return units * a;
}

std::int64_t params_per_gpu(const TorchTitanConfig& c, int rank_p) {
  std::int64_t per_tp_rank = 0;
  for (int s = rank_p; s < model_stages(c); s += c.pp)
    for (const auto& u : fsdp_units(c, s)) per_tp_rank += u.params;
  return (per_tp_rank + c.fsdp - 1) / c.fsdp;
}

Seconds optimizer_seconds(const TorchTitanConfig& c, int rank_p) {
  return static_cast<double>(params_per_gpu(c, rank_p)) * c.optimizer_bytes_per_param / (c.memory_gbps * 1e9);
}

void check_torchtitan(const TorchTitanConfig& c) {
  auto fail = [](const std::string& why) { throw std::invalid_argument(why); };
  for (const auto& [v, what] : std::initializer_list<std::pair<int, const char*>>{
           {c.model.layers, "layers"}, {c.model.dim, "dim"}, {c.model.heads, "heads"},
           {c.model.kv_heads, "kv_heads"}, {c.model.ffn_hidden, "ffn_hidden"}, {c.model.vocab, "vocab"},
           {c.tp, "tp"}, {c.fsdp, "fsdp"}, {c.pp, "pp"}, {c.virtual_stages, "virtual_stages"},
           {c.microbatches, "microbatches"}, {c.microbatch_size, "microbatch_size"}, {c.seq_len, "seq_len"},
           {c.iterations, "iterations"}})
    if (v < 1) fail(fmt::format("{} must be at least 1 (got {})", what, v));
  if (c.model.dim % c.model.heads != 0) fail("dim must be a multiple of heads");
  if (c.seq_len % c.tp != 0) fail(fmt::format("seq_len {} is not divisible by tp {}", c.seq_len, c.tp));
  // Every model stage holds a unit: the first the embedding, the last the output, the others a layer each at least.
  if (static_cast<std::int64_t>(c.pp) * c.virtual_stages > c.model.layers + 2)
    fail(fmt::format("pp {} x virtual_stages {} = {} model stages exceed the {} layers and the embedding and output "
                     "stages",
                     c.pp, c.virtual_stages, static_cast<std::int64_t>(c.pp) * c.virtual_stages, c.model.layers));
  if (static_cast<std::int64_t>(c.tp) * c.fsdp * c.pp > 1'048'576) fail("tp x fsdp x pp is above 1,048,576 ranks");
  if (const auto why = pipeline_schedule_error(c.pp, c.virtual_stages, c.microbatches); !why.empty()) fail(why);
  if (!(c.gpu_tflops > 0) || !(c.utilisation > 0) || c.utilisation > 1) fail("gpu_tflops and utilisation must be > 0 (utilisation at most 1)");
  if (!(c.param_bytes > 0) || !(c.reduce_bytes > 0)) fail("param_bytes and reduce_bytes must be > 0");
  if (c.recompute && (!(*c.recompute >= 0) || *c.recompute > 1)) fail("recompute must be between 0 and 1");
  if (!(c.optimizer_bytes_per_param >= 0) || !(c.memory_gbps > 0))
    fail("optimizer_bytes_per_param must be >= 0 and memory_gbps > 0");
}

}  // namespace odcn::workload
