#pragma once
// TOPO-X's slotted timing, shared by its planners, plan checker and controller (systems/topox/topox.hpp); private to
// systems/topox.
#include <algorithm>
#include <cmath>
#include <vector>

#include "systems/topox/topox.hpp"

namespace odcn::sched::topox_internal {

using workload::JobGraph;

inline constexpr Seconds kTimeEps = 1e-12;

/// Times are compared with a tolerance of what rounding in a sum of durations can change (1e-12 of their size, at
/// least 1e-12 s), never a real difference. The planner, the plan checker and the controller use the same rules.
inline Seconds tol(Seconds t) { return 1e-12 * std::max(1.0, std::abs(t)); }
/// The slot that holds time t.
inline int slot_of(Seconds t, Seconds tau) { return static_cast<int>(std::floor((t + tol(t)) / tau)); }
/// One past the last slot that a span ending at `end` reaches into.
inline int slot_end(Seconds end, Seconds tau) { return static_cast<int>(std::ceil((end - tol(end)) / tau)); }

/// The flow graph's timing as the slotted model sees it.
struct Timing {
  int n = 0;
  Seconds tau = 0;
  std::vector<bool> network;        ///< a transfer that needs a circuit (different servers, bytes > 0)
  std::vector<Seconds> p;           ///< duration (a transfer: bytes / B)
  std::vector<int> k;               ///< slots a network transfer holds its circuit
  std::vector<std::vector<int>> succ;
  std::vector<int> order;           ///< topological
  std::vector<Seconds> bottom;      ///< longest path from the task's start to the end of the iteration
  std::vector<Seconds> earliest;    ///< ASAP start without circuit limits (network transfers slot-aligned)
};

inline int slots_for(Seconds p, Seconds tau) { return std::max(1, slot_end(p, tau)); }
/// The first slot whose boundary is not before t.
int slot_at_or_after(Seconds t, Seconds tau);

Timing timing_of(const spec::FlatOcsSpec& flat, const JobGraph& g, Seconds tau);

int reconfig_slots_of(const TopoxOptions& o);
void check_options(const spec::FlatOcsSpec& flat, const TopoxOptions& o);

/// Start and finish of every task once the transfers' slots are fixed: compute and barriers as soon as their
/// inputs are done, transfers at their slot (which must not precede their inputs).
void settle_times(const JobGraph& g, const Timing& tm, TopoxPlan& plan);

/// Drops the circuits of a settled plan that no transfer needs: in each slot a pair keeps as many circuits as its
/// busier direction carries transfers at once (one, by the paper's reading), preferring circuits it kept in the
/// slot before. Heuristics light circuits that end up unused (matchings for transfers that then wait); on the
/// engine such a spare circuit would speed its pair's transfers up, away from the plan.
void keep_needed_circuits(const JobGraph& g, const Timing& tm, TopoxPlan& plan);

}  // namespace odcn::sched::topox_internal
