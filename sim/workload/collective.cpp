#include "workload/collective.hpp"

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
  for (int r = 0; r < n; ++r) step.push_back({r, (r + 1) % n, bytes});
  return step;
}

/// One step in which every rank sends `bytes` to every other rank.
std::vector<RankFlow> all_pairs_step(int n, Bytes bytes) {
  std::vector<RankFlow> step;
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
        for (int k = 0; k < 2 * (n - 1); ++k) out.steps.push_back(ring_step(n, chunk));
      else
        out.steps = {all_pairs_step(n, chunk), all_pairs_step(n, chunk)};
      break;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
      if (ring)
        for (int k = 0; k < n - 1; ++k) out.steps.push_back(ring_step(n, chunk));
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

}  // namespace odcn::workload
