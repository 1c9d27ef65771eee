#pragma once
// The public face of the engine; SimGrid types never appear here. SimGrid's Engine is a per-process
// singleton, so each of these functions may be called once per process.
#include <string>
#include <vector>

#include "net/fabric.hpp"
#include "sched/plan.hpp"
#include "trace/rows.hpp"
#include "workload/job.hpp"

namespace odcn::engine {

struct EngineOptions {
  bool progress = false;                  ///< progress lines on stderr
  trace::EventSink* events = nullptr;     ///< trace events stream here when set (else into RunRecord::events)
};

/// Policy `static`: applies the plan's configuration at t = 0 (pre-provisioned, no delay) and lets every
/// job run `iterations` iterations on its own: train; then each communication phase (PS: push, aggregate on
/// the server, pull). Every worker actor stands for the job's GPUs in one pod.
trace::RunRecord run_static(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                            const sched::StaticPlan& plan, int iterations, const EngineOptions& options = {});

/// A four-stage TDM plan, repeated for `rounds` rounds. The fabric starts in the last stage's configuration
/// (steady state); before each stage the scheduler asks the OCS actor for that stage's configuration.
trace::RunRecord run_tdm(const net::Fabric& fabric, const std::vector<workload::Job>& jobs,
                         const sched::TdmPlan& plan, int rounds, const EngineOptions& options = {});

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
