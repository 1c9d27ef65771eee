// build_torchtitan: the iteration of torchtitan.hpp as tasks. Model stage s runs on pipeline rank p = s mod pp;
// its tasks are named after s ("s3.d0.t1.fwd0"), which with one model stage per rank is the rank's stage.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/limits.hpp"
#include "systems/opus/torchtitan.hpp"
#include "systems/opus/torchtitan_schedule.hpp"

namespace odcn::workload {

namespace {

class Builder {
 public:
  explicit Builder(const TorchTitanConfig& c)
      : c_(c), P(c.pp), D(c.fsdp), T(c.tp), m(c.microbatches), S(model_stages(c)),
        flops_per_s_(c.gpu_tflops * 1e12 * c.utilisation), act_(pipeline_bytes(c)), unit_flops_(unit_forward_flops(c)) {
    g_.name = c.name;
    g_.ranks = P * D * T;
    g_.iterations = c.iterations;
    const std::size_t slots = static_cast<std::size_t>(S) * D * T * m;
    fwd_.assign(slots, -1);
    bwd_.assign(slots, -1);
    act_in_.assign(slots, -1);
    grad_in_.assign(slots, -1);
    gathers_.assign(static_cast<std::size_t>(S) * T, {});
    gather_tail_.assign(static_cast<std::size_t>(P) * T, -1);
    last_op_.assign(static_cast<std::size_t>(g_.ranks), -1);
  }

  JobGraph build() {
    for (int s = 0; s < S; ++s)
      if (s == 0 || !c_.lazy_gather)
        for (int t = 0; t < T; ++t) gather_chain(s, t, {});
    run_pipeline();
    std::vector<int> ends = gradients_and_norm();
    ends = optimizer_steps(ends);
    ends = loss_allreduces(ends);
    Task end;
    end.name = "step";
    end.kind = TaskKind::barrier;
    end.deps = ends;
    add(std::move(end));
    validate(g_, c_.name, "");
    return std::move(g_);
  }

 private:
  const TorchTitanConfig& c_;
  const int P, D, T, m, S;
  const double flops_per_s_;
  const Bytes act_;
  const std::vector<std::vector<double>> unit_flops_;
  JobGraph g_;
  // Per (model stage, d, t, micro-batch): the task that ends its forward / backward (the compute, or the TP
  // collective after it), the activations received for it and the gradients received from it.
  std::vector<int> fwd_, bwd_, act_in_, grad_in_;
  std::vector<std::vector<int>> gathers_;  ///< per (model stage, t): its all-gathers in unit order
  std::vector<int> gather_tail_;           ///< per (pipeline rank, t): the last all-gather issued
  std::vector<int> last_op_;               ///< per rank: its last forward or backward

  int rank(int p, int d, int t) const { return (p * D + d) * T + t; }
  int stage_rank(int s, int d, int t) const { return rank(s % P, d, t); }
  std::size_t idx(int s, int d, int t, int i) const {
    return ((static_cast<std::size_t>(s) * D + d) * T + t) * m + i;
  }

  int add(Task task) {
    // Stopped as soon as it passes the bound, before memory grows with micro-batches x ranks.
    if (static_cast<std::int64_t>(g_.tasks.size()) >= limits::kMaxGeneratedTasks)
      throw std::invalid_argument(fmt::format(
          "tp {} x fsdp {} x pp {}{} with {} micro-batches gives more than {} tasks (more than a job-graph file that "
          "run reads holds)",
          T, D, P, c_.virtual_stages > 1 ? fmt::format(" x virtual_stages {}", c_.virtual_stages) : "", m,
          limits::kMaxGeneratedTasks));
    g_.tasks.push_back(std::move(task));
    return static_cast<int>(g_.tasks.size()) - 1;
  }
  int compute(const std::string& name, int r, Seconds s, std::vector<int> deps) {
    return add(compute_task(name, r, s, std::move(deps)));
  }
  int collective(const std::string& name, CollectiveOp op, std::vector<int> group, Bytes bytes, std::vector<int> deps) {
    return add(collective_task(name, op, CollectiveAlgorithm::ring, std::move(group), bytes, std::move(deps)));
  }

  /// Model stage s's (per TP rank t) all-gathers, one per FSDP unit in order, each after the previous one
  /// issued on the same ranks (one all-gather stream over all the rank's model stages).
  void gather_chain(int s, int t, std::vector<int> first_deps) {
    if (D < 2) return;
    std::vector<int> group;
    for (int d = 0; d < D; ++d) group.push_back(stage_rank(s, d, t));
    auto& chain = gathers_[static_cast<std::size_t>(s) * T + t];
    int& tail = gather_tail_[static_cast<std::size_t>(s % P) * T + t];
    if (tail >= 0) first_deps.push_back(tail);
    for (const auto& u : fsdp_units(c_, s)) {
      chain.push_back(collective(fmt::format("s{}.t{}.ag.{}", s, t, u.name), CollectiveOp::all_gather, group,
                                 u.gather_bytes, chain.empty() ? first_deps : std::vector<int>{chain.back()}));
      tail = chain.back();
    }
  }

