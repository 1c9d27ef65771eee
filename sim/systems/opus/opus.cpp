#include "systems/opus/opus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace odcn::sched {

const char* to_string(OpusMode m) { return m == OpusMode::on_demand ? "on-demand" : "provisioned"; }

bool parse_opus_mode(const std::string& name, OpusMode& m) {
  if (name == "on-demand") m = OpusMode::on_demand;
  else if (name == "provisioned") m = OpusMode::provisioned;
  else return false;
  return true;
}

namespace {

using Edge = std::pair<int, int>;
using workload::CollectiveOp;
using workload::TaskKind;

Edge edge(int a, int b) { return a < b ? Edge{a, b} : Edge{b, a}; }

/// Whether bytes from a to b leave the scale-up domain (over a circuit or a NIC); raises InputError when there
/// is no path at all.
bool crosses(const net::Network& n, int a, int b, const std::string& file, const std::string& field) {
  net::Path p = net::Path::none;
  std::string why;
  if (!n.route(a, b, p, why)) throw InputError(file, field, why);
  return p == net::Path::circuit || p == net::Path::nic || p == net::Path::pxn;
}

/// The endpoint pairs a collective's lowering connects: ring neighbours for rings, every pair for direct
/// algorithms, root and worker for a parameter server.
std::vector<Edge> collective_edges(const workload::Task& t, const std::vector<int>& ep) {
  std::vector<Edge> out;
  const int n = static_cast<int>(t.group.size());
  const auto at = [&](int i) { return ep[static_cast<std::size_t>(t.group[static_cast<std::size_t>(i)])]; };
  if (t.algorithm == workload::CollectiveAlgorithm::ring) {
    for (int i = 0; i < (n == 2 ? 1 : n); ++i) out.push_back(edge(at(i), at((i + 1) % n)));
  } else if (t.algorithm == workload::CollectiveAlgorithm::parameter_server) {
    for (int i = 0; i < n; ++i)
      if (i != t.root) out.push_back(edge(at(t.root), at(i)));
  } else {
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) out.push_back(edge(at(i), at(j)));
  }
  return out;
}

/// A group of `edges` (sorted, unique) whose flows cross the circuit `pairs`: each pair gets min(ports / d) circuits,
/// d the pairs at each of its ends (for a split pipeline hop, the ends' pipeline peers). Raises InputError when a
/// GPU would need more circuits than it has ports.
RailGroup make_group(const net::Network& network, const std::vector<Edge>& edges, const std::vector<int>& pairs,
                     int ports, const std::vector<std::set<int>>& hop_peers, const std::string& file,
                     const std::string& field) {
  RailGroup g;
  g.edges = edges;
  std::set<int> endpoints, holders;
  for (const auto& [a, b] : edges) endpoints.insert({a, b});
  std::map<int, int> degree;  // circuit pairs at each GPU
  for (int p : pairs) {
    const auto [a, b] = network.pairs[static_cast<std::size_t>(p)];
    ++degree[a];
    ++degree[b];
  }
  for (const auto& [e, d] : degree) holders.insert(e);
  g.endpoints.assign(endpoints.begin(), endpoints.end());
  holders.insert(endpoints.begin(), endpoints.end());
  g.holders.assign(holders.begin(), holders.end());
  std::set<int> rails;
  for (int p : pairs) rails.insert(network.pair_switch[static_cast<std::size_t>(p)]);
  const int a0 = edges.front().first;
  g.rail = rails.size() == 1 ? *rails.begin()
           : !rails.empty()  ? -1
                             : (network.switch_of.empty() ? 0 : network.switch_of[static_cast<std::size_t>(a0)]);
  g.label = fmt::format("{}s", network.endpoint_word);
  for (const auto& [a, b] : edges) g.label += fmt::format(" {}-{}", a, b);
  std::string via;  // the proxies' circuits, where they are not the edges' own
  for (int p : pairs)
    if (!std::binary_search(edges.begin(), edges.end(), network.pairs[static_cast<std::size_t>(p)]))
      via += fmt::format(" {}-{}", network.pairs[static_cast<std::size_t>(p)].first,
                         network.pairs[static_cast<std::size_t>(p)].second);
  if (!via.empty()) g.label += " via" + via;
  if (pairs.size() == 1) {
    const auto [x, y] = network.pairs[static_cast<std::size_t>(pairs[0])];
    g.hop = hop_peers[static_cast<std::size_t>(x)].count(y) > 0;
  }
  for (int p : pairs) {
    const auto [a, b] = network.pairs[static_cast<std::size_t>(p)];
    const int da = g.hop ? static_cast<int>(hop_peers[static_cast<std::size_t>(a)].size()) : degree[a];
    const int db = g.hop ? static_cast<int>(hop_peers[static_cast<std::size_t>(b)].size()) : degree[b];
    const int circuits = std::min(ports / da, ports / db);
    if (circuits < 1)
      throw InputError(file, field,
                       fmt::format("{} links {} {} to {} {}peers across scale-up domains, but a {} has {} NIC "
                                   "port(s) on its rail's OCS",
                                   g.label, network.endpoint_word, da >= db ? a : b, std::max(da, db),
                                   g.hop ? "pipeline " : "", network.endpoint_word, ports));
    g.circuits.emplace_back(p, circuits);
  }
  return g;
}

