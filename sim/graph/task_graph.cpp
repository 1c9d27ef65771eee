#include "graph/task_graph.hpp"

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <algorithm>
#include <iterator>

#include "core/error.hpp"

namespace odcn::workload {

namespace {

using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

/// Edge dep -> task for every dependency. Edges are added in task order, so Boost's depth-first
/// topological sort visits them deterministically.
Digraph make_digraph(const JobGraph& g) {
  Digraph d(g.tasks.size());
  for (std::size_t t = 0; t < g.tasks.size(); ++t)
    for (int dep : g.tasks[t].deps) boost::add_edge(static_cast<std::size_t>(dep), t, d);
  return d;
}

}  // namespace

const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::compute: return "compute";
    case TaskKind::transfer: return "transfer";
    case TaskKind::collective: return "collective";
    case TaskKind::barrier: return "barrier";
  }
  return "?";
}

Task compute_task(std::string name, int rank, Seconds duration, std::vector<int> deps) {
  Task t;
  t.name = std::move(name);
  t.kind = TaskKind::compute;
  t.rank = rank;
  t.duration_s = duration;
  t.deps = std::move(deps);
  return t;
}

Task transfer_task(std::string name, int src, int dst, Bytes bytes, std::vector<int> deps) {
  Task t;
  t.name = std::move(name);
  t.kind = TaskKind::transfer;
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  t.deps = std::move(deps);
  return t;
}

Task collective_task(std::string name, CollectiveOp op, CollectiveAlgorithm algorithm, std::vector<int> group,
                     Bytes bytes, std::vector<int> deps) {
  Task t;
  t.name = std::move(name);
  t.kind = TaskKind::collective;
  t.op = op;
  t.algorithm = algorithm;
  t.group = std::move(group);
  t.bytes = bytes;
  t.deps = std::move(deps);
  return t;
}

void validate(const JobGraph& g, const std::string& file, const std::string& field) {
  const std::string prefix = field.empty() ? "" : field + ".";
  if (g.ranks < 1) throw InputError(file, prefix + "ranks", "must be > 0");
  if (g.iterations < 1) throw InputError(file, prefix + "iterations", "must be > 0");
  if (!(g.arrival_s >= 0)) throw InputError(file, prefix + "arrival_s", "must be >= 0");
  if (g.tasks.empty()) throw InputError(file, prefix + "tasks", "must be a non-empty list");
  const auto rank_ok = [&](int r) { return r >= 0 && r < g.ranks; };
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    const std::string f = prefix + fmt::format("tasks[{}]", i);
    for (int dep : t.deps)
      if (dep < 0 || dep >= static_cast<int>(g.tasks.size()) || dep == static_cast<int>(i))
        throw InputError(file, f + ".deps", fmt::format("{} is not another task of this graph", dep));
    switch (t.kind) {
      case TaskKind::compute:
        if (!rank_ok(t.rank)) throw InputError(file, f + ".rank", fmt::format("no rank {} (ranks: {})", t.rank, g.ranks));
        if (!(t.duration_s > 0)) throw InputError(file, f + ".duration_s", "must be > 0");
        break;
      case TaskKind::transfer:
        if (!rank_ok(t.src) || !rank_ok(t.dst) || t.src == t.dst)
          throw InputError(file, f, fmt::format("needs two different ranks below {} (got {} -> {})", g.ranks, t.src, t.dst));
        if (!(t.bytes > 0)) throw InputError(file, f + ".bytes", "must be > 0");
        break;
      case TaskKind::collective: {
        if (!supports(t.op, t.algorithm))
          throw InputError(file, f + ".algorithm",
                           fmt::format("{} does not implement {}", to_string(t.algorithm), to_string(t.op)));
        const int n = static_cast<int>(t.group.size());
        if (n < 2 || (t.op == CollectiveOp::send_recv && n != 2))
          throw InputError(file, f + ".group", t.op == CollectiveOp::send_recv ? "send-recv needs exactly 2 ranks"
                                                                               : "needs at least 2 ranks");
        std::vector<int> seen = t.group;
        std::sort(seen.begin(), seen.end());
        if (std::adjacent_find(seen.begin(), seen.end()) != seen.end() || !rank_ok(seen.front()) ||
            !rank_ok(seen.back()))
          throw InputError(file, f + ".group", fmt::format("needs distinct ranks below {}", g.ranks));
        if (t.root < 0 || t.root >= n) throw InputError(file, f + ".root", "must index a rank of the group");
        if (!(t.bytes > 0)) throw InputError(file, f + ".bytes", "must be > 0");
        break;
      }
      case TaskKind::barrier: break;
    }
  }
  topological_order(g, file, prefix + "tasks");
}

std::vector<int> topological_order(const JobGraph& g, const std::string& file, const std::string& field) {
  const Digraph d = make_digraph(g);
  std::vector<std::size_t> reversed;
  try {
    boost::topological_sort(d, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    // Name a task on a cycle: one that can reach itself.
    for (std::size_t t = 0; t < g.tasks.size(); ++t) {
      std::vector<char> seen(g.tasks.size(), 0);
      std::vector<std::size_t> stack{t};
      while (!stack.empty()) {
        const std::size_t v = stack.back();
        stack.pop_back();
        for (auto [e, end] = boost::out_edges(v, d); e != end; ++e) {
          const std::size_t w = boost::target(*e, d);
          if (w == t)
            throw InputError(file, fmt::format("{}[{}].deps", field, t),
                             fmt::format("task '{}' depends on itself through a cycle", g.tasks[t].name));
          if (!seen[w]) {
            seen[w] = 1;
            stack.push_back(w);
          }
        }
      }
    }
    throw InputError(file, field, "the dependencies form a cycle");
  }
  return {reversed.rbegin(), reversed.rend()};
}

CriticalPath critical_path(const JobGraph& g, const std::function<Seconds(const Task&)>& duration) {
  const Digraph d = make_digraph(g);
  const auto order = topological_order(g);
  std::vector<Seconds> finish(g.tasks.size(), 0.0);
  std::vector<int> via(g.tasks.size(), -1);
  for (int t : order) {
    Seconds start = 0;
    int latest = -1;  // the dependency that finishes last (the first such one on a tie)
    for (auto [e, end] = boost::in_edges(static_cast<std::size_t>(t), d); e != end; ++e) {
      const auto u = static_cast<int>(boost::source(*e, d));
      if (latest < 0 || finish[static_cast<std::size_t>(u)] > start) {
        start = finish[static_cast<std::size_t>(u)];
        latest = u;
      }
    }
    via[static_cast<std::size_t>(t)] = latest;
    finish[static_cast<std::size_t>(t)] = start + duration(g.tasks[static_cast<std::size_t>(t)]);
  }
  CriticalPath cp;
  int last = 0;
  for (std::size_t t = 0; t < finish.size(); ++t)
    if (finish[t] >= finish[static_cast<std::size_t>(last)]) last = static_cast<int>(t);  // ties: the later task
  cp.length_s = finish[static_cast<std::size_t>(last)];
  for (int t = last; t >= 0; t = via[static_cast<std::size_t>(t)]) cp.tasks.push_back(t);
  std::reverse(cp.tasks.begin(), cp.tasks.end());
  return cp;
}

}  // namespace odcn::workload