  /// After the computes of ranks (p, d, 0 … T − 1) for one micro-batch, their TP collectives; the task that ends
  /// the op on each of those ranks.
  std::vector<int> tp_after(int s, int d, const std::string& what, bool backward, const std::vector<int>& computes) {
    const Bytes bytes = tp_collective_bytes(c_, s, backward);
    if (bytes <= 0) return computes;
    std::vector<int> group;
    for (int t = 0; t < T; ++t) group.push_back(stage_rank(s, d, t));
    const int tp =
        collective(fmt::format("s{}.d{}.tp.{}", s, d, what), CollectiveOp::all_reduce, group, bytes, computes);
    return std::vector<int>(static_cast<std::size_t>(T), tp);
  }

  void forward(int s, int i);
  void backward(int s, int i);
  void run_pipeline();
  std::vector<int> gradients_and_norm();
  std::vector<int> optimizer_steps(const std::vector<int>& norm);
  std::vector<int> loss_allreduces(const std::vector<int>& ends);
  /// The name prefix of a pipeline rank's own tasks (norms, optimizer step, loss): "s{p}" when rank p holds
  /// model stage p alone, "p{p}" with virtual stages (rank p then holds stages p, p + pp, ...).
  std::string rank_tag(int p) const { return (c_.virtual_stages > 1 ? "p" : "s") + std::to_string(p); }
  /// A new operation of rank r starts after the rank's previous one (none for its first).
  std::vector<int> after_last_op(int r) const {
    const int last = last_op_[static_cast<std::size_t>(r)];
    return last >= 0 ? std::vector<int>{last} : std::vector<int>{};
  }
  /// Stage s's forward or backward of micro-batch i on FSDP rank d ended with `done` (one task per TP rank, after
  /// its TP collective): each is its rank's last operation, and what `slot` (fwd_ or bwd_) records.
  void finish(int s, int d, int i, const std::vector<int>& done, std::vector<int>& slot) {
    for (int t = 0; t < T; ++t) {
      slot[idx(s, d, t, i)] = done[static_cast<std::size_t>(t)];
      last_op_[static_cast<std::size_t>(rank(s % P, d, t))] = done[static_cast<std::size_t>(t)];
    }
  }
};

void Builder::forward(int s, int i) {
  const int p = s % P;
  // Micro-batch i's activations from the previous model stage (on rank (s − 1) mod pp), then, for micro-batch 0
  // on a later stage, its lazy all-gathers.
  if (s > 0)
    for (int d = 0; d < D; ++d)
      for (int t = 0; t < T; ++t)
        act_in_[idx(s, d, t, i)] = add(transfer_task(fmt::format("s{}.d{}.t{}.act{}", s - 1, d, t, i),
                                                     stage_rank(s - 1, d, t), rank(p, d, t), act_,
                                                     {fwd_[idx(s - 1, d, t, i)]}));
  if (i == 0 && s > 0 && c_.lazy_gather)
    for (int t = 0; t < T; ++t) {
      std::vector<int> arrived;
      for (int d = 0; d < D; ++d) arrived.push_back(act_in_[idx(s, d, t, 0)]);
      gather_chain(s, t, arrived);
    }
  const auto units = fsdp_units(c_, s);
  const auto& flops = unit_flops_[static_cast<std::size_t>(s)];
  for (int d = 0; d < D; ++d) {
    std::vector<int> computes;
    for (int t = 0; t < T; ++t) {
      const int r = rank(p, d, t);
      std::vector<int> deps = after_last_op(r);
      if (s > 0) deps.push_back(act_in_[idx(s, d, t, i)]);
      const auto& chain = gathers_[static_cast<std::size_t>(s) * T + t];
      const std::string name = fmt::format("s{}.d{}.t{}.fwd{}", s, d, t, i);
      if (i == 0 && !chain.empty() && c_.prefetch && forward_flops(c_, s) > 0) {
        // Unit by unit, each after its own all-gather: FSDP gathers the next unit while this one computes.
        int prev = -1;
        for (std::size_t u = 0; u < units.size(); ++u) {
          // The embedding lookup computes nothing here; the next unit's all-gather follows its one.
          if (flops[u] <= 0) continue;
          std::vector<int> unit_deps = prev < 0 ? deps : std::vector<int>{prev};
          unit_deps.push_back(chain[u]);
          prev = compute(name + "." + units[u].name, r, flops[u] / flops_per_s_, unit_deps);
        }
        computes.push_back(prev);
      } else {
        if (i == 0 && !chain.empty()) deps.push_back(chain.back());
        computes.push_back(compute(name, r, compute_seconds(c_, s, false), deps));
      }
    }
    finish(s, d, i, tp_after(s, d, fmt::format("fwd{}", i), false, computes), fwd_);
  }
}

void Builder::backward(int s, int i) {
  const int p = s % P;
  for (int d = 0; d < D; ++d) {
    std::vector<int> computes;
    for (int t = 0; t < T; ++t) {
      const int r = rank(p, d, t);
      std::vector<int> deps = after_last_op(r);
      if (s < S - 1) {
        // The gradients of micro-batch i's output from the next model stage (on rank (s + 1) mod pp).
        const int in = add(transfer_task(fmt::format("s{}.d{}.t{}.grad{}", s + 1, d, t, i), stage_rank(s + 1, d, t),
                                         r, act_, {bwd_[idx(s + 1, d, t, i)]}));
        grad_in_[idx(s, d, t, i)] = in;
        deps.push_back(in);
      }
      computes.push_back(
          compute(fmt::format("s{}.d{}.t{}.bwd{}", s, d, t, i), r, compute_seconds(c_, s, true), deps));
    }
    finish(s, d, i, tp_after(s, d, fmt::format("bwd{}", i), true, computes), bwd_);
  }
}

// Every rank's ops in its schedule's order (pipeline_order), created in waves: a rank's next op is created once
// its input from the neighbouring model stage exists, so every dependency exists before the task that needs it.
void Builder::run_pipeline() {
  std::vector<std::vector<PipelineOp>> ops(static_cast<std::size_t>(P));
  for (int p = 0; p < P; ++p) ops[static_cast<std::size_t>(p)] = pipeline_order(P, c_.virtual_stages, m, p);
  std::vector<std::size_t> next(static_cast<std::size_t>(P), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int p = 0; p < P; ++p) {
      auto& n = next[static_cast<std::size_t>(p)];
      while (n < ops[static_cast<std::size_t>(p)].size()) {
        const PipelineOp op = ops[static_cast<std::size_t>(p)][n];
        const int s = op.stage, i = op.microbatch;
        const bool ready = op.backward ? (s == S - 1 || bwd_[idx(s + 1, 0, 0, i)] >= 0)
                                       : (s == 0 || fwd_[idx(s - 1, 0, 0, i)] >= 0);
        if (!ready) break;
        if (op.backward)
          backward(s, i);
        else
          forward(s, i);
        ++n;
        progress = true;
      }
    }
  }
  for (int p = 0; p < P; ++p)
    if (next[static_cast<std::size_t>(p)] != ops[static_cast<std::size_t>(p)].size())
      throw std::logic_error("build_torchtitan: the pipeline schedule did not complete");
}

// Gradients: per model stage, the reduce-scatter of every unit in reverse order after its last backward and the
// gradient it sends to the previous stage (so that the pipeline's phase and the data-parallel phase follow each
// other on a rail, as in Opus's Fig. 4); a rank's model stages one after another, in the order their last
// backwards ran (one reduce-scatter stream). Then the gradient norm (a scalar; 1 KiB here, so that no ring step
// carries less than a byte) over the pipeline rank's TP ranks, its FSDP ranks, then over PP (the same local index
// on every stage: one rail). Returns the tasks the optimizer steps wait for.
std::vector<int> Builder::gradients_and_norm() {
  std::vector<int> stage_done;
  for (int p = 0; p < P; ++p) {
    std::vector<int> stages;  // the rank's model stages by the position of their last backward
    for (const auto& op : pipeline_order(P, c_.virtual_stages, m, p))
      if (op.backward && op.microbatch == m - 1) stages.push_back(op.stage);
    std::vector<int> after_rs;
    for (int t = 0; t < T; ++t) {
      int tail = -1;
      for (int s : stages) {
        std::vector<int> deps;
        for (int d = 0; d < D; ++d) {
          deps.push_back(bwd_[idx(s, d, t, m - 1)]);
          if (s > 0) deps.push_back(grad_in_[idx(s - 1, d, t, m - 1)]);
        }
        if (D < 2) {
          after_rs.insert(after_rs.end(), deps.begin(), deps.end());
          continue;
        }
        if (tail >= 0) deps.push_back(tail);
        std::vector<int> group;
        for (int d = 0; d < D; ++d) group.push_back(rank(p, d, t));
        const auto units = fsdp_units(c_, s);
        for (auto u = units.rbegin(); u != units.rend(); ++u)
          deps = {collective(fmt::format("s{}.t{}.rs.{}", s, t, u->name), CollectiveOp::reduce_scatter, group,
                             u->scatter_bytes, deps)};
        tail = deps.back();
      }
      if (tail >= 0) after_rs.push_back(tail);
    }
    // The rank's FSDP × TP ranks reduce the norm hierarchically, so that every hop stays inside a scale-up
    // domain (TP) or on one rail (FSDP peers share their local index): over TP, then over FSDP.
    std::vector<int> reduced = after_rs;
    // One all-reduce per group of `size` ranks (rank_of(outer, k), k < size), each after all of `reduced`.
    auto norm_step = [&](const char* level, int outer_count, int size, auto rank_of) {
      if (size < 2) return;
      std::vector<int> next_reduced;
      for (int o = 0; o < outer_count; ++o) {
        std::vector<int> group;
        for (int k = 0; k < size; ++k) group.push_back(rank_of(o, k));
        next_reduced.push_back(collective(fmt::format("{}.{}{}.gradnorm.{}", rank_tag(p), level[0] == 't' ? "d" : "t", o, level),
                                          CollectiveOp::all_reduce, group, 1024, reduced));
      }
      reduced = next_reduced;
    };
    norm_step("tp", D, T, [&](int d, int t) { return rank(p, d, t); });
    norm_step("dp", T, D, [&](int t, int d) { return rank(p, d, t); });
    stage_done.insert(stage_done.end(), reduced.begin(), reduced.end());
  }
  if (P < 2) return stage_done;
  std::vector<int> ends;
  for (int d = 0; d < D; ++d)
    for (int t = 0; t < T; ++t) {
      std::vector<int> group;
      for (int p = 0; p < P; ++p) group.push_back(rank(p, d, t));
      ends.push_back(
          collective(fmt::format("d{}.t{}.gradnorm.pp", d, t), CollectiveOp::all_reduce, group, 1024, stage_done));
    }
  return ends;
}

// The optimizer step of every GPU once it knows the gradient norm (clip_grad_norm_, then optimizer.step()):
// after its own PP norm all-reduce, or after the stage's last norm step without PP. Returns, per rank, the task
// that ends its step (or what it would have waited for, without one).
std::vector<int> Builder::optimizer_steps(const std::vector<int>& norm) {
  std::vector<int> done;
  for (int p = 0; p < P; ++p)
    for (int d = 0; d < D; ++d)
      for (int t = 0; t < T; ++t) {
        const std::vector<int> deps = P >= 2 ? std::vector<int>{norm[static_cast<std::size_t>(d * T + t)]} : norm;
        if (c_.optimizer_bytes_per_param > 0)
          done.push_back(
              compute(fmt::format("{}.d{}.t{}.opt", rank_tag(p), d, t), rank(p, d, t), optimizer_seconds(c_, p), deps));
      }
  return c_.optimizer_bytes_per_param > 0 ? done : norm;
}

// On a logging step, after the optimizer step, every rank all-reduces the loss (1 KiB, as the norm) over its FSDP
// group, the mean and then the max (TorchTitan's train_step: dist_mean, dist_max over the dp_cp mesh).
std::vector<int> Builder::loss_allreduces(const std::vector<int>& ends) {
  if (!c_.loss_allreduce || D < 2) return ends;
  const bool per_rank = c_.optimizer_bytes_per_param > 0;  // ends holds one step per rank, in rank order
  std::vector<int> out;
  for (int p = 0; p < P; ++p)
    for (int t = 0; t < T; ++t) {
      std::vector<int> group, deps;
      for (int d = 0; d < D; ++d) {
        group.push_back(rank(p, d, t));
        if (per_rank) deps.push_back(ends[static_cast<std::size_t>(rank(p, d, t))]);
        else if (P >= 2) deps.push_back(ends[static_cast<std::size_t>(d * T + t)]);
      }
      if (!per_rank && P < 2) deps = ends;
      const int mean = collective(fmt::format("{}.t{}.loss.mean", rank_tag(p), t), CollectiveOp::all_reduce, group, 1024, deps);
      out.push_back(collective(fmt::format("{}.t{}.loss.max", rank_tag(p), t), CollectiveOp::all_reduce, group, 1024, {mean}));
    }
  return out;
}

}  // namespace

JobGraph build_torchtitan(const TorchTitanConfig& c) {
  check_torchtitan(c);
  return Builder(c).build();
}

}  // namespace odcn::workload
