#include "systems/tdm4/tdm4_ilp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "policy/milp.hpp"
#include "systems/tdm4/stage_demand.hpp"
#include "systems/tdm4/tdm4_policy.hpp"

// The ILP of seed 001 §II.D, linearised (docs/ilp.md explains each step).
//
// Every job picks exactly one option: its group k (A = 0, B = 1) and, for a RAR job, one ring over its
// master pods. Rings are enumerated as undirected Hamiltonian cycles, so Eq. (7) (one ring, no sub-ring)
// holds by construction. The circuits of pair p in the stages where group k communicates are
// L_{k,p} = Σ_l l·y_{k,p,l} with one binary y per possible count l = 0..N_link. Then Eq. (2)'s
// T ≥ D / (B·L) is linear for each fixed l: T_k ≥ D_{k,p} / (B·l) − M·(1 − y_{k,p,l}).
namespace odcn::sched {

using workload::Job;
using workload::JobType;

namespace {

constexpr double kUnbounded = 1e20;

/// One choice of a job: its group and the traffic it then puts on each pair and ToR of the pod group.
struct Option {
  int k = 0;
  Arcs ring;
  std::vector<Bytes> pair_load;  ///< by local pair, both directions summed
  std::vector<Bytes> tor_load;   ///< by local pod
};

/// All undirected Hamiltonian cycles over `members`, as arcs (first member fixed, one direction each).
std::vector<Arcs> all_rings(const std::vector<int>& members) {
  if (members.size() < 2) return {Arcs{}};
  if (members.size() == 2) return {Arcs{{members[0], members[1]}, {members[1], members[0]}}};
  std::vector<int> rest(members.begin() + 1, members.end());
  std::vector<Arcs> rings;
  do {
    if (rest.front() > rest.back()) continue;  // the same cycle walked the other way
    Arcs ring;
    int prev = members[0];
    for (int v : rest) {
      ring.emplace_back(prev, v);
      prev = v;
    }
    ring.emplace_back(prev, members[0]);
    rings.push_back(std::move(ring));
  } while (std::next_permutation(rest.begin(), rest.end()));
  return rings;
}

}  // namespace

TdmPlan plan_tdm4_ilp(const net::Fabric& fabric, const std::vector<Job>& jobs, const IlpOptions& options) {
  if (static_cast<int>(jobs.size()) > options.max_jobs)
    throw ConfigError(fmt::format("tdm4-ilp solves at most {} jobs exactly (got {}); use tdm4 for larger instances",
                                  options.max_jobs, jobs.size()));
  if (jobs.empty()) throw ConfigError("tdm4-ilp needs at least one job");
  const int group = jobs.front().group;
  for (const auto& j : jobs)
    if (j.group != group)
      throw ConfigError("tdm4-ilp solves one OXC pod group exactly; these jobs span several (use tdm4)");

  const TrafficCache cache(jobs, fabric);
  const int n_pods = fabric.pods_per_group();
  const int first = fabric.first_pod(group);
  const int n_links = fabric.ports_per_pod();
  const double B = fabric.port_bytes_per_s();
  const GroupDemand shape(n_pods);
  const auto n_pairs = shape.pair_load.size();

  // Options per job (Eq. 4-5 traffic for each group and ring).
  std::vector<std::vector<Option>> options_of(jobs.size());
  for (const auto& j : jobs) {
    std::vector<Arcs> rings = j.type == JobType::rar ? all_rings(cache.ring_members(j.id)) : std::vector<Arcs>{Arcs{}};
    if (rings.size() > 720)
      throw ConfigError(fmt::format("tdm4-ilp: job {} has {} possible rings; at most 720 are enumerated", j.name,
                                    rings.size()));
    for (int k = 0; k < 2; ++k)
      for (const auto& ring : rings) {
        Option o;
        o.k = k;
        o.ring = ring;
        GroupDemand d(n_pods);
        const auto t = job_traffic(cache, j.id, 0, ring);
        for (const auto& f : t.flows) d.add_flow(f.src - first, f.dst - first, f.bytes);
        for (const auto& v : t.tor) d.tor_load[static_cast<std::size_t>(v.pod - first)] += v.bytes;
        o.pair_load = d.pair_load;
        o.tor_load = d.tor_load;
        options_of[static_cast<std::size_t>(j.id)].push_back(std::move(o));
      }
  }

  Milp m;
  const int stages = 4;
  // Variables
  std::vector<std::vector<int>> u(jobs.size());
  for (std::size_t n = 0; n < jobs.size(); ++n)
    for (std::size_t o = 0; o < options_of[n].size(); ++o) u[n].push_back(m.add_var(0, 1, 0, true));
  std::vector<std::vector<std::vector<int>>> y(2, std::vector<std::vector<int>>(n_pairs));
  for (int k = 0; k < 2; ++k)
    for (std::size_t p = 0; p < n_pairs; ++p)
      for (int l = 0; l <= n_links; ++l) y[static_cast<std::size_t>(k)][p].push_back(m.add_var(0, 1, 0, true));
  const int T[2] = {m.add_var(0, kUnbounded, 0, false), m.add_var(0, kUnbounded, 0, false)};
  int S[stages];
  for (int s = 0; s < stages; ++s) S[s] = m.add_var(0, kUnbounded, 1.0, false);  // Eq. (1)
  const int d = m.add_var(0, 1, 4 * fabric.reconfig_delay_s(), true);                // ε: 4 transitions

  // Each job takes exactly one option.
  for (std::size_t n = 0; n < jobs.size(); ++n) {
    std::vector<std::pair<int, double>> row;
    for (int v : u[n]) row.emplace_back(v, 1.0);
    m.add_row(row, 'E', 1.0);
  }
  // Each pair has exactly one circuit count per group; Eq. (6) port budgets.
  for (int k = 0; k < 2; ++k) {
    for (std::size_t p = 0; p < n_pairs; ++p) {
      std::vector<std::pair<int, double>> row;
      for (int v : y[static_cast<std::size_t>(k)][p]) row.emplace_back(v, 1.0);
      m.add_row(row, 'E', 1.0);
    }
    for (int i = 0; i < n_pods; ++i) {
      std::vector<std::pair<int, double>> row;
      for (int j2 = 0; j2 < n_pods; ++j2) {
        if (j2 == i) continue;
        const auto p = static_cast<std::size_t>(shape.local_pair(i, j2));
        for (int l = 1; l <= n_links; ++l) row.emplace_back(y[static_cast<std::size_t>(k)][p][static_cast<std::size_t>(l)], l);
      }
      m.add_row(row, 'L', n_links);
    }
  }
  // Eq. (2): circuits where there is demand, and the communication time of each group.
  for (int k = 0; k < 2; ++k)
    for (std::size_t p = 0; p < n_pairs; ++p) {
      double dmax = 0;
      for (std::size_t n = 0; n < jobs.size(); ++n) {
        double most = 0;
        for (const auto& o : options_of[n]) most = std::max(most, o.pair_load[p]);
        dmax += most;
      }
      if (dmax <= 0) continue;
      auto load_terms = [&](double scale) {
        std::vector<std::pair<int, double>> row;
        for (std::size_t n = 0; n < jobs.size(); ++n)
          for (std::size_t o = 0; o < options_of[n].size(); ++o)
            if (options_of[n][o].k == k && options_of[n][o].pair_load[p] > 0)
              row.emplace_back(u[n][o], options_of[n][o].pair_load[p] * scale);
        return row;
      };
      // D_{k,p} <= dmax · (1 − y_{k,p,0})
      auto row = load_terms(1.0 / dmax);
      row.emplace_back(y[static_cast<std::size_t>(k)][p][0], 1.0);
      m.add_row(row, 'L', 1.0);
      for (int l = 1; l <= n_links; ++l) {
        // D_{k,p} / (B·l) − T_k <= M·(1 − y_{k,p,l}), M = dmax / (B·l)
        const double big = dmax / (B * l);
        auto r = load_terms(1.0 / (B * l));
        r.emplace_back(T[k], -1.0);
        r.emplace_back(y[static_cast<std::size_t>(k)][p][static_cast<std::size_t>(l)], big);
        m.add_row(r, 'L', big);
      }
    }
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < n_pods; ++i) {  // Eq. (2): D_i / B_tor <= T_k
      std::vector<std::pair<int, double>> row{{T[k], -1.0}};
      for (std::size_t n = 0; n < jobs.size(); ++n)
        for (std::size_t o = 0; o < options_of[n].size(); ++o)
          if (options_of[n][o].k == k)
            row.emplace_back(u[n][o], options_of[n][o].tor_load[static_cast<std::size_t>(i)] / fabric.tor_bytes_per_s());
      m.add_row(row, 'L', 0.0);
    }
  // Eq. (3): a stage lasts as long as its communication and every compute of the idle group.
  for (int s = 0; s < stages; ++s) {
    const int k = s % 2;
    m.add_row({{S[s], 1.0}, {T[k], -1.0}}, 'G', 0.0);
    for (const auto& j : jobs) {
      std::vector<std::pair<int, double>> row{{S[s], 1.0}};
      const auto n = static_cast<std::size_t>(j.id);
      for (std::size_t o = 0; o < options_of[n].size(); ++o)
        if (options_of[n][o].k != k) row.emplace_back(u[n][o], -idle_compute_s(j, options_of[n][o].k, s));
      m.add_row(row, 'G', 0.0);
    }
  }
  // ε: the two groups' topologies differ on some pair => every stage transition reconfigures.
  for (std::size_t p = 0; p < n_pairs; ++p)
    for (int sign : {1, -1}) {
      std::vector<std::pair<int, double>> row{{d, -static_cast<double>(n_links)}};
      for (int l = 1; l <= n_links; ++l) {
        row.emplace_back(y[0][p][static_cast<std::size_t>(l)], sign * l);
        row.emplace_back(y[1][p][static_cast<std::size_t>(l)], -sign * l);
      }
      m.add_row(row, 'L', 0.0);
    }

