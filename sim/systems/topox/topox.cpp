// TOPO-X's flow graph (collectives lowered to transfers), multi-hop forwarding, and the plan's lit circuits.
#include "systems/topox/topox.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "policy/milp.hpp"

#include "systems/topox/topox_internal.hpp"

namespace odcn::sched {

using workload::JobGraph;
using workload::Task;
using workload::TaskKind;
using namespace topox_internal;

namespace {

/// Appends `t` to `out` with the union of the new indices of its old dependencies.
void add_with_deps(JobGraph& out, Task t, const std::vector<int>& old_deps, const std::vector<std::vector<int>>& now) {
  t.deps.clear();
  for (int d : old_deps)
    for (int n : now[static_cast<std::size_t>(d)]) t.deps.push_back(n);
  std::sort(t.deps.begin(), t.deps.end());
  t.deps.erase(std::unique(t.deps.begin(), t.deps.end()), t.deps.end());
  out.tasks.push_back(std::move(t));
}

}  // namespace

std::string topox_mip_mode(const std::string& variant) {
  return variant == "heuristic" ? "never" : variant == "mip" ? "always" : "auto";
}

RingPaths topox_ring_paths(int nic_ports) {
  RingPaths rings;
  for (int r = 0; r < nic_ports; ++r) rings.strides.push_back(r % 2 == 0 ? 1 : -1);
  return rings;
}

JobGraph flow_graph(const JobGraph& g, const std::vector<int>& endpoints, const RingPaths& rings,
                    const std::string& file, const std::string& field) {
  JobGraph out;
  out.name = g.name;
  out.iterations = g.iterations;
  out.arrival_s = g.arrival_s;
  out.ranks = endpoints.empty() ? 1 : *std::max_element(endpoints.begin(), endpoints.end()) + 1;
  const auto server = [&](int rank) { return endpoints[static_cast<std::size_t>(rank)]; };
  std::vector<std::vector<int>> now(g.tasks.size());  // old task -> the new tasks its dependents wait for
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    const int first = static_cast<int>(out.tasks.size());
    if (t.kind == TaskKind::compute && t.rank == workload::kAllRanks) {
      // Every rank at once: one compute per rank, so that each runs on its own server.
      for (int r = 0; r < g.ranks; ++r) {
        Task c = t;
        c.rank = server(r);
        c.name = fmt::format("{}@{}", t.name, r);
        add_with_deps(out, std::move(c), t.deps, now);
      }
    } else if (t.kind == TaskKind::compute) {
      Task c = t;
      c.rank = server(t.rank);
      add_with_deps(out, std::move(c), t.deps, now);
    } else if (t.kind == TaskKind::transfer) {
      Task c = t;
      c.src = server(t.src);
      c.dst = server(t.dst);
      add_with_deps(out, std::move(c), t.deps, now);
    } else if (t.kind == TaskKind::barrier) {
      add_with_deps(out, t, t.deps, now);
    } else {
      if (t.op != workload::CollectiveOp::all_reduce || t.algorithm != workload::CollectiveAlgorithm::ring)
        throw InputError(file, fmt::format("{}.tasks[{}]", field, i),
                         fmt::format("task '{}': TOPO-X and TopoOpt schedule ring all-reduces only (this is {} {})",
                                     t.name, workload::to_string(t.op), workload::to_string(t.algorithm)));
      // The ring all-reduce as its aggregate traffic (TOPO-X §VII's simplified ring model): each member sends
      // 2(g-1)/g·S to its successor, split evenly over the ring paths.
      const int g_size = static_cast<int>(t.group.size());
      std::vector<int> strides;
      for (int s : rings.strides)
        if (g_size > 1 && ((s % g_size) + g_size) % g_size != 0) strides.push_back(((s % g_size) + g_size) % g_size);
      if (strides.empty() && g_size > 1) strides.push_back(1);
      const Bytes share = g_size > 1 ? 2.0 * (g_size - 1) / g_size * t.bytes / static_cast<double>(strides.size()) : 0.0;
      std::vector<int> inputs;  // the new tasks the ring's transfers wait for: the intra-server term, if any
      if (rings.intra_seconds_per_byte > 0 && g_size > 1) {
        Task intra;
        intra.kind = TaskKind::compute;
        intra.rank = server(t.group[0]);
        intra.duration_s = rings.intra_seconds_per_byte * t.bytes;
        intra.name = t.name + ".intra";
        add_with_deps(out, std::move(intra), t.deps, now);
        inputs.push_back(static_cast<int>(out.tasks.size()) - 1);
      }
      for (std::size_t p = 0; p < strides.size(); ++p)
        for (int m = 0; m < g_size; ++m) {
          Task c;
          c.kind = TaskKind::transfer;
          c.src = server(t.group[static_cast<std::size_t>(m)]);
          c.dst = server(t.group[static_cast<std::size_t>((m + strides[p]) % g_size)]);
          c.bytes = std::round(share);
          c.name = fmt::format("{}.ring{}.{}", t.name, p, m);
          if (inputs.empty()) {
            add_with_deps(out, std::move(c), t.deps, now);
          } else {
            c.deps = inputs;
            out.tasks.push_back(std::move(c));
          }
        }
      // A zero-length barrier closes the all-reduce so that its dependents wait for one task, not for every
      // ring transfer.
      const int last = static_cast<int>(out.tasks.size());
      Task done;
      done.kind = TaskKind::barrier;
      done.name = t.name + ".done";
      for (int n = first; n < last; ++n) done.deps.push_back(n);
      if (last == first) add_with_deps(out, std::move(done), t.deps, now);
      else out.tasks.push_back(std::move(done));
      now[i] = {static_cast<int>(out.tasks.size()) - 1};
      continue;
    }
    for (int n = first; n < static_cast<int>(out.tasks.size()); ++n) now[i].push_back(n);
  }
  return out;
}

