// odcnsim: the one command-line entry point (the composition root).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <limits>

#include "app/commands.hpp"
#include "app/workflow.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"

namespace {

using odcn::InputError;
constexpr const char* kCommandLine = "command line";

/// Finds an unknown `--option` before CLI11 does, so the message can name it and suggest the nearest one.
void check_option_names(CLI::App& sub, int argc, char** argv, int first) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* opt : sub.get_options())
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(names.begin(), names.end(), arg) == names.end())
      throw InputError(kCommandLine, odcn::shown(arg),
                       fmt::format("unknown option of 'odcnsim {}'{}{} (see 'odcnsim {} --help')", sub.get_name(),
                                   odcn::suggestion(arg, names).empty() ? "" : "; ", odcn::suggestion(arg, names),
                                   sub.get_name()));
  }
}

/// CLI11's message, on one line, with the subcommand's help named.
std::string one_line(const CLI::ParseError& e, const std::string& sub) {
  std::string msg = e.what();
  for (char& c : msg)
    if (c == '\n') c = ' ';
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
  return fmt::format("{}; see 'odcnsim {}--help'", odcn::shown(msg, 200), sub.empty() ? "" : sub + " ");
}

std::int64_t integer_option(const std::string& text, const char* name, std::int64_t lo, std::int64_t hi) {
  return odcn::parse_integer(text, lo, hi, kCommandLine, name);
}

}  // namespace

