#pragma once
#include <cstdint>
#include <optional>

#include "app/policy_table.hpp"
#include "spec/overrides.hpp"
#include <string>
#include <vector>

namespace odcn::app {

struct RunOptions {
  std::string platform;
  std::string workload;
  std::string policy = entry_of(PolicyId::static_circuits).name;
  int iterations = 0;  ///< every job's iterations; 0: 3 (job graphs: each graph's own)
  std::optional<std::uint64_t> seed;
  std::string out;
  bool force = false;      ///< --out may replace a file or a folder odcnsim did not write
  bool progress = false;
  bool quiet = false;
  bool full_eval = false;  ///< tdm4: full instead of incremental neighbour evaluation
  std::string search;      ///< tdm4: paper, threshold or multistart (empty: multistart)
  int planner_threads = 0; ///< tdm4: threads re-planning neighbours (0: one per CPU); never changes results
  std::vector<spec::Override> overrides;  ///< --set, in order (a later one wins)
  std::string trace = "full";             ///< --trace: full, summary or none
  bool slowdown = true;                   ///< run policy alone beside this run for the slowdown baseline
  bool alone_by_shape = false;            ///< (internal: that run) alone simulates one job of each shape
  bool every_flow = false;                ///< send every transfer of a step (EngineOptions::compact_steps off)
  std::string self = "/proc/self/exe";    ///< this executable, for that run
  double mip_seconds = 30;                ///< topox: CBC's time limit
  bool mip_seconds_given = false;         ///< --mip-seconds was given (refused for a policy that solves no MIP)
  /// Set by run from --policy through the policy table (app/policy_table.hpp): what the pipelines switch on.
  PolicyId id = PolicyId::static_circuits;
  std::string variant;
};

/// Each returns the process exit code: 0 success, 2 bad input, 1 an output could not be written or an
/// internal error. Every failure prints exactly one line on stderr.
int run_command(const RunOptions& o);
int validate_command(const std::vector<std::string>& files);

struct BenchOptions {
  std::string platform;
  std::vector<int> jobs;
  std::string policy = entry_of(PolicyId::static_circuits).name;
  int repeat = 3;
  int context_tokens = 8192;  ///< context length of the generated Llama-3 jobs
  std::string model = "physical";  ///< compute model of the generated jobs (tang-eq8 or physical)
  int iterations = 3;         ///< iterations of every job per run
  bool full_eval = false;     ///< tdm4: full neighbour re-evaluation (to measure the incremental speedup)
  bool slowdown = false;      ///< run the slowdown baseline too, as run does by default
  std::string search;         ///< tdm4: --search for every run
  std::vector<std::string> sets;  ///< --set for every run
  std::string self;           ///< path of this executable
};
int bench_command(const BenchOptions& o);

/// `odcnsim bench --collective`: one collective of `bytes` over each number of endpoints in `ranks`, on the
/// electrical fabric, each in its own process; prints simulated time, closed form, relative error, wall time
/// and peak memory.
struct CollectiveBenchOptions {
  std::string op;         ///< the operation; empty: not a collective benchmark
  std::string algorithm;  ///< empty: ring where offered, else direct, else parameter-server
  std::vector<int> ranks;
  double bytes = 1073741824.0;
  double nic_gbps = 100;
  std::string fabric = "electrical";  ///< or flat_ocs: a ring of circuits
  int ports = 2;                      ///< flat_ocs: d_S, split between a server's two ring neighbours
  bool compact = true;
  int repeat = 3;
  bool one_case = false;  ///< internal: run ranks[0] in this process and print one result line
  std::string self;
};
int bench_collective_command(const CollectiveBenchOptions& o);

/// What run reads first, without planning or simulating: both files, with the overrides written in, parsed
/// and validated, and each of `policies` against the workload and platform kinds as run checks it, a refusal
/// naming `origin` and `field` (compare: the command line's --policies; sweep: the grid's policies[i]) (compare and
/// sweep check every run's inputs this way before starting any, so that no run folder is written for a
/// comparison that is then refused). Raises InputError.
void check_run_inputs(const std::string& platform, const std::string& workload,
                      const std::vector<spec::Override>& overrides, const std::vector<std::string>& policies = {},
                      const std::string& origin = "command line", const std::string& field = "--policies");

/// What validate checks of a workload (a parsed document, job-graph files already made workloads) against a
/// platform, but for policy static's circuits (a policy's own check): its kind, deployment, endpoints and slots.
/// Returns validate's description ("workload, 3 jobs, fits the platform"); raises InputError.
std::string check_workload_fits(const YAML::Node& doc, const std::string& path, const spec::AnyPlatform& platform);

/// `odcnsim show`: the resolved platform and workload (cmd_show.cpp), or with list_keys the key tables (of the
/// files' kinds when given, else all of them).
struct ShowOptions {
  std::string platform;
  std::string workload;
  std::vector<spec::Override> overrides;
  std::optional<std::uint64_t> seed;  ///< a generator's seed, as run --seed
  bool list_keys = false;
};
int show_command(const ShowOptions& o);

/// Prints the one line for the exception in flight (inside a catch block) and returns the exit code: 2 for
/// bad input, 1 for an output that could not be written or an internal error.
int report_failure();


/// The options of a child `odcnsim run` (the alone baseline, compare's and sweep's runs) after its platform,
/// workload and policy: --iterations (when > 0), --seed, one --set per text, --trace, --quiet and, when
/// `slowdown` is false, --no-slowdown.
void add_run_options(std::vector<std::string>& args, int iterations, const std::optional<std::uint64_t>& seed,
                     const std::vector<std::string>& sets, const std::string& trace, bool slowdown);

}  // namespace odcn::app
