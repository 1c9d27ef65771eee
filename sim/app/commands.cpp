#include "app/commands.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <chrono>
#include <cxxabi.h>
#include <typeinfo>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "engine/collective_run.hpp"
#include "engine/simulation.hpp"
#include "net/fabric.hpp"
#include "odcn_version.hpp"
#include "app/child.hpp"
#include "app/metrics.hpp"
#include "app/policies.hpp"
#include "net/network.hpp"
#include "policy/graph_static.hpp"
#include "systems/opus/opus.hpp"
#include "systems/topox/topoopt.hpp"
#include "systems/topox/topox.hpp"
#include "systems/inc_aoi/inc_aoi.hpp"
#include "spec/ps_workload.hpp"
#include "systems/inc_aoi/ps_jobs.hpp"
#include "spec/graph_workload.hpp"
#include "traces/graph_source.hpp"
#include "spec/overrides.hpp"
#include "graph/job_graph_file.hpp"
#include "systems/baseline/static_policy.hpp"
#include "systems/tdm4/tdm4_ilp.hpp"
#include "systems/tdm4/tdm4_policy.hpp"
#include "spec/fabric_kinds.hpp"
#include "spec/platform_spec.hpp"
#include "spec/workload_spec.hpp"
#include "spec/yaml_reader.hpp"
#include "trace/output_dir.hpp"
#include "trace/writers.hpp"
#include "systems/tdm4/scenario.hpp"

namespace odcn::app {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}


/// Notes and warnings about a run that succeeded: printed after it, so that a failing run prints exactly its
/// one error line. Many warnings of one kind are one line with a count and where the list is.
std::vector<std::string> run_notes(const RunOptions& o, const workload::Scenario& in) {
  std::vector<std::string> notes;
  if (o.seed && !in.workload.generator) notes.emplace_back("note: --seed has no effect on a workload of explicit jobs");
  if (!in.unplaced.empty())
    notes.push_back(fmt::format("warning: {} of {} generated jobs do not fit the platform and were left out (listed "
                                "in run.json, unplaced_jobs; the first: {})",
                                in.unplaced.size(), in.unplaced.size() + in.jobs.size(), in.unplaced.front()));
  return notes;
}

/// The options that decide a run's results, as a command that repeats it (run.json). Display flags
/// (--progress, --quiet), --force and --out change no result and are left out, so that the same inputs give
/// the same run.json byte for byte.
nlohmann::ordered_json overrides_json(const RunOptions& o) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& v : o.overrides)
    list.push_back({{"file", v.platform ? o.platform : o.workload}, {"path", v.path}, {"value", v.value}});
  return list;
}

std::string set_options(const RunOptions& o) {
  std::string s = o.trace == "full" ? "" : fmt::format(" --trace {}", o.trace);
  for (const auto& v : o.overrides) s += fmt::format(" --set {}", v.text);
  return s;
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

nlohmann::ordered_json platform_json(const spec::PlatformSpec& p) {
  nlohmann::ordered_json j = {{"name", p.name},
          {"kind", "clos_ocs"},
          {"pods", p.pods},
          {"gpus_per_pod", p.gpus_per_pod},
          {"tor_bytes_per_s", p.tor_bytes_per_s},
          {"ports_per_pod", p.ports_per_pod},
          {"port_bytes_per_s", p.port_bytes_per_s},
          {"oxcs", p.oxcs},
          {"ports_per_oxc", p.ports_per_oxc},
          {"pods_per_group", p.pods_per_group},
          {"reconfig_delay_s", p.reconfig_delay_s}};
  if (p.inc_jobs > 0) j["inc_jobs"] = p.inc_jobs;
  if (p.servers_per_pod > 0) {
    j["servers_per_pod"] = p.servers_per_pod;
    j["server_bytes_per_s"] = p.server_bytes_per_s;
  }
  if (p.duplex == spec::Duplex::full) j["duplex"] = "full";
  return j;
}

nlohmann::ordered_json training_json(const spec::TrainingParams& t) {
  nlohmann::ordered_json j = {{"model", spec::to_string(t.model)},
                              {"recompute_factor", t.recompute_factor},
                              {"context_tokens", t.context_tokens},
                              {"gpu_tflops", t.gpu_tflops},
                              {"efficiency", t.efficiency},
                              {"tor_model", spec::to_string(t.tor)}};
  if (t.model == spec::ComputeModel::physical) {
    j["precision"] = t.precision;
    j["bytes_per_param"] = t.bytes_per_param;
    j["sequences_per_replica"] = t.sequences_per_replica;
    j["split_over_unit"] = t.split_over_unit;
  }
  return j;
}

nlohmann::ordered_json jobs_json(const std::vector<workload::Job>& jobs) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& j : jobs) {
    nlohmann::ordered_json placement = nlohmann::ordered_json::object();
    for (const auto& [pod, g] : j.placement) placement[std::to_string(pod)] = g;
    arr.push_back({{"id", j.id},
                   {"name", j.name},
                   {"type", spec::to_string(j.type)},
                   {"model_bytes", j.model_bytes},
                   {"gpus_per_unit", j.gpus_per_unit},
                   {"placement", placement},
                   {"ps_pod", j.ps_pod},
                   {"train_s", j.train_s},
                   {"aggregate_s", j.aggregate_s},
                   {"per_gpu_bytes", j.per_gpu_bytes},
                   {"oxc_group", j.group}});
  }
  return arr;
}

bool is_tdm_policy(const std::string& p) { return p == "tdm4" || p == "aggregate" || p == "tdm4-ilp"; }

/// --iterations when not given: every job of every policy runs this many.
constexpr int kDefaultIterations = 3;

/// What every run opens before it simulates: the output folder first (so that an unwritable --out fails
/// before any simulation), the trace stream (events go to disk as they happen: a long run's trace would not
/// fit in memory), and the engine options pointing at it.
struct RunSetup {
  /// --trace: `full` every event; `summary` the fabric's and the scheduler's only (reconfigurations, stages),
  /// without a slice per job task; `none` no trace.json.
  class Filter : public trace::EventSink {
   public:
    Filter(trace::ChromeTraceWriter* to, bool jobs) : to_(to), jobs_(jobs) {}
    void event(const trace::TraceEvent& e) override {
      if (to_ && (jobs_ || (e.category != "compute" && e.category != "comm"))) to_->event(e);
    }

   private:
    trace::ChromeTraceWriter* to_;
    bool jobs_;
  };
  trace::OutputDir out;
  std::optional<trace::ChromeTraceWriter> trace;
  Filter filter;
  engine::EngineOptions eo;
  RunSetup(const RunOptions& o, const std::vector<std::string>& job_names)
      : out(o.out, o.force, {o.platform, o.workload}),
        trace(o.trace == "none" ? std::nullopt
                                : std::optional<trace::ChromeTraceWriter>(std::in_place, out.open("trace.json"),
                                                                          o.trace == "full" ? job_names
                                                                                            : std::vector<std::string>{})),
        filter(trace ? &*trace : nullptr, o.trace == "full") {
    // Progress lines go to stderr when it is a terminal, or when asked for.
    eo.progress_terminal = isatty(STDERR_FILENO);
    eo.progress = o.progress || (!o.quiet && eo.progress_terminal);
    eo.events = &filter;
  }
  void close_trace() {
    if (trace) trace->close();
  }
  /// trace.json: the process (by name) each job's thread is in; before the run.
  void job_groups(std::vector<std::string> group_of_job) {
    if (trace) trace->set_job_groups(std::move(group_of_job));
  }
  /// The outputs' names for the closing line.
  static std::string trace_file(const RunOptions& o) { return o.trace == "none" ? "" : ",trace.json"; }
};

/// Policy alone, run in a child process beside this run (SimGrid's engine is one per process): each job's time
/// alone on the empty fabric, the baseline of slowdown. The child gets the same files, overrides, seed and
/// iterations, writes into a private scratch folder, and is stopped if this run ends first.
class AloneBaseline {
 public:
  static constexpr int kServiceColumn = 5;  ///< service_s in jobs.csv
  AloneBaseline(const RunOptions& o, int iterations) : t0_(Clock::now()) {
    std::vector<std::string> args{"run", "--platform", o.platform, "--workload", o.workload, "--policy", "alone"};
    std::vector<std::string> sets;
    for (const auto& v : o.overrides) sets.push_back(v.text);
    add_run_options(args, iterations, o.seed, sets, "none", false);
    args.insert(args.end(), {"--out", dir_.file("alone")});
    pid_ = spawn_self(o.self, args, dir_.file("out.txt"), dir_.file("err.txt"));
  }
  ~AloneBaseline() {
    if (pid_ > 0) {  // this run failed: its baseline is not needed (its files are in scratch, removed here)
      kill(pid_, SIGKILL);
      wait_child(pid_, t0_);
    }
  }
  AloneBaseline(const AloneBaseline&) = delete;
  AloneBaseline& operator=(const AloneBaseline&) = delete;

  /// Waits for the child: each job's service time alone (by job index), or nothing with the reason in `why`.
  std::optional<std::vector<Seconds>> result(std::size_t jobs, std::string& why) {
    const ChildRun run = wait_child(pid_, t0_);
    pid_ = -1;
    if (!run.ok()) {
      const std::string reason = first_line(dir_.file("err.txt"));
      why = fmt::format("the run of policy alone failed ({}{}{})", run.how(), reason.empty() ? "" : ": ",
                        escape_line(reason));
      return std::nullopt;
    }
    // jobs.csv (write_jobs_csv below): numbers first, the quoted name last, so the columns before it split
    // on commas.
    std::ifstream in(dir_.file("alone/jobs.csv"));
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

 private:
  ScratchFolder dir_;
  Clock::time_point t0_;
  pid_t pid_ = -1;
};

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
}

void write_jobs_csv(trace::FileWriter out, const RunMetrics& m) {
  using trace::num;
  out << "job,arrival_s,admitted_s,done_s,completion_s,service_s,iterations,compute_s,communication_s,"
         "reconfiguration_stall_s,waiting_s,alone_s,slowdown,job_name\n";
  for (const auto& j : m.jobs)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.job, num(j.arrival_s), num(j.admitted_s),
                       num(j.done_s), num(j.completion_s), num(j.service_s), j.iterations, num(j.compute_s),
                       num(j.communication_s), num(j.reconfiguration_stall_s), num(j.waiting_s),
                       j.alone_s ? num(*j.alone_s) : "", j.slowdown ? num(*j.slowdown) : "", trace::csv_field(j.name));
  out.close();
}

