// The `compare` and `sweep` subcommands: their options, and their texts turned into app::CompareOptions and
// app::SweepOptions.
#include <fmt/format.h>

#include <memory>
#include <tuple>

#include "app/cli.hpp"
#include "app/seed_stats.hpp"
#include "app/workflow.hpp"
#include "core/limits.hpp"
#include "spec/overrides.hpp"

namespace odcn::cli {

namespace {

using namespace odcn::limits;

/// What `compare` binds to the app: its options, and the texts of those checked after parsing.
struct CompareState {
  odcn::app::CompareOptions cmp;
  std::string cmp_policies = "static,tdm4,aggregate", cmp_iterations, cmp_seed, cmp_seeds, cmp_parallel;
  std::vector<std::string> cmp_sets;
};

/// The texts checked and converted, in the order their errors are reported.
void finish_compare(CLI::App* compare_cmd, CompareState& s) {
  auto& cmp = s.cmp;
  cmp.policies = odcn::split_commas(s.cmp_policies);
  if (!s.cmp_iterations.empty())
    cmp.iterations = static_cast<int>(integer_option(s.cmp_iterations, "--iterations", 1, kMaxIterations));
  if (!s.cmp_seed.empty()) cmp.seed = odcn::parse_seed(s.cmp_seed, kCommandLine, "--seed");
  if (!s.cmp_seeds.empty()) {
    if (cmp.seed) throw InputError(kCommandLine, "--seeds", "give --seed or --seeds, not both");
    cmp.seeds = odcn::app::parse_seed_list(s.cmp_seeds, kCommandLine, "--seeds", 100);
  }
  if (!s.cmp_parallel.empty()) cmp.parallel = static_cast<int>(integer_option(s.cmp_parallel, "--jobs", 1, 1024));
  for (const auto& t : s.cmp_sets) cmp.overrides.push_back(odcn::spec::parse_override(t));
  cmp.slowdown = compare_cmd->count("--no-slowdown") == 0;
  check_trace(cmp.trace);
}

/// What `sweep` binds to the app: its options, -j's text, and the texts of an inline grid.
struct SweepState {
  odcn::app::SweepOptions sweep;
  std::string sweep_parallel;
  std::string platform, workload, policies, seeds, iterations, slurm_time, slurm_mem;
  std::vector<std::string> sets;
  bool no_slowdown = false;
};

/// The grid given by options instead of GRID.yaml, when any of its options is given.
void finish_inline_grid(SweepState& s) {
  const bool given = !s.platform.empty() || !s.workload.empty() || !s.policies.empty() || !s.seeds.empty() ||
                     !s.sets.empty() || !s.iterations.empty() || s.no_slowdown;
  if (!given) return;
  if (!s.sweep.grid.empty())
    throw InputError(kCommandLine, "sweep",
                     "give a GRID.yaml or the grid's options (--platform, --workload, --policies, --seeds, --set, "
                     "--iterations, --no-slowdown), not both");
  odcn::app::InlineGrid g;
  for (const auto& [text, name, into] : {std::tuple{&s.platform, "--platform", &g.platform},
                                         std::tuple{&s.workload, "--workload", &g.workload}}) {
    if (text->empty()) throw InputError(kCommandLine, name, "is required for a grid given on the command line");
    *into = *text;
  }
  if (s.policies.empty())
    throw InputError(kCommandLine, "--policies", "is required for a grid given on the command line");
  g.policies = odcn::split_commas(s.policies);
  if (!s.seeds.empty()) g.seeds = odcn::app::parse_seed_list(s.seeds, kCommandLine, "--seeds");
  if (!s.iterations.empty())
    g.iterations = static_cast<int>(integer_option(s.iterations, "--iterations", 1, kMaxIterations));
  g.sets = s.sets;
  g.slowdown = !s.no_slowdown;
  s.sweep.inline_grid = std::move(g);
}

/// -j converted, and the combinations of GRID, --collect, --out and --emit that make no sweep refused.
void finish_sweep(SweepState& s) {
  auto& sweep = s.sweep;
  if (!s.sweep_parallel.empty())
    sweep.parallel = static_cast<int>(integer_option(s.sweep_parallel, "--jobs", 1, 1024));
  finish_inline_grid(s);
  if (!s.slurm_time.empty()) sweep.slurm_minutes = static_cast<int>(integer_option(s.slurm_time, "--slurm-time", 1, 525600));
  if (!s.slurm_mem.empty()) sweep.slurm_mib = static_cast<int>(integer_option(s.slurm_mem, "--slurm-mem", 1, 16777216));
  if ((sweep.slurm_minutes > 0 || sweep.slurm_mib > 0) && sweep.emit != "slurm")
    throw InputError(kCommandLine, sweep.slurm_minutes > 0 ? "--slurm-time" : "--slurm-mem", "goes with --emit slurm");
  if (sweep.collect.empty() && sweep.grid.empty() && !sweep.inline_grid)
    throw InputError(kCommandLine, "sweep",
                     "give a GRID.yaml, or the grid as options (--platform, --workload, --policies, --set KEY=V1,V2), "
                     "or --collect DIR; see 'odcnsim sweep --help'");
  if (!sweep.collect.empty() && sweep.inline_grid)
    throw InputError(kCommandLine, "--collect", "takes no grid: it gathers a folder's finished points");
  if (!sweep.collect.empty() && (!sweep.grid.empty() || !sweep.emit.empty()))
    throw InputError(kCommandLine, "--collect", "takes no GRID and no --emit: it gathers a folder's finished points");
  if (sweep.collect.empty() && sweep.out.empty())
    throw InputError(kCommandLine, "--out", "is required: the folder of the sweep's points and its CSV");
  if (!sweep.emit.empty() && sweep.emit != "parallel" && sweep.emit != "slurm")
    throw InputError(kCommandLine, "--emit", fmt::format("must be parallel or slurm (got '{}')", odcn::shown(sweep.emit)));
}

}  // namespace

Command add_compare(CLI::App& app) {
  auto s = std::make_shared<CompareState>();
  auto& cmp = s->cmp;
  auto& cmp_policies = s->cmp_policies;
  auto& cmp_iterations = s->cmp_iterations;
  auto& cmp_seed = s->cmp_seed;
  auto& cmp_parallel = s->cmp_parallel;
  auto& cmp_sets = s->cmp_sets;
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
  compare_cmd->add_option("--seeds", s->cmp_seeds,
                          "run every policy once per seed (1-5, or 1,3,7; at most 100) into runs/POLICY/seed-K/, and "
                          "report each metric's mean, standard deviation and 95 % confidence interval, and each "
                          "ratio to the baseline as the ratio of the means and as the mean of the per-seed ratios");
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
  return {compare_cmd, [s, compare_cmd] { finish_compare(compare_cmd, *s); }, [s] {
            s->cmp.self = "/proc/self/exe";
            return odcn::app::compare_command(s->cmp);
          }};
}

Command add_sweep(CLI::App& app) {
  auto s = std::make_shared<SweepState>();
  auto& sweep = s->sweep;
  auto& sweep_parallel = s->sweep_parallel;
  auto* sweep_cmd = app.add_subcommand(
      "sweep", "run a grid of --set values x policies x seeds (GRID.yaml; docs/workflow.md) in parallel here, or "
               "write it for GNU parallel or Slurm, and gather one tidy CSV (a row per point: every swept key and "
               "every metric)");
  sweep_cmd->add_option("grid", sweep.grid,
                        "GRID.yaml: platform, workload, policies, optional seeds, iterations, slowdown, and set: a map "
                        "of key paths to the values to sweep");
  sweep_cmd->add_option("--platform", s->platform, "instead of GRID.yaml: the platform YAML");
  sweep_cmd->add_option("--workload", s->workload, "instead of GRID.yaml: the workload YAML");
  sweep_cmd->add_option("--policies", s->policies, "instead of GRID.yaml: comma-separated policies");
  sweep_cmd->add_option("--seeds", s->seeds,
                        "instead of GRID.yaml: seeds (1-5, or 1,3,7); with seeds, sweep-stats.csv gives every "
                        "metric's mean, standard deviation and 95 % interval over them, and its ratio to the first "
                        "policy");
  sweep_cmd->add_option("--set", s->sets,
                        "instead of GRID.yaml: KEY.PATH=V1,V2,... the values of one key to sweep; repeatable (e.g. "
                        "--set ocs.reconfig_delay_us=1,10,100)")
      ->take_all()
      ->allow_extra_args(false);
  sweep_cmd->add_option("--iterations", s->iterations, "instead of GRID.yaml: iterations of every job");
  sweep_cmd->add_flag("--no-slowdown", s->no_slowdown, "instead of GRID.yaml: no slowdown baseline beside each run");
  sweep_cmd->add_option("--out", sweep.out,
                        "the sweep's folder: sweep.json, sweep.csv and points/ID/ (each an ordinary run folder). "
                        "Run again, it skips the points already finished (resume)");
  sweep_cmd->add_option("-j,--jobs", sweep_parallel, "points at once (default: the number of CPUs)");
  sweep_cmd->add_option("--emit", sweep.emit,
                        "parallel: write commands.txt, one odcnsim run per line, for GNU parallel; slurm: also write "
                        "sweep.sbatch, a Slurm job array, each task's time and memory estimated by running the grid's "
                        "first and last points here unless --slurm-time and --slurm-mem give them. No point is run "
                        "into the folder; gather with --collect afterwards");
  sweep_cmd->add_option("--slurm-time", s->slurm_time,
                        "--emit slurm: each task's time limit in minutes (default: estimated by timing the grid's "
                        "first and last points here, x4)");
  sweep_cmd->add_option("--slurm-mem", s->slurm_mem,
                        "--emit slurm: each task's memory in MiB (default: estimated from the same runs, x2 + 256)");
  sweep_cmd->add_option("--collect", sweep.collect, "DIR: build DIR/sweep.csv from the points that finished");
  sweep_cmd->add_flag("--keep-traces", sweep.keep_traces, "write every point's trace.json (--trace full); by default none");
  sweep_cmd->add_flag("--force", sweep.force,
                      "write into a folder holding other files (they are kept), or run again every point of a folder "
                      "swept with another grid");
  sweep_cmd->add_flag("--quiet", sweep.quiet, "print nothing on success (no progress)");
  return {sweep_cmd, [s] { finish_sweep(*s); }, [s] {
            s->sweep.self = "/proc/self/exe";
            return odcn::app::sweep_command(s->sweep);
          }};
}

Command add_diff(CLI::App& app) {
  auto o = std::make_shared<odcn::app::DiffOptions>();
  auto* diff_cmd = app.add_subcommand(
      "diff", "set two results side by side: the inputs that differ and every metric with its ratio B/A, for two "
              "run folders, two compare folders (per policy) or two sweep folders (per point). Reads only");
  diff_cmd->add_option("A", o->a, "A: the --out folder of odcnsim run, compare or sweep")->required();
  diff_cmd->add_option("B", o->b, "B: a folder of the same kind")->required();
  diff_cmd->add_flag("--json", o->json, "print one JSON document instead of text");
  diff_cmd->footer(
      "Inputs: every field of run.json that differs (platform and workload files and hashes, --set overrides,\n"
      "policy, seed, iterations, the command, odcnsim version and commit, the jobs as deployed), as\n"
      "'field: A -> B', or 'identical'. Metrics: every number of summary.json with A, B, B/A and B-A (B/A is 1\n"
      "when both are 0; n/a when A alone is 0 or a side is null or missing). Compare folders: compare.json's\n"
      "own fields, then each policy both ran (runs/POLICY); sweep folders: sweep.json's own fields, then each\n"
      "point id both hold with a result. Exit 0 when compared (differences are no error), 2 on bad input.\n\n"
      "Example:\n"
      "  odcnsim run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --out out/a\n"
      "  odcnsim run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml \\\n"
      "      --set ocs.reconfig_delay_us=100 --out out/b\n"
      "  odcnsim diff out/a out/b          # or --json, for scripts\n"
      "More: docs/workflow.md.");
  return {diff_cmd, [] {}, [o] { return odcn::app::diff_command(*o); }};
}

Command add_report(CLI::App& app) {
  auto o = std::make_shared<odcn::app::ReportOptions>();
  auto* cmd = app.add_subcommand(
      "report", "write one self-contained HTML page of a run or compare folder: what ran, the metrics, the inputs, "
                "the timelines, the circuits, the CDFs and, for TDM, the stages");
  cmd->add_option("DIR", o->dir, "the --out folder of odcnsim run or odcnsim compare")->required();
  cmd->add_option("--out", o->out, "the page's file (default: DIR/report.html)");
  cmd->add_flag("--force", o->force, "replace a file at --out that is not a page odcnsim report wrote");
  cmd->add_flag("--quiet", o->quiet, "print nothing on success");
  cmd->footer(
      "A run's page: the run (policy, platform, workload, odcnsim version and commit, command), summary.json's\n"
      "metrics with labels and units, the inputs (run.json: files and fingerprints, --set overrides, seed,\n"
      "iterations, the jobs as deployed), jobs.csv, a per-job Gantt chart (a per-rank timeline for job graphs\n"
      "traced in full), the circuits over time, the CDFs of job completion time and slowdown and, for the TDM\n"
      "policies, the first round's stage breakdown. A compare folder's page: the comparison table, the inputs,\n"
      "the CDFs per policy, and each policy's timeline, circuits and stages. A section that does not apply (an\n"
      "electrical fabric's circuits, a policy without stages) is left out with one line saying why.\n\n"
      "The page needs no network and no script: figures are inline PNG (data: URIs), drawn by analysis/'s tools\n"
      "with Debian's python3-matplotlib and python3-pandas (/usr/bin/python3, the package in python/; set\n"
      "ODCNSIM_PYTHON_DIR to use another copy). The same folder gives the same bytes. A run into DIR again\n"
      "replaces DIR/report.html with the folder; an earlier report at --out is replaced, any other file only\n"
      "with --force.\n\n"
      "Example:\n"
      "  odcnsim run --platform platforms/clos-8pod.yaml --workload workloads/small-mix.yaml --policy tdm4 \\\n"
      "      --out out/tdm4\n"
      "  odcnsim report out/tdm4          # writes out/tdm4/report.html\n"
      "More: docs/workflow.md.");
  return {cmd, [] {}, [o] { return odcn::app::report_command(*o); }};
}

}  // namespace odcn::cli
