// The `run` and `validate` subcommands: their options, and their texts turned into app::RunOptions.
#include <fmt/format.h>

#include <memory>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/limits.hpp"
#include "spec/overrides.hpp"

namespace odcn::cli {

namespace {

using namespace odcn::limits;

/// What `run` binds to the app: its options, and the texts of those checked after parsing.
struct RunState {
  odcn::app::RunOptions run;
  std::string iterations_text, seed_text, planner_threads_text, mip_seconds_text;
  std::vector<std::string> set_texts;
  bool no_slowdown = false;
};

/// What is simulated, and where the results go.
void add_run_inputs(CLI::App* run_cmd, RunState& s) {
  auto& run = s.run;
  auto& iterations_text = s.iterations_text;
  auto& seed_text = s.seed_text;
  auto& set_texts = s.set_texts;
  const std::string policy_help = odcn::app::policy_help();
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
}

/// How the run behaves and what it prints, and the planners' options.
void add_run_behaviour(CLI::App* run_cmd, RunState& s) {
  auto& run = s.run;
  auto& no_slowdown = s.no_slowdown;
  auto& planner_threads_text = s.planner_threads_text;
  auto& mip_seconds_text = s.mip_seconds_text;
  run_cmd->add_flag("--no-slowdown", no_slowdown,
                    "do not run policy alone beside this run (in a second process) to measure each job's slowdown "
                    "against running alone; the slowdown metrics are then null");
  run_cmd->add_flag("--alone-by-shape", run.alone_by_shape,
                    "(internal: the slowdown baseline) policy alone simulates one TDM-4 job of each shape")
      ->group("");
  run_cmd->add_flag("--every-flow", run.every_flow,
                    "send every transfer of a step to SimGrid, even when the engine proves that one of them ends when "
                    "the last would (a task alone on the fabric: docs/model.md, \"Steps that end together\"); the "
                    "same times to SimGrid's rounding, slower. A check of that proof");
  run_cmd->add_flag("--progress", run.progress, "print progress lines on stderr");
  run_cmd->add_flag("--quiet", run.quiet, "print nothing on success (no summary, notes or warnings)");
  run_cmd->add_option("--search", run.search,
                      "tdm4: how the jobs are split into groups A and B. paper: Algorithm 1 of the TDM-4 paper (hill "
                      "climbing from A = all jobs, one job per move); threshold: the best grouping B = jobs whose "
                      "training time is below a threshold; multistart (default): the paper's climb and the same "
                      "climb from the best threshold grouping and from a grouping that balances each pod group's "
                      "bytes between A and B, the best of the three (docs/model.md)");
  run_cmd->add_option("--planner-threads", planner_threads_text,
                      "tdm4: threads that re-plan the neighbours of a moved job at once (default: one per CPU, at "
                      "most 8). The plan is the same with any number");
  run_cmd->add_option("--mip-seconds", mip_seconds_text,
                      "topox: CBC's wall-clock limit for the time-slotted MIP (default 30 s); the plan then is the "
                      "best one found, and summary.json gives the MIP's status and optimality gap");
  run_cmd->add_flag("--full-eval", run.full_eval,
                    "tdm4: re-evaluate every pod group for every neighbour (slow; same result as incremental)");
}

/// The texts checked and converted, in the order their errors are reported.
void finish_run(RunState& s) {
  auto& run = s.run;
  if (!s.iterations_text.empty())
    run.iterations = static_cast<int>(integer_option(s.iterations_text, "--iterations", 1, kMaxIterations));
  if (!s.seed_text.empty()) run.seed = odcn::parse_seed(s.seed_text, kCommandLine, "--seed");
  run.slowdown = !s.no_slowdown;
  if (!s.planner_threads_text.empty())
    run.planner_threads = static_cast<int>(integer_option(s.planner_threads_text, "--planner-threads", 1, 8));
  if (!s.mip_seconds_text.empty()) {
    run.mip_seconds = odcn::parse_real(s.mip_seconds_text, 0, 86400, true, kCommandLine, "--mip-seconds");
    run.mip_seconds_given = true;  // run refuses it for a policy that solves no MIP (cmd_run.cpp)
  }
  for (const auto& t : s.set_texts) run.overrides.push_back(odcn::spec::parse_override(t));
  check_trace(run.trace);
}

}  // namespace

Command add_run(CLI::App& app) {
  auto s = std::make_shared<RunState>();
  auto* run_cmd = app.add_subcommand("run", "simulate a workload on a platform under a policy and write DIR");
  add_run_inputs(run_cmd, *s);
  add_run_behaviour(run_cmd, *s);
  return {run_cmd, [s] { finish_run(*s); }, [s] { return odcn::app::run_command(s->run); }};
}

Command add_validate(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate_cmd = app.add_subcommand("validate", "check platform and workload files without simulating");
  validate_cmd->add_option("files", *files,
                           "platform and workload YAML files, in any order. Each workload is checked as run checks it "
                           "before simulating (deployment, endpoints, policy static's circuits within the port "
                           "budget) against the platform given before it, or else the first one after it")
      ->required();
  return {validate_cmd, [] {}, [files] { return odcn::app::validate_command(*files); }};
}

Command add_show(CLI::App& app) {
  struct State {
    odcn::app::ShowOptions show;
    std::vector<std::string> set_texts;
    std::string seed_text;
  };
  auto s = std::make_shared<State>();
  auto* cmd = app.add_subcommand("show", "print the platform and workload a run would use, every key resolved, or "
                                         "with --list-keys every key a file or --set can give");
  cmd->add_option("--platform", s->show.platform, "platform YAML (any kind)");
  cmd->add_option("--workload", s->show.workload, "workload YAML, or a job-graph file");
  cmd->add_option("--set", s->set_texts, "KEY.PATH=VALUE, as run takes it; shown as the key's source")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--seed", s->seed_text, "a generator's seed, as run takes it (0 to 2^64-1)");
  cmd->add_flag("--list-keys", s->show.list_keys,
                "list every key with its type, unit, range, default and meaning: of the kinds of the files given, "
                "else of every platform and workload kind. The readers take their keys, ranges and defaults from "
                "this same table");
  cmd->footer("Each key is printed with its value and where it comes from: file, --set, or default (a default in "
              "parentheses is a rule, not a value). The files are validated first, as run validates them. A TDM-4 "
              "workload on a clos_ocs platform is followed by its jobs as run builds them (Eq. (8)'s training "
              "times, a generator's draw).");
  const auto finish = [s, cmd] {
    for (const auto& t : s->set_texts) s->show.overrides.push_back(odcn::spec::parse_override(t));
    if (!s->seed_text.empty()) s->show.seed = odcn::parse_seed(s->seed_text, kCommandLine, "--seed");
    if (!s->show.list_keys && s->show.platform.empty() && s->show.workload.empty())
      throw InputError(kCommandLine, "show", "give --platform, --workload or both, or --list-keys");
    (void)cmd;
  };
  return {cmd, finish, [s] { return odcn::app::show_command(s->show); }};
}

}  // namespace odcn::cli
