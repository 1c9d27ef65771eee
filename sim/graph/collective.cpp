#include "graph/collective.hpp"

#include <algorithm>
#include <stdexcept>

namespace odcn::workload {

namespace {

struct OpName {
  CollectiveOp op;
  const char* name;
};
constexpr OpName kOps[] = {{CollectiveOp::all_reduce, "all-reduce"},   {CollectiveOp::reduce_scatter, "reduce-scatter"},
                           {CollectiveOp::all_gather, "all-gather"},   {CollectiveOp::all_to_all, "all-to-all"},
                           {CollectiveOp::broadcast, "broadcast"},     {CollectiveOp::ps_push, "ps-push"},
                           {CollectiveOp::ps_pull, "ps-pull"},         {CollectiveOp::send_recv, "send-recv"}};

/// One step in which every rank sends `bytes` to the next rank of the ring.
std::vector<RankFlow> ring_step(int n, Bytes bytes) {
  std::vector<RankFlow> step;
  step.reserve(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) step.push_back({r, (r + 1) % n, bytes});
  return step;
}

/// One step in which every rank sends `bytes` to every other rank.
std::vector<RankFlow> all_pairs_step(int n, Bytes bytes) {
  std::vector<RankFlow> step;
  step.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) step.push_back({a, b, bytes});
  return step;
}

}  // namespace

const char* to_string(CollectiveOp op) {
  for (const auto& o : kOps)
    if (o.op == op) return o.name;
  return "?";
}

const char* to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::direct: return "direct";
    case CollectiveAlgorithm::parameter_server: return "parameter-server";
  }
  return "?";
}

bool parse_collective_op(const std::string& name, CollectiveOp& op) {
  for (const auto& o : kOps)
    if (name == o.name) {
      op = o.op;
      return true;
    }
  return false;
}

bool parse_collective_algorithm(const std::string& name, CollectiveAlgorithm& a) {
  for (auto c : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct, CollectiveAlgorithm::parameter_server})
    if (name == to_string(c)) {
      a = c;
      return true;
    }
  return false;
}

bool supports(CollectiveOp op, CollectiveAlgorithm a) {
  switch (op) {
    case CollectiveOp::all_reduce:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::broadcast: return a == CollectiveAlgorithm::ring || a == CollectiveAlgorithm::direct;
    case CollectiveOp::all_to_all:
    case CollectiveOp::send_recv: return a == CollectiveAlgorithm::direct;
    case CollectiveOp::ps_push:
    case CollectiveOp::ps_pull: return a == CollectiveAlgorithm::parameter_server;
  }
  return false;
}

Bytes CollectiveSchedule::total_bytes() const {
  Bytes b = 0;
  for (const auto& step : steps)
    for (const auto& f : step) b += f.bytes;
  return b;
}

CollectiveSchedule lower_collective(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root) {
  if (!supports(op, a))
    throw std::invalid_argument(std::string(to_string(a)) + " does not implement " + to_string(op));
  if (n < 2 || (op == CollectiveOp::send_recv && n != 2) || root < 0 || root >= n || !(s > 0))
    throw std::invalid_argument("collective needs n >= 2 ranks (send-recv: 2), a root among them and S > 0");
  CollectiveSchedule out;
  const Bytes chunk = s / n;
  const bool ring = a == CollectiveAlgorithm::ring;
  switch (op) {
    case CollectiveOp::all_reduce:
      // Ring: reduce-scatter then all-gather, n-1 steps each. Direct: the same two phases, one step each.
      if (ring)
        out.steps.assign(static_cast<std::size_t>(2 * (n - 1)), ring_step(n, chunk));
      else
        out.steps = {all_pairs_step(n, chunk), all_pairs_step(n, chunk)};
      break;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
      if (ring)
        out.steps.assign(static_cast<std::size_t>(n - 1), ring_step(n, chunk));
      else
        out.steps = {all_pairs_step(n, chunk)};
      break;
    case CollectiveOp::all_to_all: out.steps = {all_pairs_step(n, chunk)}; break;
    case CollectiveOp::broadcast: {
      std::vector<RankFlow> step;
      for (int k = 1; k < n; ++k) {
        const int dst = (root + k) % n;
        step.push_back({ring ? (root + k - 1) % n : root, dst, s});
      }
      out.steps = {step};
      break;
    }
    case CollectiveOp::ps_push:
    case CollectiveOp::ps_pull: {
      std::vector<RankFlow> step;
      for (int r = 0; r < n; ++r)
        if (r != root) step.push_back(op == CollectiveOp::ps_push ? RankFlow{r, root, s} : RankFlow{root, r, s});
      out.steps = {step};
      break;
    }
    case CollectiveOp::send_recv: out.steps = {{{0, 1, s}}}; break;
  }
  return out;
}

