#pragma once
// The one `run` pipeline (cmd_run.cpp) and what every workload kind shares in it:
//
//   read both files (--set written in) ─► look the policy up (policy_table.hpp) ─► check it accepts this workload
//   and platform ─► lower the workload and plan (a PlannedRun, one per workload kind: run_tdm4_jobs.cpp,
//   run_graphs.cpp, run_flat.cpp, run_ps_jobs.cpp) ─► open the outputs ─► simulate on the engine ─► run.json, the
//   common outputs (summary.json, jobs.csv, iterations.csv, circuits.csv, trace.json) ─► the policy's extras, which
//   its system's folder writes (sim/systems/<paper>/*_outputs.*) ─► manifest.json, commit ─► console summary.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/child.hpp"
#include "app/commands.hpp"
#include "app/metrics.hpp"
#include "app/policy_table.hpp"
#include "engine/simulation.hpp"
#include "spec/fabric_kinds.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"

namespace YAML {
class Node;
}

namespace odcn::app {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

/// The version of the output schema (summary.json, run.json, jobs.csv, iterations.csv; docs/outputs.md) that
/// summary.json and run.json name in "schema_version". 2: the time split is one partition in every file.
constexpr int kOutputSchemaVersion = 2;

/// --iterations when not given: every job of every policy runs this many (job graphs: each graph's own).
constexpr int kDefaultIterations = 3;

/// Whether a run prints progress lines on stderr: when asked for (--progress), or on a terminal unless --quiet.
bool shows_progress(const RunOptions& o);

/// Seconds since `t0`.
double seconds_since(Clock::time_point t0);

/// What run has read before any policy plans: the options (the policy resolved), and both files with the
/// overrides written in; the platform validated, the workload parsed as YAML only (its kind decides how).
struct RunInputs {
  RunOptions o;
  spec::AnyPlatform platform;
  std::string platform_hash;
  std::string workload_hash;
  WorkloadKind kind = WorkloadKind::tdm4_jobs;
  std::shared_ptr<YAML::Node> workload_doc;
  std::shared_ptr<YAML::Node> platform_doc;  ///< with the --set overrides written in
  std::vector<std::string> notes;  ///< said on stderr after a successful run (unless --quiet)
};

/// A job-graph file given as the workload becomes a workload of that one graph, rank i on endpoint i (a note says
/// so); any other document is left as it is.
void as_workload(YAML::Node& doc, const std::string& file, std::vector<std::string>& notes);
/// Which kind of workload a parsed workload document holds.
WorkloadKind workload_kind(const YAML::Node& doc);
/// Both files read once, the --set overrides written into them, the platform validated as a file is
/// (cmd_run.cpp). A platform and a workload given the other way round are named as such.
RunInputs read_run_inputs(const RunOptions& o);
/// The workload of `in` read by its kind's reader (InputError when it is not valid); nothing kept.
void check_workload(const RunInputs& in);

/// One workload kind under one policy, lowered and planned: what the pipeline asks of it, in this order.
class PlannedRun {
 public:
  virtual ~PlannedRun() = default;
  /// The jobs' names (trace.json threads), and the process each job is in (empty: one process per job).
  virtual std::vector<std::string> job_names() const = 0;
  virtual std::vector<std::string> job_groups() const { return {}; }
  /// The iterations of every job (0: each graph's own), for run.json, the metrics and the baseline run.
  virtual int iterations() const = 0;
  virtual double plan_wall_s() const = 0;
  /// Runs the engine. Raises ConfigError for what the fabric cannot carry.
  virtual trace::RunRecord simulate(const engine::EngineOptions& eo) = 0;
  /// run.json's fields after "command": the inputs, the policy and the jobs.
  virtual Json run_json() const = 0;
  /// summary.json's first fields (policy, platform kind, jobs, iterations, rows).
  virtual Json summary_head(const trace::RunRecord& rec) const = 0;
  /// The policy's own outputs: it writes its extra files into `out` and returns its summary fields (and may add
  /// notes printed after the run).
  virtual Json extras(trace::OutputDir& out, const trace::RunRecord& rec, std::vector<std::string>& notes) = 0;
  /// The console summary: a header, the policy's lines, print_metrics(m), the wall times and the outputs.
  virtual void print(const RunMetrics& m, const Json& extras, const trace::RunRecord& rec, double sim_wall_s) const = 0;
  /// Notes and warnings about a run that succeeded.
  virtual std::vector<std::string> notes() const { return {}; }
};

/// The PlannedRun of each workload kind (they raise InputError for what cannot be planned).
std::unique_ptr<PlannedRun> plan_tdm4_jobs(const RunInputs& in);
std::unique_ptr<PlannedRun> plan_graphs(const RunInputs& in);
std::unique_ptr<PlannedRun> plan_ps_jobs(const RunInputs& in);

/// What every run opens before it simulates: the output folder first (so that an unwritable --out fails before any
/// simulation), the trace stream (events go to disk as they happen: a long run's trace would not fit in memory),
/// and the engine options pointing at it.
struct RunSetup {
  /// --trace: `full` every event; `summary` the fabric's and the scheduler's only (reconfigurations, stages),
  /// without a slice per job task; `none` no trace.json.
  class Filter : public trace::EventSink {
   public:
    Filter(trace::ChromeTraceWriter* to, bool jobs) : to_(to), jobs_(jobs) {}
    void event(const trace::TraceEvent& e) override;

