// FlexNet's cost estimator (systems/topox/flexnet_estimate.hpp): segments over exclusive FIFO links.
#include "systems/topox/flexnet_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>

#include "core/error.hpp"

namespace odcn::sched {

using workload::JobGraph;
using workload::Task;
using workload::TaskKind;

FlexnetEstimate flexnet_estimate(const JobGraph& flows, const std::function<std::vector<int>(int, int)>& route,
                                 const std::function<BytesPerSecond(int, int)>& bandwidth, const FlexnetOptions& options) {
  if (!(options.segment_bytes > 0) || !(options.hop_latency_s >= 0))
    throw ConfigError("FlexNet estimate: the segment must be > 0 bytes and the hop latency >= 0");
  const std::size_t n = flows.tasks.size();
  FlexnetEstimate out;
  out.finish_s.assign(n, 0);
  std::vector<std::vector<int>> succ(n);
  std::vector<int> missing(n);
  std::vector<Seconds> ready(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    missing[i] = static_cast<int>(flows.tasks[i].deps.size());
    for (int d : flows.tasks[i].deps) succ[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
  }
  // FlexNet's queue: (ready time, task); a transfer goes back in with its next segment's ready time.
  using Entry = std::pair<Seconds, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (std::size_t i = 0; i < n; ++i)
    if (missing[i] == 0) queue.emplace(0.0, static_cast<int>(i));
  std::map<std::pair<int, int>, Seconds> link_free;  // directed (a, b) -> when its last reservation ends
  std::vector<Bytes> left(n, -1);                     // bytes a transfer has still to send (-1: not started)
  std::vector<std::vector<int>> paths(n);
  const auto finish = [&](int i, Seconds at) {
    const auto u = static_cast<std::size_t>(i);
    out.finish_s[u] = at;
    out.iteration_s = std::max(out.iteration_s, at);
    for (int s : succ[u]) {
      const auto v = static_cast<std::size_t>(s);
      ready[v] = std::max(ready[v], at);
      if (--missing[v] == 0) queue.emplace(ready[v], s);
    }
  };
  while (!queue.empty()) {
    const auto [at, i] = queue.top();
    queue.pop();
    const auto u = static_cast<std::size_t>(i);
    const Task& t = flows.tasks[u];
    const bool network = t.kind == TaskKind::transfer && t.src != t.dst && t.bytes > 0;
    if (!network) {
      finish(i, at + (t.kind == TaskKind::compute ? t.duration_s : 0.0));
      continue;
    }
    if (left[u] < 0) {
      left[u] = t.bytes;
      paths[u] = route(t.src, t.dst);
      if (paths[u].size() < 2)
        throw ConfigError(fmt::format("FlexNet estimate: no route from server {} to {} (task '{}')", t.src, t.dst, t.name));
    }
    const Bytes segment = std::min(options.segment_bytes, left[u]);
    left[u] -= segment;
    ++out.segments;
    // Every hop reserved at once, cut-through: hop h + 1 is ready one latency after hop h starts.
    Seconds hop_ready = at, first_free = at, done = at;
    for (std::size_t h = 0; h + 1 < paths[u].size(); ++h) {
      const int a = paths[u][h], b = paths[u][h + 1];
      const BytesPerSecond bw = bandwidth(a, b);
      if (!(bw > 0)) throw ConfigError(fmt::format("FlexNet estimate: no link from server {} to {}", a, b));
      Seconds& free = link_free[{a, b}];
      const Seconds start = std::max(free, hop_ready);
      free = start + options.hop_latency_s + segment / bw;
      if (h == 0) first_free = free;
      done = std::max(done, free);
      hop_ready = start + options.hop_latency_s;
    }
    out.finish_s[u] = std::max(out.finish_s[u], done);
    if (left[u] > 0) queue.emplace(first_free, i);
    else finish(i, out.finish_s[u]);
  }
  return out;
}

}  // namespace odcn::sched
