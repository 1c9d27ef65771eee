#include "systems/inc_aoi/inc_aoi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/error.hpp"

namespace odcn::sched {

const char* to_string(IncPolicy p) {
  switch (p) {
    case IncPolicy::inc_ljf: return "inc-ljf";
    case IncPolicy::inc_fcfs: return "inc-fcfs";
    case IncPolicy::noinc_ljf: return "noinc-ljf";
    case IncPolicy::noinc_fcfs: return "noinc-fcfs";
    case IncPolicy::inc_group: return "inc-group";
  }
  return "?";
}

bool parse_inc_policy(const std::string& name, IncPolicy& p) {
  for (IncPolicy q : {IncPolicy::inc_ljf, IncPolicy::inc_fcfs, IncPolicy::noinc_ljf, IncPolicy::noinc_fcfs,
                      IncPolicy::inc_group})
    if (name == to_string(q)) {
      p = q;
      return true;
    }
  return false;
}

bool uses_inc(IncPolicy p) { return p != IncPolicy::noinc_ljf && p != IncPolicy::noinc_fcfs; }
bool is_ljf(IncPolicy p) { return p != IncPolicy::inc_fcfs && p != IncPolicy::noinc_fcfs; }

namespace {
bool is_comm(const workload::Task& t) {
  return t.kind == workload::TaskKind::collective &&
         (t.op == workload::CollectiveOp::ps_push || t.op == workload::CollectiveOp::ps_pull);
}
}  // namespace

std::vector<int> ljf_order(const std::vector<workload::PsJob>& all, std::vector<int> jobs, bool by_volume) {
  const auto key = [&](int i) {
    const auto& x = all[static_cast<std::size_t>(i)];
    const double first = by_volume ? x.workers() * x.push_bytes : x.workers();
    const double second = by_volume ? x.workers() : x.push_bytes;
    return std::make_tuple(-first, -second, x.arrival_s, x.id);
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](int a, int b) { return key(a) < key(b); });
  return jobs;
}

IncAoiController::IncAoiController(const net::Network& network, int ports_per_rack,
                                   const std::vector<workload::PsJob>& jobs, IncPolicy policy, Seconds slot_s,
                                   const spec::PsSchedulerSpec& options)
    : network_(network),
      ports_(ports_per_rack),
      jobs_(jobs),
      policy_(policy),
      slot_s_(slot_s),
      options_(options),
      inc_cap_(network.inc_jobs),
      done_(jobs.size(), 0),
      server_job_(static_cast<std::size_t>(network.endpoints) * std::max(1, network.servers_per_endpoint), -1),
      need_(network.pairs.size(), 0),
      config_(network.empty_config()),
      inc_assigned_(jobs.size(), 0),
      cohort_b_(jobs.size(), 0),
      used_circuits_(jobs.size(), 0),
      gated_(jobs.size(), 0),
      inc_collectives_(jobs.size(), 0),
      ps_collectives_(jobs.size(), 0),
      admitted_s_(jobs.size(), -1) {
  if (uses_inc(policy) && inc_cap_ <= 0)
    throw ConfigError(fmt::format("policy {} aggregates in the ToRs, but the platform's ToRs cannot (pods.inc_jobs "
                                  "is 0); use noinc-ljf or noinc-fcfs, or set pods.inc_jobs",
                                  to_string(policy)));
  for (const auto& j : jobs) {
    // The rack pairs the job streams over: those of its pushes with INC (when the policy may give it) and
    // without (where its parameter server sits), with the bytes of each.
    // A pair's bytes are those of its busier direction on duplex circuits, of both directions otherwise.
    std::map<int, Pair> by_pair;
    for (const bool inc : {false, true}) {
      if (inc && !uses_inc(policy)) continue;
      std::map<std::pair<int, int>, Bytes> directed;
      for (const auto& leg : workload::job_legs(j, inc).racks) directed[{leg.from, leg.to}] += leg.bytes;
      for (const auto& [ends, bytes] : directed) {
        const auto [from, to] = ends;
        const int p = network.pair_index(from, to);
        if (p < 0)
          throw ConfigError(fmt::format("job {} streams between racks {} and {}, which no circuit can join "
                                        "(different OXC groups)", j.name, from, to));
        auto& pair = by_pair.emplace(p, Pair{p, 0, 0}).first->second;
        Bytes& b = inc ? pair.inc_bytes : pair.ps_bytes;
        const auto back = directed.find({to, from});
        const Bytes other = back == directed.end() ? 0 : back->second;
        b = network.full_duplex ? std::max(bytes, other) : bytes + other;
      }
    }
    std::map<int, int> degree;
    for (const auto& [p, pair] : by_pair) {
      ++degree[network.pairs[static_cast<std::size_t>(p)].first];
      ++degree[network.pairs[static_cast<std::size_t>(p)].second];
    }
    for (const auto& [rack, d] : degree)
      if (d > ports_)
        throw ConfigError(fmt::format("job {} needs circuits from rack {} to {} other racks, more than its ToR's {} "
                                      "ports", j.name, rack, d, ports_));
    std::vector<Pair> pairs;
    for (const auto& [p, pair] : by_pair) pairs.push_back(pair);
    std::vector<int> racks;
    for (const auto& [rack, n] : j.workers_per_rack()) racks.push_back(rack);
    pairs_.push_back(std::move(pairs));
    racks_.push_back(std::move(racks));
    servers_.push_back(workload::servers_of(j));
    busiest_nic_.emplace_back(workload::busiest_nic_bytes(j, false), workload::busiest_nic_bytes(j, true));
  }
  iterations_done_.assign(jobs.size(), 0);
  build_base();
  config_ = base_;
}