/// The slowdown baseline for this run: the child's result, its own service times under policy alone, or
/// nothing (with a note) when it was not asked for or failed.
std::optional<std::vector<Seconds>> alone_times(const RunOptions& o, AloneBaseline* child, const trace::RunRecord& rec,
                                                std::vector<std::string>& notes) {
  if (o.policy == "alone") {
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

/// What every run writes after its simulation, whatever the policy: summary.json (`head`, then the metrics,
/// then `extras`), jobs.csv, iterations.csv, circuits.csv.
RunMetrics write_results(trace::OutputDir& out, nlohmann::ordered_json summary, const nlohmann::ordered_json& extras,
                         const trace::RunRecord& rec, int iterations, const std::optional<std::vector<Seconds>>& alone) {
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
  std::cout << fmt::format("  job time          {:.1f} % compute, {:.1f} % communication, {:.2f} % reconfiguration "
                           "stall, {:.1f} % waiting\n",
                           100 * m.share_compute, 100 * m.share_communication, 100 * m.share_stall,
                           100 * m.share_waiting);
  std::cout << fmt::format("  makespan          {:.6f} s\n  reconfigurations  {} ({} circuits changed)\n", m.makespan_s,
                           m.reconfigurations, m.circuits_changed);
}

/// A workload of job graphs read against a platform: the graphs (with the workload's and --iterations'
/// overrides), their endpoints checked against the platform's, and the platform as the engine sees it.
struct GraphInputs {
  std::unique_ptr<net::Fabric> clos;  ///< network refers to it
  net::Network network;
  std::vector<workload::JobGraph> graphs;
  std::vector<sched::GraphJob> jobs;  ///< refer to graphs
};

std::unique_ptr<GraphInputs> load_graph_inputs(const spec::AnyPlatform& platform, const spec::GraphWorkloadSpec& w,
                                               int iterations) {
  auto in = std::make_unique<GraphInputs>();
  if (platform.clos) {
    in->clos = std::make_unique<net::Fabric>(*platform.clos);
    in->network = net::network_of(*in->clos);
  } else if (platform.flat) {
    in->network = net::network_of(*platform.flat);
  } else if (platform.rail) {
    in->network = net::network_of(*platform.rail);
  } else {
    in->network = net::network_of(*platform.electrical);
  }
  const net::Network& network = in->network;
  in->graphs.reserve(w.jobs.size());
  for (const auto& js : w.jobs) {
    workload::JobGraph g = workload::load_graph_source(js, w.file);
    if (js.name) g.name = *js.name;
    if (js.iterations) g.iterations = *js.iterations;
    if (js.arrival_s) g.arrival_s = *js.arrival_s;
    if (iterations > 0) g.iterations = iterations;
    if (static_cast<int>(js.endpoints.size()) != g.ranks)
      throw InputError(w.file, js.field + ".endpoints",
                       fmt::format("lists {} endpoints, but the graph has {} ranks", js.endpoints.size(), g.ranks));
    for (std::size_t r = 0; r < js.endpoints.size(); ++r)
      if (js.endpoints[r] >= network.endpoints)
        throw InputError(w.file, fmt::format("{}.endpoints[{}]", js.field, r),
                         fmt::format("no {} {} (this {} platform has {})", network.endpoint_word, js.endpoints[r],
                                     network.kind, network.endpoints));
    in->graphs.push_back(std::move(g));
  }
  std::int64_t rows = 0;
  for (std::size_t i = 0; i < in->graphs.size(); ++i) {
    in->jobs.push_back({in->graphs[i].name, &in->graphs[i], w.jobs[i].endpoints, w.jobs[i].field});
    rows += in->graphs[i].iterations;
  }
  if (rows > limits::kMaxIterationRows)
    throw InputError(w.file, "job_graphs", fmt::format("{} iteration rows, above the limit of {} (see docs/limits.md)",
                                                       rows, limits::kMaxIterationRows));
  return in;
}

/// Policy static's circuits for the graphs: every pair their transfers cross needs a path, and a first
/// circuit where the path is one. Raises ConfigError.
sched::GraphStaticPlan plan_graphs(const spec::AnyPlatform& platform, const GraphInputs& in, const std::string& file) {
  return sched::plan_graph_static(platform, in.network, sched::circuit_demand(in.network, in.jobs, file));
}

/// Policy static's refusal of a workload of job graphs, as `run` and `validate` both report it: on a flat OCS layer,
/// a job that topox and topoopt can run (one job of ring all-reduces) gets the hint.
InputError static_refusal(const spec::AnyPlatform& platform, const GraphInputs& in, const std::string& file,
                          const ConfigError& e) {
  std::string why = e.what();
  if (platform.flat && in.jobs.size() == 1) {
    try {
      sched::flow_graph(in.graphs[0], in.jobs[0].endpoints, sched::RingPaths{{1, -1}}, file, in.jobs[0].field);
      why += "; policies topox and topoopt can run it (docs/topox.md)";
    } catch (const InputError&) {
      // Not a job of ring all-reduces: no hint.
    }
  }
  return InputError(file, "job_graphs", why);
}

/// The summary line about where the outputs are.
std::string outputs_line(const RunOptions& o, bool stages) {
  return fmt::format("  outputs           {}/{{run.json,summary.json,jobs.csv,iterations.csv,circuits.csv{}{}}}\n",
                     escape_line(o.out), stages ? ",stages.csv" : "", RunSetup::trace_file(o));
}

/// Policy opus, opus:on-demand or opus:provisioned (opus is provisioned, the paper's design).
bool is_opus_policy(const std::string& name, sched::OpusMode& mode) {
  if (name == "opus") {
    mode = sched::OpusMode::provisioned;
    return true;
  }
  return name.rfind("opus:", 0) == 0 && sched::parse_opus_mode(name.substr(5), mode);
}

/// windows.csv and the summary's opus extras: reconfigurations and windows per iteration, the share of
/// windows above 1 ms (Opus §3.1 reports > 75 %), and the largest window with the task it precedes.
nlohmann::ordered_json opus_outputs(trace::OutputDir& out, const sched::OpusController& c,
                                    const sched::RailGroups& groups, const std::vector<sched::GraphJob>& jobs,
                                    const net::Network& network,
                                    const trace::RunRecord& rec, sched::OpusMode mode, bool reconfigures) {
  using trace::num;
  const auto windows = sched::phase_windows(c.records());
  trace::FileWriter csv = out.open("windows.csv");
  csv.write(fmt::format("job,iteration,{0},rail,from_group,to_group,opens_s,window_s,next_task,next_task_name\n",
                        network.endpoint_word));
  const auto task_name = [&](int job, int task) {
    return jobs[static_cast<std::size_t>(job)].graph->tasks[static_cast<std::size_t>(task)].name;
  };
  std::size_t over_1ms = 0;
  const sched::Window* largest = nullptr;
  std::map<std::pair<int, int>, int> per_iteration;  // (job, iteration) -> windows
  std::map<int, int> iterations_of_job;
  for (const auto& r : rec.iterations) iterations_of_job[r.job] = std::max(iterations_of_job[r.job], r.iteration + 1);
  for (const auto& w : windows) {
    const auto& g = groups.group(w.to_group);
    csv.write(fmt::format("{},{},{},{},{},{},{},{},{},{}\n", w.job, w.iteration, w.endpoint, g.rail,
                          trace::csv_field(groups.group(w.from_group).label), trace::csv_field(g.label), num(w.opens_s),
                          num(w.length_s), w.next_task, trace::csv_field(task_name(w.job, w.next_task))));
    if (w.length_s > 1e-3) ++over_1ms;
    if (!largest || w.length_s > largest->length_s) largest = &w;
    ++per_iteration[{w.job, w.iteration}];
  }
  csv.close();
  int iterations = 0;
  for (const auto& [job, n] : iterations_of_job) iterations += n;
  std::set<int> gpus;
  for (const auto& r : c.records()) gpus.insert(r.endpoint);
  nlohmann::ordered_json extras = {
      {"opus_mode", reconfigures ? nlohmann::ordered_json(sched::to_string(mode)) : nlohmann::ordered_json("observe")},
      {"communication_groups", groups.count()},
      {"reconfigurations_per_iteration", iterations > 0 ? static_cast<double>(rec.reconfigurations) / iterations : 0.0},
      {"on_demand_reconfigurations", c.on_demand_changes()},
      {"provisioned_reconfigurations", c.provisioned_changes()},
      {"windows", windows.size()},
      {"windows_per_gpu_iteration",
       iterations > 0 && !gpus.empty() ? static_cast<double>(windows.size()) / (static_cast<double>(gpus.size()) * iterations)
                                       : 0.0},
      {"windows_over_1ms_share", windows.empty() ? 0.0 : static_cast<double>(over_1ms) / static_cast<double>(windows.size())},
      {"largest_window_s", largest ? largest->length_s : 0.0},
      {"largest_window_before", largest ? nlohmann::ordered_json(task_name(largest->job, largest->next_task))
                                        : nlohmann::ordered_json(nullptr)}};
  return extras;
}

void print_opus(const nlohmann::ordered_json& x) {
  std::cout << fmt::format("  opus              {}: {:.2f} reconfigurations per iteration ({} on demand, {} ahead)\n",
                           x["opus_mode"].get<std::string>(), x["reconfigurations_per_iteration"].get<double>(),
                           x["on_demand_reconfigurations"].get<int>(), x["provisioned_reconfigurations"].get<int>())
            << fmt::format("  windows           {:.2f} per GPU per iteration, {:.1f} % over 1 ms, largest {:.3f} s "
                           "(before {})\n",
                           x["windows_per_gpu_iteration"].get<double>(), 100 * x["windows_over_1ms_share"].get<double>(),
                           x["largest_window_s"].get<double>(),
                           x["largest_window_before"].is_null() ? "-" : escape_line(x["largest_window_before"].get<std::string>()));
}

/// Policy topox[:heuristic|:mip] or topoopt[:proportional].
bool is_flat_policy(const std::string& name) {
  return name == "topox" || name == "topox:heuristic" || name == "topox:mip" || name == "topoopt" ||
         name == "topoopt:proportional";
}

/// slots.csv: per TOPO-X slot, its start, the circuits carrying traffic, those set up and torn down at its start
/// (what the fabric holds, with the next slots' circuits being set up), and the transfers planned to start.
void write_slots_csv(trace::FileWriter csv, const sched::TopoxPlan& plan) {
  csv.write("slot,start_s,circuits,lit,set_up,torn_down,transfers_started\n");
  std::vector<int> started(plan.slots.size(), 0);
  for (int s : plan.start_slot)
    if (s >= 0 && s < static_cast<int>(started.size())) ++started[static_cast<std::size_t>(s)];
  std::vector<net::PortCircuit> before;
  for (std::size_t t = 0; t < plan.slots.size(); ++t) {
    const auto lit = plan.lit_during(static_cast<int>(t));
    int kept = 0;
    for (const auto& c : lit)
      for (const auto& b : before)
        if (b.ocs == c.ocs && b.a == c.a && b.b == c.b) {
          ++kept;
          break;
        }
    csv.write(fmt::format("{},{},{},{},{},{},{}\n", t, trace::num(static_cast<double>(t) * plan.slot_s),
                          plan.slots[t].size(), lit.size(), t == 0 ? 0 : static_cast<int>(lit.size()) - kept,
                          t == 0 ? 0 : static_cast<int>(before.size()) - kept, started[t]));
    before = lit;
  }
  csv.close();
}

/// `run` for one job graph on a flat_ocs platform under TOPO-X (Hu et al., "TOPO-X: Co-optimize Flow Scheduling,
/// Topology, and ML Training Parallelism": circuits and transfers planned slot by slot, systems/topox/topox.hpp) or the
/// TopoOpt baseline it is compared with (one static topology from the traffic heatmap, systems/topox/topoopt.hpp).
int run_flat(const RunOptions& o, const spec::AnyPlatform& platform, const std::string& platform_hash,
             const spec::GraphWorkloadSpec& w) {
  const bool topox = o.policy.rfind("topox", 0) == 0;
  if (platform.kind != spec::PlatformKind::flat_ocs)
    throw InputError("command line", "--policy",
                     fmt::format("policy {} schedules circuits of a flat layer of OCSes (kind flat_ocs); {} is kind {}",
                                 o.policy, o.platform, spec::to_string(platform.kind)));
  if (w.jobs.size() != 1)
    throw InputError(w.file, "job_graphs",
                     fmt::format("policy {} plans one training job on the whole fabric (TOPO-X §V); this workload "
                                 "has {} jobs",
                                 o.policy, w.jobs.size()));
  if (o.seed) throw InputError("command line", "--seed", "a workload of job graphs has nothing random to seed");
  const spec::FlatOcsSpec& flat = *platform.flat;
  if (flat.duplex != spec::Duplex::full)
    throw InputError(o.platform, "ocs.duplex",
                     fmt::format("policy {} needs full-duplex circuits (TOPO-X and TopoOpt's links carry B each way; "
                                 "got half)",
                                 o.policy));
  if (topox && !(flat.slot_s > 0))
    throw InputError(o.platform, "slot_ms", "policy topox needs the time slot τ (slot_ms or slot_us)");
  const auto in = load_graph_inputs(platform, w, o.iterations);
  const net::Network& network = in->network;
  const workload::JobGraph& graph = in->graphs[0];
  const sched::GraphJob& job = in->jobs[0];
  const auto t_plan = Clock::now();
  workload::JobGraph flows;
  sched::TopoxPlan plan;
  sched::TopoOptTopology topology;
  sched::MultiHop hops;
  nlohmann::ordered_json extras;
  try {
    if (topox) {
      // Each server's d_S ports as ring paths: half towards its successor, half towards its predecessor.
      sched::RingPaths rings;
      for (int r = 0; r < flat.nic_ports; ++r) rings.strides.push_back(r % 2 == 0 ? 1 : -1);
      flows = sched::flow_graph(graph, job.endpoints, rings, w.file, job.field);
      sched::TopoxOptions opt;
      opt.slot_s = flat.slot_s;
      opt.reconfig_delay_s = flat.reconfig_delay_s;
      opt.mip = o.policy == "topox:heuristic" ? "never" : o.policy == "topox:mip" ? "always" : "auto";
      opt.time_limit_s = o.mip_seconds;
      opt.aligned = false;  // the slot-aligned plan (and its MIP) and the continuous-start plan: the shorter runs
      plan = sched::plan_topox(flat, flows, opt);
      const std::string why = sched::plan_violation(flat, flows, plan);
      if (!why.empty()) throw std::logic_error("TOPO-X plan breaks a constraint: " + why);
    } else {
      // TopologyFinder's inputs: each ring all-reduce a data-parallel group, each transfer model-parallel demand.
      sched::TopologyFinderInput tf;
      tf.servers = flat.servers;
      tf.degree = flat.nic_ports;
      tf.ocs_ports = flat.ocs_ports;
      tf.split = o.policy == "topoopt:proportional" ? sched::DegreeSplit::proportional : sched::DegreeSplit::released;
      const auto server = [&](int rank) { return job.endpoints[static_cast<std::size_t>(rank)]; };
      for (const auto& t : graph.tasks) {
        if (t.kind == workload::TaskKind::collective) {
          sched::DpGroup g{{}, t.bytes};
          for (int r : t.group) g.members.push_back(server(r));
          tf.dp_groups.push_back(std::move(g));
        } else if (t.kind == workload::TaskKind::transfer && server(t.src) != server(t.dst)) {
          tf.mp_demand[{server(t.src), server(t.dst)}] += t.bytes;
        }
      }
      topology = sched::topology_finder(tf);
      sched::RingPaths rings{topology.strides};
      const workload::JobGraph lowered = sched::flow_graph(graph, job.endpoints, rings, w.file, job.field);
      hops = sched::multi_hop(
          lowered, [&](int a, int b) { return topology.circuits_between(a, b) > 0; },
          [&](int a, int b) { return topology.route(a, b); });
      flows = std::move(hops.graph);
    }
  } catch (const ConfigError& e) {
    throw InputError(w.file, "job_graphs", e.what());
  }
  const double plan_wall = std::chrono::duration<double>(Clock::now() - t_plan).count();
  RunSetup setup(o, {graph.name});
  setup.job_groups({graph.name});  // trace.json: the job's own process, a thread per rank (docs/outputs.md)
  auto& out = setup.out;
  trace::RunRecord rec;
  std::unique_ptr<sched::TopoxController> controller;
  const auto t_sim = Clock::now();
  std::vector<int> servers(static_cast<std::size_t>(flows.ranks));
  for (int s = 0; s < flows.ranks; ++s) servers[static_cast<std::size_t>(s)] = s;
  try {
    const std::vector<engine::JobToRun> to_run{{0, graph.name, &flows, servers, {}}};
    if (topox) {
      controller = std::make_unique<sched::TopoxController>(flat, network, plan);
      rec = engine::run(network, to_run, *controller, setup.eo);
    } else {
      sched::GraphStaticController fixed(net::counts_of(flat, network, topology.circuits));
      rec = engine::run(network, to_run, fixed, setup.eo);
    }
  } catch (const ConfigError& e) {
    throw InputError(w.file, "job_graphs", e.what());
  }
  const double sim_wall = std::chrono::duration<double>(Clock::now() - t_sim).count();
  int transfers = 0;
  for (const auto& t : flows.tasks) transfers += t.kind == workload::TaskKind::transfer ? 1 : 0;
  if (topox) {
    extras = {{"method", plan.method},
              {"planned_iteration_s", plan.makespan_s},
              {"heuristic_iteration_s", plan.heuristic_makespan_s},
              {"continuous_iteration_s", plan.continuous_makespan_s},
              {"mip_status", plan.mip.status},
              {"mip_objective_s", plan.mip.objective_s > 0 ? nlohmann::ordered_json(plan.mip.objective_s) : nlohmann::ordered_json(nullptr)},
              {"mip_bound_s", plan.mip.objective_s > 0 ? nlohmann::ordered_json(plan.mip.bound_s) : nlohmann::ordered_json(nullptr)},
              {"mip_gap", plan.mip.objective_s > 0 ? nlohmann::ordered_json(plan.mip.gap) : nlohmann::ordered_json(nullptr)},
              {"mip_columns", plan.mip.columns},
              {"mip_rows", plan.mip.rows},
              {"slot_s", plan.slot_s},
              {"slots", plan.slots.size()},
              {"reconfig_slots", plan.reconfig_slots},
              {"late_releases", controller->late_releases()},
              {"flow_tasks", flows.tasks.size()},
              {"transfers", transfers}};
    write_slots_csv(out.open("slots.csv"), plan);
    trace::FileWriter port = out.open("slot_circuits.csv");
    port.write("slot,ocs,server_a,server_b\n");
    for (std::size_t t = 0; t < plan.slots.size(); ++t)
      for (const auto& c : plan.slots[t]) port.write(fmt::format("{},{},{},{}\n", t, c.ocs, c.a, c.b));
    port.close();
  } else {
    nlohmann::ordered_json circuits = nlohmann::ordered_json::array();
    for (const auto& c : topology.circuits) circuits.push_back({c.ocs, c.a, c.b});
    extras = {{"degree_split", o.policy == "topoopt:proportional" ? "proportional" : "released"},
              {"dp_degree", topology.dp_degree},
              {"mp_degree", topology.mp_degree},
              {"ring_strides", topology.strides},
              {"diameter", topology.diameter()},
              {"forwarded_transfers", hops.forwarded},
              {"hop_transfers", hops.legs},
              {"forwarded_bytes", hops.forwarded_bytes},
              {"hop_bytes", hops.hop_bytes},
              {"flow_tasks", flows.tasks.size()},
              {"transfers", transfers},
              {"circuits", circuits}};
  }
  nlohmann::ordered_json run = {
      {"odcnsim_version", ODCNSIM_VERSION},
      {"simgrid_version", engine::simgrid_version()},
      {"simgrid_config", engine::simgrid_settings()},
      {"command", reproducing_command(o, o.iterations)},
      {"platform", {{"file", o.platform}, {"hash", platform_hash}, {"kind", network.kind}, {"endpoints", network.endpoints},
                    {"endpoint", network.endpoint_word}, {"reconfig_delay_s", network.reconfig_delay_s},
                    {"slot_s", flat.slot_s}}},
      {"workload", {{"file", o.workload}, {"hash", w.hash}}},
      {"overrides", overrides_json(o)},
      {"policy", o.policy},
      {"jobs", nlohmann::ordered_json::array({{{"id", 0}, {"name", graph.name}, {"file", w.jobs[0].file},
                                               {"ranks", graph.ranks}, {"tasks", graph.tasks.size()},
                                               {"iterations", graph.iterations}, {"endpoints", job.endpoints}}})}};
  trace::write_json(out.open("run.json"), run);
  const nlohmann::ordered_json head = {{"policy", o.policy},
                                       {"platform_kind", network.kind},
                                       {"jobs", 1},
                                       {"iterations", o.iterations > 0 ? nlohmann::ordered_json(o.iterations)
                                                                       : nlohmann::ordered_json(nullptr)},
                                       {"iteration_rows", rec.iterations.size()}};
  const RunMetrics m = write_results(out, head, {{topox ? "topox" : "topoopt", extras}}, rec, o.iterations, std::nullopt);
  setup.close_trace();
  out.commit();
  if (!o.quiet) {
    std::cout << fmt::format("odcnsim {} | policy {} | {} on {} ({} servers, {} OCSes of {} ports, {} Gb/s ports)\n",
                             ODCNSIM_VERSION, o.policy, escape_line(graph.name), network.kind, flat.servers,
                             flat.ocs_count, flat.ocs_ports, flat.port_bytes_per_s * 8 / 1e9);
    print_metrics(m);
    if (topox) {
      std::cout << fmt::format("  TOPO-X plan       {} slots of {:.3f} ms, {} for {} transfers; planned iteration "
                               "{:.6f} s ({})\n",
                               plan.slots.size(), plan.slot_s * 1e3, plan.method, transfers, plan.makespan_s,
                               fmt::format("slot-aligned heuristic {:.6f} s, continuous starts {:.6f} s",
                                           plan.heuristic_makespan_s, plan.continuous_makespan_s))
                << fmt::format("  MIP               {}{}\n", plan.mip.status,
                               plan.mip.columns > 0 && plan.mip.rows > 0
                                   ? fmt::format(" ({} columns, {} rows, {:.1f} s)", plan.mip.columns, plan.mip.rows,
                                                 plan.mip.wall_s)
                                   : "");
      if (controller->late_releases() > 0)
        std::cout << fmt::format("  late transfers    {} started after their planned time\n", controller->late_releases());
      for (const auto& row : rec.iterations)
        if (row.end_s - row.start_s > plan.makespan_s + plan.reconfig_slots * plan.slot_s + 1e-9) {
          std::cerr << fmt::format("odcnsim: warning: iteration {} took {:.6f} s on the engine, longer than TOPO-X's "
                                   "plan ({:.6f} s): the plan's bound does not hold (please report it)\n",
                                   row.iteration, row.end_s - row.start_s, plan.makespan_s);
          break;
        }
    } else {
      std::cout << fmt::format("  TopoOpt topology  ring strides {{{}}}, dp degree {}, mp degree {}, diameter {}\n",
                               fmt::join(topology.strides, ","), topology.dp_degree, topology.mp_degree,
                               topology.diameter())
                << fmt::format("  forwarding        {} transfers without a direct circuit became {} hop transfers\n",
                               hops.forwarded, hops.legs);
    }
    std::cout << fmt::format("  wall time         plan {:.3f} s, simulate {:.3f} s\n", plan_wall, sim_wall)
              << outputs_line(o, false)
              << (topox ? fmt::format("  slots             {}/{{slots.csv,slot_circuits.csv}}\n", escape_line(o.out)) : "");
  }
  return 0;
}

/// `run` for a workload of job graphs (spec/graph_workload.hpp), on any platform kind, under policy static,
/// alone or opus.
int run_graphs(const RunOptions& o, const spec::AnyPlatform& platform, const std::string& platform_hash,
               const spec::GraphWorkloadSpec& w) {
  if (is_flat_policy(o.policy)) return run_flat(o, platform, platform_hash, w);
  sched::OpusMode opus_mode = sched::OpusMode::provisioned;
  const bool opus = is_opus_policy(o.policy, opus_mode);
  if (o.policy != "static" && o.policy != "alone" && !opus)
    throw InputError("command line", "--policy",
                     fmt::format("policy {} plans the TDM-4 paper's jobs (PS, ring all-reduce, all-to-all); a "
                                 "workload of job graphs runs under policy static, alone or opus",
                                 o.policy));
  if (opus && platform.kind != spec::PlatformKind::photonic_rail && platform.kind != spec::PlatformKind::electrical)
    throw InputError("command line", "--policy",
                     fmt::format("policy {} reconfigures photonic rails (kind photonic_rail) or observes their "
                                 "electrical twin (kind electrical); {} is kind {}",
                                 o.policy, o.platform, spec::to_string(platform.kind)));
  if (o.seed) throw InputError("command line", "--seed", "a workload of job graphs has nothing random to seed");
  // Without --iterations, each graph runs the iterations its file (or the workload) gives it.
  const int iterations = o.iterations;
  const auto in = load_graph_inputs(platform, w, iterations);
  const net::Network& network = in->network;
  const auto& graphs = in->graphs;
  const auto& jobs = in->jobs;
  std::vector<std::string> job_names;
  for (const auto& g : graphs) job_names.push_back(g.name);
  const auto t_plan = Clock::now();
  sched::GraphStaticPlan plan;
  std::unique_ptr<sched::RailGroups> rail_groups;
  const bool rails = platform.kind == spec::PlatformKind::photonic_rail;
  try {
    // Before any output: a workload the fabric cannot carry is bad input.
    if (opus)
      rail_groups = std::make_unique<sched::RailGroups>(network, jobs, rails ? platform.rail->nic_ports : 0, w.file);
    else
      plan = plan_graphs(platform, *in, w.file);
  } catch (const ConfigError& e) {
    if (opus) throw InputError(w.file, "job_graphs", e.what());
    throw static_refusal(platform, *in, w.file, e);
  }
  const double plan_wall = std::chrono::duration<double>(Clock::now() - t_plan).count();
  RunSetup setup(o, job_names);
  setup.job_groups(job_names);  // trace.json: a process per job, a thread per rank (docs/outputs.md)
  auto& out = setup.out;
  std::unique_ptr<AloneBaseline> child;
  if (o.slowdown && o.policy != "alone") child = std::make_unique<AloneBaseline>(o, iterations);
  trace::RunRecord rec;
  std::unique_ptr<sched::OpusController> opus_controller;
  const auto t_sim = Clock::now();
  try {
    std::vector<engine::JobToRun> to_run;
    for (std::size_t i = 0; i < jobs.size(); ++i) to_run.push_back({static_cast<int>(i), jobs[i].name, &graphs[i], jobs[i].endpoints, {}});
    if (o.policy == "alone") {
      rec = run_alone_graphs(platform, network, jobs, to_run, w.file, setup.eo);
    } else if (opus) {
      opus_controller = std::make_unique<sched::OpusController>(network, jobs, *rail_groups, opus_mode, rails);
      rec = engine::run(network, to_run, *opus_controller, setup.eo);
    } else {
      sched::GraphStaticController controller(plan.config);
      rec = engine::run(network, to_run, controller, setup.eo);
    }
  } catch (const ConfigError& e) {
    throw InputError(w.file, "job_graphs", e.what());
  }
  const double sim_wall = std::chrono::duration<double>(Clock::now() - t_sim).count();
  nlohmann::ordered_json jobs_out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < jobs.size(); ++i)
    jobs_out.push_back({{"id", i},
                        {"name", graphs[i].name},
                        {"file", w.jobs[i].file},
                        {"ranks", graphs[i].ranks},
                        {"tasks", graphs[i].tasks.size()},
                        {"iterations", graphs[i].iterations},
                        {"arrival_s", graphs[i].arrival_s},
                        {"endpoints", jobs[i].endpoints}});
  nlohmann::ordered_json circuits = nlohmann::ordered_json::array();
  for (std::size_t p = 0; p < plan.config.circuits.size(); ++p)
    if (plan.config.circuits[p] > 0)
      circuits.push_back({{"a", network.pairs[p].first}, {"b", network.pairs[p].second}, {"circuits", plan.config.circuits[p]}});
  nlohmann::ordered_json run = {
      {"odcnsim_version", ODCNSIM_VERSION},
      {"simgrid_version", engine::simgrid_version()},
      {"simgrid_config", engine::simgrid_settings()},
      {"command", reproducing_command(o, iterations)},
      {"platform", {{"file", o.platform}, {"hash", platform_hash}, {"kind", network.kind}, {"endpoints", network.endpoints},
                    {"endpoint", network.endpoint_word}, {"reconfig_delay_s", network.reconfig_delay_s}}},
      {"workload", {{"file", o.workload}, {"hash", w.hash}}},
      {"overrides", overrides_json(o)},
      {"policy", o.policy},
      {"jobs", jobs_out},
      {"static_circuits", o.policy == "static" ? circuits : nlohmann::ordered_json(nullptr)}};
  trace::write_json(out.open("run.json"), run);
  std::vector<std::string> notes;
  const auto alone = alone_times(o, child.get(), rec, notes);
  const nlohmann::ordered_json head = {{"policy", o.policy},
                                       {"platform_kind", network.kind},
                                       {"jobs", jobs.size()},
                                       {"iterations", iterations > 0 ? nlohmann::ordered_json(iterations)
                                                                     : nlohmann::ordered_json(nullptr)},
                                       {"iteration_rows", rec.iterations.size()}};
  nlohmann::ordered_json extras = nlohmann::ordered_json::object();
  if (opus) extras = opus_outputs(out, *opus_controller, *rail_groups, jobs, network, rec, opus_mode, rails);
  const RunMetrics m = write_results(out, head, extras, rec, iterations, alone);
  setup.close_trace();
  out.commit();
  if (!o.quiet) {
    for (const auto& note : notes) std::cerr << "odcnsim: " << note << "\n";
    std::cout << fmt::format("odcnsim {} | policy {} | {} job graphs on {} ({} {}s)\n", ODCNSIM_VERSION, o.policy,
                             jobs.size(), network.kind, network.endpoints, network.endpoint_word);
    print_metrics(m);
    if (o.policy == "static") std::cout << fmt::format("  circuits          {} lit for the whole run\n", circuits.size());
    if (opus) print_opus(extras);
    std::cout << fmt::format("  wall time         plan {:.3f} s, simulate {:.3f} s\n", plan_wall, sim_wall)
              << outputs_line(o, false) << (opus ? fmt::format("  windows           {}/windows.csv\n", escape_line(o.out)) : "");
  }
  return 0;
}

/// `run` for a workload of parameter-server jobs (spec/ps_workload.hpp) under one of INC-AOI's policies
/// (systems/inc_aoi/inc_aoi.hpp), on a clos_ocs platform with servers.
int run_ps(const RunOptions& o, const spec::AnyPlatform& platform, const std::string& platform_hash,
           const spec::PsWorkloadSpec& w) {
  sched::IncPolicy policy{};
  if (!sched::parse_inc_policy(o.policy, policy))
    throw InputError("command line", "--policy",
                     fmt::format("a workload of ps_jobs runs under INC-AOI's policies inc-ljf, inc-fcfs, noinc-ljf, "
                                 "noinc-fcfs or inc-group (got {})",
                                 o.policy));
  if (!platform.clos)
    throw InputError(o.platform, "kind",
                     fmt::format("ps_jobs run on racks of servers behind ToRs: a clos_ocs platform with "
                                 "pods.servers_per_pod (this one is {})",
                                 spec::to_string(platform.kind)));
  spec::PlatformSpec pspec = *platform.clos;
  pspec.hash = platform_hash;
  std::vector<workload::PsJob> jobs = workload::make_ps_jobs(w, pspec, o.seed);
  if (o.iterations > 0)
    for (auto& j : jobs) j.iterations = o.iterations;
  std::int64_t rows = 0;
  for (const auto& j : jobs) rows += j.iterations;
  if (rows > limits::kMaxIterationRows)
    throw InputError(w.file, "ps_jobs", fmt::format("{} iteration rows, above the limit of {} (see docs/limits.md)",
                                                    rows, limits::kMaxIterationRows));
  const net::Fabric fabric(pspec);
  const net::Network network = net::network_of(fabric);
  std::vector<workload::JobGraph> graphs;
  graphs.reserve(jobs.size());
  for (const auto& j : jobs) graphs.push_back(workload::ps_job_graph(j));
  std::vector<engine::JobToRun> to_run;
  std::vector<std::string> job_names;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    to_run.push_back({jobs[i].id, jobs[i].name, &graphs[i], jobs[i].rack_of_rank, jobs[i].server_of_rank});
    job_names.push_back(jobs[i].name);
  }
  std::unique_ptr<sched::IncAoiController> controller;
  try {
    controller = std::make_unique<sched::IncAoiController>(network, pspec.ports_per_pod, jobs, policy, w.slot_s);
  } catch (const ConfigError& e) {
    throw InputError(w.file, "ps_jobs", e.what());
  }
  RunSetup setup(o, job_names);
  auto& out = setup.out;
  trace::RunRecord rec;
  const auto t_sim = Clock::now();
  try {
    rec = engine::run(network, to_run, *controller, setup.eo);
  } catch (const ConfigError& e) {
    throw InputError(w.file, "ps_jobs", e.what());
  }
  const double sim_wall = std::chrono::duration<double>(Clock::now() - t_sim).count();
  using trace::num;
  // ps_jobs.csv: each job's shape, placement, INC use, measured inter-rack bytes and the closed forms.
  std::vector<Bytes> measured(jobs.size(), 0);
  for (const auto& r : rec.iterations) measured[static_cast<std::size_t>(r.job)] += r.circuit_bytes;
  trace::FileWriter csv = out.open("ps_jobs.csv");
  csv.write("job,workers,racks,root_rack,push_bytes,compute_s,iterations,arrival_s,started_s,done_s,jct_s,"
            "inc_collectives,ps_collectives,inter_rack_bytes,inter_rack_bytes_inc,inter_rack_bytes_noinc,model,name\n");
  nlohmann::ordered_json jobs_out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    const auto& t = rec.jobs[i];
    csv.write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.id, j.workers(), j.racks(),
                          j.root_rack(), num(j.push_bytes), num(j.compute_s), j.iterations, num(j.arrival_s),
                          num(controller->admitted_s()[i]), num(t.done_s), num(t.done_s - j.arrival_s),
                          controller->inc_collectives()[i], controller->ps_collectives()[i], num(measured[i]),
                          num(2 * workload::inter_rack_bytes(j, true)), num(2 * workload::inter_rack_bytes(j, false)),
                          trace::csv_field(j.model), trace::csv_field(j.name)));
    jobs_out.push_back({{"id", j.id}, {"name", j.name}, {"model", j.model}, {"arrival_s", j.arrival_s},
                        {"push_bytes", j.push_bytes}, {"compute_s", j.compute_s}, {"iterations", j.iterations},
                        {"servers", j.server_of_rank}});
  }
  csv.close();
  trace::FileWriter slots = out.open("slots.csv");
  slots.write("time_s,waiting,running,started,inc_jobs,inc_max_per_tor,circuits_lit,circuits_changed,cohort\n");
  for (const auto& s : controller->slots())
    slots.write(fmt::format("{},{},{},{},{},{},{},{},{}\n", num(s.time_s), s.waiting, s.running, s.admitted,
                            s.inc_assigned, s.inc_max_per_tor, s.circuits_lit, s.circuits_changed, s.cohort));
  slots.close();
  nlohmann::ordered_json run = {
      {"odcnsim_version", ODCNSIM_VERSION},
      {"simgrid_version", engine::simgrid_version()},
      {"simgrid_config", engine::simgrid_settings()},
      {"command", reproducing_command(o, o.iterations)},
      {"platform", {{"file", o.platform}, {"hash", platform_hash}, {"spec", platform_json(pspec)}}},
      {"workload", {{"file", o.workload}, {"hash", w.hash}, {"slot_s", w.slot_s},
                    {"seed", w.generator ? nlohmann::ordered_json(o.seed.value_or(w.generator->seed))
                                         : nlohmann::ordered_json(nullptr)}}},
      {"overrides", overrides_json(o)},
      {"policy", o.policy},
      {"jobs", jobs_out}};
  trace::write_json(out.open("run.json"), run);
  int inc_total = 0, ps_total = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    inc_total += controller->inc_collectives()[i];
    ps_total += controller->ps_collectives()[i];
  }
  Bytes inter_rack = 0;
  for (Bytes b : measured) inter_rack += b;
  const nlohmann::ordered_json head = {{"policy", o.policy},
                                       {"platform_kind", network.kind},
                                       {"jobs", jobs.size()},
                                       {"iterations", o.iterations > 0 ? nlohmann::ordered_json(o.iterations)
                                                                       : nlohmann::ordered_json(nullptr)},
                                       {"iteration_rows", rec.iterations.size()}};
  const nlohmann::ordered_json extras = {
      {"inc_aoi",
       {{"slot_s", w.slot_s},
        {"slots", controller->slots().size()},
        {"batch_completion_s", rec.makespan_s},
        {"inc_collectives", inc_total},
        {"ps_collectives", ps_total},
        {"inc_share", inc_total + ps_total > 0 ? static_cast<double>(inc_total) / (inc_total + ps_total) : 0.0},
        {"peak_inc_jobs_per_tor", controller->peak_inc_per_tor()},
        {"inc_jobs_per_tor", network.inc_jobs},
        {"inter_rack_bytes", inter_rack}}}};
  const RunMetrics m = write_results(out, head, extras, rec, o.iterations, std::nullopt);
  setup.close_trace();
  out.commit();
  if (!o.quiet) {
    std::cout << fmt::format("odcnsim {} | policy {} (INC-AOI: Xie, Tang, Chen, Zhu) | {} parameter-server jobs on "
                             "{} racks of {} servers\n",
                             ODCNSIM_VERSION, o.policy, jobs.size(), network.endpoints, network.servers_per_endpoint);
    print_metrics(m);
    std::cout << fmt::format("  batch completion  {:.3f} s; {} of {} collectives aggregated in ToRs (peak {} jobs "
                             "per ToR of {})\n",
                             rec.makespan_s, inc_total, inc_total + ps_total, controller->peak_inc_per_tor(),
                             network.inc_jobs)
              << fmt::format("  wall time         simulate {:.3f} s\n", sim_wall) << outputs_line(o, false)
              << fmt::format("  per job, per slot {0}/ps_jobs.csv, {0}/slots.csv\n", escape_line(o.out));
  }
  return 0;
}

}  // namespace