std::int64_t flow_count(CollectiveOp op, CollectiveAlgorithm a, int n) {
  const std::int64_t m = n, pairs = m * (m - 1);  // a ring step has n flows; an all-pairs step n(n-1)
  const bool ring = a == CollectiveAlgorithm::ring;
  switch (op) {
    case CollectiveOp::all_reduce: return ring ? 2 * (m - 1) * m : 2 * pairs;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather: return ring ? (m - 1) * m : pairs;
    case CollectiveOp::all_to_all: return pairs;
    case CollectiveOp::broadcast:
    case CollectiveOp::ps_push:
    case CollectiveOp::ps_pull: return m - 1;
    case CollectiveOp::send_recv: return 1;
  }
  return 0;
}

namespace {

/// Every rank sends at most one flow and receives at most one, and all flows have the same size.
bool is_permutation_step(const std::vector<RankFlow>& step, int n) {
  std::vector<char> out(static_cast<std::size_t>(n), 0), in(static_cast<std::size_t>(n), 0);
  for (const auto& f : step) {
    if (f.bytes != step.front().bytes || out[static_cast<std::size_t>(f.src)]++ || in[static_cast<std::size_t>(f.dst)]++)
      return false;
  }
  return !step.empty();
}

/// Every ordered pair of distinct ranks appears once, with the same size.
bool is_uniform_all_pairs(const std::vector<RankFlow>& step, int n) {
  if (step.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1)) return false;
  std::vector<char> seen(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  for (const auto& f : step) {
    const auto k = static_cast<std::size_t>(f.src) * static_cast<std::size_t>(n) + static_cast<std::size_t>(f.dst);
    if (f.src == f.dst || f.bytes != step.front().bytes || seen[k]) return false;
    seen[k] = 1;
  }
  return true;
}

bool same_pattern(const std::vector<RankFlow>& a, const std::vector<RankFlow>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].src != b[i].src || a[i].dst != b[i].dst || a[i].bytes != b[i].bytes) return false;
  return true;
}

}  // namespace

std::vector<EngineStep> compact_for_uniform_nics(const CollectiveSchedule& schedule, int n) {
  std::vector<EngineStep> out;
  const auto& steps = schedule.steps;
  for (std::size_t i = 0; i < steps.size();) {
    const auto& step = steps[i];
    if (is_uniform_all_pairs(step, n) && !is_permutation_step(step, n)) {  // (with 2 ranks a ring step is both)
      EngineStep e;
      e.to_hub = true;
      for (int r = 0; r < n; ++r) e.flows.push_back({r, -1, step.front().bytes * (n - 1)});
      out.push_back(std::move(e));
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    if (is_permutation_step(step, n))
      while (j < steps.size() && same_pattern(steps[j], step)) ++j;
    EngineStep e;
    e.flows = step;
    for (auto& f : e.flows) f.bytes *= static_cast<double>(j - i);
    out.push_back(std::move(e));
    i = j;
  }
  return out;
}

std::vector<EngineStep> lower_compact(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root) {
  const Bytes chunk = s / n;
  const auto ring_of = [n](Bytes bytes) {
    EngineStep e;
    for (int r = 0; r < n; ++r) e.flows.push_back({r, (r + 1) % n, bytes});
    return e;
  };
  const auto to_hub = [n](Bytes bytes) {
    EngineStep e;
    e.to_hub = true;
    for (int r = 0; r < n; ++r) e.flows.push_back({r, -1, bytes});
    return e;
  };
  // With 2 ranks every step is also a permutation, which the general path merges; it is cheap there.
  if (n == 2) return compact_for_uniform_nics(lower_collective(op, a, n, s, root), n);
  const bool ring = a == CollectiveAlgorithm::ring;
  switch (op) {
    case CollectiveOp::all_reduce:
      if (!supports(op, a) || n < 2 || !(s > 0)) break;
      return ring ? std::vector<EngineStep>{ring_of(2.0 * (n - 1) * chunk)}
                  : std::vector<EngineStep>{to_hub((n - 1) * chunk), to_hub((n - 1) * chunk)};
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
      if (!supports(op, a) || n < 2 || !(s > 0)) break;
      return {ring ? ring_of((n - 1) * chunk) : to_hub((n - 1) * chunk)};
    case CollectiveOp::all_to_all:
      if (!supports(op, a) || n < 2 || !(s > 0)) break;
      return {to_hub((n - 1) * chunk)};
    default: break;
  }
  // Everything else is O(n) already (or invalid, which lower_collective reports).
  return compact_for_uniform_nics(lower_collective(op, a, n, s, root), n);
}

Seconds textbook_seconds(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, BytesPerSecond nic) {
  const double f = (n - 1.0) / n;
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * f * s / nic;  // ring and direct alike
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return f * s / nic;
    case CollectiveOp::broadcast: return a == CollectiveAlgorithm::ring ? s / nic : (n - 1) * s / nic;
    case CollectiveOp::ps_push:
    case CollectiveOp::ps_pull: return (n - 1) * s / nic;
    case CollectiveOp::send_recv: return s / nic;
  }
  return 0;
}

