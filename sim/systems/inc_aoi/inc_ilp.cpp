#include "systems/inc_aoi/inc_ilp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "policy/milp.hpp"

// The one-slot model of the header, as an ILP over CBC (policy/milp.hpp), an evaluator of any decision and a
// brute force over decisions that shares only the evaluator (not the ILP) with it.
namespace odcn::sched::inc_ilp {

int SlotJob::workers() const {
  int w = 0;
  for (const auto& [rack, n] : workers_per_rack) w += n;
  return w;
}

int SlotProblem::pair(int a, int b) const {
  if (a > b) std::swap(a, b);
  return a * racks - a * (a + 1) / 2 + (b - a - 1);
}

SlotProblem slot_problem(const net::Network& network, int ports_per_rack, const std::vector<workload::PsJob>& jobs,
                         Seconds slot_s) {
  if (!network.full_duplex || network.server_bytes_per_s <= 0)
    throw ConfigError("the one-slot model needs duplex circuits (ocs.duplex: full) and servers with NICs");
  SlotProblem pb;
  pb.racks = network.endpoints;
  pb.ports = ports_per_rack;
  pb.inc_jobs = network.inc_jobs;
  pb.circuit_bytes_per_s = network.circuit_bytes_per_s;
  pb.server_bytes_per_s = network.server_bytes_per_s;
  pb.reconfig_delay_s = network.reconfig_delay_s;
  pb.slot_s = slot_s;
  for (const auto& j : jobs) {
    if (j.ps.mode != spec::PsServer::colocated)
      throw ConfigError(fmt::format("the one-slot model puts a job's parameter server on rank 0's server "
                                    "(ps_server: colocated); job {} has it {}", j.name, spec::to_string(j.ps.mode)));
    pb.jobs.push_back({j.workers_per_rack(), j.root_rack(), j.push_bytes, j.compute_s, j.iterations, j.server_of_rank});
  }
  return pb;
}

std::vector<JobPair> job_pairs(const SlotProblem& pb, int j) {
  const auto& job = pb.jobs[static_cast<std::size_t>(j)];
  std::vector<JobPair> out;
  for (const auto& [rack, n] : job.workers_per_rack)
    if (rack != job.root) out.push_back({pb.pair(rack, job.root), rack, n});
  return out;
}

namespace {

Seconds nic_time(const SlotProblem& pb, const SlotJob& j, bool inc) {
  return (inc ? 1 : j.workers() - 1) * j.push_bytes / pb.server_bytes_per_s;
}

/// D_jp(y) / (u·B/g): one pair leg of a push.
Seconds pair_time(const SlotProblem& pb, const SlotJob& j, const JobPair& p, bool inc, int units) {
  return (inc ? 1 : p.workers) * j.push_bytes * pb.units() / (units * pb.circuit_bytes_per_s);
}

bool stalls(const SlotProblem& pb, int j) {
  for (const auto& p : job_pairs(pb, j))
    if (pb.lit(p.pair) == 0) return true;
  return false;
}

}  // namespace

Seconds completion(const SlotProblem& pb, int j, bool inc, const std::vector<int>& units) {
  const auto& job = pb.jobs[static_cast<std::size_t>(j)];
  const auto pairs = job_pairs(pb, j);
  Seconds t = nic_time(pb, job, inc);
  for (std::size_t k = 0; k < pairs.size(); ++k) t = std::max(t, pair_time(pb, job, pairs[k], inc, units[k]));
  return (stalls(pb, j) ? pb.reconfig_delay_s : 0) + job.iterations * (job.compute_s + 2 * t);
}

Seconds waiting_cost(const SlotProblem& pb, int j) {
  const auto& job = pb.jobs[static_cast<std::size_t>(j)];
  Seconds nic = nic_time(pb, job, false);
  if (pb.inc_jobs > 0) nic = std::min(nic, nic_time(pb, job, true));
  return pb.slot_s + job.iterations * (job.compute_s + 2 * nic);
}

namespace {

/// Why `d` breaks a constraint of the model ("" when none).
std::string violation(const SlotProblem& pb, const SlotDecision& d) {
  const auto n_jobs = pb.jobs.size();
  if (d.start.size() != n_jobs || d.inc.size() != n_jobs || d.circuits.size() != static_cast<std::size_t>(pb.pairs()))
    return "decision sizes do not match the problem";
  std::map<int, int> owner;  // server -> started job
  std::vector<int> inc_at(static_cast<std::size_t>(pb.racks), 0), ports_at(static_cast<std::size_t>(pb.racks), 0);
  std::vector<int> sharing(static_cast<std::size_t>(pb.pairs()), 0);
  for (std::size_t j = 0; j < n_jobs; ++j) {
    if (d.inc[j] && !d.start[j]) return fmt::format("job {} has INC but does not start", j);
    if (!d.start[j]) continue;
    for (int s : pb.jobs[j].servers) {
      if (std::count(pb.busy_servers.begin(), pb.busy_servers.end(), s)) return fmt::format("job {}: server {} is busy", j, s);
      if (owner.count(s)) return fmt::format("jobs {} and {} share server {}", owner[s], j, s);
      owner[s] = static_cast<int>(j);
    }
    for (const auto& [rack, n] : pb.jobs[j].workers_per_rack) inc_at[static_cast<std::size_t>(rack)] += d.inc[j];
    for (const auto& p : job_pairs(pb, static_cast<int>(j))) ++sharing[static_cast<std::size_t>(p.pair)];
  }
  for (int r = 0; r < pb.racks; ++r)
    if (inc_at[static_cast<std::size_t>(r)] > pb.inc_jobs) return fmt::format("rack {}: too many INC jobs", r);
  for (int a = 0; a < pb.racks; ++a)
    for (int b = a + 1; b < pb.racks; ++b) {
      const int n = d.circuits[static_cast<std::size_t>(pb.pair(a, b))];
      if (n < 0) return "negative circuits";
      ports_at[static_cast<std::size_t>(a)] += n;
      ports_at[static_cast<std::size_t>(b)] += n;
      if (sharing[static_cast<std::size_t>(pb.pair(a, b))] > n * pb.units())
        return fmt::format("pair {}-{}: {} circuits cannot carry {} jobs", a, b, n, sharing[static_cast<std::size_t>(pb.pair(a, b))]);
    }
  for (int r = 0; r < pb.racks; ++r)
    if (ports_at[static_cast<std::size_t>(r)] > pb.ports) return fmt::format("rack {}: more circuits than ports", r);
  return "";
}

}  // namespace

SlotScore evaluate(const SlotProblem& pb, const SlotDecision& d) {
  SlotScore score;
  score.why = violation(pb, d);
  if (!score.why.empty()) return score;
  score.feasible = true;
  // Per used pair, its started jobs (job, index among the job's pairs); the units of a pair are all handed out
  // (more never hurts), each job at least one.
  struct Member { int job, k; };
  std::map<int, std::vector<Member>> on_pair;
  std::vector<std::vector<int>> units(pb.jobs.size());
  for (std::size_t j = 0; j < pb.jobs.size(); ++j) {
    const auto pairs = job_pairs(pb, static_cast<int>(j));
    units[j].assign(pairs.size(), 0);
    if (!d.start[j]) continue;
    for (std::size_t k = 0; k < pairs.size(); ++k) on_pair[pairs[k].pair].push_back({static_cast<int>(j), static_cast<int>(k)});
  }
  const std::vector<std::pair<int, std::vector<Member>>> slots(on_pair.begin(), on_pair.end());
  double best = std::numeric_limits<double>::infinity();
  const std::function<void(std::size_t, std::size_t, int)> walk = [&](std::size_t s, std::size_t m, int left) {
    if (s == slots.size()) {
      double total = 0;
      for (std::size_t j = 0; j < pb.jobs.size(); ++j)
        total += d.start[j] ? completion(pb, static_cast<int>(j), d.inc[j], units[j]) : waiting_cost(pb, static_cast<int>(j));
      if (total < best) best = total, score.units = units;
      return;
    }
    const auto& members = slots[s].second;
    if (m == 0) left = d.circuits[static_cast<std::size_t>(slots[s].first)] * pb.units();
    const auto& who = members[m];
    if (m + 1 == members.size()) {
      units[static_cast<std::size_t>(who.job)][static_cast<std::size_t>(who.k)] = left;
      walk(s + 1, 0, 0);
      return;
    }
    for (int u = 1; u <= left - static_cast<int>(members.size() - m - 1); ++u) {
      units[static_cast<std::size_t>(who.job)][static_cast<std::size_t>(who.k)] = u;
      walk(s, m + 1, left - u);
    }
  };
  walk(0, 0, 0);
  score.objective = best;
  return score;
}

SlotSolution brute_force(const SlotProblem& pb) {
  const int n = static_cast<int>(pb.jobs.size());
  SlotSolution best;
  best.objective = std::numeric_limits<double>::infinity();
  for (int xs = 0; xs < (1 << n); ++xs)
    for (int ys = xs;; ys = (ys - 1) & xs) {  // every subset of xs
      SlotDecision d{std::vector<char>(static_cast<std::size_t>(n)), std::vector<char>(static_cast<std::size_t>(n)),
                     std::vector<int>(static_cast<std::size_t>(pb.pairs()), 0)};
      std::vector<int> used;
      for (int j = 0; j < n; ++j) {
        d.start[static_cast<std::size_t>(j)] = (xs >> j) & 1;
        d.inc[static_cast<std::size_t>(j)] = (ys >> j) & 1;
        if ((xs >> j) & 1)
          for (const auto& p : job_pairs(pb, j))
            if (std::find(used.begin(), used.end(), p.pair) == used.end()) used.push_back(p.pair);
      }
      // Every count 1..ports on each used pair (an unused pair's circuits change nothing).
      for (int p : used) d.circuits[static_cast<std::size_t>(p)] = 1;
      for (bool more = true; more;) {
        const auto s = evaluate(pb, d);
        if (s.feasible && s.objective < best.objective - 1e-12) best = {true, true, s.objective, s.objective, d};
        more = false;
        for (int p : used) {
          if (++d.circuits[static_cast<std::size_t>(p)] <= pb.ports) { more = true; break; }
          d.circuits[static_cast<std::size_t>(p)] = 1;
        }
      }
      if (ys == 0) break;
    }
  return best;
}

namespace {

/// Columns of the ILP for one job.
struct JobCols {
  int x = -1, y = -1, t = -1;
  /// Per job pair: z[k][(u - 1)·2 + inc], the job gets u units of B/g on its k-th pair, with or without INC.
  std::vector<std::vector<int>> z;
};

JobCols add_job(Milp& m, const SlotProblem& pb, int j, std::vector<std::vector<std::pair<int, double>>>& pair_units) {
  const auto& job = pb.jobs[static_cast<std::size_t>(j)];
  bool busy = false;
  for (int s : job.servers) busy = busy || std::count(pb.busy_servers.begin(), pb.busy_servers.end(), s) > 0;
  const Seconds stall = stalls(pb, j) ? pb.reconfig_delay_s : 0;
  JobCols c;
  // Objective: x·(stall + I·c - W_j) + 2·I·t, plus the constant Σ W_j (added by the caller).
  c.x = m.add_var(0, busy ? 0 : 1, stall + job.iterations * job.compute_s - waiting_cost(pb, j), true);
  c.y = m.add_var(0, pb.inc_jobs > 0 ? 1 : 0, 0, true);
  c.t = m.add_var(0, 1e9, 2.0 * job.iterations, false);
  m.add_row({{c.y, 1}, {c.x, -1}}, 'L', 0);  // y ≤ x
  // t ≥ N(0)·x + (N(1) - N(0))·y
  const Seconds n0 = nic_time(pb, job, false), n1 = nic_time(pb, job, true);
  m.add_row({{c.t, 1}, {c.x, -n0}, {c.y, n0 - n1}}, 'G', 0);
  const int max_units = pb.units() * pb.ports;
  for (const auto& p : job_pairs(pb, j)) {
    std::vector<int> z;
    std::vector<std::pair<int, double>> one{{c.x, -1}}, with_inc{{c.y, -1}}, slower{{c.t, 1}};
    for (int u = 1; u <= max_units; ++u)
      for (int inc = 0; inc < 2; ++inc) {
        const int v = m.add_var(0, 1, 0, true);
        z.push_back(v);
        one.emplace_back(v, 1);
        if (inc) with_inc.emplace_back(v, 1);
        slower.emplace_back(v, -pair_time(pb, job, p, inc, u));
        pair_units[static_cast<std::size_t>(p.pair)].emplace_back(v, u);
      }
    m.add_row(one, 'E', 0);       // one share iff started
    m.add_row(with_inc, 'E', 0);  // its INC mode is the job's
    m.add_row(slower, 'G', 0);    // t ≥ the chosen share's pair time
    c.z.push_back(std::move(z));
  }
  return c;
}

}  // namespace

SlotSolution solve_ilp(const SlotProblem& pb, double time_limit_s) {
  if (pb.racks > 5 || pb.jobs.size() > 6)
    throw ConfigError(fmt::format("the exact one-slot model takes at most 5 racks and 6 jobs (got {} and {})", pb.racks,
                                  pb.jobs.size()));
  Milp m;
  std::vector<std::vector<std::pair<int, double>>> pair_units(static_cast<std::size_t>(pb.pairs()));
  std::vector<JobCols> cols;
  double constant = 0;
  for (int j = 0; j < static_cast<int>(pb.jobs.size()); ++j) {
    cols.push_back(add_job(m, pb, j, pair_units));
    constant += waiting_cost(pb, j);
  }
  // Shares fit the circuits; circuits fit the ports.
  std::vector<int> n(static_cast<std::size_t>(pb.pairs()));
  std::vector<std::vector<std::pair<int, double>>> at_rack(static_cast<std::size_t>(pb.racks));
  for (int a = 0; a < pb.racks; ++a)
    for (int b = a + 1; b < pb.racks; ++b) {
      const auto p = static_cast<std::size_t>(pb.pair(a, b));
      n[p] = m.add_var(0, pb.ports, 0, true);
      auto row = pair_units[p];
      row.emplace_back(n[p], -pb.units());
      m.add_row(row, 'L', 0);
      at_rack[static_cast<std::size_t>(a)].emplace_back(n[p], 1);
      at_rack[static_cast<std::size_t>(b)].emplace_back(n[p], 1);
    }
  for (const auto& row : at_rack) m.add_row(row, 'L', pb.ports);
  // INC room per ToR; a server runs one job.
  std::vector<std::vector<std::pair<int, double>>> inc_at(static_cast<std::size_t>(pb.racks));
  std::map<int, std::vector<std::pair<int, double>>> on_server;
  for (std::size_t j = 0; j < pb.jobs.size(); ++j) {
    for (const auto& [rack, w] : pb.jobs[j].workers_per_rack) inc_at[static_cast<std::size_t>(rack)].emplace_back(cols[j].y, 1);
    for (int s : pb.jobs[j].servers) on_server[s].emplace_back(cols[j].x, 1);
  }
  for (const auto& row : inc_at) m.add_row(row, 'L', pb.inc_jobs);
  for (const auto& [server, row] : on_server)
    if (row.size() > 1) m.add_row(row, 'L', 1);

  const auto r = m.solve(time_limit_s);
  SlotSolution sol;
  sol.solved = r.solved;
  sol.optimal = r.optimal;
  if (!r.solved) return sol;
  sol.cbc_objective = r.objective + constant;
  const auto on = [&](int v) { return r.values[static_cast<std::size_t>(v)] > 0.5; };
  for (const auto& c : cols) {
    sol.decision.start.push_back(on(c.x));
    sol.decision.inc.push_back(on(c.y));
  }
  for (int v : n) sol.decision.circuits.push_back(static_cast<int>(std::lround(r.values[static_cast<std::size_t>(v)])));
  // CBC's objective carries its integrality tolerance; the chosen decision's exact value is the evaluator's.
  const auto exact = evaluate(pb, sol.decision);
  if (!exact.feasible) throw std::logic_error("inc-ilp: CBC's decision breaks the model: " + exact.why);
  sol.objective = exact.objective;
  return sol;
}

}  // namespace odcn::sched::inc_ilp