Bytes IncAoiController::pair_bytes(int job, const Pair& p) const {
  return inc_assigned_[static_cast<std::size_t>(job)] ? p.inc_bytes : p.ps_bytes;
}

/// The rate at which job's stream over pair p can flow at most: its bytes over the time its busiest NIC needs
/// (the PS's NIC without INC, (W - 1)·S; every NIC carries S with INC), so that circuits beyond it stay idle.
double IncAoiController::stream_rate(int job, const Pair& p) const {
  const auto& busiest = busiest_nic_[static_cast<std::size_t>(job)];
  return pair_bytes(job, p) * network_.server_bytes_per_s /
         (inc_assigned_[static_cast<std::size_t>(job)] ? busiest.second : busiest.first);
}

/// Whether the job may stream over p now. Under LJF every pair of it (with INC and through its PS): its INC is
/// re-decided every slot, and the admission counted ports for all of them, so a change of INC never asks for a
/// port the rack lacks. Under FCFS, which holds INC for a job's whole run (its ToRs then always have room for its
/// collectives), the pairs of its mode.
bool IncAoiController::in_use(int job, const Pair& p) const {
  if (is_ljf(policy_)) return true;
  return inc_assigned_[static_cast<std::size_t>(job)] ? p.inc_bytes > 0 : p.ps_bytes > 0;
}

/// A collective of the job would run (through its PS, or with INC) over a rack pair without a circuit, where it
/// would crawl at a dark circuit's 1 B/s: the rules above never let that happen.
void IncAoiController::check_circuits(int job, bool inc) const {
  for (const auto& p : pairs_[static_cast<std::size_t>(job)])
    if ((inc ? p.inc_bytes : p.ps_bytes) > 0 && config_.circuits[static_cast<std::size_t>(p.index)] == 0 &&
        !forwarded_[static_cast<std::size_t>(p.index)])
      throw std::logic_error(fmt::format("{}: job {} would stream over rack pair {} without a circuit",
                                         to_string(policy_), jobs_[static_cast<std::size_t>(job)].name, p.index));
}

/// Adds delta to need_ for every rack pair the job may stream over now (in_use).
void IncAoiController::count_pairs(int job, int delta) {
  for (const auto& p : pairs_[static_cast<std::size_t>(job)])
    if (in_use(job, p)) {
      need_[static_cast<std::size_t>(p.index)] += delta;
      if (delta > 0) used_circuits_[static_cast<std::size_t>(job)] = 1;
    }
}

