// The subcommands that write job-graph files and traces: `generate`, `import` and `export`.
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "app/cli.hpp"
#include "app/workflow.hpp"
#include "core/limits.hpp"

namespace odcn::cli {

namespace {

using namespace odcn::limits;

/// What `import` binds to the app: its options, and the texts of the integer ones, checked after parsing.
struct ImportState {
  odcn::app::ImportOptions imp;
  std::string imp_step, imp_ranks, imp_iterations;
};

/// The integer options converted, in the order their errors are reported.
void finish_import(ImportState& s) {
  auto& imp = s.imp;
  if (!s.imp_step.empty())
    imp.step = static_cast<int>(integer_option(s.imp_step, "--step", 0, std::numeric_limits<int>::max()));
  if (!s.imp_ranks.empty()) imp.ranks = static_cast<int>(integer_option(s.imp_ranks, "--ranks", 1, kMaxEndpoints));
  if (!s.imp_iterations.empty())
    imp.iterations = static_cast<int>(integer_option(s.imp_iterations, "--iterations", 1, kMaxIterations));
}

}  // namespace

Command add_generate(CLI::App& app) {
  auto gen_ptr = std::make_shared<odcn::app::GenerateOptions>();
  auto& gen = *gen_ptr;
  auto* generate_cmd = app.add_subcommand(
      "generate", "write one training iteration as a job-graph file that run replays on any platform kind "
                  "(docs/job-graph.md): torchtitan, a TorchTitan-like Llama-3 iteration under TP x FSDP x PP, 1F1B or "
                  "interleaved 1F1B (Opus, Ouyang, Ding, Singh); dlrm, a DLRM iteration of TOPO-X's Table II (Hu et al.) with "
                  "FlexNet's hybrid strategy and measured A100 times (docs/dlrm.md)");
  generate_cmd->add_option("kind", gen.kind, "what to generate: torchtitan or dlrm")->required();
  generate_cmd->add_option("--preset", gen.preset,
                           "torchtitan: llama3-8b (the default; Opus section 3.1: 16 A100s, TP 4 x FSDP 2 x PP 2, "
                           "micro-batch 2, 2 micro-batches) or llama3.1-405b (1,024 H100s, TP 8 x PP 16 x FSDP 8, "
                           "micro-batch 1, 16 micro-batches, full activation checkpointing); dlrm: table2-2 (the default; TOPO-X Table II "
                           "configuration 2: 16 servers of 4 A100s, 16 tables of dim 256, MLPs of width 1024 and "
                           "2048) or table2-1 (configuration 1: 128 servers, 64 tables of dim 128, widths 2048 and "
                           "4096)");
  generate_cmd->add_option("--set", gen.sets,
                           "KEY=VALUE, repeatable. torchtitan: layers, dim, heads, kv_heads, ffn_hidden, vocab, tp, "
                           "fsdp, pp, virtual_stages (model stages per pipeline rank; default 1: 1F1B, Opus section "
                           "3.1; V > 1: interleaved 1F1B as PyTorch's ScheduleInterleaved1F1B, stage s on rank s mod "
                           "pp, micro-batches a multiple of max(1, microbatches / pp)), microbatches, "
                           "microbatch_size, seq_len, iterations, param_bytes, reduce_bytes, gpu_tflops, utilisation, "
                           "activation_checkpoint (none, selective or full, TorchTitan's modes; default selective, "
                           "its llama3_8b.toml: every second matmul of a block recomputed; llama3.1-405b: full, its "
                           "llama3_405b.toml), recompute (0 to 1: the share of the blocks' forward recomputed, "
                           "overriding activation_checkpoint), tp_collectives (default true: sequence parallelism's "
                           "2 all-gathers and 2 reduce-scatters per block and direction over TP, one all-reduce per "
                           "compute, on the scale-up fabric), loss_allreduce (default false: TorchTitan all-reduces "
                           "the loss, mean and max over FSDP, only every metrics.log_freq = 10 steps), "
                           "optimizer_bytes_per_param (AdamW: 28; 0: no optimizer step), "
                           "memory_gbps, gpu (a100-40gb, a100-80gb, h100-sxm: sets gpu_tflops and memory_gbps), "
                           "prefetch and lazy_gather (true or false), name. dlrm: servers, gpus_per_server, batch_per_gpu, "
                           "bottom_layers, bottom_width, top_layers, top_width, tables, table_rows, embedding_dim, "
                           "bag_size, bytes_per_value, iterations, name and the per-server times in ms "
                           "(bottom_fwd_ms, bottom_bwd_ms, embedding_fwd_ms, embedding_bwd_ms, concat_fwd_ms, "
                           "concat_bwd_ms, top_first_fwd_ms, top_first_bwd_ms, top_middle_fwd_ms, top_middle_bwd_ms, "
                           "top_last_fwd_ms, top_last_bwd_ms, update_ms)")
      ->take_all()
      ->allow_extra_args(false);
  auto* search = generate_cmd->add_option("--search", gen.search,
                           "dlrm: search the parallelisation for this flat_ocs platform (TOPO-X's title, in FlexNet's "
                           "measured space: per dense layer and the concat a data-parallel degree and group, per "
                           "table a server) and write the best strategy's iteration (docs/dlrm.md, \"The strategy "
                           "search\")");
  generate_cmd
      ->add_option("--search-budget", gen.search_budget,
                   "steps of the search (default 5000, TopoOpt's scripts' --search-budget)")
      ->check(CLI::Range(1, 1'000'000))
      ->needs(search);
  generate_cmd->add_option("--search-seed", gen.search_seed, "the search's random seed (default 1)")->needs(search);
  generate_cmd->add_option("--search-mode", gen.search_mode,
                           "anneal (the default: simulated annealing with moves of runs of layers, ours) or flexnet "
                           "(FlexNet's MCMC as released: one operator per move, exp(-delta ms) acceptance)")
      ->needs(search);
  generate_cmd->add_option("--search-cost", gen.search_cost,
                           "topox (the default: TOPO-X's lower bound on the fabric, a bound for any circuit schedule) "
                           "or topoopt (FlexNet's estimate of the topology TopologyFinder builds for each candidate, "
                           "the cost TopoOpt's own search uses)")
      ->needs(search);
  generate_cmd
      ->add_option("--search-finalists", gen.search_finalists,
                   "with --search-cost topox: how many of the cheapest strategies found TOPO-X's planner plans at the "
                   "end, beside the hybrid, keeping the shortest plan (default 4; 0: the cheapest bound alone)")
      ->check(CLI::Range(0, 100))
      ->needs(search);
  generate_cmd->add_option("--out", gen.out, "the job-graph file to write")->required();
  generate_cmd->add_flag("--force", gen.force, "replace --out even when it is not a job graph this same generate wrote (which is replaced without it)");
  generate_cmd->add_flag("--quiet", gen.quiet, "print nothing on success");
  return {generate_cmd, [] {}, [gen_ptr] { return odcn::app::generate_command(*gen_ptr); }};
}

Command add_import(CLI::App& app) {
  auto s = std::make_shared<ImportState>();
  auto& imp = s->imp;
  auto& imp_step = s->imp_step;
  auto& imp_ranks = s->imp_ranks;
  auto& imp_iterations = s->imp_iterations;
  auto* import_cmd = app.add_subcommand(
      "import", "turn per-rank traces into a job-graph file that run replays on any platform kind: PyTorch profiler "
                "(Kineto) Chrome traces or MLCommons Chakra ET files (docs/traces.md)");
  import_cmd->add_option("format", imp.format, "kineto or chakra")->required();
  import_cmd->add_option("files", imp.files,
                         "the trace files, one per rank (kineto: each file names its rank; chakra: file i is rank i, "
                         "or the rank in names ending .<rank>.et)")
      ->required();
  import_cmd->add_option("--out", imp.out, "the job-graph file to write")->required();
  import_cmd->add_option("--step", imp_step, "kineto: the ProfilerStep#N to import (default: the first complete one)");
  import_cmd->add_flag("--replicate", imp.replicate,
                       "kineto: copy the first file's rank to every rank without a file (an SPMD job such as data "
                       "parallelism profiled on one rank)");
  import_cmd->add_option("--streams", imp.streams,
                         "kineto: concurrent (the default: each CUDA stream a chain, joined by the trace's Stream "
                         "Wait Events, so compute overlaps communication as it did; docs/traces-kineto.md) or serial "
                         "(a rank's events are one chain, compute the time between its communications: imports "
                         "made before 2026-11-27)");
  import_cmd->add_option("--groups", imp.groups,
                         "chakra: the process groups, a JSON object {\"pg_name\": [ranks...]} (ASTRA-sim's "
                         "--comm-group-configuration)");
  import_cmd->add_option("--ctrl-deps", imp.ctrl_deps,
                         "chakra: what ctrl_deps are: order (a dependency; the default) or caller (chakra's PyTorch "
                         "converter writes the calling node there)");
  import_cmd->add_option("--ranks", imp_ranks,
                         "chakra: ranks of an SPMD job of which the files are the first; the others copy the first file");
  import_cmd->add_option("--algorithm", imp.algorithm,
                         "chakra: algorithm of all-reduce, reduce-scatter, all-gather and broadcast: ring (default) or "
                         "direct");
  import_cmd->add_option("--compute", imp.compute,
                         "chakra: serial (default: a rank's CPU operations, GPU kernels and memory nodes each run one "
                         "at a time, as on one CPU thread and one CUDA stream, and as ASTRA-sim runs them) or overlap "
                         "(as many at once as the dependencies allow)");
  import_cmd->add_option("--name", imp.name, "the job's name (default: the first file's name)");
  import_cmd->add_option("--iterations", imp_iterations, "iterations the job runs (default 1)");
  import_cmd->add_flag("--force", imp.force, "replace --out even when it is not a job graph this same import wrote (which is replaced without it)");
  import_cmd->add_flag("--quiet", imp.quiet, "print nothing on success");
  return {import_cmd, [s] { finish_import(*s); }, [s] { return odcn::app::import_command(s->imp); }};
}

Command add_export(CLI::App& app) {
  auto exp_ptr = std::make_shared<odcn::app::ExportOptions>();
  auto& exp = *exp_ptr;
  auto* export_cmd = app.add_subcommand(
      "export", "write a job-graph file as MLCommons Chakra ET files, one per rank, and their process groups, for "
                "ASTRA-sim or another Chakra reader (docs/traces-chakra.md)");
  export_cmd->add_option("format", exp.format, "chakra")->required();
  export_cmd->add_option("graph", exp.graph, "the job-graph file (e.g. from odcnsim generate)")->required();
  export_cmd->add_option("--out", exp.out,
                         "the folder to write <name>.<rank>.et and <name>.groups.json into (created if it does not "
                         "exist)")
      ->required();
  export_cmd->add_option("--for", exp.reader,
                         "who reads the files: odcnsim (the default: BARRIER nodes, read back exactly) or astra-sim "
                         "(ASTRA-sim 2.x: a barrier over several ranks becomes a 1-byte ALL_REDUCE, and each rank "
                         "issues its communications in one order; docs/traces-chakra.md)")
      ->capture_default_str();
  export_cmd->add_flag("--force", exp.force, "replace files of the same names in --out that no earlier export wrote (those are replaced without it)");
  export_cmd->add_flag("--quiet", exp.quiet, "print nothing on success");
  return {export_cmd, [] {}, [exp_ptr] { return odcn::app::export_command(*exp_ptr); }};
}

}  // namespace odcn::cli
