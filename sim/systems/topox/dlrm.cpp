#include "systems/topox/dlrm.hpp"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/limits.hpp"

namespace odcn::workload {

const std::vector<std::string>& dlrm_presets() {
  static const std::vector<std::string> names{"table2-1", "table2-2"};
  return names;
}

DlrmConfig dlrm_preset(const std::string& name) {
  DlrmConfig c;
  if (name == "table2-2") return c;  // the defaults of DlrmConfig are configuration 2
  if (name == "table2-1") {
    // TopoOpt's dlrm128_dc.sh: --big-gpu 4, local_b 128, --arch-mlp-bot 2048-…-2048 (8 entries, so 7 layers),
    // --arch-mlp-top 4096-…-4096-1 (FlexFlow takes the first layer's input from the concat), 64 tables of
    // 10,000,000 × 128. Times: FlexNet measures/dlrm128.json at "2-1-128" (dense ops, batch split over 128
    // servers) and "2-1-1" (one table on one server, whole batch).
    c.name = "dlrm-table2-1";
    c.servers = 128;
    c.batch_per_gpu = 128;
    c.bottom_width = 2048;
    c.top_width = 4096;
    c.tables = 64;
    c.embedding_dim = 128;
    c.bottom_fwd_ms = 0.1935;
    c.bottom_bwd_ms = 0.2963;
    c.embedding_fwd_ms = 4.3086;
    c.embedding_bwd_ms = 8.6172;
    c.concat_fwd_ms = 0.2262;
    c.concat_bwd_ms = 0.2264;
    c.top_first_fwd_ms = 0.6147;
    c.top_first_bwd_ms = 1.2109;
    c.top_middle_fwd_ms = 0.2698;
    c.top_middle_bwd_ms = 0.5215;
    c.top_last_fwd_ms = 0.0152;
    c.top_last_bwd_ms = 0.0404;
    return c;
  }
  throw std::invalid_argument(fmt::format("unknown preset '{}' (table2-1 or table2-2)", name));
}

std::int64_t dlrm_batch_per_server(const DlrmConfig& c) {
  return static_cast<std::int64_t>(c.batch_per_gpu) * c.gpus_per_server;
}

std::int64_t dlrm_concat_width(const DlrmConfig& c) {
  return c.bottom_width + static_cast<std::int64_t>(c.tables) * c.embedding_dim;
}

std::vector<DlrmDenseLayer> dlrm_dense_layers(const DlrmConfig& c) {
  std::vector<DlrmDenseLayer> layers;
  for (int l = 1; l <= c.bottom_layers; ++l)
    layers.push_back({fmt::format("bot{}", l), c.bottom_width, c.bottom_width, c.bottom_fwd_ms, c.bottom_bwd_ms});
  for (int l = 1; l <= c.top_layers; ++l) {
    const std::string name = fmt::format("top{}", l);
    if (l == 1)
      layers.push_back({name, dlrm_concat_width(c), c.top_width, c.top_first_fwd_ms, c.top_first_bwd_ms});
    else if (l == c.top_layers)
      layers.push_back({name, c.top_width, 1, c.top_last_fwd_ms, c.top_last_bwd_ms});
    else
      layers.push_back({name, c.top_width, c.top_width, c.top_middle_fwd_ms, c.top_middle_bwd_ms});
  }
  return layers;
}

namespace {

std::int64_t sum_params(const DlrmConfig& c, bool top) {
  std::int64_t n = 0;
  for (const auto& l : dlrm_dense_layers(c))
    if ((l.name.rfind("top", 0) == 0) == top) n += l.params();
  return n;
}

/// Tasks of the graph build_dlrm writes, counted without building it (for the size limit).
std::int64_t task_count(const DlrmConfig& c) {
  const std::int64_t n = c.servers, t = c.tables, layers = c.bottom_layers + c.top_layers;
  const std::int64_t compute = 2 * n * layers + 2 * n + 2 * t + (c.update_ms > 0 ? n : 0);
  return compute + 2 * t * (n - 1) + layers + 1;
}

}  // namespace

std::int64_t dlrm_bottom_params(const DlrmConfig& c) { return sum_params(c, false); }
std::int64_t dlrm_top_params(const DlrmConfig& c) { return sum_params(c, true); }
std::int64_t dlrm_dense_params(const DlrmConfig& c) { return dlrm_bottom_params(c) + dlrm_top_params(c); }

std::int64_t dlrm_embedding_params(const DlrmConfig& c) {
  return static_cast<std::int64_t>(c.tables) * c.table_rows * c.embedding_dim;
}

Bytes dlrm_allreduce_bytes(const DlrmConfig& c, const DlrmDenseLayer& layer) {
  return static_cast<Bytes>(layer.params()) * c.bytes_per_value;
}

Bytes dlrm_pooled_bytes(const DlrmConfig& c) {
  return static_cast<Bytes>(dlrm_batch_per_server(c)) * c.embedding_dim * c.bytes_per_value;
}

Bytes dlrm_alltoall_bytes(const DlrmConfig& c) {
  return static_cast<Bytes>(c.tables) * (c.servers - 1) * dlrm_pooled_bytes(c);
}

int dlrm_table_owner(const DlrmConfig& c, int table) { return table % c.servers; }

void check_dlrm(const DlrmConfig& c) {
  auto fail = [](const std::string& why) { throw std::invalid_argument(why); };
  // Every integer field with its lower bound and an upper bound that keeps parameter counts and byte sizes
  // exact in 64-bit integers and doubles.
  const std::initializer_list<std::tuple<std::int64_t, std::int64_t, std::int64_t, const char*>> ints{
      {c.servers, 2, 65'536, "servers"},
      {c.gpus_per_server, 1, 1'024, "gpus_per_server"},
      {c.batch_per_gpu, 1, 1'000'000, "batch_per_gpu"},
      {c.bottom_layers, 1, 10'000, "bottom_layers"},
      {c.bottom_width, 1, 1'000'000, "bottom_width"},
      {c.top_layers, 2, 10'000, "top_layers"},
      {c.top_width, 1, 1'000'000, "top_width"},
      {c.tables, 1, 100'000, "tables"},
      {c.table_rows, 1, 1'000'000'000'000, "table_rows"},
      {c.embedding_dim, 1, 1'000'000, "embedding_dim"},
      {c.bag_size, 1, 1'000'000, "bag_size"},
      {c.bytes_per_value, 1, 16, "bytes_per_value"},
      {c.iterations, 1, limits::kMaxIterations, "iterations"}};
  for (const auto& [v, lo, hi, what] : ints)
    if (v < lo || v > hi) fail(fmt::format("{} must be between {} and {} (got {})", what, lo, hi, v));
  const std::initializer_list<std::pair<double, const char*>> times{
      {c.bottom_fwd_ms, "bottom_fwd_ms"},         {c.bottom_bwd_ms, "bottom_bwd_ms"},
      {c.embedding_fwd_ms, "embedding_fwd_ms"},   {c.embedding_bwd_ms, "embedding_bwd_ms"},
      {c.concat_fwd_ms, "concat_fwd_ms"},         {c.concat_bwd_ms, "concat_bwd_ms"},
      {c.top_first_fwd_ms, "top_first_fwd_ms"},   {c.top_first_bwd_ms, "top_first_bwd_ms"},
      {c.top_middle_fwd_ms, "top_middle_fwd_ms"}, {c.top_middle_bwd_ms, "top_middle_bwd_ms"},
      {c.top_last_fwd_ms, "top_last_fwd_ms"},     {c.top_last_bwd_ms, "top_last_bwd_ms"}};
  // A compute task of a job graph must take time (at least limits::kMinSeconds), so every measured time is
  // > 0; the update alone may be 0, in which case no update task is written.
  const double lo_ms = limits::kMinSeconds * 1e3, hi_ms = limits::kMaxSeconds * 1e3;
  for (const auto& [v, what] : times)
    if (!(v >= lo_ms && v <= hi_ms))
      fail(fmt::format("{} must be between {:g} and {:g} ms (got {:g})", what, lo_ms, hi_ms, v));
  if (!(c.update_ms == 0 || (c.update_ms >= lo_ms && c.update_ms <= hi_ms)))
    fail(fmt::format("update_ms must be 0 or between {:g} and {:g} ms (got {:g})", lo_ms, hi_ms, c.update_ms));
  // The embedding parameter count must stay exact in a 64-bit integer.
  if (static_cast<double>(c.tables) * static_cast<double>(c.table_rows) * c.embedding_dim > 1e18)
    fail("tables x table_rows x embedding_dim is above 1e18 embedding parameters");
  if (dlrm_concat_width(c) > 100'000'000)
    fail(fmt::format("bottom_width + tables x embedding_dim = {} is above 100,000,000", dlrm_concat_width(c)));
  for (const auto& l : dlrm_dense_layers(c))
    if (dlrm_allreduce_bytes(c, l) > limits::kMaxBytes)
      fail(fmt::format("layer {} has {} parameters: its all-reduce is above {:g} bytes", l.name, l.params(),
                       limits::kMaxBytes));
  if (dlrm_pooled_bytes(c) > limits::kMaxBytes)
    fail(fmt::format("batch_per_gpu x gpus_per_server x embedding_dim x bytes_per_value is above {:g} bytes",
                     limits::kMaxBytes));
  if (task_count(c) > limits::kMaxGeneratedTasks)
    fail(fmt::format("servers {} and tables {} give {} tasks, above {} (more than a job-graph file that run reads "
                     "holds)",
                     c.servers, c.tables, task_count(c), limits::kMaxGeneratedTasks));
}

JobGraph build_dlrm(const DlrmConfig& c) {
  check_dlrm(c);
  const int N = c.servers, T = c.tables;
  const auto layers = dlrm_dense_layers(c);
  const int Lb = c.bottom_layers, L = static_cast<int>(layers.size());
  JobGraph g;
  g.name = c.name;
  g.ranks = N;
  g.iterations = c.iterations;
  g.tasks.reserve(static_cast<std::size_t>(task_count(c)));
  auto add = [&](Task task) {
    g.tasks.push_back(std::move(task));
    return static_cast<int>(g.tasks.size()) - 1;
  };
  auto compute = [&](std::string name, int rank, double ms, std::vector<int> deps) {
    Task t;
    t.name = std::move(name);
    t.kind = TaskKind::compute;
    t.rank = rank;
    t.duration_s = milliseconds(ms);
    t.deps = std::move(deps);
    return add(std::move(t));
  };
  auto transfer = [&](std::string name, int src, int dst, int dep) {
    Task t;
    t.name = std::move(name);
    t.kind = TaskKind::transfer;
    t.src = src;
    t.dst = dst;
    t.bytes = dlrm_pooled_bytes(c);
    t.deps = {dep};
    return add(std::move(t));
  };
  auto at = [](std::vector<int>& v, int i) -> int& { return v[static_cast<std::size_t>(i)]; };
  // fwd[l][s] and bwd[l][s]: dense layer l (index into `layers`: bottom first) on server s.
  std::vector<std::vector<int>> fwd(static_cast<std::size_t>(L), std::vector<int>(static_cast<std::size_t>(N), -1));
  auto bwd = fwd;
  std::vector<int> emb_fwd(static_cast<std::size_t>(T)), emb_bwd(static_cast<std::size_t>(T));
  std::vector<int> cat_fwd(static_cast<std::size_t>(N)), cat_bwd(static_cast<std::size_t>(N));
  // What each server's concat waits for besides its bottom MLP: a flow from every table held elsewhere, and the
  // lookup itself for every table it holds.
  std::vector<std::vector<int>> cat_inputs(static_cast<std::size_t>(N));

  // Forward. The embedding lookups and every server's bottom MLP start the iteration side by side: FlexFlow
  // gives each operator of a server its own slot on that device's timeline in the simulator, and this model
  // does not serialise them either (docs/dlrm.md).
  for (int t = 0; t < T; ++t) {
    const int o = dlrm_table_owner(c, t);
    at(emb_fwd, t) = compute(fmt::format("emb.fwd.t{}", t), o, c.embedding_fwd_ms, {});
    for (int s = 0; s < N; ++s)
      if (s != o)
        cat_inputs[static_cast<std::size_t>(s)].push_back(
            transfer(fmt::format("a2a.fwd.t{}->s{}", t, s), o, s, at(emb_fwd, t)));
      else
        cat_inputs[static_cast<std::size_t>(s)].push_back(at(emb_fwd, t));
  }
  for (int s = 0; s < N; ++s) {
    for (int l = 0; l < Lb; ++l) {
      const auto& layer = layers[static_cast<std::size_t>(l)];
      at(fwd[static_cast<std::size_t>(l)], s) =
          compute(fmt::format("fwd.{}@s{}", layer.name, s), s, layer.fwd_ms,
                  l == 0 ? std::vector<int>{} : std::vector<int>{at(fwd[static_cast<std::size_t>(l - 1)], s)});
    }
    auto deps = cat_inputs[static_cast<std::size_t>(s)];
    deps.insert(deps.begin(), at(fwd[static_cast<std::size_t>(Lb - 1)], s));
    at(cat_fwd, s) = compute(fmt::format("fwd.cat@s{}", s), s, c.concat_fwd_ms, std::move(deps));
    int prev = at(cat_fwd, s);
    for (int l = Lb; l < L; ++l) {
      const auto& layer = layers[static_cast<std::size_t>(l)];
      prev = at(fwd[static_cast<std::size_t>(l)], s) =
          compute(fmt::format("fwd.{}@s{}", layer.name, s), s, layer.fwd_ms, {prev});
    }
    // Backward mirrors the forward: the top MLP from its last layer down, the concat's backward, which splits
    // the gradient between the bottom MLP and the pooled embeddings, then the bottom MLP from its last layer.
    for (int l = L - 1; l >= Lb; --l) {
      const auto& layer = layers[static_cast<std::size_t>(l)];
      prev = at(bwd[static_cast<std::size_t>(l)], s) =
          compute(fmt::format("bwd.{}@s{}", layer.name, s), s, layer.bwd_ms, {prev});
    }
    prev = at(cat_bwd, s) = compute(fmt::format("bwd.cat@s{}", s), s, c.concat_bwd_ms, {prev});
    for (int l = Lb - 1; l >= 0; --l) {
      const auto& layer = layers[static_cast<std::size_t>(l)];
      prev = at(bwd[static_cast<std::size_t>(l)], s) =
          compute(fmt::format("bwd.{}@s{}", layer.name, s), s, layer.bwd_ms, {prev});
    }
  }
  // Backward all-to-all: every server returns the gradient of each remote table's pooled vectors to its owner,
  // which updates the table once it has all of them and its own concat's backward.
  for (int t = 0; t < T; ++t) {
    const int o = dlrm_table_owner(c, t);
    std::vector<int> deps{at(cat_bwd, o)};
    for (int s = 0; s < N; ++s)
      if (s != o) deps.push_back(transfer(fmt::format("a2a.bwd.s{}->t{}", s, t), s, o, at(cat_bwd, s)));
    at(emb_bwd, t) = compute(fmt::format("emb.bwd.t{}", t), o, c.embedding_bwd_ms, std::move(deps));
  }
  // One ring all-reduce per dense layer, of its weight and bias together. FlexNet issues one per parameter
  // tensor, i.e. a weight's and a bias's after the same backward; merged, every server sends the same bytes in
  // total, and the bias's own collective (4 B to 16 KiB, whose ring steps would be latency only) disappears.
  std::vector<int> everyone(static_cast<std::size_t>(N));
  for (int s = 0; s < N; ++s) at(everyone, s) = s;
  std::vector<int> allreduces;
  for (int l = 0; l < L; ++l) {
    allreduces.push_back(add(collective_task(fmt::format("allreduce.{}", layers[static_cast<std::size_t>(l)].name),
                                             CollectiveOp::all_reduce, CollectiveAlgorithm::ring, everyone,
                                             dlrm_allreduce_bytes(c, layers[static_cast<std::size_t>(l)]),
                                             bwd[static_cast<std::size_t>(l)])));
  }
  // The update waits for every all-reduce (FlexFlow's UPDATE task follows all of its server's gradients). A
  // compute task must take time, so with update_ms = 0 (the measurements have no update) none is written and
  // the barrier waits on the all-reduces, which schedules the same.
  Task end;
  end.name = "barrier";
  end.kind = TaskKind::barrier;
  if (c.update_ms > 0)
    for (int s = 0; s < N; ++s) end.deps.push_back(compute(fmt::format("update@s{}", s), s, c.update_ms, allreduces));
  else
    end.deps = allreduces;
  end.deps.insert(end.deps.end(), emb_bwd.begin(), emb_bwd.end());
  add(std::move(end));
  validate(g, c.name, "");
  return g;
}

}  // namespace odcn::workload