bool IncAoiController::blocks(int job, int reserved) const {
  const auto& theirs = servers_[static_cast<std::size_t>(reserved)];
  for (int s : servers_[static_cast<std::size_t>(job)])
    if (std::find(theirs.begin(), theirs.end(), s) != theirs.end()) return true;
  return false;
}

int IncAoiController::spanning_jobs() const {
  return static_cast<int>(std::count(used_circuits_.begin(), used_circuits_.end(), 1));
}

bool IncAoiController::servers_free(int job) const {
  for (int s : servers_[static_cast<std::size_t>(job)])
    if (server_job_[static_cast<std::size_t>(s)] >= 0) return false;
  return true;
}

int IncAoiController::circuits_at(const net::CircuitConfig& c, int rack, bool in_use_only) const {
  int d = 0;
  for (std::size_t p = 0; p < c.circuits.size(); ++p)
    if ((!in_use_only || need_[p] > 0 || base_.circuits[p] > 0) &&
        (network_.pairs[p].first == rack || network_.pairs[p].second == rack))
      d += c.circuits[p];
  return d;
}

bool IncAoiController::inc_room(int job) const {
  for (int rack : racks_[static_cast<std::size_t>(job)]) {
    const auto it = inc_holders_.find(rack);
    if (it != inc_holders_.end() && static_cast<int>(it->second.size()) >= inc_cap_) return false;
  }
  return true;
}

bool IncAoiController::can_inc_now(int job) const {
  if (!inc_assigned_[static_cast<std::size_t>(job)]) return false;
  for (int rack : racks_[static_cast<std::size_t>(job)]) {
    const auto it = inc_flight_.find(rack);
    if (it == inc_flight_.end()) continue;
    if (static_cast<int>(it->second.size()) - static_cast<int>(it->second.count(job)) >= inc_cap_) return false;
  }
  return true;
}

void IncAoiController::hold_inc(int job) {
  inc_assigned_[static_cast<std::size_t>(job)] = 1;
  for (int rack : racks_[static_cast<std::size_t>(job)]) inc_holders_[rack].insert(job);
}

bool IncAoiController::decide_inc(int job) {
  const bool inc = can_inc_now(job);
  if (inc) note_inc_flight(job);
  check_circuits(job, inc);
  ++(inc ? inc_collectives_ : ps_collectives_)[static_cast<std::size_t>(job)];
  return inc;
}

void IncAoiController::start(int job, Seconds now, Actions& act) {
  running_.insert(job);
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), job));
  for (int s : servers_[static_cast<std::size_t>(job)]) server_job_[static_cast<std::size_t>(s)] = job;
  count_pairs(job, +1);
  admitted_s_[static_cast<std::size_t>(job)] = now;
  act.admit(job);
}

void IncAoiController::admit_ljf(std::vector<int>& admitted) {
  // Ports each rack needs: the base topology's, and one circuit per rack pair in use that is not forwarded. With
  // a base ring a new pair needs no port: it is forwarded until a circuit of its own pays back.
  const std::vector<int> committed = committed_ports();
  std::map<int, int> deg;
  for (int r = 0; r < network_.endpoints; ++r) deg[r] = committed[static_cast<std::size_t>(r)];
  std::vector<char> used(need_.size(), 0);
  for (std::size_t p = 0; p < need_.size(); ++p) used[p] = need_[p] > 0 || base_.circuits[p] > 0 || forwards_;
  // With a reservation, the first job in LJF order that cannot start keeps its servers and the ports it lacks:
  // a job behind it starts only if it uses none of those servers and adds no circuit at a rack short of ports.
  int reserved = -1;
  std::set<int> short_racks;
  for (int j : ljf_order(jobs_, waiting_, options_.ljf_by_volume)) {
    if (reserved >= 0 && blocks(j, reserved)) continue;
    if (!servers_free(j)) {
      if (options_.reserve && reserved < 0) reserved = j;
      continue;
    }
    std::map<int, int> extra;
    for (const auto& p : pairs_[static_cast<std::size_t>(j)])
      if (!used[static_cast<std::size_t>(p.index)]) {
        ++extra[network_.pairs[static_cast<std::size_t>(p.index)].first];
        ++extra[network_.pairs[static_cast<std::size_t>(p.index)].second];
      }
    bool fits = true;
    for (const auto& [rack, n] : extra) fits = fits && deg[rack] + n <= ports_ && !short_racks.count(rack);
    if (!fits) {
      if (options_.reserve && reserved < 0) {
        reserved = j;
        for (const auto& [rack, n] : extra)
          if (deg[rack] + n > ports_) short_racks.insert(rack);
      }
      continue;
    }
    for (const auto& [rack, n] : extra) deg[rack] += n;
    for (const auto& p : pairs_[static_cast<std::size_t>(j)]) used[static_cast<std::size_t>(p.index)] = 1;
    for (int s : servers_[static_cast<std::size_t>(j)]) server_job_[static_cast<std::size_t>(s)] = j;
    admitted.push_back(j);
  }
}

