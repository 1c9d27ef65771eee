#include "app/graph_inputs.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/limits.hpp"
#include "graph/collective.hpp"
#include "systems/topox/topox.hpp"
#include "traces/graph_source.hpp"

namespace odcn::app {

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
    // A job-graph file given as the workload (rank i on endpoint i): its ranks are what does not fit.
    const bool alone = w.jobs.size() == 1 && std::filesystem::path(js.file).lexically_normal() ==
                                                  std::filesystem::path(w.file).lexically_normal();
    if (alone && g.ranks > network.endpoints)
      throw InputError(w.file, "ranks",
                       fmt::format("{} ranks, one per {}, but this {} platform has {} (a workload file places them "
                                   "otherwise: docs/job-graph.md)",
                                   g.ranks, network.endpoint_word, network.kind, network.endpoints));
    for (std::size_t r = 0; r < js.endpoints.size(); ++r)
      if (js.endpoints[r] >= network.endpoints)
        throw InputError(w.file, spec::endpoint_field(js, r),
                         fmt::format("no {} {} (this {} platform has {})", network.endpoint_word, js.endpoints[r],
                                     network.kind, network.endpoints));
    in->graphs.push_back(std::move(g));
  }
  std::int64_t rows = 0, task_runs = 0;
  double flow_runs = 0;  // (a double: 1e6 collectives of 4e9 flows each must not overflow the sum)
  for (std::size_t i = 0; i < in->graphs.size(); ++i) {
    in->jobs.push_back({in->graphs[i].name, &in->graphs[i], w.jobs[i].endpoints, w.jobs[i].field});
    rows += in->graphs[i].iterations;
    task_runs += static_cast<std::int64_t>(in->graphs[i].tasks.size()) * in->graphs[i].iterations;
    double flows = 0;
    for (const auto& t : in->graphs[i].tasks)
      if (t.kind == workload::TaskKind::collective)
        flows += static_cast<double>(workload::flow_count(t.op, t.algorithm, static_cast<int>(t.group.size())));
      else if (t.kind == workload::TaskKind::transfer)
        flows += 1;
    flow_runs += flows * in->graphs[i].iterations;
  }
  if (rows > limits::kMaxIterationRows)
    throw InputError(w.file, "job_graphs", fmt::format("{} iteration rows, above the limit of {} (see docs/limits.md)",
                                                       rows, limits::kMaxIterationRows));
  if (task_runs > limits::kMaxTaskRuns)
    throw InputError(w.file, "job_graphs",
                     fmt::format("tasks x iterations is {} over the jobs, above the limit of {} (some 4-5 minutes of "
                                 "simulation on 2 cores; see docs/limits.md)",
                                 task_runs, limits::kMaxTaskRuns));
  if (flow_runs > static_cast<double>(limits::kMaxFlowRuns))
    throw InputError(w.file, "job_graphs",
                     fmt::format("the collectives' flows x iterations are {:.0f} over the jobs, above the limit of "
                                 "{} (a ring all-reduce over n ranks has 2(n-1)n flows; a minute or two of simulation; "
                                 "see docs/limits.md)",
                                 flow_runs, limits::kMaxFlowRuns));
  return in;
}

sched::GraphStaticPlan plan_static_graphs(const spec::AnyPlatform& platform, const GraphInputs& in,
                                          const std::string& file) {
  return sched::plan_graph_static(platform, in.network, sched::circuit_demand(in.network, in.jobs, file));
}

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

}  // namespace odcn::app