   private:
    trace::ChromeTraceWriter* to_;
    bool jobs_;
  };
  trace::OutputDir out;
  std::optional<trace::ChromeTraceWriter> trace;
  Filter filter;
  engine::EngineOptions eo;
  RunSetup(const RunOptions& o, const std::vector<std::string>& job_names);
  void close_trace();
  /// trace.json: the process (by name) each job's thread is in; before the run.
  void job_groups(std::vector<std::string> group_of_job);
};

/// Policy alone, run in a child process beside this run (SimGrid's engine is one per process): each job's time
/// alone on the empty fabric, the baseline of slowdown. The child gets the same files, overrides, seed and
/// iterations, writes into a private scratch folder, and is stopped if this run ends first.
class AloneBaseline {
 public:
  AloneBaseline(const RunOptions& o, int iterations);
  ~AloneBaseline();
  AloneBaseline(const AloneBaseline&) = delete;
  AloneBaseline& operator=(const AloneBaseline&) = delete;
  /// Waits for the child: each job's service time alone (by job index), or nothing with the reason in `why`.
  std::optional<std::vector<Seconds>> result(std::size_t jobs, std::string& why);

 private:
  ScratchFolder dir_;
  Clock::time_point t0_;
  pid_t pid_ = -1;
};

/// The slowdown baseline: the child's result, the run's own service times under policy alone, or nothing (with a
/// note) when it was not asked for or failed.
std::optional<std::vector<Seconds>> alone_times(const RunOptions& o, AloneBaseline* child, const trace::RunRecord& rec,
                                                std::vector<std::string>& notes);

/// run.json's overrides: each --set with the file it changed.
Json overrides_json(const RunOptions& o);
/// The options that decide a run's results, as a command that repeats it (run.json). Display flags (--progress,
/// --quiet), --force and --out change no result and are left out, so that the same inputs give the same run.json.
std::string reproducing_command(const RunOptions& o, int iterations);

/// What every run writes after its simulation, whatever the policy: summary.json (`head`, then the metrics, then
/// `extras`), jobs.csv, iterations.csv, circuits.csv.
RunMetrics write_results(trace::OutputDir& out, const Json& head, const Json& extras, const trace::RunRecord& rec,
                         int iterations, const std::optional<std::vector<Seconds>>& alone);
/// The metrics' lines of the console summary.
void print_metrics(const RunMetrics& m);
/// "  wall time  plan P s, simulate S s" (plan left out when negative) and the outputs line.
void print_wall_and_outputs(const RunOptions& o, double plan_wall_s, double sim_wall_s, bool stages);

}  // namespace odcn::app
