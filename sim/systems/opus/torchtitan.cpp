#include "systems/opus/torchtitan.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/limits.hpp"

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

std::vector<int> layers_per_stage(const TorchTitanConfig& c) {
  const int stages = c.pp, layers = c.model.layers;
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
  if (stage == c.pp - 1) units.emplace_back("output", static_cast<double>(embedding_params(c.model) + c.model.dim));
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

double forward_flops(const TorchTitanConfig& c, int stage) {
  const int layers = layers_per_stage(c)[static_cast<std::size_t>(stage)];
  double matmul = static_cast<double>(layers) * static_cast<double>(params_per_layer(c.model));
  if (stage == c.pp - 1) matmul += static_cast<double>(embedding_params(c.model));  // the output projection
  const double tokens = static_cast<double>(c.microbatch_size) * c.seq_len;
  const double attention = 2.0 * c.seq_len * c.model.dim * tokens * layers;  // causal: 4·s·d·½ per token
  return (2.0 * matmul * tokens + attention) / c.tp;
}

std::vector<std::vector<double>> unit_forward_flops(const TorchTitanConfig& c) {
  const double tokens = static_cast<double>(c.microbatch_size) * c.seq_len;
  const double layer = (2.0 * static_cast<double>(params_per_layer(c.model)) * tokens +
                        2.0 * c.seq_len * c.model.dim * tokens) / c.tp;
  const double output = 2.0 * static_cast<double>(embedding_params(c.model)) * tokens / c.tp;
  std::vector<std::vector<double>> out;
  for (int p = 0; p < c.pp; ++p) {
    auto& v = out.emplace_back();
    for (const auto& u : fsdp_units(c, p))
      v.push_back(u.name == "embedding" ? 0.0 : u.name == "output" ? output : layer);
  }
  return out;
}

namespace {

void check(const TorchTitanConfig& c) {
  auto fail = [](const std::string& why) { throw std::invalid_argument(why); };
  for (const auto& [v, what] : std::initializer_list<std::pair<int, const char*>>{
           {c.model.layers, "layers"}, {c.model.dim, "dim"}, {c.model.heads, "heads"},
           {c.model.kv_heads, "kv_heads"}, {c.model.ffn_hidden, "ffn_hidden"}, {c.model.vocab, "vocab"},
           {c.tp, "tp"}, {c.fsdp, "fsdp"}, {c.pp, "pp"}, {c.microbatches, "microbatches"},
           {c.microbatch_size, "microbatch_size"}, {c.seq_len, "seq_len"}, {c.iterations, "iterations"}})
    if (v < 1) fail(fmt::format("{} must be at least 1 (got {})", what, v));
  if (c.model.dim % c.model.heads != 0) fail("dim must be a multiple of heads");
  if (c.seq_len % c.tp != 0) fail(fmt::format("seq_len {} is not divisible by tp {}", c.seq_len, c.tp));
  if (c.pp > c.model.layers) fail(fmt::format("pp {} exceeds the {} layers", c.pp, c.model.layers));
  if (static_cast<std::int64_t>(c.tp) * c.fsdp * c.pp > 1'048'576) fail("tp x fsdp x pp is above 1,048,576 ranks");
  if (!(c.gpu_tflops > 0) || !(c.utilisation > 0) || c.utilisation > 1) fail("gpu_tflops and utilisation must be > 0 (utilisation at most 1)");
  if (!(c.param_bytes > 0) || !(c.reduce_bytes > 0)) fail("param_bytes and reduce_bytes must be > 0");
  if (!(c.recompute >= 0) || c.recompute > 1) fail("recompute must be between 0 and 1");
  if (!(c.optimizer_bytes_per_param >= 0) || !(c.memory_gbps > 0))
    fail("optimizer_bytes_per_param must be >= 0 and memory_gbps > 0");
}

}  // namespace

std::int64_t params_per_gpu(const TorchTitanConfig& c, int stage) {
  std::int64_t per_tp_rank = 0;
  for (const auto& u : fsdp_units(c, stage)) per_tp_rank += u.params;
  return (per_tp_rank + c.fsdp - 1) / c.fsdp;
}

Seconds optimizer_seconds(const TorchTitanConfig& c, int stage) {
  return static_cast<double>(params_per_gpu(c, stage)) * c.optimizer_bytes_per_param / (c.memory_gbps * 1e9);
}

JobGraph build_torchtitan(const TorchTitanConfig& c) {
  check(c);
  const int P = c.pp, D = c.fsdp, T = c.tp, m = c.microbatches;
  auto rank = [&](int p, int d, int t) { return (p * D + d) * T + t; };
  JobGraph g;
  g.name = c.name;
  g.ranks = P * D * T;
  g.iterations = c.iterations;
  auto add = [&](Task task) {
    // Stopped as soon as it passes the bound, before memory grows with micro-batches x ranks.
    if (static_cast<std::int64_t>(g.tasks.size()) >= limits::kMaxGeneratedTasks)
      throw std::invalid_argument(fmt::format(
          "tp {} x fsdp {} x pp {} with {} micro-batches gives more than {} tasks (more than a job-graph file that "
          "run reads holds)",
          T, D, P, m, limits::kMaxGeneratedTasks));
    g.tasks.push_back(std::move(task));
    return static_cast<int>(g.tasks.size()) - 1;
  };
  auto compute = [&](const std::string& name, int r, Seconds s, std::vector<int> deps) {
    return add(compute_task(name, r, s, std::move(deps)));
  };
  auto collective = [&](const std::string& name, CollectiveOp op, std::vector<int> group, Bytes bytes,
                        std::vector<int> deps) {
    return add(collective_task(name, op, CollectiveAlgorithm::ring, std::move(group), bytes, std::move(deps)));
  };
  auto transfer = [&](const std::string& name, int src, int dst, Bytes bytes, int dep) {
    return add(transfer_task(name, src, dst, bytes, {dep}));
  };
  const double flops_per_s = c.gpu_tflops * 1e12 * c.utilisation;
  const Bytes act = pipeline_bytes(c);
  // Each stage's (per TP rank) all-gathers, one per FSDP unit in order, each after the previous one: at once on
  // the first stage; on the others, with lazy_gather, once micro-batch 0's activations have arrived (made when
  // that forward is).
  std::vector<std::vector<std::vector<int>>> gathers(static_cast<std::size_t>(P),
                                                     std::vector<std::vector<int>>(static_cast<std::size_t>(T)));
  const auto gather_chain = [&](int p, int t, const std::vector<int>& first_deps) {
    if (D < 2) return;
    std::vector<int> group;
    for (int d = 0; d < D; ++d) group.push_back(rank(p, d, t));
    auto& chain = gathers[static_cast<std::size_t>(p)][static_cast<std::size_t>(t)];
    for (const auto& u : fsdp_units(c, p))
      chain.push_back(collective(fmt::format("s{}.t{}.ag.{}", p, t, u.name), CollectiveOp::all_gather, group,
                                 u.gather_bytes, chain.empty() ? first_deps : std::vector<int>{chain.back()}));
  };
  for (int p = 0; p < P; ++p)
    if (p == 0 || !c.lazy_gather)
      for (int t = 0; t < T; ++t) gather_chain(p, t, {});
  const auto unit_flops = unit_forward_flops(c);
  // 1F1B: stage p runs min(P − p − 1, m) warm-up forwards, then alternates forward and backward, then drains.
  // F[p][d][t][i], B[...] are task indices; the forward of micro-batch i on stage p > 0 waits for its
  // activations, the backward on stage p < P − 1 for its gradients. Tasks are created in an order in which
  // every dependency already exists: micro-batch by micro-batch along the pipeline.
  const auto idx = [&](int p, int d, int t, int i) {
    return ((static_cast<std::size_t>(p) * D + d) * T + t) * m + i;
  };
  const std::size_t slots = static_cast<std::size_t>(P) * D * T * m;
  std::vector<int> fwd(slots, -1), bwd(slots, -1), act_in(slots, -1), grad_in(slots, -1);
  // A rank's order of operations: (false, i) forward i, (true, i) backward i.
  auto order = [&](int p) {
    std::vector<std::pair<bool, int>> ops;
    const int warm = std::min(P - p - 1, m);
    for (int i = 0; i < warm; ++i) ops.emplace_back(false, i);
    for (int i = 0; i < m - warm; ++i) {
      ops.emplace_back(false, warm + i);
      ops.emplace_back(true, i);
    }
    for (int i = m - warm; i < m; ++i) ops.emplace_back(true, i);
    return ops;
  };
  // Create tasks in waves until every op exists: an op is created once its inputs exist.
  std::vector<std::vector<std::pair<bool, int>>> ops(static_cast<std::size_t>(P));
  std::vector<std::size_t> next(static_cast<std::size_t>(P), 0);
  for (int p = 0; p < P; ++p) ops[static_cast<std::size_t>(p)] = order(p);
  std::vector<Seconds> fwd_s(static_cast<std::size_t>(P)), bwd_s(static_cast<std::size_t>(P));
  for (int p = 0; p < P; ++p) {
    fwd_s[static_cast<std::size_t>(p)] = forward_flops(c, p) / flops_per_s;
    bwd_s[static_cast<std::size_t>(p)] = fwd_s[static_cast<std::size_t>(p)] * (2 + c.recompute);
  }
  std::vector<int> last_op(static_cast<std::size_t>(g.ranks), -1);
  for (bool progress = true; progress;) {
    progress = false;
    for (int p = 0; p < P; ++p) {
      auto& n = next[static_cast<std::size_t>(p)];
      while (n < ops[static_cast<std::size_t>(p)].size()) {
        const auto [backward, i] = ops[static_cast<std::size_t>(p)][n];
        // Inputs from the neighbouring stage (the same for every d, t of this stage).
        const bool ready = backward ? (p == P - 1 || bwd[idx(p + 1, 0, 0, i)] >= 0) : (p == 0 || fwd[idx(p - 1, 0, 0, i)] >= 0);
        if (!ready) break;
        // Micro-batch 0's activations into a later stage, before its lazy all-gathers.
        if (!backward && p > 0)
          for (int d = 0; d < D; ++d)
            for (int t = 0; t < T; ++t)
              act_in[idx(p, d, t, i)] = transfer(fmt::format("s{}.d{}.t{}.act{}", p - 1, d, t, i), rank(p - 1, d, t),
                                                 rank(p, d, t), act, fwd[idx(p - 1, d, t, i)]);
        if (!backward && i == 0 && p > 0 && c.lazy_gather)
          for (int t = 0; t < T; ++t) {
            std::vector<int> arrived;
            for (int d = 0; d < D; ++d) arrived.push_back(act_in[idx(p, d, t, 0)]);
            gather_chain(p, t, arrived);
          }
        for (int d = 0; d < D; ++d)
          for (int t = 0; t < T; ++t) {
            const int r = rank(p, d, t);
            std::vector<int> deps;
            if (last_op[static_cast<std::size_t>(r)] >= 0) deps.push_back(last_op[static_cast<std::size_t>(r)]);
            if (!backward) {
              if (p > 0) deps.push_back(act_in[idx(p, d, t, i)]);
              const auto& chain = gathers[static_cast<std::size_t>(p)][static_cast<std::size_t>(t)];
              const std::string name = fmt::format("s{}.d{}.t{}.fwd{}", p, d, t, i);
              if (i == 0 && !chain.empty() && c.prefetch) {
                // Unit by unit, each after its own all-gather: FSDP gathers the next unit while this one computes.
                const auto units = fsdp_units(c, p);
                int prev = -1;
                for (std::size_t u = 0; u < units.size(); ++u) {
                  // The embedding lookup computes nothing here; the next unit's all-gather follows its one.
                  if (unit_flops[static_cast<std::size_t>(p)][u] <= 0) continue;
                  std::vector<int> unit_deps = prev < 0 ? deps : std::vector<int>{prev};
                  unit_deps.push_back(chain[u]);
                  prev = compute(name + "." + units[u].name, r,
                                 unit_flops[static_cast<std::size_t>(p)][u] / flops_per_s, unit_deps);
                }
                fwd[idx(p, d, t, i)] = prev;
              } else {
                if (i == 0 && !chain.empty()) deps.push_back(chain.back());
                fwd[idx(p, d, t, i)] = compute(name, r, fwd_s[static_cast<std::size_t>(p)], deps);
              }
              last_op[static_cast<std::size_t>(r)] = fwd[idx(p, d, t, i)];
            } else {
              if (p < P - 1) {
                const int in = transfer(fmt::format("s{}.d{}.t{}.grad{}", p + 1, d, t, i), rank(p + 1, d, t), r, act,
                                        bwd[idx(p + 1, d, t, i)]);
                grad_in[idx(p, d, t, i)] = in;
                deps.push_back(in);
              }
              bwd[idx(p, d, t, i)] = compute(fmt::format("s{}.d{}.t{}.bwd{}", p, d, t, i), r,
                                             bwd_s[static_cast<std::size_t>(p)], deps);
              last_op[static_cast<std::size_t>(r)] = bwd[idx(p, d, t, i)];
            }
          }
        ++n;
        progress = true;
      }
    }
  }
  for (int p = 0; p < P; ++p)
    if (next[static_cast<std::size_t>(p)] != ops[static_cast<std::size_t>(p)].size())
      throw std::logic_error("build_torchtitan: the 1F1B schedule did not complete");
  // Gradients: reduce-scatter of every unit in reverse order after the last backward and the gradient it sends
  // to the previous stage (so that the pipeline's phase and the data-parallel phase follow each other on a rail,
  // as in Opus's Fig. 4), then the gradient norm (a scalar; 1 KiB here, so that no ring step carries less than a
  // byte) over the stage, then over PP (the same local index on every stage: one rail).
  std::vector<int> stage_done;
  for (int p = 0; p < P; ++p) {
    std::vector<int> after_rs;
    for (int t = 0; t < T; ++t) {
      std::vector<int> deps;
      for (int d = 0; d < D; ++d) {
        deps.push_back(last_op[static_cast<std::size_t>(rank(p, d, t))]);
        if (p > 0) deps.push_back(grad_in[idx(p - 1, d, t, m - 1)]);
      }
      if (D >= 2) {
        std::vector<int> group;
        for (int d = 0; d < D; ++d) group.push_back(rank(p, d, t));
        const auto units = fsdp_units(c, p);
        for (auto u = units.rbegin(); u != units.rend(); ++u) {
          const int rs = collective(fmt::format("s{}.t{}.rs.{}", p, t, u->name), CollectiveOp::reduce_scatter, group,
                                    u->scatter_bytes, deps);
          deps = {rs};
        }
      }
      after_rs.insert(after_rs.end(), deps.begin(), deps.end());
    }
    // The stage's FSDP × TP ranks reduce the norm hierarchically, so that every hop stays inside a scale-up
    // domain (TP) or on one rail (FSDP peers share their local index): over TP, then over FSDP.
    std::vector<int> reduced = after_rs;
    // One all-reduce per group of `size` ranks (rank_of(outer, k), k < size), each after all of `reduced`.
    auto norm_step = [&](const char* level, int outer_count, int size, const std::function<int(int, int)>& rank_of) {
      if (size < 2) return;
      std::vector<int> next_reduced;
      for (int o = 0; o < outer_count; ++o) {
        std::vector<int> group;
        for (int k = 0; k < size; ++k) group.push_back(rank_of(o, k));
        next_reduced.push_back(collective(fmt::format("s{}.{}{}.gradnorm.{}", p, level[0] == 't' ? "d" : "t", o, level),
                                          CollectiveOp::all_reduce, group, 1024, reduced));
      }
      reduced = next_reduced;
    };
    norm_step("tp", D, T, [&](int d, int t) { return rank(p, d, t); });
    norm_step("dp", T, D, [&](int t, int d) { return rank(p, d, t); });
    stage_done.insert(stage_done.end(), reduced.begin(), reduced.end());
  }
  std::vector<int> ends = stage_done;
  if (P >= 2) {
    ends.clear();
    for (int d = 0; d < D; ++d)
      for (int t = 0; t < T; ++t) {
        std::vector<int> group;
        for (int p = 0; p < P; ++p) group.push_back(rank(p, d, t));
        ends.push_back(collective(fmt::format("d{}.t{}.gradnorm.pp", d, t), CollectiveOp::all_reduce, group, 1024,
                                  stage_done));
      }
  }
  // The optimizer step of every GPU once it knows the gradient norm (clip_grad_norm_, then optimizer.step()):
  // after its own PP norm all-reduce, or after the stage's last norm step without PP.
  if (c.optimizer_bytes_per_param > 0) {
    std::vector<int> steps;
    for (int p = 0; p < P; ++p)
      for (int d = 0; d < D; ++d)
        for (int t = 0; t < T; ++t) {
          const std::vector<int> deps = P >= 2 ? std::vector<int>{ends[static_cast<std::size_t>(d * T + t)]} : ends;
          steps.push_back(compute(fmt::format("s{}.d{}.t{}.opt", p, d, t), rank(p, d, t), optimizer_seconds(c, p), deps));
        }
    ends = steps;
  }
  Task end;
  end.name = "step";
  end.kind = TaskKind::barrier;
  end.deps = ends;
  add(std::move(end));
  validate(g, c.name, "");
  return g;
}

}  // namespace odcn::workload
