// odcnsim: the one command-line entry point (the composition root).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "app/commands.hpp"
#include "odcn_version.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "odcnsim: many distributed-training jobs sharing an optical circuit-switched data-center network,\n"
      "simulated on SimGrid. It reports per-iteration times, the share spent communicating or waiting for\n"
      "OCS reconfiguration, and how often the fabric reconfigures."};
  app.set_version_flag("--version", std::string("odcnsim ") + ODCNSIM_VERSION);
  app.require_subcommand(1);

  odcn::app::RunOptions run;
  std::string policy_help = "scheduling policy:";
  for (const auto& [name, help] : odcn::app::policies()) policy_help += "\n  " + name + ": " + help;
  auto* run_cmd = app.add_subcommand("run", "simulate a workload on a platform under a policy and write DIR");
  run_cmd->add_option("--platform", run.platform, "platform YAML (e.g. platforms/clos-8pod.yaml)")->required();
  run_cmd->add_option("--workload", run.workload, "workload YAML (explicit jobs or a generator)")->required();
  run_cmd->add_option("--policy", run.policy, policy_help)->capture_default_str();
  run_cmd->add_option("--iterations", run.iterations,
                      "iterations per job (static, default 3) or TDM rounds (tdm4/aggregate/tdm4-ilp, default 1; a "
                      "round holds one PS iteration and two RAR/AllToAll iterations)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--seed", run.seed, "overrides the workload generator's seed");
  run_cmd->add_option("--out", run.out, "output folder; replaced as a whole when the run succeeds")->required();
  run_cmd->add_flag("--progress", run.progress, "print progress lines on stderr");
  run_cmd->add_flag("--quiet", run.quiet, "print nothing on success");
  run_cmd->add_flag("--full-eval", run.full_eval,
                    "tdm4: re-evaluate every pod group for every neighbour (slow; same result as incremental)");

  std::vector<std::string> files;
  auto* validate_cmd = app.add_subcommand("validate", "check platform and workload files without simulating");
  validate_cmd->add_option("files", files, "platform and workload YAML files; workloads are checked against the "
                                           "platforms given before them")
      ->required();

  odcn::app::BenchOptions bench;
  bench.platform = "platforms/clos-256pod.yaml";
  bench.jobs = {100, 1000};
  auto* bench_cmd = app.add_subcommand("bench", "time `run` on generated workloads: wall time and peak memory");
  bench_cmd->add_option("--platform", bench.platform, "platform YAML")->capture_default_str();
  bench_cmd->add_option("--jobs", bench.jobs, "job counts to benchmark")->delimiter(',')->capture_default_str();
  bench_cmd->add_option("--policy", bench.policy, "policy to run")->capture_default_str();
  bench_cmd->add_option("--repeat", bench.repeat, "runs per job count (the median is reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench_cmd->add_option("--context", bench.context_tokens, "context length of the generated jobs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench_cmd->add_flag("--full-eval", bench.full_eval, "tdm4: full neighbour re-evaluation instead of incremental");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // run.json records the command without its output folder: the same inputs must give identical files.
  run.command_line = "odcnsim";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out") {
      ++i;
      continue;
    }
    if (arg.rfind("--out=", 0) == 0) continue;
    run.command_line += " " + arg;
  }
  if (run_cmd->parsed()) return odcn::app::run_command(run);
  if (validate_cmd->parsed()) return odcn::app::validate_command(files);
  bench.self = "/proc/self/exe";
  return odcn::app::bench_command(bench);
}