  // Warm start from the hill climb so that CBC always has a feasible schedule to improve on: its grouping,
  // its Alg. 3 rings (matched to the enumerated cycle with the same pairs) and its Alg. 2 circuits.
  const TdmPlan heuristic = plan_tdm4(fabric, jobs);
  if (heuristic.seed_round_s < kInfeasible) {
    std::vector<double> start(static_cast<std::size_t>(d + 1), 0.0);
    auto pairs_of = [&](const Arcs& ring) {
      std::vector<int> p;
      for (const auto& [a, b] : ring) p.push_back(shape.local_pair(a - first, b - first));
      std::sort(p.begin(), p.end());
      return p;
    };
    for (const auto& st : heuristic.stages)
      for (const auto& w : st.work) {
        if (w.activity != Activity::communicate || st.t != 0) continue;
        const auto n = static_cast<std::size_t>(w.job);
        std::vector<int> used;
        for (const auto& f : w.traffic.flows) used.push_back(shape.local_pair(f.src - first, f.dst - first));
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        for (std::size_t o = 0; o < options_of[n].size(); ++o) {
          auto ring = pairs_of(options_of[n][o].ring);
          ring.erase(std::unique(ring.begin(), ring.end()), ring.end());
          const bool ring_matches = std::includes(used.begin(), used.end(), ring.begin(), ring.end());
          if (options_of[n][o].k == st.k && ring_matches) {
            start[static_cast<std::size_t>(u[n][o])] = 1;
            break;
          }
        }
      }
    for (int k = 0; k < 2; ++k) {
      const auto& cfg = heuristic.stages[static_cast<std::size_t>(k)].config.circuits;
      for (std::size_t p = 0; p < n_pairs; ++p) {
        const int l = std::min(n_links, cfg[static_cast<std::size_t>(group * fabric.pairs_per_group()) + p]);
        start[static_cast<std::size_t>(y[static_cast<std::size_t>(k)][p][static_cast<std::size_t>(l)])] = 1;
      }
      start[static_cast<std::size_t>(T[k])] = heuristic.stages[static_cast<std::size_t>(k)].comm_s;
    }
    for (int s = 0; s < stages; ++s) start[static_cast<std::size_t>(S[s])] = heuristic.stages[static_cast<std::size_t>(s)].seed_s;
    start[static_cast<std::size_t>(d)] = heuristic.epsilon_s > 0 ? 1 : 0;
    m.set_start(start);
  }
  const Milp::Result res = m.solve(options.time_limit_s);
  const double* sol = res.values.data();
  const bool optimal = res.optimal;
  if (!res.solved) {
    TdmPlan fallback = heuristic;
    fallback.policy = "tdm4-ilp";
    fallback.ilp_status = "no integer solution within the time limit; the tdm4 plan is used";
    return fallback;
  }