void IncAoiController::admit_fcfs(std::vector<int>& admitted, net::CircuitConfig& next) {
  for (std::size_t k = 0; k < waiting_.size(); ++k) {
    const int j = waiting_[k];
    if (!servers_free(j)) {  // head-of-line blocking
      slots_.back().blocked = "servers";
      return;
    }
    // INC for its whole run if every ToR of its racks has room; its pairs are those of that mode. Ports a rack
    // can still give: free ones, and those of circuits no running job (nor this one) uses.
    const bool inc = uses_inc(policy_) && inc_room(j);
    inc_assigned_[static_cast<std::size_t>(j)] = inc;
    count_pairs(j, +1);
    decide_forwarding(next, j);  // with a base ring, its new pairs are forwarded unless a circuit pays back
    std::map<int, int> want;
    for (const auto& p : pairs_[static_cast<std::size_t>(j)])
      if (in_use(j, p) && needs_circuit(static_cast<std::size_t>(p.index)) &&
          next.circuits[static_cast<std::size_t>(p.index)] == 0) {
        ++want[network_.pairs[static_cast<std::size_t>(p.index)].first];
        ++want[network_.pairs[static_cast<std::size_t>(p.index)].second];
      }
    for (const auto& [rack, n] : want)
      if (ports_ - circuits_at(next, rack, true) < n) {
        count_pairs(j, -1);
        inc_assigned_[static_cast<std::size_t>(j)] = 0;
        slots_.back().blocked = "ports";
        return;  // head-of-line blocking
      }
    // Started, with the circuits that carry its streams at its NICs' rate, as far as ports go (reclaiming
    // circuits no running job uses).
    for (int s : servers_[static_cast<std::size_t>(j)]) server_job_[static_cast<std::size_t>(s)] = j;
    if (inc) hold_inc(j);
    const auto take_port = [&](int rack) {
      if (circuits_at(next, rack, false) < ports_) return true;
      for (std::size_t p = 0; p < need_.size(); ++p)
        if (need_[p] == 0 && next.circuits[p] > base_.circuits[p] &&  // (a base circuit stays)
            (network_.pairs[p].first == rack || network_.pairs[p].second == rack)) {
          --next.circuits[p];
          return true;
        }
      return false;
    };
    // First a circuit for each of its pairs that has none (the check above found the ports), then one more per
    // pair in turn until each carries its stream at its NICs' rate or the ports run out.
    std::vector<std::pair<int, int>> targets;  // (pair, circuits wanted)
    for (const auto& p : pairs_[static_cast<std::size_t>(j)]) {
      if (!in_use(j, p) || !needs_circuit(static_cast<std::size_t>(p.index))) continue;
      targets.emplace_back(p.index, std::max(1, static_cast<int>(std::ceil(stream_rate(j, p) / network_.circuit_bytes_per_s - 1e-9))));
    }
    const auto add = [&](int p) {
      const auto [a, b] = network_.pairs[static_cast<std::size_t>(p)];
      if (!take_port(a)) return false;
      if (!take_port(b)) return false;
      ++next.circuits[static_cast<std::size_t>(p)];
      return true;
    };
    for (const auto& [p, want] : targets)
      if (next.circuits[static_cast<std::size_t>(p)] == 0 && !add(p))
        throw std::logic_error("inc-aoi fcfs: a checked port was not free");
    for (bool more = true; more;) {
      more = false;
      for (const auto& [p, want] : targets)
        if (next.circuits[static_cast<std::size_t>(p)] < want && add(p)) more = true;
    }
    waiting_[k] = -1;  // started (removed from waiting_ by the caller)
    admitted.push_back(j);
  }
}

