// `odcnsim generate torchtitan|dlrm`: one training iteration written as a job-graph file, with a report of
// what it holds on stdout.
#include <fmt/format.h>

#include <iostream>
#include <type_traits>

#include "app/commands.hpp"
#include "app/generate_search.hpp"
#include "app/workflow.hpp"
#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "graph/job_graph_file.hpp"
#include "spec/graph_workload.hpp"
#include "spec/yaml_reader.hpp"
#include "systems/opus/torchtitan.hpp"
#include "systems/topox/dlrm.hpp"

namespace odcn::app {

namespace {

constexpr const char* kGeneratedByDlrm = "odcnsim generate dlrm";


using namespace workflow;

/// One --set of `generate torchtitan`, checked as strictly as a file's fields.
void set_torchtitan(workload::TorchTitanConfig& c, const std::string& text) {
  const auto eq = text.find('=');
  const std::string field = spec::set_field(text.substr(0, eq));
  if (eq == std::string::npos || eq == 0)
    throw InputError("command line", "--set", fmt::format("'{}' is not KEY=VALUE", shown(text)));
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  auto integer = [&](int& v, std::int64_t hi) {
    v = static_cast<int>(parse_integer(value, 1, hi, "command line", field));
  };
  auto real = [&](double& v, double lo, double hi) { v = parse_real(value, lo, hi, true, "command line", field); };
  auto boolean = [&](bool& v) {
    if (value != "true" && value != "false")
      throw InputError("command line", field, fmt::format("must be true or false (got '{}')", shown(value)));
    v = value == "true";
  };
  if (key == "name") c.name = spec::checked_name(value, "command line", field);
  else if (key == "gpu") {
    if (!workload::set_gpu(c, value))
      throw InputError("command line", field, fmt::format("unknown GPU '{}' ({})", shown(value), workload::gpu_names()));
  }
  else if (key == "activation_checkpoint") {
    if (!workload::parse_activation_checkpoint(value, c.activation_checkpoint))
      throw InputError("command line", field,
                       fmt::format("must be none, selective or full (got '{}')", shown(value)));
  }
  else if (key == "tp_collectives") boolean(c.tp_collectives);
  else if (key == "loss_allreduce") boolean(c.loss_allreduce);
  else if (key == "virtual_stages") integer(c.virtual_stages, 100'000);
  else if (key == "prefetch") boolean(c.prefetch);
  else if (key == "lazy_gather") boolean(c.lazy_gather);
  else if (key == "layers") integer(c.model.layers, 100'000);
  else if (key == "dim") integer(c.model.dim, 1'000'000);
  else if (key == "heads") integer(c.model.heads, 100'000);
  else if (key == "kv_heads") integer(c.model.kv_heads, 100'000);
  else if (key == "ffn_hidden") integer(c.model.ffn_hidden, 10'000'000);
  else if (key == "vocab") integer(c.model.vocab, 10'000'000);
  else if (key == "tp") integer(c.tp, 65'536);
  else if (key == "fsdp") integer(c.fsdp, 1'048'576);
  else if (key == "pp") integer(c.pp, 65'536);
  else if (key == "microbatches") integer(c.microbatches, 100'000);
  else if (key == "microbatch_size") integer(c.microbatch_size, 100'000);
  else if (key == "seq_len") integer(c.seq_len, 100'000'000);
  else if (key == "iterations") integer(c.iterations, limits::kMaxIterations);
  else if (key == "param_bytes") real(c.param_bytes, 0, 16);
  else if (key == "reduce_bytes") real(c.reduce_bytes, 0, 16);
  else if (key == "gpu_tflops") real(c.gpu_tflops, 0, 1e6);
  else if (key == "utilisation") real(c.utilisation, 0, 1);
  else if (key == "recompute") c.recompute = parse_real(value, 0, 1, false, "command line", field);
  else if (key == "optimizer_bytes_per_param") c.optimizer_bytes_per_param = parse_real(value, 0, 1024, false, "command line", field);
  else if (key == "memory_gbps") real(c.memory_gbps, 0, 1e6);
  else
    throw InputError("command line", field,
                     "unknown key (known: name, layers, dim, heads, kv_heads, ffn_hidden, vocab, tp, fsdp, pp, "
                     "virtual_stages, microbatches, microbatch_size, seq_len, iterations, param_bytes, reduce_bytes, "
                     "gpu_tflops, utilisation, activation_checkpoint, recompute, tp_collectives, loss_allreduce, "
                     "optimizer_bytes_per_param, memory_gbps, gpu, prefetch, lazy_gather)");
}

/// One --set of `generate dlrm`, checked as strictly as a file's fields; the ranges that depend on other
/// fields (servers x tables, layer sizes) are check_dlrm's.
void set_dlrm(workload::DlrmConfig& c, const std::string& text) {
  const auto eq = text.find('=');
  const std::string field = spec::set_field(text.substr(0, eq));
  if (eq == std::string::npos || eq == 0)
    throw InputError("command line", "--set", fmt::format("'{}' is not KEY=VALUE", shown(text)));
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  auto integer = [&](auto& v, std::int64_t lo, std::int64_t hi) {
    v = static_cast<std::remove_reference_t<decltype(v)>>(parse_integer(value, lo, hi, "command line", field));
  };
  // Measured times in ms: > 0 (a compute task must take time), except update_ms, which may be 0 (no update).
  auto ms = [&](double& v, bool may_be_zero) {
    v = parse_real(value, may_be_zero ? 0 : limits::kMinSeconds * 1e3, limits::kMaxSeconds * 1e3, false,
                   "command line", field);
  };
  if (key == "name") c.name = spec::checked_name(value, "command line", field);
  else if (key == "servers") integer(c.servers, 2, 65'536);
  else if (key == "gpus_per_server") integer(c.gpus_per_server, 1, 1'024);
  else if (key == "batch_per_gpu") integer(c.batch_per_gpu, 1, 1'000'000);
  else if (key == "bottom_layers") integer(c.bottom_layers, 1, 10'000);
  else if (key == "bottom_width") integer(c.bottom_width, 1, 1'000'000);
  else if (key == "top_layers") integer(c.top_layers, 2, 10'000);
  else if (key == "top_width") integer(c.top_width, 1, 1'000'000);
  else if (key == "tables") integer(c.tables, 1, 100'000);
  else if (key == "table_rows") integer(c.table_rows, 1, 1'000'000'000'000);
  else if (key == "embedding_dim") integer(c.embedding_dim, 1, 1'000'000);
  else if (key == "bag_size") integer(c.bag_size, 1, 1'000'000);
  else if (key == "bytes_per_value") integer(c.bytes_per_value, 1, 16);
  else if (key == "iterations") integer(c.iterations, 1, limits::kMaxIterations);
  else if (key == "bottom_fwd_ms") ms(c.bottom_fwd_ms, false);
  else if (key == "bottom_bwd_ms") ms(c.bottom_bwd_ms, false);
  else if (key == "embedding_fwd_ms") ms(c.embedding_fwd_ms, false);
  else if (key == "embedding_bwd_ms") ms(c.embedding_bwd_ms, false);
  else if (key == "concat_fwd_ms") ms(c.concat_fwd_ms, false);
  else if (key == "concat_bwd_ms") ms(c.concat_bwd_ms, false);
  else if (key == "top_first_fwd_ms") ms(c.top_first_fwd_ms, false);
  else if (key == "top_first_bwd_ms") ms(c.top_first_bwd_ms, false);
  else if (key == "top_middle_fwd_ms") ms(c.top_middle_fwd_ms, false);
  else if (key == "top_middle_bwd_ms") ms(c.top_middle_bwd_ms, false);
  else if (key == "top_last_fwd_ms") ms(c.top_last_fwd_ms, false);
  else if (key == "top_last_bwd_ms") ms(c.top_last_bwd_ms, false);
  else if (key == "update_ms") ms(c.update_ms, true);
  else
    throw InputError("command line", field,
                     "unknown key (known: name, servers, gpus_per_server, batch_per_gpu, bottom_layers, bottom_width, "
                     "top_layers, top_width, tables, table_rows, embedding_dim, bag_size, bytes_per_value, iterations, "
                     "bottom_fwd_ms, bottom_bwd_ms, embedding_fwd_ms, embedding_bwd_ms, concat_fwd_ms, concat_bwd_ms, "
                     "top_first_fwd_ms, top_first_bwd_ms, top_middle_fwd_ms, top_middle_bwd_ms, top_last_fwd_ms, "
                     "top_last_bwd_ms, update_ms)");
}

/// What a generated TorchTitan-like iteration is: its parallelism, parameters, and per stage the FSDP traffic
/// and the compute time of a micro-batch.
void print_torchtitan(const GenerateOptions& o, const workload::TorchTitanConfig& c, const workload::JobGraph& g) {
  std::cout << fmt::format("odcnsim generate: {} ({} ranks: TP {} x FSDP {} x PP {}, {} micro-batches of {}), "
                           "{} tasks -> {}\n",
                           escape_line(c.name), g.ranks, c.tp, c.fsdp, c.pp, c.microbatches, c.microbatch_size,
                           g.tasks.size(), escape_line(o.out));
  std::cout << fmt::format("  parameters        {} ({} per layer)\n", workload::total_params(c.model),
                           workload::params_per_layer(c.model));
  if (c.virtual_stages > 1)
    std::cout << fmt::format("  schedule          interleaved 1F1B, {} model stages ({} per pipeline rank; stage s on "
                             "rank s mod {})\n",
                             workload::model_stages(c), c.virtual_stages, c.pp);
  std::cout << fmt::format("  recomputation     activation_checkpoint {}: backward recomputes {:.3f} of the blocks' "
                           "forward\n",
                           c.recompute ? "overridden by recompute" : workload::to_string(c.activation_checkpoint),
                           workload::recompute_fraction(c));
  constexpr double kMiB = 1024.0 * 1024.0;
  for (int s = 0; s < workload::model_stages(c); ++s) {
    double gather = 0, scatter = 0;
    for (const auto& u : workload::fsdp_units(c, s)) {
      gather += u.gather_received;
      scatter += u.scatter_bytes;
    }
    const std::string stage = c.virtual_stages > 1 ? fmt::format("{} (rank {})", s, s % c.pp) : std::to_string(s);
    std::cout << fmt::format("  stage {:<3}         all-gather {:.1f} MiB received, reduce-scatter {:.1f} MiB in, "
                             "forward {:.1f} ms, backward {:.1f} ms per micro-batch",
                             stage, gather / kMiB, scatter / kMiB, 1e3 * workload::compute_seconds(c, s, false),
                             1e3 * workload::compute_seconds(c, s, true));
    if (c.virtual_stages == 1)
      std::cout << fmt::format(", optimizer step {:.1f} ms", 1e3 * workload::optimizer_seconds(c, s));
    std::cout << "\n";
  }
  if (c.virtual_stages > 1)
    for (int p = 0; p < c.pp; ++p)
      std::cout << fmt::format("  rank {:<3}          optimizer step {:.1f} ms\n", p,
                               1e3 * workload::optimizer_seconds(c, p));
  std::cout << fmt::format("  pipeline          {:.1f} MiB per micro-batch and direction\n",
                           workload::pipeline_bytes(c) / kMiB);
  if (workload::tp_collective_bytes(c, 0, false) > 0)
    std::cout << fmt::format("  tensor parallel   {:.1f} MiB all-reduced over TP per micro-batch forward on stage 0, "
                             "{:.1f} MiB backward (one all-reduce per compute: sequence parallelism's all-gathers and "
                             "reduce-scatters, on the scale-up fabric)\n",
                             workload::tp_collective_bytes(c, 0, false) / kMiB,
                             workload::tp_collective_bytes(c, 0, true) / kMiB);
}

void generate_torchtitan(const GenerateOptions& o) {
  workload::TorchTitanConfig c;
  try {
    c = workload::torchtitan_preset(o.preset.empty() ? "llama3-8b" : o.preset);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--preset", e.what());
  }
  for (const auto& s : o.sets) set_torchtitan(c, s);
  workload::JobGraph g;
  try {
    g = workload::build_torchtitan(c);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", o.sets.empty() ? "--preset" : "--set", e.what());
  }
  const std::string by = "odcnsim generate torchtitan";
  const std::string text = workload::job_graph_json(g, by);
  check_job_graph_size(text, o.sets.empty() ? "--preset" : "--set");
  const OutFile out = checked_out_file(o.out, o.force, by);
  write_atomically(out.path, text, out.replace);
  if (!o.quiet) {
    print_torchtitan(o, c, g);
    std::cout << run_hint(g, o.out);
  }
}

/// What a generated DLRM iteration is: its tasks by kind, dense parameters, embeddings, all-to-all traffic and
/// its compute-only critical path.
void print_dlrm(const GenerateOptions& o, const workload::DlrmConfig& c, const workload::JobGraph& g, bool searched) {
  std::int64_t compute = 0, transfers = 0, collectives = 0, barriers = 0;
  double allreduce = 0, moved = 0;  // bytes all-reduced (S per ring) and sent by transfers
  for (const auto& t : g.tasks) switch (t.kind) {
      case workload::TaskKind::compute: ++compute; break;
      case workload::TaskKind::transfer: ++transfers, moved += static_cast<double>(t.bytes); break;
      case workload::TaskKind::collective: ++collectives, allreduce += static_cast<double>(t.bytes); break;
      case workload::TaskKind::barrier: ++barriers; break;
    }
  // The compute-only critical path: a lower bound of the iteration on any fabric.
  const auto path = workload::critical_path(
      g, [](const workload::Task& t) { return t.kind == workload::TaskKind::compute ? t.duration_s : 0.0; });
  std::cout << fmt::format("odcnsim generate: {} ({} servers of {} GPUs, {} samples per server), {} tasks -> {}\n",
                           escape_line(c.name), c.servers, c.gpus_per_server, workload::dlrm_batch_per_server(c),
                           g.tasks.size(), escape_line(o.out));
  std::cout << fmt::format("  tasks             {} compute, {} transfers, {} all-reduces, {} barrier\n", compute,
                           transfers, collectives, barriers);
  std::cout << fmt::format("  dense parameters  {} (bottom {}, top {}): {:.1f} MB all-reduced in {} rings\n",
                           workload::dlrm_dense_params(c), workload::dlrm_bottom_params(c),
                           workload::dlrm_top_params(c), allreduce / 1e6, collectives);
  if (!searched) {
    std::cout << fmt::format("  embeddings        {} tables of {} x {} (table t on server t mod {}), {:.0f} B per table "
                             "and destination\n",
                             c.tables, c.table_rows, c.embedding_dim, c.servers, workload::dlrm_pooled_bytes(c));
    std::cout << fmt::format("  all-to-all        {:.0f} B ({:.4g} GB) between servers in each direction\n",
                             workload::dlrm_alltoall_bytes(c), workload::dlrm_alltoall_bytes(c) / 1e9);
  } else {
    std::cout << fmt::format("  transfers         {:.0f} B ({:.4g} GB) between servers: pooled vectors, activations and "
                             "their gradients where the strategy re-shards them\n",
                             moved, moved / 1e9);
  }
  std::cout << fmt::format("  compute path      {:.4f} ms per iteration with communication taking no time (a lower "
                           "bound)\n",
                           1e3 * path.length_s);
}

void generate_dlrm(const GenerateOptions& o) {
  workload::DlrmConfig c;
  const std::string preset = o.preset.empty() ? "table2-2" : o.preset;
  try {
    c = workload::dlrm_preset(preset);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--preset", e.what());
  }
  for (const auto& s : o.sets) set_dlrm(c, s);
  workload::JobGraph g;
  SearchReport search;
  try {
    if (o.search.empty()) {
      g = workload::build_dlrm(c);
    } else {
      if (c.name == workload::dlrm_preset(preset).name) c.name += "-searched";
      g = searched_dlrm(o, preset, c, search);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", o.sets.empty() ? "--preset" : "--set", e.what());
  }
  // build_dlrm bounds the number of tasks; the file's size, which also grows with the names and the
  // all-reduces' dependency lists, is checked here against what run reads.
  const std::string text = workload::job_graph_json(g, kGeneratedByDlrm);
  check_job_graph_size(text, "--set");
  const OutFile out = checked_out_file(o.out, o.force, kGeneratedByDlrm);
  write_atomically(out.path, text, out.replace);
  if (!o.quiet) {
    print_dlrm(o, c, g, !search.lines.empty());
    std::cout << run_hint(g, o.out);
    for (const auto& line : search.lines) std::cout << line << "\n";
  }
}

}  // namespace

int generate_command(const GenerateOptions& o) {
  try {
    if (o.kind == "torchtitan" && !o.search.empty())
      throw InputError("command line", "--search", "searches a DLRM's parallelisation only (generate dlrm)");
    if (o.kind == "torchtitan")
      generate_torchtitan(o);
    else if (o.kind == "dlrm")
      generate_dlrm(o);
    else
      throw InputError("command line", "(kind)",
                       fmt::format("unknown generator '{}' (expected torchtitan or dlrm)", shown(o.kind)));
    return 0;
  } catch (...) {
    return report_failure();
  }
}

}  // namespace odcn::app
