#include "app/run_common.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "core/text.hpp"

namespace odcn::app {

namespace {

/// jobs.csv's service_s column, which the baseline run's file gives each job's time alone in.
constexpr int kServiceColumn = 5;

/// --trace and --set as run.json's command repeats them.
std::string set_options(const RunOptions& o) {
  std::string s = o.trace == "full" ? "" : fmt::format(" --trace {}", o.trace);
  for (const auto& v : o.overrides) s += fmt::format(" --set {}", v.text);
  return s;
}

/// The metrics every policy reports (app/metrics.hpp), flat, as summary.json holds them.
void add_metrics(nlohmann::ordered_json& summary, const RunMetrics& m) {
  summary["makespan_s"] = m.makespan_s;
  summary["job_completion_mean_s"] = m.completion.mean;
  summary["job_completion_median_s"] = m.completion.median;
  summary["job_completion_p95_s"] = m.completion.p95;
  summary["job_completion_max_s"] = m.completion.max;
  summary["mean_iteration_s"] = m.mean_iteration_s;
  summary["throughput_iterations_per_hour"] = m.throughput_per_hour;
  const auto opt = [](const std::optional<Distribution>& d, double Distribution::*f) {
    return d ? nlohmann::ordered_json((*d).*f) : nlohmann::ordered_json(nullptr);
  };
  summary["slowdown_mean"] = opt(m.slowdown, &Distribution::mean);
  summary["slowdown_p95"] = opt(m.slowdown, &Distribution::p95);
  summary["slowdown_max"] = opt(m.slowdown, &Distribution::max);
  summary["reconfigurations"] = m.reconfigurations;
  summary["circuits_changed"] = m.circuits_changed;
  summary["share_compute"] = m.share_compute;
  summary["share_communication"] = m.share_communication;
  summary["share_reconfiguration_stall"] = m.share_stall;
  summary["share_waiting"] = m.share_waiting;
  summary["share_hidden_communication"] = m.share_hidden_communication;
}

void write_jobs_csv(trace::FileWriter out, const RunMetrics& m) {
  using trace::num;
  out << "job,arrival_s,admitted_s,done_s,completion_s,service_s,iterations,compute_s,communication_s,"
         "reconfiguration_stall_s,waiting_s,hidden_communication_s,alone_s,slowdown,job_name\n";
  for (const auto& j : m.jobs)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.job, num(j.arrival_s), num(j.admitted_s),
                       num(j.done_s), num(j.completion_s), num(j.service_s), j.iterations, num(j.compute_s),
                       num(j.communication_s), num(j.reconfiguration_stall_s), num(j.waiting_s),
                       num(j.hidden_communication_s), j.alone_s ? num(*j.alone_s) : "",
                       j.slowdown ? num(*j.slowdown) : "", trace::csv_field(j.name));
  out.close();
}

}  // namespace

bool shows_progress(const RunOptions& o) { return o.progress || (!o.quiet && isatty(STDERR_FILENO)); }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

nlohmann::ordered_json overrides_json(const RunOptions& o) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& v : o.overrides)
    list.push_back({{"file", v.platform ? o.platform : o.workload}, {"path", v.path}, {"value", v.value}});
  return list;
}

std::string reproducing_command(const RunOptions& o, int iterations) {
  std::string cmd = fmt::format("odcnsim run --platform {} --workload {} --policy {}{}{}", o.platform, o.workload,
                                o.policy, iterations > 0 ? fmt::format(" --iterations {}", iterations) : "",
                                set_options(o));
  if (o.seed) cmd += fmt::format(" --seed {}", *o.seed);
  if (!o.search.empty()) cmd += " --search " + o.search;
  if (o.mip_seconds != RunOptions{}.mip_seconds) cmd += fmt::format(" --mip-seconds {}", o.mip_seconds);
  return cmd;
}

void RunSetup::Filter::event(const trace::TraceEvent& e) {
  if (to_ && (jobs_ || (e.category != "compute" && e.category != "comm"))) to_->event(e);
}

RunSetup::RunSetup(const RunOptions& o, const std::vector<std::string>& job_names)
    : out(o.out, o.force, {o.platform, o.workload}),
      trace(o.trace == "none" ? std::nullopt
                              : std::optional<trace::ChromeTraceWriter>(
                                    std::in_place, out.open("trace.json"),
                                    o.trace == "full" ? job_names : std::vector<std::string>{})),
      filter(trace ? &*trace : nullptr, o.trace == "full") {
  // Progress lines go to stderr when it is a terminal, or when asked for.
  eo.progress_terminal = isatty(STDERR_FILENO);
  eo.progress = shows_progress(o);
  eo.compact_steps = !o.every_flow;
  eo.events = &filter;
}

void RunSetup::close_trace() {
  if (trace) trace->close();
}

void RunSetup::job_groups(std::vector<std::string> group_of_job) {
  if (trace) trace->set_job_groups(std::move(group_of_job));
}

AloneBaseline::AloneBaseline(const RunOptions& o, int iterations) : t0_(Clock::now()) {
  std::vector<std::string> args{"run", "--platform", o.platform, "--workload", o.workload,
                                "--policy", entry_of(PolicyId::alone).name};
  std::vector<std::string> sets;
  for (const auto& v : o.overrides) sets.push_back(v.text);
  add_run_options(args, iterations, o.seed, sets, "none", false);
  args.insert(args.end(), {"--alone-by-shape", "--out", dir_.file("baseline")});
  pid_ = spawn_self(o.self, args, dir_.file("out.txt"), dir_.file("err.txt"));
}