MultiHop multi_hop(const JobGraph& flows, const std::function<bool(int, int)>& direct,
                   const std::function<std::vector<int>(int, int)>& route) {
  MultiHop m;
  m.graph.name = flows.name;
  m.graph.ranks = flows.ranks;
  m.graph.iterations = flows.iterations;
  m.graph.arrival_s = flows.arrival_s;
  std::vector<std::vector<int>> now(flows.tasks.size());
  // Transfers that start together (the same inputs) on the same link travel as one aggregate transfer of their
  // summed bytes, exact for its last byte (DESIGN.md §3: aggregate, don't enumerate; an all-to-all forwarded over
  // 128 servers would otherwise be ~50,000 concurrent transfers).
  std::map<std::tuple<std::vector<int>, int, int>, int> merged;
  const auto add_transfer = [&](Task t, const std::vector<int>& old_deps, std::size_t origin) {
    JobGraph one;
    add_with_deps(one, std::move(t), old_deps, now);
    Task& leg = one.tasks[0];
    const auto key = std::make_tuple(leg.deps, leg.src, leg.dst);
    const auto it = merged.find(key);
    if (it != merged.end()) {
      m.graph.tasks[static_cast<std::size_t>(it->second)].bytes += leg.bytes;
      now[origin].push_back(it->second);
      return;
    }
    merged.emplace(key, static_cast<int>(m.graph.tasks.size()));
    now[origin].push_back(static_cast<int>(m.graph.tasks.size()));
    m.graph.tasks.push_back(std::move(leg));
  };
  for (std::size_t i = 0; i < flows.tasks.size(); ++i) {
    const Task& t = flows.tasks[i];
    const bool network = t.kind == TaskKind::transfer && t.src != t.dst && t.bytes > 0;
    if (network && !direct(t.src, t.dst)) {
      const std::vector<int> path = route(t.src, t.dst);
      if (path.size() < 2 || path.front() != t.src || path.back() != t.dst)
        throw ConfigError(fmt::format("task '{}': no route from server {} to server {} on the static topology", t.name,
                                      t.src, t.dst));
      ++m.forwarded;
      m.forwarded_bytes += t.bytes;
      for (std::size_t h = 0; h + 1 < path.size(); ++h) {
        Task leg = t;
        leg.src = path[h];
        leg.dst = path[h + 1];
        leg.name = fmt::format("{}.hop{}", t.name, h);
        add_transfer(std::move(leg), t.deps, i);
        ++m.legs;
        m.hop_bytes += t.bytes;
      }
    } else if (network) {
      add_transfer(t, t.deps, i);
    } else {
      now[i].push_back(static_cast<int>(m.graph.tasks.size()));
      add_with_deps(m.graph, t, t.deps, now);
    }
    std::sort(now[i].begin(), now[i].end());
    now[i].erase(std::unique(now[i].begin(), now[i].end()), now[i].end());
  }
  m.transfers = 0;
  for (const auto& t : m.graph.tasks) m.transfers += t.kind == TaskKind::transfer ? 1 : 0;
  return m;
}

std::vector<net::PortCircuit> TopoxPlan::lit_during(int t) const {
  std::vector<net::PortCircuit> out;
  const int last = std::min(static_cast<int>(slots.size()) - 1, t + reconfig_slots);
  for (int u = std::max(t, 0); u <= last; ++u)
    for (const auto& c : slots[static_cast<std::size_t>(u)]) out.push_back(c);
  const auto key = [](const net::PortCircuit& c) { return std::make_tuple(c.ocs, c.a, c.b); };
  std::sort(out.begin(), out.end(), [&](const auto& x, const auto& y) { return key(x) < key(y); });
  out.erase(std::unique(out.begin(), out.end(), [&](const auto& x, const auto& y) { return key(x) == key(y); }),
            out.end());
  return out;
}

}  // namespace odcn::sched
