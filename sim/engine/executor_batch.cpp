// The executor's batches: tasks released together, whose single-step transfers that share a path travel as one
// aggregate, created by per-pod issuer actors.
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
    finish_batch(batch);
    return;
  }
  // Each pod's activities are created by that pod's issuer actor: SimGrid 3.32 keeps an actor's activities
  // in a list it scans whenever one of them ends, so one actor creating a whole stage's would be quadratic.
  batch->pending = static_cast<int>(pods.size());
  for (int p : pods) issuer(p).put([this, batch, p] { issue_pod(batch, p); });
}

/// One pod's activities of a batch, created by that pod's issuer actor.
void Executor::issue_pod(const std::shared_ptr<Batch>& batch, int p) {
  Batch& b = *batch;
  auto& mine = b.pod_acts[p];
  for (auto it = b.circuit.lower_bound({p, INT_MIN}); it != b.circuit.end() && it->first.first == p; ++it) {
    b.circuit_act[it->first] = platform_.send(path_or_fail(p, it->first.second), p, it->first.second, it->second);
    mine.push_back(b.circuit_act[it->first]);
  }
  if (const auto c = b.computes.find(p); c != b.computes.end())
    for (const auto& [m, seconds] : c->second) {
      auto exec = sg4::Exec::init();
      exec->set_host(platform_.pod_host(p));
      exec->set_flops_amount(seconds);
      exec->start();
      b.members[m].f->acts.push_back(exec);
      b.members[m].f->pairs.push_back(-1);
      mine.push_back(exec);
    }
  if (const auto u = b.uplink.find(p); u != b.uplink.end()) {
    b.uplink_act[p] = platform_.send_to_tor(p, u->second);
    mine.push_back(b.uplink_act[p]);
  }
  if (--b.pending == 0) finish_batch(batch);
}

/// Every activity of the batch exists: hand each task its own (shared) ones; one waiter per pod waits for
/// that pod's activities (each activity is waited for once, however many tasks share it).
void Executor::finish_batch(const std::shared_ptr<Batch>& batch) {
  Batch& b = *batch;
  for (auto& m : b.members)
    for (const auto& flow : m.step) {
      if (flow.uplink()) {
        m.f->acts.push_back(b.uplink_act.at(flow.src));
        m.f->pairs.push_back(-1);
        m.f->tor_bytes += flow.bytes;
      } else {
        m.f->acts.push_back(b.circuit_act.at({flow.src, flow.dst}));
        m.f->pairs.push_back(flow.path == net::Path::circuit ? network_.pair_index(flow.src, flow.dst) : -1);
        (flow.local() ? m.f->tor_bytes : m.f->circuit_bytes) += flow.bytes;
      }
    }
  if (b.pod_acts.empty()) {
    complete_batch(b);
    return;
  }
  b.pending = static_cast<int>(b.pod_acts.size());
  for (auto& [pod, acts] : b.pod_acts) {
    auto* list = &acts;
    in_waiter([this, batch, list] {
      for (auto& a : *list) a->wait();
      if (--batch->pending == 0) complete_batch(*batch);
    });
  }
}

/// The batch has ended: each task's end is when its own activities ended (its stall, when its circuits'
/// set-up overlapped them); the controller hears of them now, in the order they were released.
void Executor::complete_batch(Batch& b) {
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

Inbox<std::function<void()>>& Executor::issuer(int pod) {
  auto& slot = issuers_[pod];
  if (!slot) {
    slot = std::make_unique<Inbox<std::function<void()>>>();
    auto* inbox = slot.get();
    sg4::Actor::create(fmt::format("issuer-{}", pod), platform_.control_host(), [this, inbox] {
      guarded([&] {
        while (true) inbox->take()();
      });
    })->daemonize();
  }
  return *slot;
}

}  // namespace odcn::engine::detail
