#include "systems/opus/opus_outputs.hpp"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <set>

#include "core/text.hpp"
#include "trace/writers.hpp"

namespace odcn::sched {

using Json = nlohmann::ordered_json;

/// windows.csv and the summary's opus extras: reconfigurations and windows per iteration, the share of
/// windows above 1 ms (Opus §3.1 reports > 75 %), and the largest window with the task it precedes.
Json opus_outputs(trace::OutputDir& out, const OpusController& c,
                                    const RailGroups& groups, const std::vector<GraphJob>& jobs,
                                    const net::Network& network,
                                    const trace::RunRecord& rec, OpusMode mode, bool reconfigures) {
  using trace::num;
  const auto windows = phase_windows(c.records());
  trace::FileWriter csv = out.open("windows.csv");
  csv.write(fmt::format("job,iteration,{0},rail,from_group,to_group,opens_s,window_s,next_task,next_task_name\n",
                        network.endpoint_word));
  const auto task_name = [&](int job, int task) {
    return jobs[static_cast<std::size_t>(job)].graph->tasks[static_cast<std::size_t>(task)].name;
  };
  std::size_t over_1ms = 0;
  const Window* largest = nullptr;
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
  Json extras = {
      {"opus_mode", reconfigures ? Json(to_string(mode)) : Json("observe")},
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
      {"largest_window_before", largest ? Json(task_name(largest->job, largest->next_task))
                                        : Json(nullptr)}};
  return extras;
}

void print_opus(const Json& x) {
  std::cout << fmt::format("  opus              {}: {:.2f} reconfigurations per iteration ({} on demand, {} ahead)\n",
                           x["opus_mode"].get<std::string>(), x["reconfigurations_per_iteration"].get<double>(),
                           x["on_demand_reconfigurations"].get<int>(), x["provisioned_reconfigurations"].get<int>())
            << fmt::format("  windows           {:.2f} per GPU per iteration, {:.1f} % over 1 ms, largest {:.3f} s "
                           "(before {})\n",
                           x["windows_per_gpu_iteration"].get<double>(), 100 * x["windows_over_1ms_share"].get<double>(),
                           x["largest_window_s"].get<double>(),
                           x["largest_window_before"].is_null() ? "-" : escape_line(x["largest_window_before"].get<std::string>()));
}

}  // namespace odcn::sched