void IncAoiController::assign_inc_ljf() {
  std::fill(inc_assigned_.begin(), inc_assigned_.end(), 0);
  inc_holders_.clear();
  if (!uses_inc(policy_)) return;
  for (int j : ljf_order(jobs_, {running_.begin(), running_.end()}, options_.ljf_by_volume))
    if (inc_room(j)) hold_inc(j);
}

net::CircuitConfig IncAoiController::spread(const std::vector<int>& favoured) const {
  // One circuit per pair in use, then each spare port to the pair with the most bytes per circuit (of the
  // favoured jobs), up to the circuits its streams can fill at their NICs' rate.
  net::CircuitConfig c = base_;
  std::vector<int> deg(static_cast<std::size_t>(network_.endpoints), 0);
  for (int r = 0; r < network_.endpoints; ++r) deg[static_cast<std::size_t>(r)] = circuits_at(base_, r, false);
  for (std::size_t p = 0; p < need_.size(); ++p)
    if (needs_circuit(p) && c.circuits[p] == 0) {
      c.circuits[p] = 1;
      ++deg[static_cast<std::size_t>(network_.pairs[p].first)];
      ++deg[static_cast<std::size_t>(network_.pairs[p].second)];
    }
  std::map<int, double> bytes, rate;
  for (int j : favoured)
    for (const auto& p : pairs_[static_cast<std::size_t>(j)]) {
      bytes[p.index] += pair_bytes(j, p);
      rate[p.index] += stream_rate(j, p);
    }
  using Entry = std::tuple<double, int>;  // bytes per circuit, -pair
  std::priority_queue<Entry> heap;
  for (const auto& [p, b] : bytes)
    if (c.circuits[static_cast<std::size_t>(p)] > 0) heap.emplace(b, -p);
  while (!heap.empty()) {
    const int p = -std::get<1>(heap.top());
    heap.pop();
    const auto [a, b] = network_.pairs[static_cast<std::size_t>(p)];
    auto& n = c.circuits[static_cast<std::size_t>(p)];
    const int useful = static_cast<int>(std::ceil(rate[p] / network_.circuit_bytes_per_s - 1e-9));
    if (n >= useful || deg[static_cast<std::size_t>(a)] >= ports_ || deg[static_cast<std::size_t>(b)] >= ports_) continue;
    ++n;
    ++deg[static_cast<std::size_t>(a)];
    ++deg[static_cast<std::size_t>(b)];
    heap.emplace(bytes[p] / (n + 1), -p);
  }
  return c;
}

void IncAoiController::apply(net::CircuitConfig next, Seconds now, const std::string& why, Actions& act) {
  for (std::size_t p = 0; p < need_.size(); ++p)
    if ((needs_circuit(p) || base_.circuits[p] > 0) && next.circuits[p] == 0)
      throw std::logic_error(fmt::format("{}: a rack pair in use would lose its last circuit at {} s", to_string(policy_), now));
  int changed = 0;
  for (std::size_t p = 0; p < next.circuits.size(); ++p) changed += std::abs(next.circuits[p] - config_.circuits[p]);
  slots_.back().circuits_changed = changed;
  if (changed == 0) return;
  ++reconfigurations_;
  config_ = next;
  act.configure(std::move(next), fmt::format("{} at {:.3f} s: {}", to_string(policy_), now, why));
}

