#pragma once
// The public face of the engine; SimGrid types never appear here. SimGrid's Engine is a per-process
// singleton, so each of these functions may be called once per process.
#include <string>
#include <vector>

#include "net/fabric.hpp"
#include "net/network.hpp"
#include "policy/controller.hpp"
#include "trace/rows.hpp"
#include "graph/task_graph.hpp"
#include "spec/ps_workload.hpp"

namespace odcn::engine {

struct EngineOptions {
  bool progress = false;                  ///< progress lines on stderr
  bool progress_terminal = true;          ///< redraw one line (\r) on a terminal; else a line per tenth
  trace::EventSink* events = nullptr;     ///< trace events stream here when set (else into RunRecord::events)
  /// A step whose transfers provably end together runs as one of them (docs/model.md, "Steps that end
  /// together"); false sends every transfer (the same times, slower: a check of that proof).
  bool compact_steps = true;
};

/// A job as the engine runs it: its task graph and the endpoint each rank runs on (net/network.hpp).
struct JobToRun {
  int id = 0;
  std::string name;
  const workload::JobGraph* graph = nullptr;
  std::vector<int> endpoint_of_rank;
  /// clos_ocs with servers (INC-AOI): the server of each rank (pod × servers_per_pod + server); its parameter-
  /// server collectives then pay the servers' NICs (systems/inc_aoi/ps_jobs.hpp). Empty: pod-level only.
  std::vector<int> server_of_rank;
  spec::PsAt ps;  ///< where its CPU parameter server is (INC-AOI's ps_jobs.ps_server)
};

/// Runs the jobs' task graphs under a controller (policy/controller.hpp) until every job has finished its
/// iterations or the controller stops the run. Each job's iteration i+1 starts when iteration i has ended;
/// within an iteration a task is issued when the tasks it depends on are done and the controller lets it
/// start. Raises ConfigError when a configuration breaks a port budget, and std::runtime_error when the run
/// stops with tasks that can never start (the controller held them and never released them).
trace::RunRecord run(const net::Network& network, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options = {});
/// The same on a clos_ocs fabric.
trace::RunRecord run(const net::Fabric& fabric, const std::vector<JobToRun>& jobs, sched::Controller& controller,
                     const EngineOptions& options = {});

/// Scripted scenarios for the engine's oracle tests: transfers started at given times, reconfigurations
/// requested at given times, and the time each transfer finishes.
struct ScriptTransfer {
  enum class Kind { circuit, tor };
  Seconds start_s = 0;
  Kind kind = Kind::circuit;
  int src_pod = 0;  ///< for tor transfers: the pod
  int dst_pod = 0;
  Bytes bytes = 0;
};
struct ScriptReconfig {
  Seconds at_s = 0;
  net::CircuitConfig config;
};
struct ScriptResult {
  std::vector<Seconds> finish_s;
  trace::RunRecord record;
};
ScriptResult run_script(const net::Fabric& fabric, const net::CircuitConfig& initial,
                        const std::vector<ScriptTransfer>& transfers, const std::vector<ScriptReconfig>& reconfigs);

/// The SimGrid settings odcnsim always applies (for run.json).
std::vector<std::string> simgrid_settings();
std::string simgrid_version();

}  // namespace odcn::engine
