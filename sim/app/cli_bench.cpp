// The `bench` subcommand: timed runs of generated workloads, or with --collective one collective against its
// closed form.
#include <fmt/format.h>

#include <memory>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/limits.hpp"

namespace odcn::cli {

namespace {

using namespace odcn::limits;

/// What `bench` binds to the app: the options of both benchmarks, and the texts checked after parsing.
struct BenchState {
  odcn::app::BenchOptions bench;
  std::string jobs_text = "100,1000", repeat_text = "3", context_text = "8192";
  std::string bench_iterations = "3";
  odcn::app::CollectiveBenchOptions coll;
  std::string ranks_text = "1024", bytes_text = "1073741824", gbps_text = "100";
  std::string ports_text = "2";
};

/// The options of timed runs of generated workloads.
void add_bench_runs(CLI::App* bench_cmd, BenchState& s) {
  auto& bench = s.bench;
  auto& jobs_text = s.jobs_text;
  auto& repeat_text = s.repeat_text;
  auto& context_text = s.context_text;
  auto& bench_iterations = s.bench_iterations;
  bench_cmd->add_option("--platform", bench.platform, "platform YAML")->capture_default_str();
  bench_cmd->add_option("--jobs", jobs_text, "job counts to benchmark, comma-separated")->capture_default_str();
  bench_cmd->add_option("--policy", bench.policy, "policy to run")->capture_default_str();
  bench_cmd->add_option("--repeat", repeat_text, "runs per job count (the median is reported)")->capture_default_str();
  bench_cmd->add_option("--context", context_text, "context length of the generated jobs")->capture_default_str();
  bench_cmd->add_flag("--full-eval", bench.full_eval, "tdm4: full neighbour re-evaluation instead of incremental");
  bench_cmd->add_flag("--slowdown", bench.slowdown,
                      "time each run as a user runs it, with its slowdown baseline (policy alone in a second "
                      "process); without it the runs pass --no-slowdown");
  bench_cmd->add_option("--search", bench.search, "tdm4: the search (as for run)");
  bench_cmd->add_option("--model", bench.model, "compute model of the generated jobs: physical or tang-eq8 (docs/model.md)")
      ->capture_default_str();
  bench_cmd->add_option("--iterations", bench_iterations, "iterations of every job in each run")->capture_default_str();
  bench_cmd->add_option("--set", bench.sets, "KEY.PATH=VALUE for every run (as for run; e.g. --set "
                                             "training.model=physical)")
      ->take_all()
      ->allow_extra_args(false);
}

/// The options of --collective.
void add_bench_collective(CLI::App* bench_cmd, BenchState& s) {
  auto& coll = s.coll;
  auto& ranks_text = s.ranks_text;
  auto& bytes_text = s.bytes_text;
  auto& gbps_text = s.gbps_text;
  auto& ports_text = s.ports_text;
  bench_cmd->add_option("--collective", coll.op,
                        "instead of runs: time one collective (all-reduce, reduce-scatter, all-gather, all-to-all, "
                        "broadcast, ps-push, ps-pull, send-recv) on the electrical fabric against its closed form");
  bench_cmd->add_option("--algorithm", coll.algorithm, "--collective: ring, direct or parameter-server");
  bench_cmd->add_option("--ranks", ranks_text, "--collective: endpoint counts, comma-separated")->capture_default_str();
  bench_cmd->add_option("--bytes", bytes_text, "--collective: bytes per rank (S)")->capture_default_str();
  bench_cmd->add_option("--gbps", gbps_text, "--collective: NIC rate each way")->capture_default_str();
  bench_cmd->add_flag("--no-compact", "--collective: one SimGrid transfer per flow and step");
  bench_cmd->add_option("--fabric", coll.fabric,
                        "--collective: electrical (NICs behind one non-blocking switch) or flat_ocs (each server's "
                        "ports as full-duplex circuits to its two ring neighbours; ring algorithms only)")
      ->capture_default_str();
  bench_cmd->add_option("--ports", ports_text, "--collective on flat_ocs: NIC ports per server (d_S, even), each of "
                                               "--gbps")->capture_default_str();
  bench_cmd->add_flag("--one-case", coll.one_case, "(internal) run one case in this process")->group("");
}

/// The runs' texts converted, in the order their errors are reported.
void finish_bench_runs(BenchState& s) {
  auto& bench = s.bench;
  for (const auto& n : odcn::split_commas(s.jobs_text))
    bench.jobs.push_back(static_cast<int>(integer_option(n, "--jobs", 1, kMaxJobs)));
  bench.repeat = static_cast<int>(integer_option(s.repeat_text, "--repeat", 1, kMaxRepeat));
  bench.context_tokens =
      static_cast<int>(integer_option(s.context_text, "--context", 1, static_cast<std::int64_t>(kMaxTokens)));
  bench.iterations = static_cast<int>(integer_option(s.bench_iterations, "--iterations", 1, kMaxIterations));
  if (bench.model != "physical" && bench.model != "tang-eq8")
    throw InputError(kCommandLine, "--model",
                     fmt::format("unknown compute model '{}' (physical or tang-eq8)", odcn::shown(bench.model)));
  if (!bench.search.empty() && !odcn::app::find_policy(odcn::app::entry_of(odcn::app::PolicyId::tdm4).name + ":" + bench.search))
    throw InputError(kCommandLine, "--search",
                     fmt::format("unknown search '{}' (paper, threshold or multistart){}", odcn::shown(bench.search),
                                 odcn::with_hint(bench.search, {"paper", "threshold", "multistart"})));
}

/// --collective's texts converted, after the runs' (--repeat is shared).
void finish_collective(CLI::App* bench_cmd, BenchState& s) {
  auto& coll = s.coll;
  coll.repeat = s.bench.repeat;
  coll.compact = bench_cmd->count("--no-compact") == 0;
  for (const auto& n : odcn::split_commas(s.ranks_text))
    coll.ranks.push_back(static_cast<int>(integer_option(n, "--ranks", 1, kMaxPods)));
  coll.bytes = odcn::parse_real(s.bytes_text, 1, kMaxBytes, false, kCommandLine, "--bytes");
  coll.nic_gbps = odcn::parse_real(s.gbps_text, kMinGbps, kMaxGbps, false, kCommandLine, "--gbps");
  coll.ports = static_cast<int>(integer_option(s.ports_text, "--ports", 2, kMaxPortsPerPod));
  if (coll.fabric != "electrical" && coll.fabric != "flat_ocs")
    throw InputError(kCommandLine, "--fabric",
                     fmt::format("unknown fabric '{}' (electrical or flat_ocs)", odcn::shown(coll.fabric)));
  if (coll.ports % 2 != 0)
    throw InputError(kCommandLine, "--ports", "must be even: a server's ports are split between its two ring neighbours");
}

}  // namespace

Command add_bench(CLI::App& app) {
  auto s = std::make_shared<BenchState>();
  s->bench.platform = "platforms/clos-256pod.yaml";
  auto* bench_cmd = app.add_subcommand("bench", "time `run` on generated workloads: wall time and peak memory");
  add_bench_runs(bench_cmd, *s);
  add_bench_collective(bench_cmd, *s);
  const auto finish = [s, bench_cmd] {
    finish_bench_runs(*s);
    finish_collective(bench_cmd, *s);
  };
  return {bench_cmd, finish, [s] {
            s->bench.self = s->coll.self = "/proc/self/exe";
            if (!s->coll.op.empty()) return odcn::app::bench_collective_command(s->coll);
            return odcn::app::bench_command(s->bench);
          }};
}

}  // namespace odcn::cli