void IncAoiController::plan(Seconds now, Actions& act, bool rotation) {
  slots_.push_back({});
  slots_.back().time_s = now;
  const net::CircuitConfig before = config_;
  std::vector<int> admitted;
  if (!rotation) {
    if (is_ljf(policy_)) {
      admit_ljf(admitted);
      for (int j : admitted) start(j, now, act);  // (admit_ljf took their servers already)
      assign_inc_ljf();  // (a running job holds all its pairs whatever INC it gets: in_use)
      decide_forwarding(config_);  // LJF step 4: a forwarded bottleneck gets a circuit when it pays back
      bool missing = false;
      for (std::size_t p = 0; p < need_.size(); ++p) missing = missing || (needs_circuit(p) && config_.circuits[p] == 0);
      if (policy_ == IncPolicy::inc_group) join_cohorts(admitted);
      if (missing) {
        std::vector<int> favoured;
        for (int j : running_)
          if (policy_ != IncPolicy::inc_group || cohort_b_[static_cast<std::size_t>(j)] == turn_b_) favoured.push_back(j);
        apply(spread(favoured), now, fmt::format("{} jobs started; circuits for their rack pairs", admitted.size()), act);
      }
    } else {
      auto next = config_;
      admit_fcfs(admitted, next);
      waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), -1), waiting_.end());
      for (int j : admitted) {
        running_.insert(j);
        admitted_s_[static_cast<std::size_t>(j)] = now;
        act.admit(j);
      }
      apply(next, now, fmt::format("{} jobs started; circuits for their streams", admitted.size()), act);
    }
  } else {
    std::vector<int> favoured;
    for (int j : running_)
      if (cohort_b_[static_cast<std::size_t>(j)] == turn_b_) favoured.push_back(j);
    apply(spread(favoured), now, fmt::format("cohort {}'s turn", turn_b_ ? 'B' : 'A'), act);
  }
  SlotRecord& rec = slots_.back();
  for (int j : admitted) {
    const auto& pairs = pairs_[static_cast<std::size_t>(j)];
    rec.spanning_started += std::any_of(pairs.begin(), pairs.end(), [&](const Pair& p) { return in_use(j, p); });
    rec.allocations += std::any_of(pairs.begin(), pairs.end(), [&](const Pair& p) {
      const auto i = static_cast<std::size_t>(p.index);
      return in_use(j, p) && config_.circuits[i] > before.circuits[i];
    });
  }
  rec.waiting = static_cast<int>(waiting_.size());
  rec.running = static_cast<int>(running_.size());
  rec.admitted = static_cast<int>(admitted.size());
  for (int j : running_) rec.inc_assigned += inc_assigned_[static_cast<std::size_t>(j)];
  for (const auto& [rack, js] : inc_flight_) rec.inc_max_per_tor = std::max(rec.inc_max_per_tor, static_cast<int>(js.size()));
  for (int c : config_.circuits) rec.circuits_lit += c;
  if (policy_ == IncPolicy::inc_group) rec.cohort = turn_b_ ? "B" : "A";
}

/// inc-group (§III b step 1): started jobs join the cohorts alternately, starting with the smaller cohort, in the
/// order of their computation/communication ratio (group_cohorts: ratio, so both cohorts hold comparable ratios)
/// or of their arrival (group_cohorts: arrival).
void IncAoiController::join_cohorts(const std::vector<int>& admitted) {
  std::vector<std::tuple<double, double, int>> order;  // (ratio or 0, arrival, job)
  for (int j : admitted) {
    const auto& job = jobs_[static_cast<std::size_t>(j)];
    const double ratio = job.compute_s / (2 * job.push_bytes / network_.server_bytes_per_s);
    order.emplace_back(options_.group_by_arrival ? 0.0 : ratio, job.arrival_s, j);
  }
  std::sort(order.begin(), order.end());
  int next = cohort_size_[1] < cohort_size_[0] ? 1 : 0;
  for (const auto& entry : order) {
    const int j = std::get<2>(entry);
    cohort_b_[static_cast<std::size_t>(j)] = static_cast<char>(next);
    ++cohort_size_[static_cast<std::size_t>(next)];
    next = 1 - next;
  }
}

void IncAoiController::note_inc_flight(int job) {
  for (int rack : racks_[static_cast<std::size_t>(job)]) {
    inc_flight_[rack].insert(job);
    const int n = static_cast<int>(inc_flight_[rack].size());
    peak_inc_ = std::max(peak_inc_, n);
    if (!slots_.empty()) slots_.back().inc_max_per_tor = std::max(slots_.back().inc_max_per_tor, n);
  }
}