int main(int argc, char** argv) {
  odcn::interrupt::install();
  using namespace odcn::limits;
  CLI::App app{
      "odcnsim: many distributed-training jobs sharing an optical circuit-switched data-center network,\n"
      "simulated on SimGrid. It reports per-iteration times, the share spent communicating or waiting for\n"
      "OCS reconfiguration, and how often the fabric reconfigures.\n\n"
      "Exit status: 0 success; 2 bad input (one line 'file: field: reason' on stderr, nothing written);\n"
      "1 an output could not be written or an internal error; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.\n"
      "Input limits: docs/limits.md."};
  app.set_version_flag("--version", std::string("odcnsim ") + ODCNSIM_VERSION);
  app.require_subcommand(1);

  odcn::app::RunOptions run;
  std::string iterations_text, seed_text;
  const std::string policy_help = odcn::app::policy_help();
  auto* run_cmd = app.add_subcommand("run", "simulate a workload on a platform under a policy and write DIR");
  run_cmd->add_option("--platform", run.platform, "platform YAML of any kind: clos_ocs, flat_ocs, photonic_rail, electrical (e.g. platforms/clos-8pod.yaml; docs/platforms.md)")->required();
  run_cmd->add_option("--workload", run.workload, "workload YAML: explicit jobs or a generator (the TDM-4 paper's jobs, on clos_ocs), or job_graphs: job-graph files placed on endpoints (any platform kind; docs/job-graph.md)")->required();
  run_cmd->add_option("--policy", run.policy, policy_help)->capture_default_str();
  run_cmd->add_option("--iterations", iterations_text,
                      fmt::format("iterations of every job, under every policy (default 3; a workload of job graphs: "
                                  "each graph's own). TDM policies repeat their four-stage round until every job has "
                                  "done them. 1 to {}, and at most {} iteration rows (jobs x iterations) in all",
                                  kMaxIterations, kMaxIterationRows));
  run_cmd->add_option("--seed", seed_text, "overrides the workload generator's seed (0 to 2^64-1)");
  run_cmd->add_option("--trace", run.trace,
                      "trace.json: full (a slice per job task, reconfigurations, stages), summary (reconfigurations "
                      "and stages only: small at any number of jobs) or none")
      ->capture_default_str();
  std::vector<std::string> set_texts;
  run_cmd->add_option("--set", set_texts,
                      "KEY.PATH=VALUE: changes one field of the platform or the workload for this run, validated as "
                      "the file is (e.g. --set ocs.reconfig_delay_us=10000, --set training.gpu_tflops=312, --set "
                      "jobs.0.train_s=2); repeatable, a later one wins. A key with a unit in its name replaces its "
                      "sibling in the other unit (reconfig_delay_ms for reconfig_delay_us). Recorded in run.json")
      ->take_all()
      ->allow_extra_args(false);
  run_cmd->add_option("--out", run.out,
                      "output folder. It must be new, empty, or an earlier odcnsim result, which is then replaced "
                      "atomically when the run succeeds; a failed or interrupted run leaves it untouched")
      ->required();
  run_cmd->add_flag("--force", run.force,
                    "let --out replace an existing file or a folder holding other files (they are deleted). Never "
                    "the current folder, its parents, or a folder holding the run's input files");
  bool no_slowdown = false;
  run_cmd->add_flag("--no-slowdown", no_slowdown,
                    "do not run policy alone beside this run (in a second process) to measure each job's slowdown "
                    "against running alone; the slowdown metrics are then null");
  run_cmd->add_flag("--progress", run.progress, "print progress lines on stderr");
  run_cmd->add_flag("--quiet", run.quiet, "print nothing on success (no summary, notes or warnings)");
  run_cmd->add_option("--search", run.search,
                      "tdm4: how the jobs are split into groups A and B. paper: Algorithm 1 of the TDM-4 paper (hill "
                      "climbing from A = all jobs, one job per move); threshold: the best grouping B = jobs whose "
                      "training time is below a threshold; multistart (default): the paper's climb and the same "
                      "climb from the best threshold grouping and from a grouping that balances each pod group's "
                      "bytes between A and B, the best of the three (docs/model.md)");
  std::string planner_threads_text;
  run_cmd->add_option("--planner-threads", planner_threads_text,
                      "tdm4: threads that re-plan the neighbours of a moved job at once (default: one per CPU, at "
                      "most 8). The plan is the same with any number");
  std::string mip_seconds_text;
  run_cmd->add_option("--mip-seconds", mip_seconds_text,
                      "topox: CBC's wall-clock limit for the time-slotted MIP (default 30 s); the plan then is the "
                      "best one found, and summary.json gives the MIP's status and optimality gap");
  run_cmd->add_flag("--full-eval", run.full_eval,
                    "tdm4: re-evaluate every pod group for every neighbour (slow; same result as incremental)");

  odcn::app::CompareOptions cmp;
  std::string cmp_policies = "static,tdm4,aggregate", cmp_iterations, cmp_seed, cmp_parallel;
  std::vector<std::string> cmp_sets;
  auto* compare_cmd = app.add_subcommand(
      "compare", "run one workload under several policies and print one table of the metrics that mean the same "
                 "under every policy, each with its ratio to a baseline (also written as CSV, markdown and JSON)");
  compare_cmd->add_option("--platform", cmp.platform, "platform YAML (as for run)")->required();
  compare_cmd->add_option("--workload", cmp.workload, "workload YAML (as for run)")->required();
  compare_cmd->add_option("--policies", cmp_policies, "comma-separated policies to run (see 'odcnsim run --help')")
      ->capture_default_str();
  compare_cmd->add_option("--baseline", cmp.baseline, "the policy the ratios are taken to (default: the first)");
  compare_cmd->add_option("--iterations", cmp_iterations, "iterations of every job (as for run; default 3)");
  compare_cmd->add_option("--seed", cmp_seed, "the workload generator's seed (as for run)");
  compare_cmd->add_option("--set", cmp_sets, "KEY.PATH=VALUE, as for run, for every policy's run; repeatable")
      ->take_all()
      ->allow_extra_args(false);
  compare_cmd->add_option("--trace", cmp.trace, "each run's trace.json: none, summary or full")->capture_default_str();
  compare_cmd->add_option("-j,--jobs", cmp_parallel, "runs at once (default: one per policy, at most the CPUs)");
  compare_cmd->add_flag("--no-slowdown", "as for run: no slowdown baseline (policy alone) beside each run");
  compare_cmd->add_option("--out", cmp.out,
                          "folder for compare.csv, compare.md, compare.json and runs/POLICY/ (each an ordinary run "
                          "folder). New, or an earlier compare's: other files are refused unless --force, and never "
                          "deleted")
      ->required();
  compare_cmd->add_flag("--force", cmp.force, "write into a folder that holds other files (they are kept)");
  compare_cmd->add_flag("--quiet", cmp.quiet, "print nothing on success");

  odcn::app::SweepOptions sweep;
  std::string sweep_parallel;
  auto* sweep_cmd = app.add_subcommand(
      "sweep", "run a grid of --set values x policies x seeds (GRID.yaml; docs/workflow.md) in parallel here, or "
               "write it for GNU parallel or Slurm, and gather one tidy CSV (a row per point: every swept key and "
               "every metric)");
  sweep_cmd->add_option("grid", sweep.grid,
                        "GRID.yaml: platform, workload, policies, optional seeds, iterations, slowdown, and set: a map "
                        "of key paths to the values to sweep");
  sweep_cmd->add_option("--out", sweep.out,
                        "the sweep's folder: sweep.json, sweep.csv and points/ID/ (each an ordinary run folder). "
                        "Run again, it skips the points already finished (resume)");
  sweep_cmd->add_option("-j,--jobs", sweep_parallel, "points at once (default: the number of CPUs)");
  sweep_cmd->add_option("--emit", sweep.emit,
                        "parallel: write commands.txt, one odcnsim run per line, for GNU parallel; slurm: also write "
                        "sweep.sbatch, a Slurm job array. Nothing runs; gather with --collect afterwards");
  sweep_cmd->add_option("--collect", sweep.collect, "DIR: build DIR/sweep.csv from the points that finished");
  sweep_cmd->add_flag("--keep-traces", sweep.keep_traces, "write every point's trace.json (--trace full); by default none");
  sweep_cmd->add_flag("--force", sweep.force,
                      "write into a folder holding other files (they are kept), or run again every point of a folder "
                      "swept with another grid");
  sweep_cmd->add_flag("--quiet", sweep.quiet, "print nothing on success (no progress)");

  odcn::app::GenerateOptions gen;
  auto* generate_cmd = app.add_subcommand(
      "generate", "write one training iteration as a job-graph file that run replays on any platform kind "
                  "(docs/job-graph.md): torchtitan, a TorchTitan-like Llama-3 iteration under TP x FSDP x PP, 1F1B "
                  "(Opus, Ouyang, Ding, Singh); dlrm, a DLRM iteration of TOPO-X's Table II (Hu et al.) with "
                  "FlexNet's hybrid strategy and measured A100 times (docs/dlrm.md)");
  generate_cmd->add_option("kind", gen.kind, "what to generate: torchtitan or dlrm")->required();
  generate_cmd->add_option("--preset", gen.preset,
                           "torchtitan: llama3-8b (the default; Opus section 3.1: 16 A100s, TP 4 x FSDP 2 x PP 2, "
                           "micro-batch 2, 2 micro-batches) or llama3.1-405b (1,024 H100s, TP 8 x PP 16 x FSDP 8, "
                           "micro-batch 1, 16 micro-batches); dlrm: table2-2 (the default; TOPO-X Table II "
                           "configuration 2: 16 servers of 4 A100s, 16 tables of dim 256, MLPs of width 1024 and "
                           "2048) or table2-1 (configuration 1: 128 servers, 64 tables of dim 128, widths 2048 and "
                           "4096)");
  generate_cmd->add_option("--set", gen.sets,
                           "KEY=VALUE, repeatable. torchtitan: layers, dim, heads, kv_heads, ffn_hidden, vocab, tp, "
                           "fsdp, pp, microbatches, microbatch_size, seq_len, iterations, param_bytes, reduce_bytes, "
                           "gpu_tflops, utilisation, recompute, name. dlrm: servers, gpus_per_server, batch_per_gpu, "
                           "bottom_layers, bottom_width, top_layers, top_width, tables, table_rows, embedding_dim, "
                           "bag_size, bytes_per_value, iterations, name and the per-server times in ms "
                           "(bottom_fwd_ms, bottom_bwd_ms, embedding_fwd_ms, embedding_bwd_ms, concat_fwd_ms, "
                           "concat_bwd_ms, top_first_fwd_ms, top_first_bwd_ms, top_middle_fwd_ms, top_middle_bwd_ms, "
                           "top_last_fwd_ms, top_last_bwd_ms, update_ms)")
      ->take_all()
      ->allow_extra_args(false);
  generate_cmd->add_option("--out", gen.out, "the job-graph file to write")->required();
  generate_cmd->add_flag("--force", gen.force, "replace --out if it exists");
  generate_cmd->add_flag("--quiet", gen.quiet, "print nothing on success");

  odcn::app::ImportOptions imp;
  std::string imp_step, imp_ranks, imp_iterations;
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
  import_cmd->add_flag("--force", imp.force, "replace --out if it exists");
  import_cmd->add_flag("--quiet", imp.quiet, "print nothing on success");

  odcn::app::ExportOptions exp;
  auto* export_cmd = app.add_subcommand(
      "export", "write a job-graph file as MLCommons Chakra ET files, one per rank, and their process groups, for "
                "ASTRA-sim or another Chakra reader (docs/traces-chakra.md)");
  export_cmd->add_option("format", exp.format, "chakra")->required();
  export_cmd->add_option("graph", exp.graph, "the job-graph file (e.g. from odcnsim generate)")->required();
  export_cmd->add_option("--out", exp.out,
                         "the folder to write <name>.<rank>.et and <name>.groups.json into (created if it does not "
                         "exist)")
      ->required();
  export_cmd->add_flag("--force", exp.force, "replace files of the same names in --out");
  export_cmd->add_flag("--quiet", exp.quiet, "print nothing on success");

  std::vector<std::string> files;
  auto* validate_cmd = app.add_subcommand("validate", "check platform and workload files without simulating");
  validate_cmd->add_option("files", files,
                           "platform and workload YAML files, in any order. Each workload is checked as run checks it "
                           "before simulating (deployment, endpoints, policy static's circuits within the port "
                           "budget) against the platform given before it, or else the first one after it")
      ->required();

  odcn::app::BenchOptions bench;
  bench.platform = "platforms/clos-256pod.yaml";
  std::string jobs_text = "100,1000", repeat_text = "3", context_text = "8192";
  auto* bench_cmd = app.add_subcommand("bench", "time `run` on generated workloads: wall time and peak memory");
  bench_cmd->add_option("--platform", bench.platform, "platform YAML")->capture_default_str();
  bench_cmd->add_option("--jobs", jobs_text, "job counts to benchmark, comma-separated")->capture_default_str();
  bench_cmd->add_option("--policy", bench.policy, "policy to run")->capture_default_str();
  bench_cmd->add_option("--repeat", repeat_text, "runs per job count (the median is reported)")->capture_default_str();
  bench_cmd->add_option("--context", context_text, "context length of the generated jobs")->capture_default_str();
  bench_cmd->add_flag("--full-eval", bench.full_eval, "tdm4: full neighbour re-evaluation instead of incremental");
  bench_cmd->add_option("--search", bench.search, "tdm4: the search (as for run)");
  bench_cmd->add_option("--model", bench.model, "compute model of the generated jobs: physical or tang-eq8 (docs/model.md)")
      ->capture_default_str();
  std::string bench_iterations = "3";
  bench_cmd->add_option("--iterations", bench_iterations, "iterations of every job in each run")->capture_default_str();
  bench_cmd->add_option("--set", bench.sets, "KEY.PATH=VALUE for every run (as for run; e.g. --set "
                                             "training.model=physical)")
      ->take_all()
      ->allow_extra_args(false);
  odcn::app::CollectiveBenchOptions coll;
  std::string ranks_text = "1024", bytes_text = "1073741824", gbps_text = "100";
  bench_cmd->add_option("--collective", coll.op,
                        "instead of runs: time one collective (all-reduce, reduce-scatter, all-gather, all-to-all, "
                        "broadcast, ps-push, ps-pull, send-recv) on the electrical fabric against its closed form");
  bench_cmd->add_option("--algorithm", coll.algorithm, "--collective: ring, direct or parameter-server");
  bench_cmd->add_option("--ranks", ranks_text, "--collective: endpoint counts, comma-separated")->capture_default_str();
  bench_cmd->add_option("--bytes", bytes_text, "--collective: bytes per rank (S)")->capture_default_str();
  bench_cmd->add_option("--gbps", gbps_text, "--collective: NIC rate each way")->capture_default_str();
  bench_cmd->add_flag("--no-compact", "--collective: one SimGrid transfer per flow and step");
  std::string ports_text = "2";
  bench_cmd->add_option("--fabric", coll.fabric,
                        "--collective: electrical (NICs behind one non-blocking switch) or flat_ocs (each server's "
                        "ports as full-duplex circuits to its two ring neighbours; ring algorithms only)")
      ->capture_default_str();
  bench_cmd->add_option("--ports", ports_text, "--collective on flat_ocs: NIC ports per server (d_S, even), each of "
                                               "--gbps")->capture_default_str();
  bench_cmd->add_flag("--one-case", coll.one_case, "(internal) run one case in this process")->group("");

  std::string sub_name;
  try {
    // Subcommand and option names are checked here first, so that the message can suggest the nearest one.
    std::vector<std::string> subs;
    for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) subs.push_back(s->get_name());
    if (argc < 2)
      throw InputError(kCommandLine, "odcnsim", "a subcommand is required (run, compare, sweep, validate or bench); see 'odcnsim --help'");
    const std::string first = argv[1];
    if (first.rfind("-", 0) == 0 && first != "--help" && first != "-h" && first != "--version")
      throw InputError(kCommandLine, odcn::shown(first),
                       "unknown option; give a subcommand first (run, compare, sweep, validate or bench; see 'odcnsim --help')");
    if (first.rfind("-", 0) != 0) {
      CLI::App* sub = nullptr;
      for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; }))
        if (s->get_name() == first) sub = s;
      if (!sub)
        throw InputError(kCommandLine, odcn::shown(first),
                         fmt::format("unknown subcommand{}{}; the subcommands are run, compare, sweep, validate and bench (see "
                                     "'odcnsim --help')",
                                     odcn::suggestion(first, subs).empty() ? "" : ", ", odcn::suggestion(first, subs)));
      sub_name = first;
      check_option_names(*sub, argc, argv, 2);
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
      throw InputError(kCommandLine, sub_name.empty() ? "odcnsim" : sub_name, one_line(e, sub_name));
    }
    if (run_cmd->parsed()) {
      if (!iterations_text.empty())
        run.iterations = static_cast<int>(integer_option(iterations_text, "--iterations", 1, kMaxIterations));
      if (!seed_text.empty()) run.seed = odcn::parse_seed(seed_text, kCommandLine, "--seed");
      run.slowdown = !no_slowdown;
      if (!planner_threads_text.empty())
        run.planner_threads = static_cast<int>(integer_option(planner_threads_text, "--planner-threads", 1, 8));
      if (!mip_seconds_text.empty()) {
        run.mip_seconds = odcn::parse_real(mip_seconds_text, 0, 86400, true, kCommandLine, "--mip-seconds");
        if (run.policy.rfind("topox", 0) != 0 || run.policy == "topox:heuristic")
          throw InputError(kCommandLine, "--mip-seconds",
                           fmt::format("only policies topox and topox:mip solve a MIP (got --policy {})",
                                       odcn::shown(run.policy)));
      }
      for (const auto& t : set_texts) run.overrides.push_back(odcn::spec::parse_override(t));
      if (run.trace != "full" && run.trace != "summary" && run.trace != "none")
        throw InputError(kCommandLine, "--trace",
                         fmt::format("must be full, summary or none (got '{}')", odcn::shown(run.trace)));
    }
    if (compare_cmd->parsed()) {
      for (std::size_t start = 0; start <= cmp_policies.size();) {
        const std::size_t comma = std::min(cmp_policies.find(',', start), cmp_policies.size());
        cmp.policies.push_back(cmp_policies.substr(start, comma - start));
        start = comma + 1;
      }
      if (!cmp_iterations.empty())
        cmp.iterations = static_cast<int>(integer_option(cmp_iterations, "--iterations", 1, kMaxIterations));
      if (!cmp_seed.empty()) cmp.seed = odcn::parse_seed(cmp_seed, kCommandLine, "--seed");
      if (!cmp_parallel.empty()) cmp.parallel = static_cast<int>(integer_option(cmp_parallel, "--jobs", 1, 1024));
      for (const auto& t : cmp_sets) cmp.overrides.push_back(odcn::spec::parse_override(t));
      cmp.slowdown = compare_cmd->count("--no-slowdown") == 0;
      if (cmp.trace != "full" && cmp.trace != "summary" && cmp.trace != "none")
        throw InputError(kCommandLine, "--trace",
                         fmt::format("must be full, summary or none (got '{}')", odcn::shown(cmp.trace)));
    }
    if (sweep_cmd->parsed()) {
      if (!sweep_parallel.empty()) sweep.parallel = static_cast<int>(integer_option(sweep_parallel, "--jobs", 1, 1024));
      if (sweep.collect.empty() && sweep.grid.empty())
        throw InputError(kCommandLine, "sweep", "give a GRID.yaml (or --collect DIR); see 'odcnsim sweep --help'");
      if (!sweep.collect.empty() && (!sweep.grid.empty() || !sweep.emit.empty()))
        throw InputError(kCommandLine, "--collect", "takes no GRID and no --emit: it gathers a folder's finished points");
      if (sweep.collect.empty() && sweep.out.empty())
        throw InputError(kCommandLine, "--out", "is required: the folder of the sweep's points and its CSV");
      if (!sweep.emit.empty() && sweep.emit != "parallel" && sweep.emit != "slurm")
        throw InputError(kCommandLine, "--emit", fmt::format("must be parallel or slurm (got '{}')", odcn::shown(sweep.emit)));
    }
    if (import_cmd->parsed()) {
      if (!imp_step.empty())
        imp.step = static_cast<int>(integer_option(imp_step, "--step", 0, std::numeric_limits<int>::max()));
      if (!imp_ranks.empty()) imp.ranks = static_cast<int>(integer_option(imp_ranks, "--ranks", 1, kMaxEndpoints));
      if (!imp_iterations.empty())
        imp.iterations = static_cast<int>(integer_option(imp_iterations, "--iterations", 1, kMaxIterations));
    }
    if (bench_cmd->parsed()) {
      std::size_t start = 0;
      while (start <= jobs_text.size()) {
        const std::size_t comma = std::min(jobs_text.find(',', start), jobs_text.size());
        bench.jobs.push_back(
            static_cast<int>(integer_option(jobs_text.substr(start, comma - start), "--jobs", 1, kMaxJobs)));
        start = comma + 1;
      }
      bench.repeat = static_cast<int>(integer_option(repeat_text, "--repeat", 1, kMaxRepeat));
      bench.context_tokens =
          static_cast<int>(integer_option(context_text, "--context", 1, static_cast<std::int64_t>(kMaxTokens)));
      bench.iterations = static_cast<int>(integer_option(bench_iterations, "--iterations", 1, kMaxIterations));
      if (bench.model != "physical" && bench.model != "tang-eq8")
        throw InputError(kCommandLine, "--model",
                         fmt::format("unknown compute model '{}' (physical or tang-eq8)", odcn::shown(bench.model)));
      if (!bench.search.empty() && !odcn::app::find_policy(odcn::app::entry_of(odcn::app::PolicyId::tdm4).name + ":" + bench.search))
        throw InputError(kCommandLine, "--search",
                         fmt::format("unknown search '{}' (paper, threshold or multistart)", odcn::shown(bench.search)));
      coll.repeat = bench.repeat;
      coll.compact = bench_cmd->count("--no-compact") == 0;
      for (std::size_t start = 0; start <= ranks_text.size();) {
        const std::size_t comma = std::min(ranks_text.find(',', start), ranks_text.size());
        coll.ranks.push_back(static_cast<int>(
            integer_option(ranks_text.substr(start, comma - start), "--ranks", 1, kMaxPods)));
        start = comma + 1;
      }
      coll.bytes = odcn::parse_real(bytes_text, 1, kMaxBytes, false, kCommandLine, "--bytes");
      coll.nic_gbps = odcn::parse_real(gbps_text, kMinGbps, kMaxGbps, false, kCommandLine, "--gbps");
      coll.ports = static_cast<int>(integer_option(ports_text, "--ports", 2, kMaxPortsPerPod));
      if (coll.fabric != "electrical" && coll.fabric != "flat_ocs")
        throw InputError(kCommandLine, "--fabric",
                         fmt::format("unknown fabric '{}' (electrical or flat_ocs)", odcn::shown(coll.fabric)));
      if (coll.ports % 2 != 0)
        throw InputError(kCommandLine, "--ports", "must be even: a server's ports are split between its two ring neighbours");
    }
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (run_cmd->parsed()) return odcn::app::run_command(run);
  if (validate_cmd->parsed()) return odcn::app::validate_command(files);
  if (generate_cmd->parsed()) return odcn::app::generate_command(gen);
  if (import_cmd->parsed()) return odcn::app::import_command(imp);
  if (export_cmd->parsed()) return odcn::app::export_command(exp);
  if (compare_cmd->parsed()) {
    cmp.self = "/proc/self/exe";
    return odcn::app::compare_command(cmp);
  }
  if (sweep_cmd->parsed()) {
    sweep.self = "/proc/self/exe";
    return odcn::app::sweep_command(sweep);
  }
  bench.self = coll.self = "/proc/self/exe";
  if (!coll.op.empty()) return odcn::app::bench_collective_command(coll);
  return odcn::app::bench_command(bench);
}