/// The circuit pairs the task's flows cross: for each edge over a circuit, its own pair; where an edge crosses
/// rails (Path::pxn), the proxies' pairs of the flows the engine runs (the task lowered as the executor lowers it:
/// a send a -> b crosses (proxy(a, b), b), its reverse another rail's pair).
std::vector<int> crossed_pairs(const net::Network& n, const workload::Task& task, const std::vector<int>& ep,
                               const std::vector<Edge>& edges) {
  std::vector<int> out;
  bool forwarded = false;
  for (const auto& [a, b] : edges) {
    const net::Path p = n.path(a, b);
    if (p == net::Path::circuit) out.push_back(n.pair_index(a, b));
    forwarded = forwarded || p == net::Path::pxn;
  }
  const auto add = [&](int src, int dst) {
    if (src == dst) return;
    if (const int p = n.crossed_pair(src, dst, n.path(src, dst)); p >= 0) out.push_back(p);
  };
  if (forwarded)
    for_each_endpoint_flow(n, task, ep, [&](int a, int b, Bytes) { add(a, b); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

RailGroups::RailGroups(const net::Network& network, const std::vector<GraphJob>& jobs, int ports,
                       const std::string& file, HopCircuits hops)
    : ports_(ports), hops_(hops) {
  // With split hops, each GPU's pipeline peers across domains (the ends of the circuits its hops cross), over all
  // jobs.
  std::vector<std::set<int>> hop_peers(static_cast<std::size_t>(network.endpoints));
  std::map<std::pair<std::vector<Edge>, std::vector<int>>, int> ids;
  const auto intern = [&](std::vector<Edge> edges, std::vector<int> pairs, const std::string& field) {
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const auto [it, fresh] = ids.try_emplace({edges, pairs}, static_cast<int>(groups_.size()));
    if (!fresh) return it->second;
    groups_.push_back(make_group(network, edges, pairs, ports, hop_peers, file, field));
    return static_cast<int>(groups_.size()) - 1;
  };

  const auto is_p2p = [](const workload::Task& task) {
    return task.kind == TaskKind::transfer || (task.kind == TaskKind::collective && task.op == CollectiveOp::send_recv);
  };
  const auto ends = [](const workload::Task& task, const std::vector<int>& ep) {
    const bool transfer = task.kind == TaskKind::transfer;
    return Edge{ep[static_cast<std::size_t>(transfer ? task.src : task.group[0])],
                ep[static_cast<std::size_t>(transfer ? task.dst : task.group[1])]};
  };
  if (hops == HopCircuits::split)
    for (const GraphJob& job : jobs)
      for (const workload::Task& task : job.graph->tasks) {
        if (!is_p2p(task)) continue;
        const auto [a, b] = ends(task, job.endpoints);
        net::Path path = net::Path::none;
        std::string why;
        if (!network.route(a, b, path, why)) continue;  // refused below, naming the task
        const int p = network.crossed_pair(a, b, path);
        if (p < 0) continue;  // not over a circuit
        const auto [x, y] = network.pairs[static_cast<std::size_t>(p)];
        hop_peers[static_cast<std::size_t>(x)].insert(y);
        hop_peers[static_cast<std::size_t>(y)].insert(x);
      }
  for (const GraphJob& job : jobs) {
    const workload::JobGraph& graph = *job.graph;
    const auto& ep = job.endpoints;
    std::vector<int>& of = of_.emplace_back(graph.tasks.size(), -1);
    for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
      const workload::Task& task = graph.tasks[t];
      const std::string field = fmt::format("{}.tasks[{}]", job.field, t);
      std::vector<Edge> edges;
      if (is_p2p(task)) {
        // A pipeline hop is its own group: the pair of adjacent stages (Opus §5: circuits per communication
        // group, so stage 2's data-parallel collective and a stage 0 -> 1 message hold their circuits at once).
        const auto [a, b] = ends(task, ep);
        if (crosses(network, a, b, file, field)) edges.push_back(edge(a, b));
      } else if (task.kind == TaskKind::collective) {
        for (const auto& [a, b] : collective_edges(task, ep))
          if (crosses(network, a, b, file, field)) edges.push_back({a, b});
      }
      if (edges.empty()) continue;
      std::vector<int> pairs = ports > 0 ? crossed_pairs(network, task, ep, edges) : std::vector<int>{};
      of[t] = intern(std::move(edges), std::move(pairs), field);
    }
  }
}

PhaseWindows phase_windows(std::vector<PhaseRecord> records) {
  std::sort(records.begin(), records.end(), [](const PhaseRecord& a, const PhaseRecord& b) {
    return std::tie(a.endpoint, a.start_s, a.end_s, a.job, a.iteration, a.task) <
           std::tie(b.endpoint, b.start_s, b.end_s, b.job, b.iteration, b.task);
  });
  PhaseWindows out;
  // The phase that starts at records[i]: records[i..j) on one endpoint, one group; its last end.
  const auto phase_end = [&](std::size_t i, Seconds& last_end) {
    std::size_t j = i;
    last_end = records[i].end_s;
    while (j < records.size() && records[j].endpoint == records[i].endpoint && records[j].group == records[i].group) {
      last_end = std::max(last_end, records[j].end_s);
      ++j;
    }
    return j;
  };
  std::size_t i = 0;
  while (i < records.size()) {
    Seconds last_end = 0;
    const std::size_t j = phase_end(i, last_end);
    if (j < records.size() && records[j].endpoint == records[i].endpoint) {
      const PhaseRecord& next = records[j];  // P2's earliest start
      Seconds unused = 0;
      Bytes bytes = 0;
      for (std::size_t k = j, end = phase_end(j, unused); k < end; ++k) bytes += records[k].bytes;
      if (next.start_s < last_end)
        ++out.overlaps;
      else
        out.windows.push_back({next.endpoint, next.job, next.iteration, records[i].group, next.group, last_end,
                               next.start_s - last_end, next.task, bytes});
    }
    i = j;
  }
  return out;
}

int steady_from(const std::vector<std::vector<Seconds>>& durations) {
  int from = 1;
  for (const auto& d : durations) {
    if (d.size() < 2) return -1;
    std::size_t k = d.size() - 1;
    while (k > 1 && std::abs(d[k - 1] - d.back()) <= 1e-9 * d.back()) --k;
    from = std::max(from, static_cast<int>(k));
  }
  return from;
}

OpusController::OpusController(const net::Network& network, const std::vector<GraphJob>& jobs,
                               const RailGroups& groups, OpusMode mode, bool reconfigure)
    : network_(network),
      jobs_(jobs),
      groups_(groups),
      mode_(mode),
      reconfigure_(reconfigure),
      current_(network.empty_config()),
      users_(network.pairs.size(), 0),
      pairs_of_endpoint_(static_cast<std::size_t>(network.endpoints)),
      running_on_(static_cast<std::size_t>(network.endpoints), 0),
      profile_(static_cast<std::size_t>(network.endpoints)),
      profile_job_(static_cast<std::size_t>(network.endpoints), -1),
      started_on_(static_cast<std::size_t>(network.endpoints), 0),
      profiled_(jobs.size(), 0),
      done_in_first_(jobs.size(), 0) {
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    pairs_of_endpoint_[static_cast<std::size_t>(network.pairs[p].first)].push_back(static_cast<int>(p));
    pairs_of_endpoint_[static_cast<std::size_t>(network.pairs[p].second)].push_back(static_cast<int>(p));
  }
}

std::vector<std::pair<int, int>> OpusController::with_group(int group) const {
  const RailGroup& g = groups_.group(group);
  std::map<int, int> next;  // pair -> circuits, where they would differ from now
  const auto now = [&](int p) {
    const auto it = next.find(p);
    return it != next.end() ? it->second : current_.circuits[static_cast<std::size_t>(p)];
  };
  const auto wanted = [&](int p) {
    return std::any_of(g.circuits.begin(), g.circuits.end(), [&](const auto& c) { return c.first == p; });
  };
  for (const auto& [p, l] : g.circuits) next[p] = l;
  // Only the ports the group needs: where one of its GPUs now has more circuits than NIC ports, its circuits to
  // GPUs outside the group go dark, idle ones first (a busy one makes the set-up wait), lowest pair first.
  for (int e : g.holders) {
    const auto& pairs = pairs_of_endpoint_[static_cast<std::size_t>(e)];
    int used = 0;
    for (int p : pairs) used += now(p);
    for (const bool busy : {false, true})
      for (int p : pairs) {
        if (used <= groups_.ports()) break;
        const int c = now(p);
        if (c == 0 || wanted(p) || (users_[static_cast<std::size_t>(p)] > 0) != busy) continue;
        used -= c;
        next[p] = 0;
      }
  }
  std::vector<std::pair<int, int>> out;
  for (const auto& [p, l] : next)
    if (l != current_.circuits[static_cast<std::size_t>(p)]) out.emplace_back(p, l);
  return out;
}

bool OpusController::set_up(int group, const std::string& reason, int& changes_made, Actions& act) {
  const auto changes = with_group(group);
  if (changes.empty()) return true;
  for (const auto& [p, l] : changes)
    if (users_[static_cast<std::size_t>(p)] > 0) return false;
  for (const auto& [p, l] : changes) current_.circuits[static_cast<std::size_t>(p)] = l;
  act.configure_changes(changes, reason);
  ++changes_made;
  return true;
}

bool OpusController::awaited(const RailGroup& g) const {
  for (const Waiting& w : waiting_)
    for (int e : groups_.group(w.group).holders)
      if (std::binary_search(g.holders.begin(), g.holders.end(), e)) return true;
  return false;
}

std::string OpusController::reason(int group) const {
  return fmt::format("opus {}: {}", to_string(mode_), groups_.group(group).label);
}

void OpusController::start(const TaskRef& ref, int group) {
  const RailGroup& g = groups_.group(group);
  for (const auto& [p, l] : g.circuits) ++users_[static_cast<std::size_t>(p)];
  for (int e : g.endpoints) {
    const auto ei = static_cast<std::size_t>(e);
    ++running_on_[ei];
    ++started_on_[ei];
    if (profile_job_[ei] < 0) profile_job_[ei] = ref.job;
    if (profile_job_[ei] == ref.job && ref.iteration == 0) profile_[ei].push_back(group);
  }
}

Controller::Gate OpusController::on_task_ready(const TaskRef& ref, const workload::Task& /*task*/, Seconds /*now*/,
                                               Actions& act) {
  const int group = groups_.group_of(ref.job, ref.task);
  if (group < 0) return {};
  // An earlier task waiting for one of its ports goes first.
  if (reconfigure_ && (awaited(groups_.group(group)) || !set_up(group, reason(group), on_demand_, act))) {
    waiting_.push_back({ref, group});
    Gate hold;
    hold.hold = true;
    return hold;
  }
  start(ref, group);
  return {};
}

void OpusController::serve(Actions& act) {
  std::set<int> blocked;  // endpoints an earlier waiting task still waits for
  for (std::size_t i = 0; i < waiting_.size();) {
    const Waiting w = waiting_[i];
    const RailGroup& g = groups_.group(w.group);
    const bool after_earlier = std::any_of(g.holders.begin(), g.holders.end(), [&](int e) { return blocked.count(e) > 0; });
    if (after_earlier || !set_up(w.group, reason(w.group), on_demand_, act)) {
      blocked.insert(g.holders.begin(), g.holders.end());
      ++i;
      continue;
    }
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
    start(w.ref, w.group);
    act.release({w.ref.job, w.ref.task});
  }
}

void OpusController::provision(int endpoint, Actions& act) {
  const auto ei = static_cast<std::size_t>(endpoint);
  const auto& seq = profile_[ei];
  if (seq.empty() || running_on_[ei] > 0 || !profiled_[static_cast<std::size_t>(profile_job_[ei])]) return;
  const int next = seq[static_cast<std::size_t>(started_on_[ei] % static_cast<long>(seq.size()))];
  const RailGroup& g = groups_.group(next);
  // Every GPU of the next group must be between phases and expect that group next; none may be awaited.
  for (int e : g.endpoints) {
    const auto x = static_cast<std::size_t>(e);
    if (running_on_[x] > 0 || profile_[x].empty() || profile_job_[x] != profile_job_[ei] ||
        profile_[x][static_cast<std::size_t>(started_on_[x] % static_cast<long>(profile_[x].size()))] != next)
      return;
  }
  if (awaited(g)) return;
  set_up(next, fmt::format("opus provisioned ahead: {}", g.label), provisioned_, act);
}

void OpusController::on_task_done(const TaskRef& ref, const workload::Task& task, Seconds start, Seconds end,
                                  Actions& act) {
  const auto job = static_cast<std::size_t>(ref.job);
  // The profile is complete when the job's first iteration has ended: then every idle GPU of the job can be
  // set up for its next group at once.
  bool profile_complete = false;
  if (ref.iteration == 0 && ++done_in_first_[job] == static_cast<long>(jobs_[job].graph->tasks.size())) {
    profiled_[job] = 1;
    profile_complete = true;
  }
  const int group = groups_.group_of(ref.job, ref.task);
  if (group >= 0) {
    const RailGroup& g = groups_.group(group);
    for (const auto& [p, l] : g.circuits) --users_[static_cast<std::size_t>(p)];
    for (int e : g.endpoints) {
      --running_on_[static_cast<std::size_t>(e)];
      records_.push_back({e, ref.job, ref.iteration, ref.task, group, start, end, task.bytes});
    }
  }
  if (!reconfigure_ || (group < 0 && !profile_complete)) return;
  serve(act);
  if (mode_ != OpusMode::provisioned) return;
  if (profile_complete) {
    for (int e = 0; e < network_.endpoints; ++e)
      if (profile_job_[static_cast<std::size_t>(e)] == ref.job) provision(e, act);
  } else {
    // Its GPUs and the proxies whose ports it held: each may now set up its own next group.
    for (int e : groups_.group(group).holders) provision(e, act);
  }
}

}  // namespace odcn::sched