  std::vector<int> assign(jobs.size(), 0);
  PlanOverrides ov;
  ov.ring_of_job.resize(jobs.size());
  for (std::size_t n = 0; n < jobs.size(); ++n)
    for (std::size_t o = 0; o < options_of[n].size(); ++o)
      if (sol[u[n][o]] > 0.5) {
        assign[n] = options_of[n][o].k;
        ov.ring_of_job[n] = options_of[n][o].ring;
      }
  for (int k = 0; k < 2; ++k) {
    ov.circuits_of_group[static_cast<std::size_t>(k)].assign(static_cast<std::size_t>(fabric.pair_count()), 0);
    for (std::size_t p = 0; p < n_pairs; ++p)
      for (int l = 0; l <= n_links; ++l)
        if (sol[y[static_cast<std::size_t>(k)][p][static_cast<std::size_t>(l)]] > 0.5)
          ov.circuits_of_group[static_cast<std::size_t>(k)][static_cast<std::size_t>(group * fabric.pairs_per_group()) + p] = l;
  }
  // A group with no job keeps the other group's circuits (exactly what the solver may choose for free).
  for (int k = 0; k < 2; ++k)
    if (std::count(assign.begin(), assign.end(), k) == 0)
      ov.circuits_of_group[static_cast<std::size_t>(k)] = ov.circuits_of_group[static_cast<std::size_t>(1 - k)];
  TdmPlan plan = plan_for_grouping(fabric, jobs, assign, "tdm4-ilp", &ov);
  plan.ilp_objective_s = res.objective;
  plan.ilp_bound_s = res.bound;
  plan.ilp_status = optimal ? "optimal" : "time limit reached; best solution found";
  plan.heuristic_round_s = heuristic.seed_round_s;
  return plan;
}

}  // namespace odcn::sched
