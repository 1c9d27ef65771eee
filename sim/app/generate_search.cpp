// `odcnsim generate dlrm --search PLATFORM`: the parallelisation search of TOPO-X's title in FlexNet's measured
// space (systems/topox/dlrm_search.hpp), its cost TOPO-X's lower bound on the platform's fabric.
#include "app/generate_search.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <stdexcept>

#include "app/workflow_support.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "spec/fabric_kinds.hpp"
#include "systems/topox/dlrm_search.hpp"

namespace odcn::app {

namespace {

/// The --set keys that leave FlexNet's measured table valid: the rest change the shapes or the times it measured.
void check_sets_for_search(const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    if (key != "name" && key != "iterations")
      throw InputError("command line", "--set " + key,
                       "cannot be combined with --search: the search takes its times from FlexNet's measurements of "
                       "the preset's shapes (with --search only name and iterations may be set)");
  }
}

spec::FlatOcsSpec search_fabric(const std::string& file, const workload::DlrmConfig& c) {
  const spec::AnyPlatform any = spec::load_any_platform(file);
  if (!any.flat)
    throw InputError(file, "kind",
                     fmt::format("is {}: the search needs a flat_ocs platform (TOPO-X's fabric)",
                                 spec::to_string(any.kind)));
  if (any.flat->servers != c.servers)
    throw InputError(file, "servers.count",
                     fmt::format("is {}, the DLRM has {} servers (one rank per server)", any.flat->servers, c.servers));
  return *any.flat;
}

}  // namespace

workload::JobGraph searched_dlrm(const GenerateOptions& o, const std::string& preset, workload::DlrmConfig& c,
                                 SearchReport& report) {
  check_sets_for_search(o.sets);
  if (o.search_cost != "topox" && o.search_cost != "topoopt")
    throw InputError("command line", "--search-cost", fmt::format("'{}' is not topox or topoopt", shown(o.search_cost)));
  if (o.search_mode != "anneal" && o.search_mode != "flexnet")
    throw InputError("command line", "--search-mode",
                     fmt::format("'{}' is not anneal or flexnet", shown(o.search_mode)));
  const spec::FlatOcsSpec flat = search_fabric(o.search, c);
  const workload::DlrmMeasurements m = workload::dlrm_measurements(preset);
  sched::DlrmSearchOptions so;
  so.budget = o.search_budget;
  so.seed = o.search_seed;
  if (o.search_mode == "anneal") {  // ours (dlrm_search.hpp); flexnet keeps FlexNet's moves and acceptance
    so.block = 0.25;
    so.anneal_from = 0.1;
    so.anneal_to = 0.001;
  }
  const bool terminal = isatty(STDERR_FILENO);
  workflow::Progress progress("search", 10, !o.quiet, terminal);
  so.progress_every = std::max(1, o.search_budget / 10);
  so.progress = [&](int step, Seconds best) {
    if (step / so.progress_every <= 10) progress.done(fmt::format("step {}, cost {:.3f} ms", step, 1e3 * best));
  };
  const auto t0 = std::chrono::steady_clock::now();
  const bool topoopt = o.search_cost == "topoopt";
  const auto cost = [&](const workload::DlrmStrategy& s) {
    return topoopt ? sched::dlrm_strategy_flexnet(flat, c, m, s) : sched::dlrm_strategy_bound(flat, c, m, s);
  };
  const auto r = sched::search_dlrm_strategy(c, m, workload::dlrm_hybrid_strategy(c), cost, so);
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report.lines.push_back(fmt::format("  search            {}, seed {}, over {}", o.search_mode == "anneal" ? "simulated annealing" : "FlexNet's MCMC", o.search_seed, m.source));
  report.lines.push_back(fmt::format("  cost              {} on {}: {} servers, {} ports of {:g} Gb/s, delta {:g} ms",
                                     topoopt ? "FlexNet's estimate of TopoOpt's topology" : "TOPO-X's lower bound",
                                     escape_line(o.search), flat.servers, flat.nic_ports,
                                     flat.port_bytes_per_s * 8 / 1e9, 1e3 * flat.reconfig_delay_s));
  report.lines.push_back(fmt::format("  cost              hybrid {:.3f} ms -> searched {:.3f} ms ({} steps, {} strategies "
                                     "evaluated, best at step {}, {:.1f} s)",
                                     1e3 * r.start_cost_s, 1e3 * r.best_cost_s, r.steps, r.evaluations, r.best_step,
                                     report.wall_s));
  for (const auto& line : workload::describe_dlrm_strategy(c, r.best))
    report.lines.push_back("  strategy          " + line);
  report.start_bound_s = r.start_cost_s;
  report.best_bound_s = r.best_cost_s;
  return workload::build_dlrm(c, r.best, m);
}

}  // namespace odcn::app
