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
#include "spec/overrides.hpp"
#include "systems/topox/dlrm_search.hpp"

namespace odcn::app {

namespace {

/// The --set keys that leave FlexNet's measured table valid: the rest change the shapes or the times it measured.
void check_sets_for_search(const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    if (key != "name" && key != "iterations")
      throw InputError("command line", spec::set_field(key),
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

/// TOPO-X's planner on the hybrid strategy and the search's finalists: the shortest plan wins (the earlier, so
/// the cheaper bound, on a tie). A bound can prefer a strategy whose plan is longer (more re-sharding transfers,
/// each waiting for a circuit), and the search must not end worse than where it started.
workload::DlrmStrategy planned_best(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                                   const workload::DlrmMeasurements& m, const sched::DlrmSearchResult& r,
                                   std::vector<std::string>& lines) {
  std::vector<workload::DlrmStrategy> candidates{workload::dlrm_hybrid_strategy(c)};
  for (const auto& f : r.finalists) candidates.push_back(f.second);
  std::size_t best = 0;
  std::vector<Seconds> plans;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    plans.push_back(sched::dlrm_strategy_plan(flat, c, m, candidates[i]));
    if (plans[i] < plans[best]) best = i;
  }
  std::string list;
  for (std::size_t i = 1; i < plans.size(); ++i)
    list += fmt::format("{}{:.3f} (bound {:.3f})", i > 1 ? ", " : "", 1e3 * plans[i], 1e3 * r.finalists[i - 1].first);
  lines.push_back(fmt::format("  planned           hybrid {:.3f} ms; the {} cheapest found {} ms -> {}", 1e3 * plans[0],
                              r.finalists.size(), list,
                              best == 0 ? std::string("the hybrid strategy") : fmt::format("finalist {}", best)));
  return candidates[best];
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
  // anneal is ours (dlrm_search.hpp); flexnet keeps FlexNet's moves and acceptance.
  sched::DlrmSearchOptions so = sched::dlrm_anneal_options(o.search_budget, o.search_seed);
  if (o.search_mode == "flexnet") {
    so = sched::DlrmSearchOptions{};
    so.budget = o.search_budget;
    so.seed = o.search_seed;
  }
  workflow::Progress progress("search", 10, !o.quiet, isatty(STDERR_FILENO));
  so.progress_every = std::max(1, o.search_budget / 10);
  so.progress = [&](int step, Seconds best) {
    if (step / so.progress_every <= 10) progress.done(fmt::format("step {}, cost {:.3f} ms", step, 1e3 * best));
  };
  const bool topoopt = o.search_cost == "topoopt";
  if (topoopt && o.search_finalists)
    throw InputError("command line", "--search-finalists",
                     "applies to --search-cost topox only (TopoOpt's search keeps its cheapest estimate)");
  so.finalists = topoopt ? 0 : o.search_finalists.value_or(4);
  const auto cost = [&](const workload::DlrmStrategy& s) {
    return topoopt ? sched::dlrm_strategy_flexnet(flat, c, m, s) : sched::dlrm_strategy_bound(flat, c, m, s);
  };
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = sched::search_dlrm_strategy(c, m, workload::dlrm_hybrid_strategy(c), cost, so);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  auto& lines = report.lines;
  lines.push_back(fmt::format("  search            {}, seed {}, over {}",
                              o.search_mode == "anneal" ? "simulated annealing" : "FlexNet's MCMC", o.search_seed,
                              m.source));
  lines.push_back(fmt::format("  cost              {} on {}: {} servers, {} ports of {:g} Gb/s, delta {:g} ms",
                              topoopt ? "FlexNet's estimate of TopoOpt's topology" : "TOPO-X's lower bound",
                              escape_line(o.search), flat.servers, flat.nic_ports, flat.port_bytes_per_s * 8 / 1e9,
                              1e3 * flat.reconfig_delay_s));
  lines.push_back(fmt::format("  cost              hybrid {:.3f} ms -> searched {:.3f} ms ({} steps, {} strategies "
                              "evaluated, best at step {}, {:.1f} s)",
                              1e3 * r.start_cost_s, 1e3 * r.best_cost_s, r.steps, r.evaluations, r.best_step, wall_s));
  const workload::DlrmStrategy chosen = r.finalists.empty() ? r.best : planned_best(flat, c, m, r, lines);
  for (const auto& line : workload::describe_dlrm_strategy(c, chosen)) lines.push_back("  strategy          " + line);
  return workload::build_dlrm(c, chosen, m);
}

}  // namespace odcn::app
