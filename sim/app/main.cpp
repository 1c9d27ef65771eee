// odcnsim: the one command-line entry point (the composition root).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "odcn_version.hpp"

namespace {

using odcn::InputError;
constexpr const char* kCommandLine = "command line";

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// "did you mean 'x'?" when a candidate is within a third of the word's length, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = word.size() / 3 + 1;
  for (const auto& c : candidates) {
    const std::size_t d = distance(word, c);
    if (d < best_d || (d == best_d && best.empty() && d <= 2)) {
      best = c;
      best_d = d;
    }
  }
  return best.empty() ? "" : fmt::format("did you mean '{}'?", best);
}

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
                                   suggestion(arg, names).empty() ? "" : "; ", suggestion(arg, names),
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
  std::string policy_help = "scheduling policy:";
  for (const auto& [name, help] : odcn::app::policies()) policy_help += "\n  " + name + ": " + help;
  auto* run_cmd = app.add_subcommand("run", "simulate a workload on a platform under a policy and write DIR");
  run_cmd->add_option("--platform", run.platform, "platform YAML of any kind: clos_ocs, flat_ocs, photonic_rail, electrical (e.g. platforms/clos-8pod.yaml; docs/platforms.md)")->required();
  run_cmd->add_option("--workload", run.workload, "workload YAML: explicit jobs or a generator (the TDM-4 paper's jobs, on clos_ocs), or job_graphs: job-graph files placed on endpoints (any platform kind; docs/job-graph.md)")->required();
  run_cmd->add_option("--policy", run.policy, policy_help)->capture_default_str();
  run_cmd->add_option("--iterations", iterations_text,
                      fmt::format("iterations per job (static, default 3) or TDM rounds (tdm4/aggregate/tdm4-ilp, "
                                  "default 1; a round holds one PS iteration and two RAR/AllToAll iterations); "
                                  "1 to {}, and at most {} iteration rows (jobs x iterations) in all",
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
  run_cmd->add_flag("--progress", run.progress, "print progress lines on stderr");
  run_cmd->add_flag("--quiet", run.quiet, "print nothing on success (no summary, notes or warnings)");
  run_cmd->add_flag("--full-eval", run.full_eval,
                    "tdm4: re-evaluate every pod group for every neighbour (slow; same result as incremental)");

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
      throw InputError(kCommandLine, "odcnsim", "a subcommand is required (run, validate or bench); see 'odcnsim --help'");
    const std::string first = argv[1];
    if (first.rfind("-", 0) == 0 && first != "--help" && first != "-h" && first != "--version")
      throw InputError(kCommandLine, odcn::shown(first),
                       "unknown option; give a subcommand first (run, validate or bench; see 'odcnsim --help')");
    if (first.rfind("-", 0) != 0) {
      CLI::App* sub = nullptr;
      for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; }))
        if (s->get_name() == first) sub = s;
      if (!sub)
        throw InputError(kCommandLine, odcn::shown(first),
                         fmt::format("unknown subcommand{}{}; the subcommands are run, validate and bench (see "
                                     "'odcnsim --help')",
                                     suggestion(first, subs).empty() ? "" : ", ", suggestion(first, subs)));
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
      for (const auto& t : set_texts) run.overrides.push_back(odcn::spec::parse_override(t));
      if (run.trace != "full" && run.trace != "summary" && run.trace != "none")
        throw InputError(kCommandLine, "--trace",
                         fmt::format("must be full, summary or none (got '{}')", odcn::shown(run.trace)));
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
  bench.self = coll.self = "/proc/self/exe";
  if (!coll.op.empty()) return odcn::app::bench_collective_command(coll);
  return odcn::app::bench_command(bench);
}
