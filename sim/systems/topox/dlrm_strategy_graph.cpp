// build_dlrm(c, strategy, measurements): the job graph of one DLRM iteration under a searched strategy
// (dlrm_strategy.hpp says what it holds).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "systems/topox/dlrm_strategy.hpp"

namespace odcn::workload {

namespace {

/// One operator's parts: part p runs on server[p], as task[p], on samples [p·batch/k, (p+1)·batch/k).
struct Parts {
  std::string name;
  std::vector<int> server, task;
  int degree() const { return static_cast<int>(server.size()); }
};

class Builder {
 public:
  Builder(const DlrmConfig& c, JobGraph& g)
      : c_(c), g_(g), batch_(dlrm_batch_per_server(c) * c.servers) {}

  /// The parts of an operator placed by `p`, each a compute task of `ms` after the deps inputs(part) returns.
  template <class Inputs>
  Parts compute(const std::string& name, const std::string& dir, const DlrmPlacement& p, double ms, Inputs inputs) {
    Parts parts{name, dlrm_group(c_.servers, p), {}};
    for (int i = 0; i < p.degree; ++i) {
      const int server = parts.server[static_cast<std::size_t>(i)];
      parts.task.push_back(add(compute_task(fmt::format("{}.{}@s{}", dir, name, server), server, milliseconds(ms),
                                            inputs(i, p.degree, server))));
    }
    return parts;
  }

  /// What part j (of `degree`, on `server`) needs of `from`, whose output has `width` values per sample: for
  /// every part of `from` whose samples overlap part j's, the part itself when on the same server, else a
  /// transfer of the overlap.
  std::vector<int> reshard(const Parts& from, int j, int degree, int server, std::int64_t width,
                           const std::string& dir, const std::string& to) {
    const std::int64_t lo = j * batch_ / degree, hi = (j + 1) * batch_ / degree;
    std::vector<int> deps;
    const int k = from.degree();
    for (int i = 0; i < k; ++i) {
      const std::int64_t overlap = std::min(hi, (i + 1) * batch_ / k) - std::max(lo, i * batch_ / k);
      if (overlap <= 0) continue;
      const int src = from.server[static_cast<std::size_t>(i)], task = from.task[static_cast<std::size_t>(i)];
      if (src == server) {
        deps.push_back(task);
        continue;
      }
      const Bytes bytes = static_cast<Bytes>(overlap) * static_cast<Bytes>(width) * c_.bytes_per_value;
      deps.push_back(add(transfer_task(fmt::format("{}.{}@s{}->{}@s{}", dir, from.name, src, to, server), src,
                                       server, bytes, {task})));
    }
    return deps;
  }

  int add(Task t) {
    g_.tasks.push_back(std::move(t));
    return static_cast<int>(g_.tasks.size()) - 1;
  }

