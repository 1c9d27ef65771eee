// The executor's tasks: lowering a task to steps of flows, starting it, and waiting for its steps.
#include "engine/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "systems/inc_aoi/ps_jobs.hpp"

namespace odcn::engine::detail {

std::vector<Step> Executor::steps_of(const JobState& j, const workload::Task& t, const sched::Routing* routing,
                                     std::vector<int>* repeat) {
  const auto& pods = j.spec->endpoint_of_rank;
  const auto pod_of = [&](int rank) { return pods[static_cast<std::size_t>(rank)]; };
  std::vector<Step> steps;
  if (t.kind == TaskKind::transfer) {
    if (routing) return {routing_step(*routing)};
    const int a = pod_of(t.src), b = pod_of(t.dst);
    if (a != b && t.bytes > 0) steps.push_back({{a, b, t.bytes, path_or_fail(a, b)}});
    return steps;
  }
  if (t.kind != TaskKind::collective) return steps;
  if (routing) return {routing_step(*routing)};
  if (on_servers(j, t)) return server_steps(j, t, false);
  const int n = static_cast<int>(t.group.size());
  if (n < 2 || t.bytes <= 0) return steps;
  for (const auto& run : workload::lower_collective_runs(t.op, t.algorithm, n, t.bytes, t.root,
                                                         network_.counter_rotates(t.group, pod_of))) {
    Step s;
    s.reserve(run.flows.size());
    for (const auto& f : run.flows) {
      const int a = pod_of(t.group[static_cast<std::size_t>(f.src)]);
      const int b = pod_of(t.group[static_cast<std::size_t>(f.dst)]);
      if (a != b && f.bytes > 0) s.push_back({a, b, f.bytes, path_or_fail(a, b)});
    }
    if (s.empty()) continue;
    if (repeat) {  // run it `times` times in a row (Flight::repeat)
      steps.push_back(std::move(s));
      repeat->push_back(run.times);
    } else {
      for (int k = 1; k < run.times; ++k) steps.push_back(s);
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

/// A pod-level routing as one step: each pod's ToR volume, then the flows it sends, pods ascending.
Step Executor::routing_step(const sched::Routing& r) {
  Step s;
  std::size_t ti = 0, fi = 0;
  while (ti < r.tor.size() || fi < r.flows.size()) {
    const int pod = std::min(ti < r.tor.size() ? r.tor[ti].pod : INT_MAX, fi < r.flows.size() ? r.flows[fi].src : INT_MAX);
    for (; ti < r.tor.size() && r.tor[ti].pod == pod; ++ti) s.push_back({pod, pod, r.tor[ti].bytes, net::Path::uplink});
    for (; fi < r.flows.size() && r.flows[fi].src == pod; ++fi)
      s.push_back({pod, r.flows[fi].dst, r.flows[fi].bytes, path_or_fail(pod, r.flows[fi].dst)});
  }
  return s;
}

/// A parameter-server collective of a job placed on servers, on a fabric that models servers' NICs.
bool Executor::on_servers(const JobState& j, const workload::Task& t) const {
  return network_.server_bytes_per_s > 0 && !j.spec->server_of_rank.empty() && t.kind == TaskKind::collective &&
         (t.op == workload::CollectiveOp::ps_push || t.op == workload::CollectiveOp::ps_pull);
}

/// INC-AOI's legs of a push or pull (systems/inc_aoi/ps_jobs.hpp): the workers' NICs (one transfer per rack standing
/// for the NICs there, each of its own server, so each runs at the NIC's rate), the PS's NIC, and one flow per
/// rack pair, all in one step.
std::vector<Step> Executor::server_steps(const JobState& j, const workload::Task& t, bool inc) {
  const bool push = t.op == workload::CollectiveOp::ps_push;
  const auto legs = workload::ps_legs(t.group, t.root, t.bytes, j.spec->endpoint_of_rank, j.spec->server_of_rank, inc,
                                     j.spec->ps);
  Step s;
  for (const auto& n : legs.nics) s.push_back({n.rack, n.rack, n.bytes, net::Path::uplink, true, n.copies});
  for (const auto& leg : legs.racks) {
    std::vector<int> hops = controller_.forward_path(leg.from, leg.to);  // forwarded through ToRs, or direct
    if (hops.size() < 3) hops = {leg.from, leg.to};
    if (!push) std::reverse(hops.begin(), hops.end());
    for (std::size_t h = 0; h + 1 < hops.size(); ++h)
      s.push_back({hops[h], hops[h + 1], leg.bytes, path_or_fail(hops[h], hops[h + 1])});
  }
  if (s.empty()) return {};
  return {s};
}

/// Sends a step's flows and waits for them, except its server-NIC legs, which are a closed form (Flight::nic_s):
/// a transfer alone on a FATPIPE link at the NIC's rate takes bytes / rate, and SimGrid would spend a Comm, a
/// solver variable and a wait on each to say so. When the others provably end with one of them (stand_in), that
/// one is sent alone.
void Executor::run_step(Flight& f, const Step& step) {
  f.pairs.clear();
  f.nic_s = 0;
  std::vector<const FlowSpec*> sent;
  sent.reserve(step.size());
  for (const auto& flow : step) {
    (flow.local() ? f.tor_bytes : f.circuit_bytes) += flow.bytes * flow.copies;
    if (flow.nic) {
      f.nic_s = std::max(f.nic_s, flow.bytes / network_.server_bytes_per_s);
      continue;
    }
    sent.push_back(&flow);
  }
  FlowSpec one;
  if (const auto s = stand_in(f, sent); s.index >= 0) {
    one = *sent[static_cast<std::size_t>(s.index)];
    one.bytes = std::round(one.bytes) * s.factor;  // n_b transfers of the bytes SimGrid moves for one (whole bytes)
    sent = {&one};
    ++record_.steps_stood_in;
  }
  record_.transfers_sent += static_cast<long long>(sent.size());
  for (const auto* flow : sent) f.pairs.push_back(network_.crossed_pair(flow->src, flow->dst, flow->path));
  f.acts.assign(sent.size(), nullptr);
  run_spread(f.acts, [this, &sent](std::size_t i) { return send(*sent[i]); });
}

bool Executor::alone(const Flight& f) const {
  const JobState& j = *f.job;
  // At time 0 the scheduler may still be letting other jobs arrive, unless this job is the only one of time 0.
  return (time0_arrived_ || time0_jobs_ <= 1) && handling_ == 0 && flights_ == 1 && active_jobs_ == 1 &&
         j.ungated.empty() && j.held == 0 && wakes_.empty() && arrivals_.empty() &&
         circuits_.settled(sg4::Engine::get_clock());
}

/// A step whose transfers provably end when one of them would alone (SimPlatform::stand_in) sends that one, when
/// nothing else can share their links while they run (alone). No circuit is being set up then, so the step's
/// stall is 0 with one transfer or all of them.
SimPlatform::StandIn Executor::stand_in(const Flight& f, const std::vector<const FlowSpec*>& sent) {
  if (!options_.compact_steps || sent.size() < 2 || !alone(f)) return {};
  auto& memo = stand_in_memo_;
  // The key, flow by flow: where it goes, its bytes (whole, as SimGrid moves them: send_between rounds) and the
  // capacity of the pair it crosses now. A collective's next step usually matches the memo: nothing is copied.
  const auto key_of = [this](const FlowSpec& flow) {
    const int pair = network_.crossed_pair(flow.src, flow.dst, flow.path);
    return std::make_tuple(SimPlatform::Hop{flow.path, flow.src, flow.dst}, std::round(flow.bytes),
                           pair >= 0 ? platform_.pair_capacity(pair) : -1.0);
  };
  bool same = memo.hops.size() == sent.size();
  for (std::size_t i = 0; same && i < sent.size(); ++i) {
    const auto [hop, bytes, capacity] = key_of(*sent[i]);
    same = hop == memo.hops[i] && bytes == memo.bytes[i] && capacity == memo.capacities[i];
  }
  if (same) return memo.answer;
  memo.hops.clear();
  memo.bytes.clear();
  memo.capacities.clear();
  for (const auto* flow : sent) {
    const auto [hop, bytes, capacity] = key_of(*flow);
    memo.hops.push_back(hop);
    memo.bytes.push_back(bytes);
    memo.capacities.push_back(capacity);
  }
  memo.answer = platform_.stand_in(memo.hops, memo.bytes);
  return memo.answer;
}

/// Takes task t (ready or held) into the running state; opens the iteration if it is its first task.
Flight& Executor::admit_task(JobState& j, int t) {
  if (!j.initialized || t < 0 || t >= static_cast<int>(j.status.size()))
    throw std::logic_error(fmt::format("controller started task {} of job {}, which has not arrived or has no "
                                       "such task", t, j.spec->id));
  auto& st = j.status[static_cast<std::size_t>(t)];
  if (st != Status::ready && st != Status::held)
    throw std::logic_error(fmt::format("controller started task {} of job {} that is not ready (state {}, iteration {}, t={})", t, j.spec->id, static_cast<int>(st), j.iteration, sg4::Engine::get_clock()));
  if (st == Status::held) --j.held;
  if (st == Status::ready) {
    const auto it = std::find(j.ungated.begin(), j.ungated.end(), t);
    if (it != j.ungated.end()) j.ungated.erase(it);
  }
  st = Status::running;
  const Seconds now = sg4::Engine::get_clock();
  if (!j.open) {
    j.open = true;
    j.start_s = now;
  }
  auto f = std::make_unique<Flight>();
  f->job = &j;
  f->task = t;
  ++flights_;
  f->start_s = now;
  Flight& added = *f;
  j.flights.emplace(&added, std::move(f));
  return added;
}

/// An INC collective (Release::in_network): one stream of S per endpoint towards the root's endpoint (push)
/// and back (pull), the ToRs aggregating at line rate (INC-AOI's model, Xie et al.).
std::vector<Step> Executor::inc_steps(const JobState& j, const workload::Task& t, std::vector<int>& endpoints) {
  using workload::CollectiveOp;
  if (network_.inc_jobs <= 0) {
    fail(fmt::format("job {}: task '{}' asks for in-network aggregation, but this {} fabric has no INC-capable "
                     "ToRs (pods.inc_jobs)", j.spec->name, t.name, network_.kind));
    return {};
  }
  if (t.kind != TaskKind::collective ||
      (t.op != CollectiveOp::ps_push && t.op != CollectiveOp::ps_pull && t.op != CollectiveOp::all_reduce)) {
    fail(fmt::format("job {}: task '{}': in-network aggregation serves ps-push, ps-pull and all-reduce",
                     j.spec->name, t.name));
    return {};
  }
  const auto& pods = j.spec->endpoint_of_rank;
  const int root = pods[static_cast<std::size_t>(t.group[static_cast<std::size_t>(t.root)])];
  std::set<int> eps;
  for (int r : t.group) eps.insert(pods[static_cast<std::size_t>(r)]);
  endpoints.assign(eps.begin(), eps.end());
  if (on_servers(j, t)) return server_steps(j, t, true);
  Step push, pull;
  for (int e : eps)
    if (e != root) {
      push.push_back({e, root, t.bytes, path_or_fail(e, root)});
      pull.push_back({root, e, t.bytes, path_or_fail(root, e)});
    }
  if (push.empty()) return {};
  if (t.op == CollectiveOp::ps_push) return {push};
  if (t.op == CollectiveOp::ps_pull) return {pull};
  return {push, pull};
}

/// Takes INC slots on every endpoint of an INC collective; a ToR aggregates for at most inc_jobs jobs at once.
bool Executor::take_inc(const JobState& j, const std::vector<int>& endpoints) {
  for (int e : endpoints) {
    const auto& users = inc_in_use_[e];
    if (!users.count(j.index) && static_cast<int>(users.size()) >= network_.inc_jobs) {
      fail(fmt::format("the ToR of {} {} would aggregate for {} jobs at once; its INC capacity is {} "
                       "(pods.inc_jobs)", network_.endpoint_word, e, users.size() + 1, network_.inc_jobs));
      return false;
    }
  }
  for (int e : endpoints) ++inc_in_use_[e][j.index];
  return true;
}

void Executor::release_inc(const JobState& j, const std::vector<int>& endpoints) {
  for (int e : endpoints) {
    auto& users = inc_in_use_[e];
    if (--users[j.index] == 0) users.erase(j.index);
  }
}

void Executor::start_task(JobState& j, int t, const sched::Routing* routing, bool in_network) {
  const auto& task = task_of(j, t);
  std::vector<int> inc_endpoints;
  std::vector<Step> steps;
  std::vector<int> repeat;
  if (in_network) {
    steps = inc_steps(j, task, inc_endpoints);
    if (failed() || !take_inc(j, inc_endpoints)) return;
  } else if (task.kind != TaskKind::compute) {
    steps = steps_of(j, task, routing, &repeat);
    if (failed()) return;
  }
  Flight& f = admit_task(j, t);
  f.inc_endpoints = std::move(inc_endpoints);
  if (!in_network && task.kind == TaskKind::compute) {
    // The actor that waits for the task sleeps for it, at once (same instant): an Exec's end is recomputed
    // whenever another computation on its host starts or ends, which can move it by a rounding.
    f.sleep_s = task.duration_s;
  } else {
    f.later = std::move(steps);  // sent by the actor that waits for them (run_flight), at this same instant
    f.repeat = std::move(repeat);
  }
  Flight* fp = &f;
  if (pooled_ && f.inc_endpoints.empty() && f.sleep_s == 0 && f.later.size() == 1 && f.repeat_of(0) == 1 &&
      f.later[0].size() == 1 && !f.later[0][0].nic) {
    pooled_->push_back({&j, fp});  // one transfer: a pooled waiter sends it with others (run_pooled)
    return;
  }
  in_waiter([this, &j, fp] {
    run_flight(*fp);
    if (!fp->inc_endpoints.empty()) {  // the ToRs are free as soon as the aggregation's bytes are through
      release_inc(j, fp->inc_endpoints);
      fp->inc_endpoints.clear();
    }
    j.finished.push_back(fp);
    pump(j);
  });
}

void Executor::run_pooled(const std::vector<std::pair<JobState*, Flight*>>& pool) {
  std::vector<sg4::ActivityPtr> acts;
  std::vector<std::pair<JobState*, Flight*>> left;
  for (const auto& [j, f] : pool) {
    const FlowSpec& flow = f->later[0][0];
    (flow.local() ? f->tor_bytes : f->circuit_bytes) += flow.bytes;
    f->pairs = {network_.crossed_pair(flow.src, flow.dst, flow.path)};
    f->next = 1;
    acts.push_back(send(flow));
    left.push_back({j, f});
    ++record_.transfers_sent;
  }
  const Seconds sent_at = sg4::Engine::get_clock();
  while (!acts.empty() && !failed()) {
    const auto k = static_cast<std::size_t>(sg4::Activity::wait_any(acts));
    platform_.waited(acts[k]);
    auto [j, f] = left[k];
    f->acts = {acts[k]};
    f->end_s = settle_step(*f, sent_at, f->start_s);
    f->acts.clear();
    acts.erase(acts.begin() + static_cast<std::ptrdiff_t>(k));
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(k));
    j->finished.push_back(f);
    pump(*j);
  }
}

/// The part of [start, end] during which `pair`'s latest set-up kept added circuits dark.
void Executor::add_stall(Flight& f, int pair, Seconds start, Seconds end) const {
  const auto [lo, hi] = circuits_.stall_window(pair, start, end);
  if (hi > lo) f.stalls.push_back({lo, hi, hi - lo});
}

/// For a step whose activities have all ended: the latest end (at least `end`), with the step's dark-circuit
/// intervals added to the flight.
Seconds Executor::settle_step(Flight& f, Seconds step_start, Seconds end) const {
  for (std::size_t i = 0; i < f.acts.size(); ++i) {
    const Seconds e = f.acts[i]->get_finish_time();
    end = std::max(end, e);
    if (f.pairs[i] >= 0) add_stall(f, f.pairs[i], step_start, e);
  }
  return end;
}

/// Runs every step of f in turn (the calling actor sends and waits for them) and fills in its end and stall.
void Executor::run_flight(Flight& f) {
  Seconds end = f.start_s;
  if (f.sleep_s > 0) {
    const Seconds now = sg4::Engine::get_clock();  // the task's start, unless a waiter took it up later
    sg4::this_actor::sleep_for(now == f.start_s ? f.sleep_s : f.start_s + f.sleep_s - now);
    end = sg4::Engine::get_clock();
  }
  for (; f.next < f.later.size() && !failed(); ++f.next)
    for (int k = 0; k < f.repeat_of(f.next) && !failed(); ++k) {
      const Seconds step_start = sg4::Engine::get_clock();
      run_step(f, f.later[f.next]);
      if (failed()) break;  // (the step's activities may not all exist)
      end = settle_step(f, step_start, end);
      if (f.nic_s > 0) {  // the NIC legs end at step_start + nic_s: wait for that if the other flows ended sooner
        const Seconds nic_end = step_start + f.nic_s;
        if (nic_end > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(nic_end);
        end = std::max(end, nic_end);
      }
    }
  f.acts.clear();
  f.end_s = end;
}

}  // namespace odcn::engine::detail
