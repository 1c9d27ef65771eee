// TOPO-X's controller: it follows a plan slot by slot.
#include "systems/topox/topox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "policy/milp.hpp"

#include "systems/topox/topox_internal.hpp"

namespace odcn::sched {

using workload::JobGraph;
using workload::Task;
using workload::TaskKind;
using namespace topox_internal;

TopoxController::TopoxController(const spec::FlatOcsSpec& flat, const net::Network& network, const TopoxPlan& plan)
    : flat_(flat), network_(network), plan_(plan) {
  current_ = plan.lit_during(0);
  stretch_ = plan.per_transfer && plan.aligned;
  if (stretch_) {
    window_end_.assign(plan.start_slot.size(), -1);
    for (std::size_t i = 0; i < plan.start_slot.size(); ++i)
      if (plan.start_slot[i] >= 0) window_end_[i] = std::max(plan.start_slot[i] + 1, slot_end(plan.finish_s[i], plan.slot_s));
  }
}

net::CircuitConfig TopoxController::initial_circuits() const { return net::counts_of(flat_, network_, current_); }

void TopoxController::enter_slot(int t, Actions& act) {
  // After the plan's last slot the circuits stay as they are (the next iteration starts from them).
  std::vector<net::PortCircuit> lit = t < static_cast<int>(plan_.slots.size()) ? plan_.lit_during(t) : current_;
  const int changed = net::changed_circuits(current_, lit);
  if (changed > 0) {
    act.configure(net::counts_of(flat_, network_, lit), fmt::format("TOPO-X slot {}", t));
    ++changes_;
    circuits_changed_ += changed;
    current_ = std::move(lit);
  }
}

void TopoxController::wake(Seconds at, Actions& act) {
  if (woken_.insert(at).second) act.wake_at(at);
}

void TopoxController::on_timer(Seconds now, Actions& act) {
  if (stretch_) return on_timer_stretched(now, act);
  const int slots = static_cast<int>(plan_.slots.size());
  while (next_slot_ <= slots && base_ + next_slot_ * plan_.slot_s <= now + tol(now)) enter_slot(next_slot_++, act);
  if (next_slot_ <= slots) wake(base_ + next_slot_ * plan_.slot_s, act);
  // Transfers whose planned start has come, after the slot's circuits (a transfer at a boundary needs them).
  while (!held_.empty() && std::get<0>(held_.top()) <= now + tol(now)) {
    const auto [at, iteration, task] = held_.top();
    held_.pop();
    if (iteration == iteration_) act.release({job_, task, nullptr, false});
  }
}

/// Stretched slots: enter each slot whose time has come (τ after the last one began) and whose ending transfers have
/// all finished, releasing the transfers planned in it; wake up when the next one's time comes.
void TopoxController::on_timer_stretched(Seconds now, Actions& act) {
  const int slots = static_cast<int>(plan_.slots.size());
  while (next_slot_ <= slots) {
    const Seconds due = next_slot_ == 0 ? base_ : slot_begin_ + plan_.slot_s;
    if (due > now + tol(now)) {
      wake(due, act);
      return;
    }
    // (after the last slot nothing changes: the circuits stay as they are)
    if (next_slot_ < slots && unfinished_[static_cast<std::size_t>(next_slot_)] > 0) return;  // on_task_done retries
    enter_slot(next_slot_, act);
    slot_begin_ = now;
    if (next_slot_ < slots)
      for (int task : held_in_slot_[static_cast<std::size_t>(next_slot_)]) act.release({job_, task, nullptr, false});
    ++next_slot_;
  }
}

void TopoxController::on_task_done(const TaskRef& ref, const workload::Task& /*task*/, Seconds /*start*/,
                                   Seconds end, Actions& act) {
  if (!stretch_ || ref.iteration != iteration_) return;
  const auto i = static_cast<std::size_t>(ref.task);
  if (i >= window_end_.size() || window_end_[i] < 0) return;
  --unfinished_[static_cast<std::size_t>(window_end_[i])];
  on_timer_stretched(end, act);
}

void TopoxController::begin_iteration(int iteration, Seconds now, Actions& act) {
  iteration_ = iteration;
  base_ = now;
  next_slot_ = 0;
  if (stretch_) {
    const auto slots = plan_.slots.size();
    unfinished_.assign(slots + 1, 0);
    held_in_slot_.assign(slots, {});
    for (int u : window_end_)
      if (u >= 0) ++unfinished_[std::min(static_cast<std::size_t>(u), slots)];
  }
  if (iteration > 0) {
    // The first slot's circuits are set up now; a port that changes circuit stays dark for the reconfiguration
    // delay, so the iteration's slots begin after it (its compute starts at once).
    std::vector<net::PortCircuit> first = plan_.lit_during(0);
    const int changed = net::changed_circuits(current_, first);
    if (changed > 0) {
      // Circuits only torn down cost nothing; circuits set up make the slots wait for them.
      const int added = (changed + static_cast<int>(first.size()) - static_cast<int>(current_.size())) / 2;
      act.configure(net::counts_of(flat_, network_, first), "TOPO-X: the next iteration's first slot");
      ++changes_;
      circuits_changed_ += changed;
      current_ = std::move(first);
      if (added > 0) base_ = now + plan_.reconfig_slots * plan_.slot_s;
    }
  }
  on_timer(now, act);
}

Controller::Gate TopoxController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds now,
                                                Actions& act) {
  job_ = ref.job;
  if (ref.iteration != iteration_) begin_iteration(ref.iteration, now, act);
  else on_timer(now, act);  // a slot boundary at this very instant is entered before the task is placed
  const auto i = static_cast<std::size_t>(ref.task);
  if (i >= plan_.start_slot.size() || plan_.start_slot[i] < 0) return {};
  if (stretch_) {  // released when its slot begins (or now, late, if that has passed)
    const int s = plan_.start_slot[i];
    if (s < next_slot_) {
      if (s < next_slot_ - 1 || now > slot_begin_ + tol(now)) ++late_;
      return {};
    }
    held_in_slot_[static_cast<std::size_t>(s)].push_back(ref.task);
    return {true, nullptr, false};
  }
  const Seconds at = base_ + plan_.start_s[i];
  if (at <= now + tol(now)) {
    if (now > at + 1e-9 * std::max(1.0, at)) ++late_;
    return {};
  }
  held_.emplace(at, ref.iteration, ref.task);
  wake(at, act);
  return {true, nullptr, false};
}

}  // namespace odcn::sched
