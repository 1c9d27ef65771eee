#pragma once
// The metrics every run reports whatever its policy (summary.json, jobs.csv; definitions in docs/outputs.md):
// they are computed from the jobs' lives and iteration rows alone, so that compare and sweep can set one
// policy's numbers beside another's. Pure: no SimGrid.
#include <optional>
#include <string>
#include <vector>

#include "trace/rows.hpp"

namespace odcn::app {

/// One job's figures.
struct JobMetrics {
  int job = 0;
  std::string name;
  Seconds arrival_s = 0, admitted_s = -1, done_s = -1;
  /// done − arrival: the job completion time (JCT). A job with a warm iteration (TDM) starts when it ends.
  Seconds completion_s = 0;
  Seconds service_s = 0;     ///< done − admitted (or the warm iteration's end, if later)
  int iterations = 0;        ///< completed, warm ones excluded
  /// Over its iterations, warm ones excluded.
  /// A partition of its completion time: computing; communicating while neither computing nor stalled;
  /// stalled on a reconfiguration while not computing; waiting (the rest).
  Seconds compute_s = 0, communication_s = 0, reconfiguration_stall_s = 0, waiting_s = 0;
  /// Communication (or stall) while the job also computed: beside the partition, not part of it.
  Seconds hidden_communication_s = 0;
  std::optional<Seconds> alone_s;  ///< its service time alone on the empty fabric (policy alone)
  std::optional<double> slowdown;  ///< completion_s / alone_s
};

struct Distribution {
  double mean = 0, median = 0, p95 = 0, max = 0;
};
/// Mean; median (the mean of the two middle values of an even count); p95 by nearest rank (the
/// ⌈0.95 n⌉-th smallest); max. All zero for an empty list.
Distribution distribution(std::vector<double> v);

struct RunMetrics {
  std::vector<JobMetrics> jobs;
  int iterations = 0;  ///< per job, as asked for
  Seconds makespan_s = 0;
  Distribution completion;
  Seconds mean_iteration_s = 0;      ///< mean over jobs of service_s / iterations
  double throughput_per_hour = 0;    ///< job iterations completed per simulated hour
  std::optional<Distribution> slowdown;
  int reconfigurations = 0, circuits_changed = 0;
  /// Of Σ completion_s; they add up to 1 (the jobs' partitions summed).
  double share_compute = 0, share_communication = 0, share_stall = 0, share_waiting = 0;
  /// Of Σ completion_s: communication hidden behind compute (not part of the partition).
  double share_hidden_communication = 0;
};

/// `alone_s`, when given, holds each job's service time alone (by job index, as in rec.jobs). Raises
/// std::logic_error when a job did not finish.
RunMetrics compute_metrics(const trace::RunRecord& rec, int iterations, const std::vector<Seconds>* alone_s = nullptr);

/// The comparable metrics, in the order compare and sweep print them: (key in summary.json, what it is).
const std::vector<std::pair<std::string, std::string>>& metric_keys();

}  // namespace odcn::app