int report_failure() {
  try {
    throw;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const IoError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "odcnsim: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "odcnsim: internal error: " << escape_line(e.what()) << "\n";
    return 1;
  } catch (...) {
    const std::type_info* type = abi::__cxa_current_exception_type();
    std::cerr << "odcnsim: internal error: an exception of type " << (type ? type->name() : "unknown") << "\n";
    return 1;
  }
}

const std::vector<std::pair<std::string, std::string>>& policies() {
  static const std::vector<std::pair<std::string, std::string>> list{
      {"static", "one circuit configuration for the whole run (a circuit per pair with demand, spare ports at the "
                 "longest transfer); jobs iterate on their own. The policy for workloads of job graphs (any "
                 "platform kind)"},
      {"tdm4", "TDM-4 (Tang, Chen, Zhu): the four-stage TDM schedule, per-stage OXC topology (Alg. 2), rings "
               "(Alg. 3), and a grouping found by --search (default multistart: the paper's hill climbing, Alg. 1, "
               "and the same climb from the best threshold grouping and from a balanced one). tdm4:SEARCH is "
               "tdm4 --search SEARCH"},
      {"aggregate", "non-TDM baseline: every job computes, then every job communicates (PS push and pull apart)"},
      {"tdm4-ilp", "the exact ILP of TDM-4 (Tang, Chen, Zhu) §II.D solved by CBC (small instances only)"},
      {"opus", "Opus (Ouyang, Ding, Singh, \"Photonic Rails in ML Datacenters\"): rail OCSes reconfigured between "
               "the parallelism phases of the jobs' traces, each communication group's circuits set up when it needs "
               "them (opus:on-demand) or, from the first iteration's profile, as soon as the previous phase ends "
               "(opus:provisioned, the default). On an electrical platform it only measures phases and windows. "
               "Workloads of job graphs on photonic_rail or electrical platforms"},
      {"inc-ljf", "INC-AOI (Xie, Tang, Chen, Zhu, \"Accelerating DML Training in OCS-based DCNs\"): large-job-first "
                  "each 1 s slot (jobs by workers, then push size), in-network aggregation in the ToRs for the largest "
                  "jobs, circuits re-planned when a started job needs a rack pair. Workloads of ps_jobs"},
      {"inc-fcfs", "INC-AOI's first-come-first-served: jobs start in arrival order (the first that cannot start "
                   "blocks the rest), each taking INC and circuits for its own streams, never revisited"},
      {"noinc-ljf", "inc-ljf without in-network aggregation: every job pushes to a CPU parameter server"},
      {"noinc-fcfs", "inc-fcfs without in-network aggregation"},
      {"inc-group", "INC-AOI's grouping-based interleaving: inc-ljf, with running jobs in two cohorts that take "
                    "turns starting their pushes (half a slot each), circuits re-planned for the cohort whose turn "
                    "begins"},
      {"topox", "TOPO-X (Hu, Tian, Zhao, Wu, Li, \"TOPO-X: Co-optimize Flow Scheduling, Topology, and ML Training "
                "Parallelism\"): one job's transfers and the circuits of a flat layer of OCSes planned together, time "
                "slot by time slot (the RCPSP of Eq. 2-10): CBC's MIP, warm-started from a critical-path heuristic and "
                "limited by --mip-seconds, when the model is small enough, else the heuristic (topox:heuristic, "
                "topox:mip force one). A workload of one job graph on a flat_ocs platform with slot_ms"},
      {"topoopt", "TopoOpt (Wang et al.) as TOPO-X compares against it: one static topology of degree d_S from the "
                  "traffic heatmap (TopologyFinder as released: every port to all-reduce rings; "
                  "topoopt:proportional splits the degree between rings and model-parallel matchings), transfers "
                  "without a direct circuit forwarded hop by hop through servers. One job graph on flat_ocs"},
      {"alone", "each job by itself on the empty fabric, one after another, on the circuits policy static plans for "
                "it alone: the baseline of every run's slowdown (any platform kind)"}};
  return list;
}