Seconds closed_form_seconds(const CollectiveSchedule& schedule, int n, BytesPerSecond nic) {
  Seconds t = 0;
  for (const auto& step : schedule.steps) {
    std::vector<Bytes> out(static_cast<std::size_t>(n), 0.0), in(static_cast<std::size_t>(n), 0.0);
    for (const auto& f : step) {
      out[static_cast<std::size_t>(f.src)] += f.bytes;
      in[static_cast<std::size_t>(f.dst)] += f.bytes;
    }
    Bytes busiest = 0;
    for (int r = 0; r < n; ++r)
      busiest = std::max({busiest, out[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(r)]});
    t += busiest / nic;
  }
  return t;
}

bool has_counter_rotating(CollectiveOp op, CollectiveAlgorithm a, int n) {
  return a == CollectiveAlgorithm::ring && n > 2 &&
         (op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather);
}

CollectiveSchedule lower_collective(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root,
                                    bool counter_rotating_rings) {
  CollectiveSchedule lowered = lower_collective(op, a, n, s, root);
  if (counter_rotating_rings && has_counter_rotating(op, a, n)) return counter_rotating(lowered, n);
  return lowered;
}

std::vector<StepRun> lower_collective_runs(CollectiveOp op, CollectiveAlgorithm a, int n, Bytes s, int root,
                                          bool counter_rotating_rings) {
  const bool ring_op =
      op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather;
  const bool ring = a == CollectiveAlgorithm::ring && ring_op;
  if (ring && n >= 2 && s > 0 && root >= 0 && root < n) {  // every step is ring_step(n, S/n), as lower_collective's
    const int steps = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
    CollectiveSchedule one;
    one.steps = {ring_step(n, s / n)};
    if (counter_rotating_rings && has_counter_rotating(op, a, n)) one = counter_rotating(one, n);
    return {{std::move(one.steps.front()), steps}};
  }
  std::vector<StepRun> runs;
  for (auto& step : lower_collective(op, a, n, s, root, counter_rotating_rings).steps) {
    if (!runs.empty() && runs.back().flows.size() == step.size() &&
        std::equal(step.begin(), step.end(), runs.back().flows.begin(), [](const RankFlow& x, const RankFlow& y) {
          return x.src == y.src && x.dst == y.dst && x.bytes == y.bytes;
        }))
      ++runs.back().times;
    else
      runs.push_back({std::move(step), 1});
  }
  return runs;
}

CollectiveSchedule counter_rotating(const CollectiveSchedule& ring, int n) {
  CollectiveSchedule out;
  out.steps.reserve(ring.steps.size());
  for (const auto& step : ring.steps) {
    auto& s = out.steps.emplace_back();
    s.reserve(2 * step.size());
    for (const RankFlow& f : step) {
      if (f.dst != (f.src + 1) % n) throw std::invalid_argument("counter_rotating: a flow that is no ring step");
      s.push_back({f.src, f.dst, f.bytes / 2});
      s.push_back({f.src, (f.src + n - 1) % n, f.bytes / 2});
    }
  }
  return out;
}

}  // namespace odcn::workload
