#include "app/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace odcn::app {

Distribution distribution(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  d.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  // Nearest rank: the smallest value with at least 95 % of the values at or below it. 95n/100 in integers, so
  // that n = 20 gives rank 19 exactly.
  const std::size_t rank = std::max<std::size_t>(1, (95 * n + 99) / 100);
  d.p95 = v[rank - 1];
  d.max = v.back();
  return d;
}

namespace {

/// Each job's life from the run record; returns the index in rec.jobs of each job id.
std::vector<std::size_t> job_lives(const trace::RunRecord& rec, RunMetrics& m) {
  std::vector<std::size_t> index_of_id;  // job id → index in rec.jobs
  for (std::size_t i = 0; i < rec.jobs.size(); ++i) {
    const auto id = static_cast<std::size_t>(rec.jobs[i].job);
    if (id >= index_of_id.size()) index_of_id.resize(id + 1, rec.jobs.size());
    index_of_id[id] = i;
  }
  m.jobs.resize(rec.jobs.size());
  for (std::size_t i = 0; i < rec.jobs.size(); ++i) {
    const auto& t = rec.jobs[i];
    JobMetrics& j = m.jobs[i];
    j.job = t.job;
    j.name = i < rec.thread_names.size() ? rec.thread_names[i] : std::to_string(t.job);
    j.arrival_s = t.arrival_s;
    j.admitted_s = t.admitted_s;
    j.done_s = t.done_s;
    if (t.done_s < 0) throw std::logic_error(fmt::format("job {} did not finish", t.job));
  }
  // A warm iteration (TDM group A's first, whose training happened before t = 0) is not one of the N asked
  // for: the job's life starts when it ends, so that under every policy a job's figures cover its N
  // iterations and nothing else (docs/outputs.md).
  std::vector<Seconds> warm_end(m.jobs.size(), -1);
  for (const auto& r : rec.iterations)
    if (r.warm) {
      Seconds& e = warm_end[index_of_id.at(static_cast<std::size_t>(r.job))];
      e = std::max(e, r.end_s);
    }
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    JobMetrics& j = m.jobs[i];
    j.completion_s = j.done_s - std::max(j.arrival_s, warm_end[i]);
    j.service_s = j.done_s - std::max(j.admitted_s, warm_end[i]);
  }
  return index_of_id;
}

/// Each job's time split: its iterations' partitions summed (warm ones excluded), waiting the rest of its life.
void time_split(const trace::RunRecord& rec, const std::vector<std::size_t>& index_of_id, RunMetrics& m) {
  for (const auto& r : rec.iterations) {
    JobMetrics& j = m.jobs.at(index_of_id.at(static_cast<std::size_t>(r.job)));
    if (r.warm) continue;
    ++j.iterations;
    j.compute_s += r.compute_s;
    j.communication_s += r.exposed_communication_s();
    j.reconfiguration_stall_s += r.exposed_stall_s();
    j.hidden_communication_s += r.hidden_communication_s();
  }
  for (JobMetrics& j : m.jobs) {
    // Waiting: the job's time that is neither computing nor communicating (held for a stage or for circuits,
    // queued before admission, between iterations). Below a nanosecond per second of the job's life it is
    // rounding in that subtraction, not waiting.
    const Seconds wait = j.completion_s - j.compute_s - j.communication_s - j.reconfiguration_stall_s;
    j.waiting_s = wait > 1e-9 * j.completion_s ? wait : 0.0;
  }
}

}  // namespace

RunMetrics compute_metrics(const trace::RunRecord& rec, int iterations, const std::vector<Seconds>* alone_s) {
  RunMetrics m;
  m.iterations = iterations;
  m.makespan_s = rec.makespan_s;
  m.reconfigurations = rec.reconfigurations;
  m.circuits_changed = rec.circuits_changed;
  time_split(rec, job_lives(rec, m), m);
  std::vector<double> completion, slowdown;
  double total = 0, compute = 0, comm = 0, stall = 0, waiting = 0, hidden = 0, per_iteration = 0;
  long long job_iterations = 0;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    JobMetrics& j = m.jobs[i];
    completion.push_back(j.completion_s);
    total += j.completion_s;
    compute += j.compute_s;
    comm += j.communication_s;
    stall += j.reconfiguration_stall_s;
    waiting += j.waiting_s;
    hidden += j.hidden_communication_s;
    job_iterations += j.iterations;
    if (j.iterations > 0) per_iteration += j.service_s / j.iterations;
    if (alone_s && i < alone_s->size() && (*alone_s)[i] > 0) {
      j.alone_s = (*alone_s)[i];
      j.slowdown = j.completion_s / *j.alone_s;
      slowdown.push_back(*j.slowdown);
    }
  }
  m.completion = distribution(completion);
  if (!m.jobs.empty()) m.mean_iteration_s = per_iteration / static_cast<double>(m.jobs.size());
  if (m.makespan_s > 0) m.throughput_per_hour = static_cast<double>(job_iterations) / m.makespan_s * 3600.0;
  if (!slowdown.empty() && slowdown.size() == m.jobs.size()) m.slowdown = distribution(slowdown);
  if (total > 0) {
    m.share_compute = compute / total;
    m.share_communication = comm / total;
    m.share_stall = stall / total;
    m.share_waiting = waiting / total;
    m.share_hidden_communication = hidden / total;
  }
  return m;
}

const std::vector<std::pair<std::string, std::string>>& metric_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys{
      {"makespan_s", "makespan (s)"},
      {"job_completion_mean_s", "mean job completion (s)"},
      {"job_completion_median_s", "median job completion (s)"},
      {"job_completion_p95_s", "p95 job completion (s)"},
      {"job_completion_max_s", "max job completion (s)"},
      {"mean_iteration_s", "mean iteration (s)"},
      {"throughput_iterations_per_hour", "throughput (iterations/h)"},
      {"slowdown_mean", "mean slowdown"},
      {"slowdown_p95", "p95 slowdown"},
      {"slowdown_max", "max slowdown"},
      {"reconfigurations", "reconfigurations"},
      {"circuits_changed", "circuits changed"},
      {"share_compute", "compute share"},
      {"share_communication", "communication share"},
      {"share_reconfiguration_stall", "reconfiguration-stall share"},
      {"share_waiting", "waiting share"},
      {"share_hidden_communication", "hidden communication share"}};
  return keys;
}

}  // namespace odcn::app