bool known_search(const std::string& name) {
  sched::Tdm4Search s{};
  return sched::parse_search(name, s);
}

bool known_policy(const std::string& name) {
  if (name.rfind("tdm4:", 0) == 0) return known_search(name.substr(5));
  sched::OpusMode mode{};
  if (is_opus_policy(name, mode)) return true;
  if (is_flat_policy(name)) return true;
  for (const auto& [known, help] : policies())
    if (known == name) return true;
  return false;
}

std::string policy_names() {
  std::string names;
  for (const auto& [name, help] : policies()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

void add_run_options(std::vector<std::string>& args, int iterations, const std::optional<std::uint64_t>& seed,
                     const std::vector<std::string>& sets, const std::string& trace, bool slowdown) {
  if (iterations > 0) args.insert(args.end(), {"--iterations", std::to_string(iterations)});
  if (seed) args.insert(args.end(), {"--seed", std::to_string(*seed)});
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {"--trace", trace, "--quiet"});
  if (!slowdown) args.emplace_back("--no-slowdown");
}

void check_run_inputs(const std::string& platform_file, const std::string& workload_file,
                      const std::vector<spec::Override>& overrides) {
  YAML::Node platform_doc = spec::parse_yaml(spec::read_input_file(platform_file), platform_file);
  const std::string workload_text = spec::read_input_file(workload_file);
  YAML::Node workload_doc = spec::parse_yaml(workload_text, workload_file);
  spec::apply_overrides(platform_doc, overrides, true);
  spec::apply_overrides(workload_doc, overrides, false);
  const spec::AnyPlatform platform =
      spec::read_with_overrides(overrides, true, [&] { return spec::parse_any_platform(platform_doc, platform_file); });
  if (spec::is_ps_workload(workload_doc)) {
    spec::read_with_overrides(overrides, false, [&] {
      return spec::parse_ps_workload(workload_doc, workload_file, spec::fingerprint(workload_text));
    });
    return;
  }
  if (spec::is_graph_workload(workload_doc)) {
    spec::read_with_overrides(overrides, false, [&] {
      return spec::parse_graph_workload(workload_doc, workload_file, spec::fingerprint(workload_text));
    });
    return;
  }
  spec::read_with_overrides(overrides, false, [&] { return spec::parse_workload(workload_doc, workload_file); });
}

int run_command(const RunOptions& given) {
  try {
    if (!known_policy(given.policy))
      throw InputError("command line", "--policy",
                       fmt::format("unknown policy '{}' (known: {}; tdm4:SEARCH for a search)", shown(given.policy),
                                   policy_names()));
    RunOptions o = given;
    if (o.policy.rfind("tdm4:", 0) == 0) {  // tdm4:SEARCH
      if (!o.search.empty() && o.search != o.policy.substr(5))
        throw InputError("command line", "--search",
                         fmt::format("'{}' contradicts --policy {}", shown(o.search), shown(o.policy)));
      o.search = o.policy.substr(5);
      o.policy = "tdm4";
    }
    if (!o.search.empty() && !known_search(o.search))
      throw InputError("command line", "--search",
                       fmt::format("unknown search '{}' (expected paper, threshold or multistart)", shown(o.search)));
    if (!o.search.empty() && o.policy != "tdm4")
      throw InputError("command line", "--search", "only policy tdm4 searches for a grouping");
    // Both files are read once, --set overrides written into them, and then validated as files are.
    const std::string platform_text = spec::read_input_file(o.platform);
    YAML::Node platform_doc = spec::parse_yaml(platform_text, o.platform);
    const std::string workload_text = spec::read_input_file(o.workload);
    YAML::Node workload_doc = spec::parse_yaml(workload_text, o.workload);
    spec::apply_overrides(platform_doc, o.overrides, true);
    spec::apply_overrides(workload_doc, o.overrides, false);
    const spec::AnyPlatform platform = spec::read_with_overrides(
        o.overrides, true, [&] { return spec::parse_any_platform(platform_doc, o.platform); });
    if (spec::is_ps_workload(workload_doc))
      return run_ps(o, platform, spec::fingerprint(platform_text), spec::read_with_overrides(o.overrides, false, [&] {
                      return spec::parse_ps_workload(workload_doc, o.workload, spec::fingerprint(workload_text));
                    }));
    // INC-AOI's policies schedule ps_jobs only (TDM-4's jobs and job graphs have other policies).
    if (sched::IncPolicy ip{}; sched::parse_inc_policy(o.policy, ip))
      throw InputError("command line", "--policy",
                       fmt::format("policy {} schedules INC-AOI's parameter-server jobs: give a workload of ps_jobs "
                                   "(docs/inc-aoi.md)", o.policy));
    // A workload of job graphs runs on any platform kind; TDM-4's jobs need a clos_ocs platform.
    if (spec::is_graph_workload(workload_doc))
      return run_graphs(o, platform, spec::fingerprint(platform_text), spec::read_with_overrides(o.overrides, false, [&] {
                          return spec::parse_graph_workload(workload_doc, o.workload, spec::fingerprint(workload_text));
                        }));
    if (!platform.clos)
      throw InputError(o.workload, "jobs",
                       fmt::format("the TDM-4 paper's jobs run on clos_ocs platforms; on this {} platform, list job "
                                   "graphs under job_graphs (docs/job-graph.md)",
                                   spec::to_string(platform.kind)));
    spec::PlatformSpec platform_spec = *platform.clos;
    platform_spec.hash = spec::fingerprint(platform_text);
    spec::WorkloadSpec workload_spec =
        spec::read_with_overrides(o.overrides, false, [&] { return spec::parse_workload(workload_doc, o.workload); });
    workload_spec.hash = spec::fingerprint(workload_text);
    workload::Scenario in = spec::read_with_overrides(o.overrides, false, [&] {
      return workload::make_scenario(std::move(platform_spec), std::move(workload_spec), o.seed);
    });
    const int iterations = o.iterations > 0 ? o.iterations : kDefaultIterations;
    // A TDM job may add a warm iteration.
    const std::int64_t rows = static_cast<std::int64_t>(in.jobs.size()) * (iterations + (is_tdm_policy(o.policy) ? 1 : 0));
    if (rows > limits::kMaxIterationRows)
      throw InputError("command line", "--iterations",
                       fmt::format("{} iterations of {} jobs give up to {} iteration rows, above the limit of {} (see "
                                   "docs/limits.md)",
                                   iterations, in.jobs.size(), rows, limits::kMaxIterationRows));
    std::vector<std::string> job_names;
    for (const auto& j : in.jobs) job_names.push_back(j.name);
    RunSetup setup(o, job_names);
    auto& out = setup.out;
    const engine::EngineOptions& eo = setup.eo;
    std::unique_ptr<AloneBaseline> child;
    if (o.slowdown && o.policy != "alone") child = std::make_unique<AloneBaseline>(o, iterations);

    const auto t_plan = Clock::now();
    trace::RunRecord rec;
    sched::TdmPlan tdm;
    double plan_wall = 0;
    try {  // a plan or run the fabric cannot carry is a property of these inputs
      if (!is_tdm_policy(o.policy)) {  // trace.json: a process per pod group (the OXCs a job's pods reach)
        std::vector<std::string> groups;
        for (const auto& j : in.jobs) groups.push_back(fmt::format("pod group {}", j.group));
        setup.job_groups(std::move(groups));
      }
      if (o.policy == "static") {
        const sched::StaticPlan plan = sched::plan_static(*in.fabric, in.jobs);
        plan_wall = std::chrono::duration<double>(Clock::now() - t_plan).count();
        rec = app::run_static_policy(*in.fabric, in.jobs, plan, iterations, eo);
      } else if (o.policy == "alone") {
        rec = app::run_alone_policy(*in.fabric, in.jobs, iterations, eo);
      } else {
        if (o.policy == "tdm4") {
          sched::Tdm4Options to;
          to.incremental = !o.full_eval;
          to.threads = o.planner_threads;
          if (!o.search.empty()) sched::parse_search(o.search, to.search);  // checked above
          if (eo.progress) {
            const bool redraw = eo.progress_terminal;  // in a log: a line per 250 moves
            to.on_move = [redraw](int moves, double round) {
              if (redraw && moves % 25 == 0)
                std::cerr << fmt::format("\rtdm4 hill climbing: {} moves, round {:.3f} s", moves, round) << std::flush;
              else if (!redraw && moves % 250 == 0)
                std::cerr << fmt::format("tdm4 hill climbing: {} moves, round {:.3f} s\n", moves, round) << std::flush;
            };
          }
          tdm = sched::plan_tdm4(*in.fabric, in.jobs, to);
        } else if (o.policy == "aggregate") {
          tdm = sched::plan_aggregate(*in.fabric, in.jobs);
        } else {
          tdm = sched::plan_tdm4_ilp(*in.fabric, in.jobs, {});
        }
        plan_wall = std::chrono::duration<double>(Clock::now() - t_plan).count();
        if (eo.progress && eo.progress_terminal && tdm.stats.moves >= 25) std::cerr << "\n";
        std::vector<std::string> groups;  // trace.json: a process per TDM group
        for (int g : tdm.group_of_job) groups.emplace_back(g == 0 ? "group A" : "group B");
        setup.job_groups(std::move(groups));
        rec = app::run_tdm_policy(*in.fabric, in.jobs, tdm, iterations, eo);  // checks every stage's configuration
      }
    } catch (const ConfigError& e) {
      throw InputError(o.workload, "jobs", e.what());
    }
    const double sim_wall = std::chrono::duration<double>(Clock::now() - t_plan).count() - plan_wall;

    nlohmann::ordered_json run = {
        {"odcnsim_version", ODCNSIM_VERSION},
        {"simgrid_version", engine::simgrid_version()},
        {"simgrid_config", engine::simgrid_settings()},
        {"command", reproducing_command(o, iterations)},
        {"platform", {{"file", o.platform}, {"hash", in.platform.hash}, {"spec", platform_json(in.platform)}}},
        {"workload", {{"file", o.workload}, {"hash", in.workload.hash}}},
        {"overrides", overrides_json(o)},
        {"policy", o.policy},
        {"iterations", iterations},
        {"seed", in.workload.generator ? nlohmann::ordered_json(in.workload.generator->seed) : nlohmann::ordered_json(nullptr)},
        {"training", training_json(in.workload.training)},
        {"unplaced_jobs", in.unplaced},
        {"jobs", jobs_json(in.jobs)}};
    trace::write_json(out.open("run.json"), run);
    std::vector<std::string> notes = run_notes(o, in);
    const auto alone = alone_times(o, child.get(), rec, notes);
    const nlohmann::ordered_json head = {{"policy", o.policy},
                                         {"platform_kind", "clos_ocs"},
                                         {"jobs", in.jobs.size()},
                                         {"unplaced_jobs", in.unplaced.size()},
                                         {"iterations", iterations},
                                         {"iteration_rows", rec.iterations.size()}};
    nlohmann::ordered_json extras = nlohmann::ordered_json::object();
    if (is_tdm_policy(o.policy)) {
      // Every round is the same (the fabric starts in steady state): the first one is measured.
      double round1 = 0;
      int rounds = 0;
      for (const auto& st : rec.stages) {
        if (st.round == 1) round1 = std::max(round1, st.end_s);
        rounds = std::max(rounds, st.round);
      }
      // Round 1 is a full round unless a job had finished before one of its stages (its slot was left empty).
      bool full = true;
      for (const auto& st : rec.stages) full = full && (st.round != 1 || st.complete);
      extras["rounds"] = rounds;
      extras["round_time_s"] = full ? nlohmann::ordered_json(round1) : nlohmann::ordered_json(nullptr);
      if (!full)
        notes.emplace_back("note: a job finished within the first round, before a stage it was planned in, so no full round was measured "
                           "(round_time_s is null); use --iterations 2 or more");
      extras["predicted_round_time_s"] = tdm.round_s;
      extras["seed_round_time_s"] = tdm.seed_round_s;
      extras["epsilon_s"] = tdm.epsilon_s;
      int group_b = 0;
      for (int g : tdm.group_of_job) group_b += g;
      extras["group_a_jobs"] = static_cast<int>(tdm.group_of_job.size()) - group_b;
      extras["group_b_jobs"] = group_b;
      extras["hill_climb_moves"] = tdm.stats.moves;
      if (tdm.policy == "tdm4") {
        extras["pair_moves"] = tdm.stats.pair_moves;
        extras["neighbour_evaluations"] = tdm.stats.evaluations;
        extras["search"] = tdm.search;
        extras["search_start"] = tdm.search_start;
      }
      nlohmann::ordered_json bottlenecks = nlohmann::ordered_json::array();
      for (const auto& st : tdm.stages)
        bottlenecks.push_back({{"stage", st.index + 1},
                               {"bound", st.bound},
                               {"pod_group", st.bound_group >= 0 ? nlohmann::ordered_json(st.bound_group) : nullptr},
                               {"bottleneck", st.bound_at},
                               {"comm_s", st.comm_s},
                               {"comm_lower_bound_s", st.comm_lower_bound_s}});
      extras["stages"] = bottlenecks;
      // The regime: how the longest training compares with the communication of every job at once.
      double longest = 0;
      for (const auto& j : in.jobs) longest = std::max(longest, j.train_s);
      extras["training_to_comm_ratio"] = tdm.aggregate_comm_s > 0 ? nlohmann::ordered_json(longest / tdm.aggregate_comm_s)
                                                                  : nlohmann::ordered_json(nullptr);
      if (tdm.policy == "tdm4-ilp") {
        extras["ilp_status"] = tdm.ilp_status;
        extras["ilp_objective_s"] = tdm.ilp_objective_s;
        extras["tdm4_round_time_s"] = tdm.heuristic_round_s;
        extras["tdm4_gap"] = tdm.ilp_objective_s > 0 ? tdm.heuristic_round_s / tdm.ilp_objective_s - 1 : 0.0;
      }
      trace::write_stages_csv(out.open("stages.csv"), rec);
    }
    const RunMetrics m = write_results(out, head, extras, rec, iterations, alone);
    setup.close_trace();
    out.commit();

    if (!o.quiet) {
      for (const auto& note : notes) std::cerr << "odcnsim: " << note << "\n";
      std::cout << fmt::format("odcnsim {} | policy {} | {} jobs on {} ({} pods)\n", ODCNSIM_VERSION, o.policy,
                               in.jobs.size(), escape_line(in.platform.name), in.platform.pods);
      if (is_tdm_policy(o.policy))
        std::cout << fmt::format("  round time        {} measured, {:.6f} s predicted, {:.6f} s by Eq. (1)+eps; "
                                 "{} rounds\n"
                                 "  groups            A: {} jobs, B: {} jobs ({} hill-climbing moves)\n",
                                 extras["round_time_s"].is_null()
                                     ? std::string("n/a (no full round)")
                                     : fmt::format("{:.6f} s", extras["round_time_s"].get<double>()),
                                 tdm.round_s, tdm.seed_round_s, extras["rounds"].get<int>(),
                                 extras["group_a_jobs"].get<int>(), extras["group_b_jobs"].get<int>(), tdm.stats.moves);
      if (o.policy == "tdm4" && extras["group_b_jobs"].get<int>() == 0)
        std::cout << "                    no grouping found beats all jobs in A: this is the aggregate (non-TDM) "
                     "schedule\n";
      if (is_tdm_policy(o.policy))
        for (const auto& st : tdm.stages)
          if (st.bound_group >= 0)
            std::cout << fmt::format("  stage {}           {} bound; comm {:.6f} s at pod group {} {} (port lower bound "
                                     "{:.6f} s)\n",
                                     st.index + 1, st.bound, st.comm_s, st.bound_group, st.bound_at,
                                     st.comm_lower_bound_s);
      print_metrics(m);
      std::cout << fmt::format("  wall time         plan {:.3f} s, simulate {:.3f} s\n", plan_wall, sim_wall)
                << outputs_line(o, is_tdm_policy(o.policy));
    }
    return 0;
  } catch (...) {
    return report_failure();
  }
}

int validate_command(const std::vector<std::string>& files) {
  try {
    // Every file is read first, so that the order of the arguments does not matter: a workload is checked
    // against the platform given before it, or else the first one given after it.
    struct File {
      std::string path;
      std::string text;
      YAML::Node doc;
      std::optional<spec::AnyPlatform> platform;
    };
    std::vector<File> read;
    for (const auto& f : files) {
      File file{f, spec::read_input_file(f), {}, std::nullopt};
      file.doc = spec::parse_yaml(file.text, f);
      if (file.doc["kind"]) file.platform = spec::parse_any_platform(file.doc, f);
      read.push_back(std::move(file));
    }
    for (std::size_t i = 0; i < read.size(); ++i) {
      const File& file = read[i];
      const std::string& f = file.path;
      if (file.platform) {
        if (file.platform->clos)
          std::cout << escape_line(f) << ": ok (platform, " << file.platform->clos->pods << " pods)\n";
        else
          std::cout << escape_line(f) << ": ok (" << spec::to_string(file.platform->kind) << " platform)\n";
        continue;
      }
      const spec::AnyPlatform* platform = nullptr;
      for (std::size_t k = i; k-- > 0;)
        if (read[k].platform) {
          platform = &*read[k].platform;
          break;
        }
      for (std::size_t k = i + 1; !platform && k < read.size(); ++k)
        if (read[k].platform) platform = &*read[k].platform;
      // What run checks before it simulates, under policy static: the files, the fit (deployment, endpoints),
      // and that the static circuits exist within the port budget.
      if (spec::is_graph_workload(file.doc)) {
        const auto gw = spec::parse_graph_workload(file.doc, f, spec::fingerprint(file.text));
        std::string fit;
        if (platform) {
          const auto in = load_graph_inputs(*platform, gw, 0);
          try {
            plan_graphs(*platform, *in, f);
          } catch (const ConfigError& e) {
            throw static_refusal(*platform, *in, f, e);  // what run says under its default policy
          }
          fit = fmt::format(", fits the {} platform", spec::to_string(platform->kind));
        } else {
          for (const auto& j : gw.jobs) {
            const workload::JobGraph g = workload::load_graph_source(j, f);
            if (static_cast<int>(j.endpoints.size()) != g.ranks)
              throw InputError(f, j.field + ".endpoints",
                               fmt::format("lists {} endpoints, but the graph has {} ranks", j.endpoints.size(), g.ranks));
          }
        }
        std::cout << escape_line(f) << ": ok (workload, " << gw.jobs.size() << " job graphs" << fit << ")\n";
        continue;
      }
      if (spec::is_ps_workload(file.doc)) {  // INC-AOI's jobs: placed (and checked) against the platform
        const auto pw = spec::parse_ps_workload(file.doc, f, spec::fingerprint(file.text));
        std::string fit;
        if (platform) {
          if (!platform->clos)
            throw InputError(f, "ps_jobs",
                             fmt::format("ps_jobs run on racks of servers: a clos_ocs platform with pods.servers_per_pod "
                                         "(this one is {})", spec::to_string(platform->kind)));
          const auto jobs = workload::make_ps_jobs(pw, *platform->clos);
          const net::Fabric fabric(*platform->clos);
          try {
            sched::IncAoiController check(net::network_of(fabric), platform->clos->ports_per_pod, jobs,
                                          sched::IncPolicy::noinc_ljf, pw.slot_s);
          } catch (const ConfigError& e) {
            throw InputError(f, "ps_jobs", e.what());
          }
          fit = ", placed on the platform";
        }
        std::cout << escape_line(f) << ": ok (workload, "
                  << (pw.generator ? pw.generator->jobs : static_cast<int>(pw.jobs.size()))
                  << (pw.generator ? " generated" : "") << " parameter-server jobs" << fit << ")\n";
        continue;
      }
      spec::WorkloadSpec w = spec::parse_workload(file.doc, f);
      const bool generated = w.generator.has_value();
      const std::size_t listed = generated ? static_cast<std::size_t>(w.generator->jobs) : w.jobs.size();
      std::string fit;
      if (platform) {
        if (!platform->clos)
          throw InputError(f, "jobs",
                           fmt::format("the TDM-4 paper's jobs run on clos_ocs platforms; on this {} platform, list "
                                       "job graphs under job_graphs (docs/job-graph.md)",
                                       spec::to_string(platform->kind)));
        const workload::Scenario sc = workload::make_scenario(*platform->clos, std::move(w));
        try {
          sched::plan_static(*sc.fabric, sc.jobs);
        } catch (const ConfigError& e) {
          throw InputError(f, "jobs", e.what());
        }
        fit = generated ? fmt::format(", {} deployed on the platform, {} do not fit", sc.jobs.size(), sc.unplaced.size())
                        : std::string(", fits the platform");
      }
      std::cout << escape_line(f) << ": ok (workload, " << listed << (generated ? " generated" : "") << " jobs" << fit
                << ")\n";
    }
    return 0;
  } catch (...) {
    return report_failure();
  }
}


int bench_command(const BenchOptions& o) {
  std::unique_ptr<ScratchFolder> dir;
  try {
    spec::load_platform(o.platform);  // bad input is reported once, before any run
    dir = std::make_unique<ScratchFolder>();
  } catch (...) {
    return report_failure();
  }
  std::string sets;
  for (const auto& s : o.sets) sets += " --set " + s;
  std::cout << fmt::format("odcnsim bench: policy {}{}{} on {}, {} compute model, context {}{}, median of {} runs "
                           "(plan + simulate {} iteration{} of every job; no slowdown baseline run)\n",
                           o.policy, o.search.empty() ? "" : " --search " + o.search,
                           o.full_eval ? " (full evaluation)" : "", escape_line(o.platform), o.model,
                           o.context_tokens, escape_line(sets), o.repeat, o.iterations, o.iterations == 1 ? "" : "s");
  std::cout << fmt::format("{:>8} {:>10} {:>10} {:>12} {:>14}\n", "jobs", "wall_s", "plan_s", "simulate_s",
                           "peak_rss_MiB");
  for (int n : o.jobs) {
    const std::string workload = dir->file(fmt::format("gen-{}.yaml", n));
    std::ofstream(workload) << fmt::format(
        "training:\n  model: {}\n  context_tokens: {}\ngenerator:\n  jobs: {}\n  seed: 1\n", o.model,
        o.context_tokens, n);
    std::vector<double> walls, rss, plan, sim;
    for (int r = 0; r < o.repeat; ++r) {
      const std::string log = dir->file(fmt::format("log-{}.txt", n)), err = dir->file(fmt::format("err-{}.txt", n));
      std::vector<std::string> args{"run",      "--platform", o.platform, "--workload", workload,
                                    "--policy", o.policy,     "--out",    dir->file(fmt::format("out-{}", n)),
                                    "--no-slowdown", "--trace",   "none",     "--iterations",
                                    std::to_string(o.iterations)};
      if (o.full_eval) args.emplace_back("--full-eval");
      if (!o.search.empty()) args.insert(args.end(), {"--search", o.search});
      for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
      const ChildRun run = run_self(o.self, args, log, err);
      walls.push_back(run.wall_s);
      rss.push_back(run.peak_rss_mib);
      if (!run.ok()) {
        // The run's own one-line reason, prefixed with which run it was.
        std::ifstream in(err);
        std::string reason;
        std::getline(in, reason);
        if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 2 && !reason.empty()) {
          std::cerr << escape_line(reason) << "\n";  // bad input: the run's own "file: field: reason"
          return 2;
        }
        std::cerr << fmt::format("odcnsim bench: the run with {} jobs failed ({}): {}\n", n, run.how(),
                                 reason.empty() ? "no message" : escape_line(reason));
        return 1;
      }
      // The run reports its own split between planning and simulation.
      std::ifstream in(log);
      std::string line;
      while (std::getline(in, line)) {
        double p = 0, s = 0;
        // A space in a scanf format matches any run of blanks, so this reads the aligned line run prints.
        if (std::sscanf(line.c_str(), " wall time plan %lf s, simulate %lf s", &p, &s) == 2) {
          plan.push_back(p);
          sim.push_back(s);
        }
      }
    }
    std::cout << fmt::format("{:>8} {:>10.3f} {:>10.3f} {:>12.3f} {:>14.1f}\n", n, median(walls), median(plan),
                             median(sim), median(rss))
              << std::flush;
  }
  return 0;
}

