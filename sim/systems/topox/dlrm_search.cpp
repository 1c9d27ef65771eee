#include "systems/topox/dlrm_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "systems/topox/flat_policies.hpp"
#include "systems/topox/topox.hpp"

namespace odcn::sched {

namespace {

using workload::DlrmOpTimes;
using workload::DlrmPlacement;
using workload::DlrmStrategy;

/// The degrees of an operator kind that divide the number of servers.
std::vector<int> degrees_of(const std::vector<DlrmOpTimes>& kind, int servers) {
  std::vector<int> out;
  for (const auto& t : kind)
    if (servers % t.degree == 0) out.push_back(t.degree);
  return out;
}

std::vector<int> key_of(const DlrmStrategy& s) {
  std::vector<int> k;
  for (const auto& p : s.dense) k.insert(k.end(), {p.degree, p.first});
  k.insert(k.end(), {s.concat.degree, s.concat.first});
  k.insert(k.end(), s.table_server.begin(), s.table_server.end());
  return k;
}

/// FlexFlow's rewrite (with propagation) over the chain bot1 ... bot_Lb, cat, top1 ... top_Lt and the tables.
class Rewriter {
 public:
  Rewriter(const workload::DlrmConfig& c, const workload::DlrmMeasurements& m, std::uint64_t seed)
      : c_(c), rng_(seed), chain_(c.bottom_layers + c.top_layers + 1) {
    for (int pos = 0; pos < chain_; ++pos) degrees_.push_back(degrees_of(kind_at(m, pos), c.servers));
  }

  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  int below(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }

  DlrmStrategy rewrite(const DlrmStrategy& current, const DlrmSearchOptions& o) {
    DlrmStrategy next = current;
    if (uniform() < o.block) {  // ours: one placement for a run of the chain
      int a = below(chain_), b = below(chain_);
      if (a > b) std::swap(a, b);
      std::vector<int> ok = degrees_[static_cast<std::size_t>(a)];
      for (int pos = a + 1; pos <= b; ++pos) {
        const auto& more = degrees_[static_cast<std::size_t>(pos)];
        ok.erase(std::remove_if(ok.begin(), ok.end(),
                                [&](int k) { return std::find(more.begin(), more.end(), k) == more.end(); }),
                 ok.end());
      }
      if (ok.empty()) return next;
      const int degree = ok[static_cast<std::size_t>(below(static_cast<int>(ok.size())))];
      const DlrmPlacement p{degree, below(c_.servers / degree)};
      for (int pos = a; pos <= b; ++pos) at(next, pos) = p;
      return next;
    }
    if (uniform() < o.propagation) {
      int pos = below(chain_);
      do {
        const int to = pos + (below(2) == 0 ? -1 : 1);
        if (to < 0 || to >= chain_) break;
        const DlrmPlacement p = at(next, pos);
        const auto& ok = degrees_[static_cast<std::size_t>(to)];
        if (std::find(ok.begin(), ok.end(), p.degree) != ok.end()) at(next, to) = p;
        pos = to;
      } while (uniform() < o.continue_propagation);
      return next;
    }
    const int op = below(chain_ + c_.tables);
    if (op >= chain_) {
      next.table_server[static_cast<std::size_t>(op - chain_)] = below(c_.servers);
      return next;
    }
    const auto& ok = degrees_[static_cast<std::size_t>(op)];
    const int degree = ok[static_cast<std::size_t>(below(static_cast<int>(ok.size())))];
    at(next, op) = {degree, below(c_.servers / degree)};
    return next;
  }

 private:
  /// Chain position pos: a bottom layer, the concat (pos == bottom_layers) or a top layer.
  DlrmPlacement& at(DlrmStrategy& s, int pos) const {
    if (pos == c_.bottom_layers) return s.concat;
    return s.dense[static_cast<std::size_t>(pos < c_.bottom_layers ? pos : pos - 1)];
  }
  const std::vector<DlrmOpTimes>& kind_at(const workload::DlrmMeasurements& m, int pos) const {
    if (pos < c_.bottom_layers) return m.bottom;
    if (pos == c_.bottom_layers) return m.concat;
    if (pos == c_.bottom_layers + 1) return m.top_first;
    return pos == chain_ - 1 ? m.top_last : m.top_middle;
  }

