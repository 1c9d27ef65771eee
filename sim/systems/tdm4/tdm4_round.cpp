// TDM4's round state: Alg. 2 per pod group and stage, kept up to date as Alg. 1 moves jobs between A and B.
#include "systems/tdm4/tdm4_policy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <set>

#include <fmt/format.h>

#include "systems/tdm4/stage_demand.hpp"

#include "systems/tdm4/tdm4_round.hpp"

namespace odcn::sched::tdm4_internal {

std::array<const std::vector<int>*, kStages> held_circuits(const StageResults& r) {
  std::array<const std::vector<int>*, kStages> held{};
  for (int s = 0; s < kStages; ++s) {
    held[static_cast<std::size_t>(s)] = &r[s].circuits;
    for (int back = 0; back < kStages; ++back) {
      const int from = (s - back + kStages) % kStages;
      if (!r[static_cast<std::size_t>(from)].idle) {
        held[static_cast<std::size_t>(s)] = &r[static_cast<std::size_t>(from)].circuits;
        break;
      }
    }
  }
  return held;
}

std::array<int, kStages> reconfigures(const StageResults& r) {
  const auto held = held_circuits(r);
  std::array<int, kStages> diff{};
  for (int s = 0; s < kStages; ++s)
    diff[static_cast<std::size_t>(s)] = *held[static_cast<std::size_t>(s)] != *held[static_cast<std::size_t>(prev_stage(s))];
  return diff;
}

RoundState::RoundState(const net::Fabric& fabric, const std::vector<Job>& jobs, const TrafficCache& cache,
                       std::vector<int> assign, HillClimbStats& stats)
    : fabric_(fabric), jobs_(jobs), cache_(cache), assign_(std::move(assign)), stats_(stats) {
  const auto groups = static_cast<std::size_t>(fabric.groups());
  members_.assign(groups, {});
  results_.assign(groups, {});
  eval_.assign(groups, std::array<SetEval, 2>{});
  diff_.assign(groups, {});
  for (const auto& j : jobs) members_[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(assign_[static_cast<std::size_t>(j.id)])].push_back(j.id);
  base_.resize(groups);
  for (int g = 0; g < fabric.groups(); ++g) {
    for (int k = 0; k < 2; ++k)
      base_[static_cast<std::size_t>(g)][static_cast<std::size_t>(k)] =
          fixed_demand(fabric, members_[static_cast<std::size_t>(g)][static_cast<std::size_t>(k)], 0, cache_);
    rebuild_group(g);
  }
  group_idle_.assign(groups, {});
  local_.assign(groups, 0.0);
  for (const auto& j : jobs)
    for (int s = 0; s < kStages; ++s)
      if (assign_[static_cast<std::size_t>(j.id)] != stage_k(s)) {
        const Seconds c = idle_compute_s(j, assign_[static_cast<std::size_t>(j.id)], s);
        idle_[s].insert(c);
        group_idle_[static_cast<std::size_t>(j.group)][static_cast<std::size_t>(s)].insert(c);
      }
  group_top_.assign(groups, {});
  for (int g = 0; g < fabric.groups(); ++g) {
    update_local(g);
    refresh_tops(g);
  }
  refresh_summary();
}

Objective RoundState::objective() const {
  Objective o{total(), 0.0};
  for (Seconds l : local_) o.spread += l;
  return o;
}

Seconds RoundState::total() const {
  Seconds sum = 0;
  int reconfigs = 0;
  for (int s = 0; s < kStages; ++s) {
    sum += std::max(top1_[s], max_of(idle_[s]));
    reconfigs += diff_count_[s] > 0;
  }
  return sum + reconfigs * fabric_.reconfig_delay_s();
}

RoundState::Neighbour RoundState::neighbour_group(int n) {
  const Job& j = jobs_[static_cast<std::size_t>(n)];
  const auto g = static_cast<std::size_t>(j.group);
  const auto a = static_cast<std::size_t>(assign_[static_cast<std::size_t>(n)]);
  const auto b = 1 - a;
  const bool rar = j.type == JobType::rar;
  // The sets' non-RAR traffic after the move, built only when a set must be planned from scratch.
  auto moved_base = [&](std::size_t k, int sign) {
    GroupDemand d = base_[g][k];
    if (!rar) shift_fixed(d, cache_, n, 0, sign);
    return d;
  };
  thread_local GroupDemand scratch;  // reused: no allocation per neighbour
  int rebuilds = 0;
  std::array<GroupResult, 2> r;
  // Leaving group a. When every pair stays linked without the job (its ring came after the pod group's
  // links were complete, or the other jobs' fixed traffic links every pair), Alg. 3 gives every other RAR
  // job the same ring, so the new demand is the old one minus the job's load, exactly (whole bytes).
  if (members_[g][a].size() == 1) {
    r[a].circuits.assign(static_cast<std::size_t>(fabric_.pairs_per_group()), 0);  // idle
  } else if (leaves_exactly(g, a, n)) {
    scratch = eval_[g][a].demand;
    if (rar)
      shift_full(scratch, cache_, n, 0, -1);
    else
      shift_fixed(scratch, cache_, n, 0, -1);
    r[a] = from_demand(scratch);
  } else {
    auto ids = members_[g][a];
    ids.erase(std::find(ids.begin(), ids.end(), n));
    r[a] = build(j.group, ids, moved_base(a, -1), nullptr, false);
    ++rebuilds;
  }
  // Joining group b: the same when every pair was linked before the job's turn in Alg. 2.
  if (joins_exactly(g, b, n)) {
    scratch = eval_[g][b].demand;
    if (rar)
      shift_full(scratch, cache_, n, 0, +1);
    else
      shift_fixed(scratch, cache_, n, 0, +1);
    r[b] = from_demand(scratch);
  } else {
    auto ids = members_[g][b];
    ids.insert(std::upper_bound(ids.begin(), ids.end(), n), n);
    r[b] = build(j.group, ids, moved_base(b, +1), nullptr, false);
    ++rebuilds;
  }
  // Stages 3 and 4 repeat 1 and 2 (phase 1 has the loads of phase 0), so what reconfigures(r) would find
  // is simple: with both sets communicating, every transition changes circuits iff their circuits differ;
  // with one idle, it keeps the other's circuits all round and nothing changes.
  Neighbour out{};
  out.rebuilds = rebuilds;
  const bool change = !r[0].idle && !r[1].idle && r[0].circuits != r[1].circuits;
  for (int s = 0; s < kStages; ++s) {
    out.comm[s] = r[static_cast<std::size_t>(s % 2)].comm;
    out.diff[s] = change;
  }
  return out;
}

Objective RoundState::neighbour_objective(int n, const Neighbour& nb, const Objective& best) const {
  const Job& j = jobs_[static_cast<std::size_t>(n)];
  const auto g = static_cast<std::size_t>(j.group);
  const int a = assign_[static_cast<std::size_t>(n)];
  Seconds sum = 0, local = 0;
  int reconfigs = 0, local_reconfigs = 0;
  for (int s = 0; s < kStages; ++s) {
    const Seconds others = top1_group_[s] == j.group ? top2_[s] : top1_[s];
    const Seconds comm = std::max(others, nb.comm[s]);
    sum += std::max(comm, compute_after_move(idle_top_[s], j, a, s));
    local += std::max(nb.comm[s], compute_after_move(group_top_[g][static_cast<std::size_t>(s)], j, a, s));
    reconfigs += diff_count_[s] - diff_[g][static_cast<std::size_t>(s)] + nb.diff[s] > 0;
    local_reconfigs += nb.diff[s];
  }
  Objective o{sum + reconfigs * fabric_.reconfig_delay_s(), kInfeasible};
  if (o.round > best.round) return o;
  const Seconds group_local = local + local_reconfigs * fabric_.reconfig_delay_s();
  if (o.round == best.round && best.spread < kInfeasible) {
    // The sum in another order differs from the ordered one by far less than 1e-9 of it.
    const Seconds estimate = spread_total_ - local_[g] + group_local;
    if (estimate > best.spread + 1e-9 * std::max(1.0, std::abs(best.spread))) return o;
  }
  o.spread = 0;
  for (std::size_t other = 0; other < local_.size(); ++other) o.spread += other == g ? group_local : local_[other];
  return o;
}

std::vector<char> RoundState::critical_groups() const {
  std::vector<char> critical(static_cast<std::size_t>(fabric_.groups()), 0);
  for (int s = 0; s < kStages; ++s) {
    const Seconds compute = max_of(idle_[s]);
    if (top1_group_[s] >= 0 && top1_[s] >= compute) critical[static_cast<std::size_t>(top1_group_[s])] = 1;
    // Two moves can take the longest compute out of a stage only if at most two jobs hold it.
    const bool compute_critical = compute >= top1_[s] && compute > 0 && idle_[s].count(compute) <= 2;
    for (int g = 0; g < fabric_.groups(); ++g) {
      const auto gi = static_cast<std::size_t>(g);
      if (diff_count_[s] == 1 && diff_[gi][static_cast<std::size_t>(s)]) critical[gi] = 1;
      if (compute_critical && max_of(group_idle_[gi][static_cast<std::size_t>(s)]) == compute) critical[gi] = 1;
    }
  }
  return critical;
}

void RoundState::move(int n) {
  const Job& j = jobs_[static_cast<std::size_t>(n)];
  const auto g = static_cast<std::size_t>(j.group);
  const int a = assign_[static_cast<std::size_t>(n)];
  // Decided on the state before the move, as in neighbour_group.
  const bool exact_from = leaves_exactly(g, static_cast<std::size_t>(a), n);
  const bool exact_to = joins_exactly(g, static_cast<std::size_t>(1 - a), n);
  for (int s = 0; s < kStages; ++s)
    if (a != stage_k(s)) {
      idle_[s].erase(idle_[s].find(idle_compute_s(j, a, s)));
      auto& gi = group_idle_[g][static_cast<std::size_t>(s)];
      gi.erase(gi.find(idle_compute_s(j, a, s)));
    }
  auto& from = members_[g][static_cast<std::size_t>(a)];
  from.erase(std::find(from.begin(), from.end(), n));
  auto& to = members_[g][static_cast<std::size_t>(1 - a)];
  to.insert(std::upper_bound(to.begin(), to.end(), n), n);
  assign_[static_cast<std::size_t>(n)] = 1 - a;
  if (j.type != JobType::rar) {
    shift_fixed(base_[g][static_cast<std::size_t>(a)], cache_, n, 0, -1);
    shift_fixed(base_[g][static_cast<std::size_t>(1 - a)], cache_, n, 0, +1);
  }
  for (int s = 0; s < kStages; ++s)
    if (1 - a != stage_k(s)) {
      idle_[s].insert(idle_compute_s(j, 1 - a, s));
      group_idle_[g][static_cast<std::size_t>(s)].insert(idle_compute_s(j, 1 - a, s));
    }
  // Each set's demand: the kept one plus or minus the job's load when exact (its saturation point does not
  // move), else planned from scratch.
  const bool rar = j.type == JobType::rar;
  for (int k = 0; k < 2; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    const bool leaving = k == a;
    if (leaving ? exact_from : exact_to) {
      SetEval& e = eval_[g][ki];
      if (rar)
        shift_full(e.demand, cache_, n, 0, leaving ? -1 : +1);
      else
        shift_fixed(e.demand, cache_, n, 0, leaving ? -1 : +1);
      results_[g][ki] = from_demand(e.demand);
      ++stats_.group_rebuilds;
    } else {
      results_[g][ki] = build(j.group, members_[g][ki], base_[g][ki], &eval_[g][ki]);
    }
    results_[g][ki + 2] = results_[g][ki];
  }
  diff_[g] = reconfigures(results_[g]);
  update_local(j.group);
  refresh_tops(j.group);
  refresh_summary();
}

bool RoundState::leaves_exactly(std::size_t g, std::size_t a, int n) const {
  if (members_[g][a].size() == 1) return false;
  if (jobs_[static_cast<std::size_t>(n)].type == JobType::rar) return eval_[g][a].saturated_after < n;
  const GroupDemand& d = base_[g][a];
  if (d.linked_pairs != static_cast<int>(d.linked.size())) return false;
  for (const auto& [p, bytes] : cache_.local(n, 0).pairs)
    if (d.pair_load[static_cast<std::size_t>(p)] - bytes <= 0) return false;
  return true;
}

bool RoundState::joins_exactly(std::size_t g, std::size_t b, int n) const {
  if (members_[g][b].empty()) return false;
  const int saturated = eval_[g][b].saturated_after;
  return jobs_[static_cast<std::size_t>(n)].type == JobType::rar ? saturated < n : saturated == -1;
}

GroupResult RoundState::from_demand(const GroupDemand& d) const {
  GroupResult r;
  r.idle = false;
  GroupTopology topo = build_topology(d, limits_of(fabric_));
  r.comm = topo.t_comm;
  r.circuits = std::move(topo.circuits);
  return r;
}

GroupResult RoundState::build(int g, const std::vector<int>& ids, const GroupDemand& fixed, SetEval* keep,
                              bool count) {
  if (count) ++stats_.group_rebuilds;
  GroupDemand demand = fixed;
  if (ids.empty()) {
    GroupResult r;
    r.circuits.assign(static_cast<std::size_t>(fabric_.pairs_per_group()), 0);
    if (keep) *keep = {std::move(demand), kNeverSaturated};
    return r;
  }
  const int saturated = add_ring_loads(demand, fabric_, g, ids, 0, cache_, nullptr);
  GroupResult r = from_demand(demand);
  if (keep) *keep = {std::move(demand), saturated};
  return r;
}

StageResults RoundState::build_stages(int g, const std::array<std::vector<int>, 2>& members,
                                      const std::array<GroupDemand, 2>& fixed, std::array<SetEval, 2>* keep) {
  StageResults r;
  for (int k = 0; k < 2; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    r[ki] = build(g, members[ki], fixed[ki], keep ? &(*keep)[ki] : nullptr);
    r[ki + 2] = r[ki];
  }
  return r;
}

void RoundState::rebuild_group(int g) {
  const auto gi = static_cast<std::size_t>(g);
  results_[gi] = build_stages(g, members_[gi], base_[gi], &eval_[gi]);
  diff_[gi] = reconfigures(results_[gi]);
}

void RoundState::refresh_summary() {
  for (int s = 0; s < kStages; ++s) {
    top1_[s] = top2_[s] = 0;
    top1_group_[s] = -1;
    diff_count_[s] = 0;
    for (int g = 0; g < fabric_.groups(); ++g) {
      const Seconds c = results_[static_cast<std::size_t>(g)][s].comm;
      if (top1_group_[s] < 0 || c > top1_[s]) {
        top2_[s] = top1_[s];
        top1_[s] = c;
        top1_group_[s] = g;
      } else if (c > top2_[s]) {
        top2_[s] = c;
      }
      diff_count_[s] += diff_[static_cast<std::size_t>(g)][s];
    }
  }
}

RoundState::Top2 RoundState::top2_of(const std::multiset<Seconds>& m) {
  Top2 t;
  auto it = m.rbegin();
  if (it == m.rend()) return t;
  t.first = *it++;
  if (it != m.rend()) t.second = *it;
  return t;
}

void RoundState::refresh_tops(int g) {
  for (int s = 0; s < kStages; ++s) {
    idle_top_[s] = top2_of(idle_[s]);
    group_top_[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)] =
        top2_of(group_idle_[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)]);
  }
}

Seconds RoundState::compute_after_move(const Top2& idle, const Job& j, int a, int s) {
  Seconds compute = idle.first;
  if (a != stage_k(s)) compute = idle.first != idle_compute_s(j, a, s) ? idle.first : idle.second;
  if (1 - a != stage_k(s)) compute = std::max(compute, idle_compute_s(j, 1 - a, s));
  return compute;
}

void RoundState::update_local(int g) {
  const auto gi = static_cast<std::size_t>(g);
  Seconds local = 0;
  int reconfigs = 0;
  for (int s = 0; s < kStages; ++s) {
    local += std::max(results_[gi][static_cast<std::size_t>(s)].comm, max_of(group_idle_[gi][static_cast<std::size_t>(s)]));
    reconfigs += diff_[gi][static_cast<std::size_t>(s)];
  }
  local_[gi] = local + reconfigs * fabric_.reconfig_delay_s();
  spread_total_ = 0;
  for (Seconds l : local_) spread_total_ += l;
}

}  // namespace odcn::sched::tdm4_internal
