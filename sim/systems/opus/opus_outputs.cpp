#include "systems/opus/opus_outputs.hpp"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <set>

#include "core/text.hpp"
#include "trace/writers.hpp"

namespace odcn::sched {

using Json = nlohmann::ordered_json;

namespace {

/// Windows of one kind (all, or one rail's), steady ones only: how many, the share above 1 ms, the largest.
struct WindowStats {
  std::size_t count = 0, over_1ms = 0;
  const Window* largest = nullptr;
  void add(const Window& w) {
    ++count;
    if (w.length_s > 1e-3) ++over_1ms;
    if (!largest || w.length_s > largest->length_s) largest = &w;
  }
  double share() const { return count == 0 ? 0.0 : static_cast<double>(over_1ms) / static_cast<double>(count); }
};

/// Per job, its iterations' durations in order.
std::vector<std::vector<Seconds>> durations(const trace::RunRecord& rec, std::size_t jobs) {
  std::vector<std::vector<Seconds>> d(jobs);
  for (const auto& r : rec.iterations) {
    auto& v = d[static_cast<std::size_t>(r.job)];
    if (v.size() <= static_cast<std::size_t>(r.iteration)) v.resize(static_cast<std::size_t>(r.iteration) + 1);
    v[static_cast<std::size_t>(r.iteration)] = r.end_s - r.start_s;
  }
  return d;
}

}  // namespace

/// windows.csv and the summary's opus extras: reconfigurations per iteration, and the windows of the steady
/// state (steady_from: iteration 0 and any settling iterations left out, and said so), overall and per rail as
/// in Opus Fig. 4(b): how many per GPU and iteration, the share above 1 ms (Opus §3.1 reports > 75 %), the
/// largest with the task it precedes.
Json opus_outputs(trace::OutputDir& out, const OpusController& c, const RailGroups& groups,
                  const std::vector<GraphJob>& jobs, const net::Network& network, const trace::RunRecord& rec,
                  OpusMode mode, bool reconfigures) {
  using trace::num;
  const PhaseWindows pw = phase_windows(c.records());
  const auto per_job = durations(rec, jobs.size());
  const int from = steady_from(per_job);
  const auto steady = [&](const Window& w) { return from < 0 || w.iteration >= from; };
  trace::FileWriter csv = out.open("windows.csv");
  csv.write(fmt::format("job,iteration,{0},rail,from_group,to_group,opens_s,window_s,next_task,next_task_name,"
                        "next_bytes,steady\n",
                        network.endpoint_word));
  const auto task_name = [&](int job, int task) {
    return jobs[static_cast<std::size_t>(job)].graph->tasks[static_cast<std::size_t>(task)].name;
  };
  WindowStats all;
  std::map<int, WindowStats> by_rail;
  // A window's rail: its GPU's on rail fabrics (a group across rails, forwarded through proxies, has none).
  const auto rail_of = [&](const Window& w) {
    return network.pxn_stride > 0 ? w.endpoint % network.pxn_stride : groups.group(w.to_group).rail;
  };
  for (const auto& w : pw.windows) {
    const auto& g = groups.group(w.to_group);
    csv.write(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", w.job, w.iteration, w.endpoint, rail_of(w),
                          trace::csv_field(groups.group(w.from_group).label), trace::csv_field(g.label), num(w.opens_s),
                          num(w.length_s), w.next_task, trace::csv_field(task_name(w.job, w.next_task)),
                          num(w.next_bytes), steady(w) ? 1 : 0));
    if (!steady(w)) continue;
    all.add(w);
    by_rail[rail_of(w)].add(w);
  }
  csv.close();
  int iterations = 0;  // in the steady state, over all jobs
  for (const auto& d : per_job) iterations += static_cast<int>(d.size()) - std::max(from, 0);
  std::set<int> gpus;
  for (const auto& r : c.records()) gpus.insert(r.endpoint);
  const auto per_gpu_iteration = [&](std::size_t n) {
    return iterations > 0 && !gpus.empty() ? static_cast<double>(n) / (static_cast<double>(gpus.size()) * iterations) : 0.0;
  };
  Json rails = Json::array();
  for (const auto& [rail, st] : by_rail)
    rails.push_back({{"rail", rail},
                     {"windows", st.count},
                     {"windows_over_1ms_share", st.share()},
                     {"largest_window_s", st.largest ? st.largest->length_s : 0.0}});
  const int all_iterations = static_cast<int>(rec.iterations.size());
  Json extras = {
      {"opus_mode", reconfigures ? Json(to_string(mode)) : Json("observe")},
      {"communication_groups", groups.count()},
      {"rings", network.counter_rotating_rings ? "bidirectional" : "one-way"},
      {"hop_circuits", groups.hops() == HopCircuits::split ? "split" : "whole-nic"},
      {"reconfigurations_per_iteration", all_iterations > 0 ? static_cast<double>(rec.reconfigurations) / all_iterations : 0.0},
      {"on_demand_reconfigurations", c.on_demand_changes()},
      {"provisioned_reconfigurations", c.provisioned_changes()},
      {"windows_steady_from_iteration", from >= 0 ? Json(from) : Json(nullptr)},
      {"windows", all.count},
      {"windows_in_run", pw.windows.size()},
      {"phase_overlaps", pw.overlaps},
      {"windows_per_gpu_iteration", per_gpu_iteration(all.count)},
      {"windows_over_1ms_share", all.share()},
      {"largest_window_s", all.largest ? all.largest->length_s : 0.0},
      {"largest_window_before", all.largest ? Json(task_name(all.largest->job, all.largest->next_task)) : Json(nullptr)},
      {"windows_by_rail", rails}};
  return extras;
}

void print_opus(const Json& x) {
  std::cout << fmt::format("  opus              {}: {:.2f} reconfigurations per iteration ({} on demand, {} ahead)\n",
                           x["opus_mode"].get<std::string>(), x["reconfigurations_per_iteration"].get<double>(),
                           x["on_demand_reconfigurations"].get<int>(), x["provisioned_reconfigurations"].get<int>())
            << fmt::format("  windows           {}: {:.2f} per GPU per iteration, {:.1f} % over 1 ms, largest {:.3f} s "
                           "(before {})\n",
                           x["windows_steady_from_iteration"].is_null()
                               ? std::string("one iteration (no steady state)")
                               : fmt::format("from iteration {}", x["windows_steady_from_iteration"].get<int>()),
                           x["windows_per_gpu_iteration"].get<double>(), 100 * x["windows_over_1ms_share"].get<double>(),
                           x["largest_window_s"].get<double>(),
                           x["largest_window_before"].is_null() ? "-" : escape_line(x["largest_window_before"].get<std::string>()));
}

}  // namespace odcn::sched