 private:
  const DlrmConfig& c_;
  JobGraph& g_;
  std::int64_t batch_;
};

std::vector<int> joined(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

JobGraph build_dlrm(const DlrmConfig& c, const DlrmStrategy& s, const DlrmMeasurements& m) {
  check_dlrm(c);
  check_dlrm_strategy(c, s, m);
  const auto layers = dlrm_dense_layers(c);
  const int L = static_cast<int>(layers.size()), Lb = c.bottom_layers;
  JobGraph g;
  g.name = c.name;
  g.ranks = c.servers;
  g.iterations = c.iterations;
  Builder b(c, g);
  const auto at = [](auto& v, int i) -> decltype(auto) { return v[static_cast<std::size_t>(i)]; };
  const auto none = [](int, int, int) { return std::vector<int>{}; };
  const DlrmOpTimes& cat_ms = dlrm_times_at(m.concat, s.concat.degree);
  // A part's own forward, which its backward needs (the activations it kept).
  const auto own = [&](const Parts& f, int j) { return std::vector<int>{at(f.task, j)}; };

  // Forward: the tables and the bottom MLP start the iteration; the concat joins them; the top MLP follows.
  std::vector<Parts> emb_fwd, emb_bwd, fwd(static_cast<std::size_t>(L)), bwd(static_cast<std::size_t>(L));
  // Tables on one server look up one after another (a device runs one operator at a time), in table order; so do
  // their backward passes. Under the hybrid strategy no server holds two tables.
  std::vector<int> last_fwd(static_cast<std::size_t>(c.servers), -1), last_bwd = last_fwd;
  const auto after = [](int task) { return task < 0 ? std::vector<int>{} : std::vector<int>{task}; };
  for (int t = 0; t < c.tables; ++t) {
    const int server = at(s.table_server, t);
    emb_fwd.push_back(b.compute(fmt::format("emb.t{}", t), "fwd", {1, server}, m.embedding.fwd_ms,
                                [&](int, int, int) { return after(at(last_fwd, server)); }));
    at(last_fwd, server) = emb_fwd.back().task[0];
  }
  auto forward = [&](int l, const Parts& input) {
    const auto& layer = at(layers, l);
    at(fwd, l) = b.compute(layer.name, "fwd", at(s.dense, l), dlrm_layer_times(c, m, l, at(s.dense, l).degree).fwd_ms,
                           [&](int j, int k, int server) {
                             return b.reshard(input, j, k, server, layer.in, "fwd", layer.name);
                           });
  };
  at(fwd, 0) = b.compute(at(layers, 0).name, "fwd", at(s.dense, 0), dlrm_layer_times(c, m, 0, at(s.dense, 0).degree).fwd_ms,
                         none);
  for (int l = 1; l < Lb; ++l) forward(l, at(fwd, l - 1));
  const Parts cat_fwd = b.compute("cat", "fwd", s.concat, cat_ms.fwd_ms, [&](int j, int k, int server) {
    auto deps = b.reshard(at(fwd, Lb - 1), j, k, server, c.bottom_width, "fwd", "cat");
    for (const auto& e : emb_fwd) deps = joined(std::move(deps), b.reshard(e, j, k, server, c.embedding_dim, "fwd", "cat"));
    return deps;
  });
  for (int l = Lb; l < L; ++l) forward(l, l == Lb ? cat_fwd : at(fwd, l - 1));

  // Backward: each part after its own forward and the gradient of its output, re-sharded from the layer above.
  auto backward = [&](int l, const Parts* grad) {
    const auto& layer = at(layers, l);
    at(bwd, l) = b.compute(layer.name, "bwd", at(s.dense, l), dlrm_layer_times(c, m, l, at(s.dense, l).degree).bwd_ms,
                           [&](int j, int k, int server) {
                             auto deps = own(at(fwd, l), j);
                             if (grad) deps = joined(std::move(deps), b.reshard(*grad, j, k, server, layer.out, "bwd", layer.name));
                             return deps;
                           });
  };
  for (int l = L - 1; l >= Lb; --l) backward(l, l == L - 1 ? nullptr : &at(bwd, l + 1));
  const Parts cat_bwd = b.compute("cat", "bwd", s.concat, cat_ms.bwd_ms, [&](int j, int k, int server) {
    return joined(own(cat_fwd, j), b.reshard(at(bwd, Lb), j, k, server, at(layers, Lb).in, "bwd", "cat"));
  });
  for (int l = Lb - 1; l >= 0; --l) backward(l, l == Lb - 1 ? &cat_bwd : &at(bwd, l + 1));
  // Each table's gradient: every concat part's samples of it, then the table's own backward.
  for (int t = 0; t < c.tables; ++t) {
    const int server = at(s.table_server, t);
    emb_bwd.push_back(b.compute(fmt::format("emb.t{}", t), "bwd", {1, server}, m.embedding.bwd_ms,
                                [&](int j, int k, int on) {
                                  auto deps = joined(own(at(emb_fwd, t), 0), after(at(last_bwd, server)));
                                  return joined(std::move(deps), b.reshard(cat_bwd, j, k, on, c.embedding_dim, "bwd",
                                                                           fmt::format("emb.t{}", t)));
                                }));
    at(last_bwd, server) = emb_bwd.back().task[0];
  }

  // A dense layer of degree k > 1 all-reduces its weight and bias over its group (one ring) after its backward.
  std::vector<int> end;
  for (int l = 0; l < L; ++l)
    if (at(s.dense, l).degree > 1)
      end.push_back(b.add(collective_task(fmt::format("allreduce.{}", at(layers, l).name), CollectiveOp::all_reduce,
                                          CollectiveAlgorithm::ring, dlrm_group(c.servers, at(s.dense, l)),
                                          dlrm_allreduce_bytes(c, at(layers, l)), at(bwd, l).task)));
  end = joined(std::move(end), at(bwd, 0).task);
  if (c.update_ms > 0) {  // each server's update waits for every gradient (FlexFlow's UPDATE)
    std::vector<int> updates;
    for (int server = 0; server < c.servers; ++server)
      updates.push_back(b.add(compute_task(fmt::format("update@s{}", server), server, milliseconds(c.update_ms), end)));
    end = std::move(updates);
  }
  // The barrier (TOPO-X's virtual end task): every backward is an ancestor of the first layer's or a table's.
  Task barrier;
  barrier.name = "barrier";
  barrier.kind = TaskKind::barrier;
  barrier.deps = std::move(end);
  for (const auto& e : emb_bwd) barrier.deps.push_back(e.task[0]);
  b.add(std::move(barrier));
  validate(g, c.name, "");
  return g;
}

}  // namespace odcn::workload
