#pragma once
// The parallelisation search of TOPO-X's title (Hu et al., "TOPO-X: Co-optimize Flow Scheduling, Topology, and ML
// Training Parallelism") in the space FlexNet's measurements allow (dlrm_strategy.hpp), by FlexNet's MCMC
// (FlexFlow's FFModel::optimize and FFModel::rewrite, as TopoOpt's DLRM scripts run it):
//   - start from the hybrid strategy; each step rewrites one operator, chosen uniformly among the dense layers,
//     the concat and the tables, to a random measured degree and group (a table: a random server), or, with
//     probability `propagation` (--enable-propagation: 0.25), copies one random dense layer's or the concat's
//     placement to its neighbour along the chain bot1 ... bot7, cat, top1 ... top16 and on, each further step with
//     probability `continue_propagation` (0.75);
//   - accept a cheaper strategy, and a dearer one with probability exp(-alpha · Δ), Δ in ms (searchAlpha 1.0);
//   - every budget / 100 steps (at least 1, at most 1,000) return to the best strategy found.
// What differs: the cost is the caller's, TOPO-X's lower bound on the fabric (dlrm_strategy_bound) or odcnsim's
// reading of FlexNet's estimator on TopoOpt's topology (dlrm_strategy_flexnet); the random numbers are a 64-bit
// Mersenne twister seeded by `seed`, so a search is reproducible; costs are cached per strategy. Options block
// and anneal_* (ours, dlrm_anneal_options) add moves of runs of layers and simulated annealing.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "spec/fabric_kinds.hpp"
#include "systems/topox/dlrm_strategy.hpp"

namespace odcn::sched {

struct DlrmSearchOptions {
  int budget = 5000;           ///< MCMC steps (TopoOpt's DLRM scripts: --search-budget 5000)
  std::uint64_t seed = 1;
  double alpha_per_ms = 1.0;   ///< FlexFlow's searchAlpha
  double propagation = 0.25;   ///< FFModel::PROPAGATION_CHANCE
  double continue_propagation = 0.75;
  /// Ours (0: FlexNet's moves only): with this probability a step gives one random run of the chain, bot1 ...
  /// top_Lt, one random placement measured for all of its operators. FlexNet's single-operator moves rarely leave
  /// the hybrid strategy, since each one alone adds re-sharding without removing a ring.
  double block = 0;
  /// Ours (0: FlexNet's exp(-alpha · Δ)): simulated annealing, a dearer strategy accepted with probability
  /// exp(-(Δ / cost) / T), the temperature T cooled geometrically from anneal_from to anneal_to over the budget.
  double anneal_from = 0, anneal_to = 0;
  /// How many of the cheapest distinct strategies the result lists (DlrmSearchResult::finalists).
  int finalists = 0;
  /// Called every `progress_every` steps with (steps done, best cost so far).
  std::function<void(int, Seconds)> progress;
  int progress_every = 0;
};

/// Ours, `generate dlrm --search-mode anneal` (the default): FlexNet's moves plus runs of layers (block 0.25),
/// annealed from a relative temperature of 0.1 to 0.001, with no returns to the best strategy.
DlrmSearchOptions dlrm_anneal_options(int budget, std::uint64_t seed = 1);

struct DlrmSearchResult {
  workload::DlrmStrategy best;
  Seconds start_cost_s = 0, best_cost_s = 0;
  int steps = 0, evaluations = 0, accepted = 0;
  int best_step = 0;  ///< the step that found `best` (0: the start)
  /// The options.finalists cheapest distinct strategies evaluated (cost, strategy), cheapest first: a caller can
  /// judge them by something dearer than the cost, as `generate dlrm --search` does with TOPO-X's planner.
  std::vector<std::pair<Seconds, workload::DlrmStrategy>> finalists;
};

using DlrmCost = std::function<Seconds(const workload::DlrmStrategy&)>;

/// FlexNet's MCMC from `start` (usually dlrm_hybrid_strategy) under `cost`. Deterministic for a given seed.
DlrmSearchResult search_dlrm_strategy(const workload::DlrmConfig& c, const workload::DlrmMeasurements& m,
                                      const workload::DlrmStrategy& start, const DlrmCost& cost,
                                      const DlrmSearchOptions& options);

/// The search's cost: TOPO-X's lower bound (topox_lower_bound, docs/topox.md) for strategy `s`'s job graph with
/// rank r on server r of `flat`, its all-reduces lowered as plan_topox_job lowers them, and the platform's δ. A
/// plan of any circuit schedule that respects capacity, TopoOpt's static one included, takes at least this long.
Seconds dlrm_strategy_bound(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                            const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s);

/// TOPO-X's planned iteration for strategy `s` on `flat` (policy topox:heuristic's plan, at the platform's δ).
Seconds dlrm_strategy_plan(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                           const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s);

/// TopoOpt's own search cost: FlexNet's estimate (flexnet_estimate.hpp) of strategy `s` on the topology
/// TopologyFinder builds for it (policy topoopt as released), as TopoOpt's MCMC rebuilds the topology for every
/// candidate (SpMulMat::optimize).
Seconds dlrm_strategy_flexnet(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                              const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s);

}  // namespace odcn::sched
