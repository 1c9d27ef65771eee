// The executor's batches: tasks released together, whose single-step transfers that share a path travel as one
// aggregate, created and waited for by one waiter per pod (more when a pod has many: run_spread).
#include "engine/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

namespace odcn::engine::detail {

void Executor::start_batch(const std::vector<sched::Release>& releases) {
  auto batch = std::make_shared<Batch>();
  for (const auto& r : releases) {
    JobState& j = jobs_.at(static_cast<std::size_t>(r.job));
    const auto& task = task_of(j, r.task);
    if (task.kind != TaskKind::compute) {
      if (r.in_network) {  // INC: the ToRs aggregate it; not part of the batch's aggregates
        start_task(j, r.task, r.routing, true);
        if (failed()) return;
        continue;
      }
      auto steps = steps_of(j, task, r.routing);
      if (failed()) return;
      const bool capped = !steps.empty() && std::any_of(steps[0].begin(), steps[0].end(), [](const FlowSpec& f) { return f.nic; });
      if (steps.size() > 1 || capped) {  // several steps, or NICs: not an aggregate; runs on its own
        start_task(j, r.task, r.routing);
        continue;
      }
      Flight& f = admit_task(j, r.task);
      batch->members.push_back({&j, &f, steps.empty() ? Step{} : std::move(steps[0])});
      for (const auto& flow : batch->members.back().step) {
        if (flow.uplink()) batch->uplink[flow.src] += flow.bytes;
        else batch->circuit[{flow.src, flow.dst}] += flow.bytes;
      }
    } else {
      Flight& f = admit_task(j, r.task);
      batch->members.push_back({&j, &f, {}});
      if (task.duration_s > 0) {
        const int rank = task.rank == workload::kAllRanks ? 0 : task.rank;
        batch->computes[j.spec->endpoint_of_rank[static_cast<std::size_t>(rank)]].emplace_back(
            batch->members.size() - 1, task.duration_s);
      }
    }
  }
  std::set<int> pods;
  for (const auto& [key, b] : batch->circuit) pods.insert(key.first);
  for (const auto& [p, b] : batch->uplink) pods.insert(p);
  for (const auto& [p, list] : batch->computes) pods.insert(p);
  if (pods.empty()) {
    complete_batch(*batch);
    return;
  }
  // Each pod's activities are created and waited for in a waiter of their own (spread further when there are
  // many: run_spread); the batch ends with the last pod's.
  batch->pending = static_cast<int>(pods.size());
  for (int p : pods) {
    in_waiter([this, batch, p] {
      run_pod(*batch, p);
      if (--batch->pending == 0 && !failed()) complete_batch(*batch);
    });
    if (failed()) return;
  }
}

/// One pod's activities of a batch: its transfers (each aggregate a circuit or uplink carries), then its
/// computations; returns when they have all ended.
void Executor::run_pod(Batch& b, int p) {
  std::vector<std::pair<int, int>> circuits;  // (p, destination) keys, in order
  for (auto it = b.circuit.lower_bound({p, INT_MIN}); it != b.circuit.end() && it->first.first == p; ++it)
    circuits.push_back(it->first);
  const auto u = b.uplink.find(p);
  const auto c = b.computes.find(p);
  const std::size_t n_uplink = u != b.uplink.end() ? 1 : 0;
  const std::size_t n_compute = c != b.computes.end() ? c->second.size() : 0;
  std::vector<sg4::ActivityPtr> acts(circuits.size() + n_uplink + n_compute);
  std::vector<net::Path> paths;
  for (const auto& key : circuits) paths.push_back(path_or_fail(key.first, key.second));
  if (failed()) return;
  const auto make = [&](std::size_t i) -> sg4::ActivityPtr {
    if (i < circuits.size()) {
      const auto key = circuits[i];
      return platform_.send(paths[i], key.first, key.second, b.circuit.at(key));
    }
    if (i < circuits.size() + n_uplink) return platform_.send_to_tor(p, u->second);
    const auto& [m, seconds] = c->second[i - circuits.size() - n_uplink];
    auto exec = sg4::Exec::init();
    exec->set_host(platform_.pod_host(p));
    exec->set_flops_amount(seconds);
    exec->start();
    return exec;
  };
  run_spread(acts, make);
  if (failed()) return;
  for (std::size_t i = 0; i < circuits.size(); ++i) b.circuit_act[circuits[i]] = acts[i];
  if (n_uplink) b.uplink_act[p] = acts[circuits.size()];
  for (std::size_t k = 0; k < n_compute; ++k) {
    Flight& f = *b.members[c->second[k].first].f;
    f.acts.push_back(acts[circuits.size() + n_uplink + k]);
    f.pairs.push_back(-1);
  }
}

/// The batch has ended: each task's end is when its own activities ended (its stall, when its circuits'
/// set-up overlapped them); the controller hears of them now, in the order they were released.
void Executor::complete_batch(Batch& b) {
  for (auto& m : b.members)
    for (const auto& flow : m.step) {
      if (flow.uplink()) {
        m.f->acts.push_back(b.uplink_act.at(flow.src));
        m.f->pairs.push_back(-1);
        m.f->tor_bytes += flow.bytes;
      } else {
        m.f->acts.push_back(b.circuit_act.at({flow.src, flow.dst}));
        m.f->pairs.push_back(network_.crossed_pair(flow.src, flow.dst, flow.path));
        (flow.local() ? m.f->tor_bytes : m.f->circuit_bytes) += flow.bytes;
      }
    }
  for (auto& m : b.members) {
    Flight& f = *m.f;
    f.end_s = settle_step(f, f.start_s, f.start_s);
    f.acts.clear();
  }
  for (auto& m : b.members) m.j->finished.push_back(m.f);
  for (auto& m : b.members) {
    if (stopped_) return;
    pump(*m.j);
  }
}

}  // namespace odcn::engine::detail