AloneBaseline::~AloneBaseline() {
  if (pid_ > 0) {  // this run failed: its baseline is not needed (its files are in scratch, removed here)
    kill(pid_, SIGKILL);
    wait_child(pid_, t0_);
  }
}

std::optional<std::vector<Seconds>> AloneBaseline::result(std::size_t jobs, std::string& why) {
  const ChildRun run = wait_child(pid_, t0_);
  pid_ = -1;
  if (!run.ok()) {
    const std::string reason = first_line(dir_.file("err.txt"));
    why = fmt::format("the run of policy alone failed ({}{}{})", run.how(), reason.empty() ? "" : ": ",
                      escape_line(reason));
    return std::nullopt;
  }
  // jobs.csv (write_jobs_csv): numbers first, the quoted name last, so the columns before it split on commas.
  std::ifstream in(dir_.file("baseline/jobs.csv"));
  std::string line;
  std::getline(in, line);
  std::vector<Seconds> alone;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string cell;
    for (int c = 0; c <= kServiceColumn && std::getline(fields, cell, ','); ++c) {
    }
    alone.push_back(std::strtod(cell.c_str(), nullptr));
  }
  if (alone.size() != jobs) {
    why = fmt::format("the run of policy alone reported {} jobs, not {}", alone.size(), jobs);
    return std::nullopt;
  }
  return alone;
}

std::optional<std::vector<Seconds>> alone_times(const RunOptions& o, AloneBaseline* child, const trace::RunRecord& rec,
                                                std::vector<std::string>& notes) {
  if (o.id == PolicyId::alone) {
    std::vector<Seconds> own;
    for (const auto& j : rec.jobs) own.push_back(j.done_s - j.admitted_s);
    return own;
  }
  if (!child) return std::nullopt;
  std::string why;
  auto alone = child->result(rec.jobs.size(), why);
  if (!alone) notes.push_back(fmt::format("warning: no slowdown: {}", why));
  return alone;
}

RunMetrics write_results(trace::OutputDir& out, const Json& head, const Json& extras, const trace::RunRecord& rec,
                         int iterations, const std::optional<std::vector<Seconds>>& alone) {
  Json summary = {{"schema_version", kOutputSchemaVersion}};
  for (const auto& [k, v] : head.items()) summary[k] = v;
  const RunMetrics m = compute_metrics(rec, iterations, alone ? &*alone : nullptr);
  add_metrics(summary, m);
  for (const auto& [k, v] : extras.items()) summary[k] = v;
  trace::write_json(out.open("summary.json"), summary);
  write_jobs_csv(out.open("jobs.csv"), m);
  trace::write_iterations_csv(out.open("iterations.csv"), rec);
  trace::write_circuits_csv(out.open("circuits.csv"), rec);
  return m;
}

void print_metrics(const RunMetrics& m) {
  std::cout << fmt::format("  job completion    mean {:.6f} s, median {:.6f} s, p95 {:.6f} s, max {:.6f} s\n",
                           m.completion.mean, m.completion.median, m.completion.p95, m.completion.max);
  std::cout << fmt::format("  mean iteration    {:.6f} s ({}; {:.1f} job iterations per hour)\n", m.mean_iteration_s,
                           m.iterations > 0 ? fmt::format("{} per job", m.iterations) : std::string("as each graph gives"),
                           m.throughput_per_hour);
  if (m.slowdown)
    std::cout << fmt::format("  slowdown          mean {:.3f}, p95 {:.3f}, max {:.3f} (against each job alone)\n",
                             m.slowdown->mean, m.slowdown->p95, m.slowdown->max);
  // The four shares partition the jobs' time, so they add up to 100 %; hidden communication is beside them.
  std::cout << fmt::format("  job time          {:.1f} % compute, {:.1f} % communication, {:.2f} % reconfiguration "
                           "stall, {:.1f} % waiting{}\n",
                           100 * m.share_compute, 100 * m.share_communication, 100 * m.share_stall,
                           100 * m.share_waiting,
                           m.share_hidden_communication > 0
                               ? fmt::format(" (and {:.1f} % more communication hidden behind compute)",
                                             100 * m.share_hidden_communication)
                               : "");
  std::cout << fmt::format("  makespan          {:.6f} s\n  reconfigurations  {} ({} circuits changed)\n", m.makespan_s,
                           m.reconfigurations, m.circuits_changed);
}

void print_wall_and_outputs(const RunOptions& o, double plan_wall_s, double sim_wall_s, bool stages) {
  std::cout << (plan_wall_s >= 0 ? fmt::format("  wall time         plan {:.3f} s, simulate {:.3f} s\n", plan_wall_s, sim_wall_s)
                                 : fmt::format("  wall time         simulate {:.3f} s\n", sim_wall_s))
            << fmt::format("  outputs           {}/{{run.json,summary.json,jobs.csv,iterations.csv,circuits.csv{}{}}}\n",
                           escape_line(o.out), stages ? ",stages.csv" : "", o.trace == "none" ? "" : ",trace.json");
}

}  // namespace odcn::app