void IncAoiController::on_start(Seconds /*now*/, Actions& /*act*/) {}

Seconds IncAoiController::tick_time(long tick) const {
  if (policy_ != IncPolicy::inc_group) return static_cast<double>(tick) * slot_s_;
  return static_cast<double>(tick / 2) * slot_s_ + (tick % 2 == 1 ? options_.group_delay * slot_s_ : 0.0);
}

long IncAoiController::first_tick_at(Seconds now) const {
  const long per_slot = policy_ == IncPolicy::inc_group ? 2 : 1;
  long tick = per_slot * static_cast<long>(std::floor(now / slot_s_));
  while (tick_time(tick) < now - 1e-12 * std::max(1.0, now)) ++tick;
  return tick;
}

void IncAoiController::on_timer(Seconds now, Actions& act) {
  const bool group = policy_ == IncPolicy::inc_group;
  const bool rotation = group && tick_ % 2 == 1;  // the second half of a slot
  turn_b_ = group && rotation;
  plan(now, act, rotation);
  if (group) {  // the pushes of the cohort whose turn begins
    std::vector<TaskRef> still;
    for (const auto& ref : held_) {
      if (cohort_b_[static_cast<std::size_t>(ref.job)] != turn_b_) {
        still.push_back(ref);
        continue;
      }
      act.release({ref.job, ref.task, nullptr, decide_inc(ref.job)});
    }
    held_ = std::move(still);
  }
  ++tick_;
  waking_ = finished_ < static_cast<int>(jobs_.size());
  if (waking_) act.wake_at(tick_time(tick_));
}

bool IncAoiController::on_arrival(int job, Seconds now, Actions& act) {
  waiting_.push_back(job);  // started at the start of a slot: this instant if it is one, else the next
  if (!waking_) {
    waking_ = true;
    tick_ = std::max(tick_, first_tick_at(now));
    act.wake_at(tick_time(tick_));
  }
  return false;
}

void IncAoiController::on_job_done(int job, Seconds /*now*/, Actions& /*act*/) {
  done_[static_cast<std::size_t>(job)] = 1;
  ++finished_;
  running_.erase(job);
  for (int s : servers_[static_cast<std::size_t>(job)]) server_job_[static_cast<std::size_t>(s)] = -1;
  count_pairs(job, -1);
  for (auto& [rack, js] : inc_holders_) js.erase(job);
  inc_assigned_[static_cast<std::size_t>(job)] = 0;
  if (policy_ == IncPolicy::inc_group) --cohort_size_[static_cast<std::size_t>(cohort_b_[static_cast<std::size_t>(job)])];
}

Controller::Gate IncAoiController::on_task_ready(const TaskRef& ref, const workload::Task& task, Seconds /*now*/,
                                                 Actions& /*act*/) {
  if (!is_comm(task)) return {};
  const auto j = static_cast<std::size_t>(ref.job);
  if (policy_ == IncPolicy::inc_group && task.op == workload::CollectiveOp::ps_push) {
    // Gated to its cohort's turn: every push, or (group_gate once) only the job's first.
    const bool first = !gated_[j];
    gated_[j] = 1;
    if ((options_.group_every_iteration || first) && cohort_b_[j] != turn_b_) {
      held_.push_back(ref);
      return {true, nullptr, false};
    }
  }
  return {false, nullptr, decide_inc(ref.job)};
}

void IncAoiController::on_task_done(const TaskRef& ref, const workload::Task& task, Seconds /*start*/,
                                    Seconds /*end*/, Actions& /*act*/) {
  if (!is_comm(task)) return;
  for (int rack : racks_[static_cast<std::size_t>(ref.job)]) {  // (note_inc_flight put it in these racks only)
    const auto it = inc_flight_.find(rack);
    if (it != inc_flight_.end()) it->second.erase(ref.job);
  }
  if (task.op == workload::CollectiveOp::ps_pull) ++iterations_done_[static_cast<std::size_t>(ref.job)];
}

}  // namespace odcn::sched