  const workload::DlrmConfig& c_;
  std::mt19937_64 rng_;
  int chain_;
  std::vector<std::vector<int>> degrees_;
};

}  // namespace

DlrmSearchOptions dlrm_anneal_options(int budget, std::uint64_t seed) {
  DlrmSearchOptions o;
  o.budget = budget;
  o.seed = seed;
  o.block = 0.25;
  o.anneal_from = 0.1;
  o.anneal_to = 0.001;
  return o;
}

DlrmSearchResult search_dlrm_strategy(const workload::DlrmConfig& c, const workload::DlrmMeasurements& m,
                                      const DlrmStrategy& start, const DlrmCost& cost, const DlrmSearchOptions& o) {
  workload::check_dlrm_strategy(c, start, m);
  Rewriter rewriter(c, m, o.seed);
  std::map<std::vector<int>, std::pair<Seconds, DlrmStrategy>> seen;
  DlrmSearchResult r;
  auto evaluate = [&](const DlrmStrategy& s) {
    auto [it, fresh] = seen.try_emplace(key_of(s), 0.0, s);
    if (fresh) {
      it->second.first = cost(s);
      ++r.evaluations;
    }
    return it->second.first;
  };
  r.best = start;
  r.start_cost_s = r.best_cost_s = evaluate(start);
  DlrmStrategy current = start;
  Seconds current_cost = r.best_cost_s;
  // FFModel::optimize: every reset_span steps the walk returns to the best strategy.
  const int reset_span = std::clamp(o.budget / 100, 1, 1000);
  int last_reset = 0;
  for (int step = 1; step <= o.budget; ++step) {
    if (o.anneal_from == 0 && step - last_reset >= reset_span) {
      current = r.best;
      current_cost = r.best_cost_s;
      last_reset = step;
    }
    DlrmStrategy next = rewriter.rewrite(current, o);
    const Seconds next_cost = evaluate(next);
    if (next_cost < r.best_cost_s) {
      r.best = next;
      r.best_cost_s = next_cost;
      r.best_step = step;
    }
    const double u = rewriter.uniform();
    double p_uphill = std::exp(-o.alpha_per_ms * (next_cost - current_cost) * 1e3);
    if (o.anneal_from > 0) {  // ours: a relative temperature, cooled geometrically to anneal_to
      const double temperature = o.anneal_from * std::pow(o.anneal_to / o.anneal_from, double(step) / o.budget);
      p_uphill = std::exp(-(next_cost - current_cost) / current_cost / temperature);
    }
    if (next_cost < current_cost || u < p_uphill) {
      if (!(next == current)) ++r.accepted;
      current = std::move(next);
      current_cost = next_cost;
    }
    r.steps = step;
    if (o.progress && o.progress_every > 0 && step % o.progress_every == 0) o.progress(step, r.best_cost_s);
  }
  // The cheapest distinct strategies, by cost and then by their key (deterministic).
  std::vector<std::pair<Seconds, const std::vector<int>*>> order;
  for (const auto& [key, entry] : seen) order.emplace_back(entry.first, &key);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : *a.second < *b.second; });
  for (std::size_t i = 0; i < order.size() && static_cast<int>(i) < o.finalists; ++i)
    r.finalists.push_back(seen.at(*order[i].second));
  return r;
}

namespace {
/// Rank r on server r: the servers a DLRM job graph runs on.
std::vector<int> every_server(const workload::DlrmConfig& c) {
  std::vector<int> servers(static_cast<std::size_t>(c.servers));
  for (int i = 0; i < c.servers; ++i) servers[static_cast<std::size_t>(i)] = i;
  return servers;
}
}  // namespace

Seconds dlrm_strategy_bound(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                            const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s) {
  const workload::JobGraph g = workload::build_dlrm(c, s, m);
  return topox_lower_bound(flat, flow_graph(g, every_server(c), topox_ring_paths(flat.nic_ports), "", ""),
                           flat.reconfig_delay_s);
}

namespace {
FlatPlan plan_strategy(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                       const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s, bool topox,
                       const std::string& variant) {
  GraphJob job;
  const workload::JobGraph g = workload::build_dlrm(c, s, m);
  job.graph = &g;
  job.endpoints = every_server(c);
  return plan_flat(flat, flat.file, g, job, topox, variant, 0, "");
}
}  // namespace

Seconds dlrm_strategy_plan(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                           const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s) {
  return plan_strategy(flat, c, m, s, true, "heuristic").plan.makespan_s;
}

Seconds dlrm_strategy_flexnet(const spec::FlatOcsSpec& flat, const workload::DlrmConfig& c,
                              const workload::DlrmMeasurements& m, const workload::DlrmStrategy& s) {
  return plan_strategy(flat, c, m, s, false, "released").estimate.iteration_s;
}

}  // namespace odcn::sched