int bench_collective_command(const CollectiveBenchOptions& o) {
  using namespace workload;
  CollectiveOp op{};
  CollectiveAlgorithm algo{};
  try {
    if (!parse_collective_op(o.op, op))
      throw InputError("command line", "--collective",
                       fmt::format("unknown operation '{}' (all-reduce, reduce-scatter, all-gather, all-to-all, "
                                   "broadcast, ps-push, ps-pull, send-recv)",
                                   shown(o.op)));
    if (o.algorithm.empty()) {
      algo = supports(op, CollectiveAlgorithm::ring)     ? CollectiveAlgorithm::ring
             : supports(op, CollectiveAlgorithm::direct) ? CollectiveAlgorithm::direct
                                                         : CollectiveAlgorithm::parameter_server;
    } else if (!parse_collective_algorithm(o.algorithm, algo) || !supports(op, algo)) {
      throw InputError("command line", "--algorithm",
                       fmt::format("'{}' does not implement {} (ring, direct or parameter-server)", shown(o.algorithm),
                                   o.op));
    }
    if (o.fabric == "flat_ocs" && algo != CollectiveAlgorithm::ring)
      throw InputError("command line", "--fabric",
                       fmt::format("on flat_ocs only ring algorithms run (each server's circuits reach its two ring "
                                   "neighbours; {} ({}) needs a circuit per pair, more than a server's ports): use "
                                   "--fabric electrical",
                                   o.op, to_string(algo)));
    for (int n : o.ranks)
      if (n < 2 || (op == CollectiveOp::send_recv && n != 2))
        throw InputError("command line", "--ranks",
                         op == CollectiveOp::send_recv ? std::string("send-recv needs exactly 2 endpoints")
                                                       : fmt::format("{} needs at least 2 endpoints", o.op));
  } catch (...) {
    return report_failure();
  }
  const BytesPerSecond nic = gbps_to_bytes_per_s(o.nic_gbps);
  if (o.one_case) {
    const int n = o.ranks.front();
    engine::CollectiveRun run;
    double closed = 0;
    if (o.fabric == "flat_ocs") {
      // Each ring edge carries d_S/2 full-duplex circuits: a rank sends to the next at d_S/2 × B.
      std::vector<EngineStep> steps;
      if (o.compact) steps = lower_compact(op, algo, n, o.bytes);
      else
        for (auto& st : lower_collective(op, algo, n, o.bytes).steps) steps.push_back({std::move(st), false});
      run = engine::run_collective_flat_ring(steps, n, nic, o.ports / 2);
      closed = textbook_seconds(op, algo, n, o.bytes, nic * (o.ports / 2));
    } else {
      run = o.compact ? engine::run_collective_electrical(lower_compact(op, algo, n, o.bytes), n, nic)
                      : engine::run_collective_electrical(lower_collective(op, algo, n, o.bytes), n, nic);
      closed = textbook_seconds(op, algo, n, o.bytes, nic);
    }
    std::cout << fmt::format("{} {} {} {}\n", run.simulated_s, closed, std::fabs(run.simulated_s - closed) / closed,
                             run.transfers);
    return 0;
  }
  const std::string where =
      o.fabric == "flat_ocs"
          ? fmt::format("flat_ocs, {} ports of {} Gb/s per server as full-duplex circuits to its ring neighbours",
                        o.ports, o.nic_gbps)
          : fmt::format("the electrical fabric, NICs of {} Gb/s each way", o.nic_gbps);
  std::cout << fmt::format("odcnsim bench --collective: {} ({}) of {} bytes per rank on {}, {}; median of {} runs\n",
                           o.op, to_string(algo), o.bytes, where,
                           o.compact ? "compacted transfers" : "one transfer per flow and step", o.repeat);
  std::cout << fmt::format("{:>8} {:>16} {:>16} {:>10} {:>10} {:>10} {:>14}\n", "ranks", "simulated_s",
                           "closed_form_s", "rel_error", "transfers", "wall_s", "peak_rss_MiB");
  std::unique_ptr<ScratchFolder> dir;
  try {
    dir = std::make_unique<ScratchFolder>();
  } catch (...) {
    return report_failure();
  }
  for (int n : o.ranks) {
    std::vector<double> walls, rss;
    const std::string out = dir->file("case-out.txt"), errors = dir->file("case-err.txt");
    for (int r = 0; r < o.repeat; ++r) {
      std::vector<std::string> args{"bench",   "--collective",         o.op,
                                    "--algorithm", to_string(algo),    "--ranks",
                                    std::to_string(n), "--bytes",      fmt::format("{}", o.bytes),
                                    "--gbps",  fmt::format("{}", o.nic_gbps), "--fabric", o.fabric,
                                    "--ports", std::to_string(o.ports), "--one-case"};
      if (!o.compact) args.emplace_back("--no-compact");
      const ChildRun run = run_self(o.self, args, out, errors);
      walls.push_back(run.wall_s);
      rss.push_back(run.peak_rss_mib);
      if (!run.ok()) {
        std::cerr << fmt::format("odcnsim bench: the collective over {} ranks failed ({})\n", n, run.how());
        return 1;
      }
    }
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    double sim = 0, closed = 0, err = 0;
    unsigned long transfers = 0;
    if (std::sscanf(line.c_str(), "%lf %lf %lf %lu", &sim, &closed, &err, &transfers) != 4) {
      std::cerr << "odcnsim bench: unreadable result line from the child\n";
      return 1;
    }
    std::cout << fmt::format("{:>8} {:>16.9f} {:>16.9f} {:>10.2e} {:>10} {:>10.3f} {:>14.1f}\n", n, sim, closed, err,
                             transfers, median(walls), median(rss))
              << std::flush;
  }
  return 0;
}

}  // namespace odcn::app
