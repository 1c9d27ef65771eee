#include "systems/inc_aoi/ps_from_graphs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::workload {

namespace {

/// The shape INC-AOI schedules, read from a graph: the compute time every worker spends, the push's root and S.
struct PsShape {
  Seconds compute_s = 0;
  int root = 0;
  Bytes bytes = 0;
};

[[noreturn]] void refuse(const std::string& file, const PlacedGraph& p, const std::string& why) {
  throw InputError(file, p.field,
                   fmt::format("INC-AOI's policies schedule parameter-server jobs (every rank computes, then a "
                               "ps-push of S to one root, then a ps-pull of S): job graph '{}' {}",
                               shown(p.graph->name), why));
}

bool whole_group(const Task& t, int ranks) { return static_cast<int>(t.group.size()) == ranks; }

/// Its compute: one task on every rank (kAllRanks), or one task of the same length on each rank.
Seconds compute_time(const PlacedGraph& p, const std::vector<const Task*>& compute, const std::string& file) {
  const int ranks = p.graph->ranks;
  if (compute.size() == 1 && compute[0]->rank == kAllRanks) return compute[0]->duration_s;
  std::map<int, Seconds> per_rank;
  for (const Task* t : compute) per_rank[t->rank] += t->duration_s;
  if (static_cast<int>(per_rank.size()) != ranks || static_cast<int>(compute.size()) != ranks)
    refuse(file, p, "has compute tasks that are not one per rank");
  for (const auto& [rank, s] : per_rank)
    if (s != per_rank.begin()->second)
      refuse(file, p, fmt::format("computes {} s on rank {} and {} s on rank {}", s, rank, per_rank.begin()->second,
                                  per_rank.begin()->first));
  return per_rank.begin()->second;
}

/// The order INC-AOI's iteration has: the push after every compute task, the pull after the push, the compute
/// after nothing.
void check_order(const PlacedGraph& p, const std::vector<const Task*>& compute, const Task* push, const Task* pull,
                 const std::string& file) {
  const auto index = [&](const Task* t) { return static_cast<int>(t - p.graph->tasks.data()); };
  const auto depends = [](const Task* t, int on) { return std::find(t->deps.begin(), t->deps.end(), on) != t->deps.end(); };
  for (const Task* c : compute)
    if (!c->deps.empty() || !depends(push, index(c)))
      refuse(file, p, fmt::format("does not start its push after compute task '{}' (and that task after nothing)",
                                  shown(c->name)));
  if (pull->deps.size() != 1 || !depends(pull, index(push)))
    refuse(file, p, "does not start its pull right after its push");
}

PsShape read_shape(const PlacedGraph& p, const std::string& file) {
  const JobGraph& g = *p.graph;
  std::vector<const Task*> compute;
  const Task *push = nullptr, *pull = nullptr;
  for (const auto& t : g.tasks) {
    if (t.kind == TaskKind::compute) compute.push_back(&t);
    else if (t.kind == TaskKind::collective && t.op == CollectiveOp::ps_push && !push) push = &t;
    else if (t.kind == TaskKind::collective && t.op == CollectiveOp::ps_pull && !pull) pull = &t;
    else refuse(file, p, fmt::format("has task '{}', which is neither the compute, the push nor the pull", shown(t.name)));
  }
  if (!push || !pull || compute.empty()) refuse(file, p, "lacks its compute, its ps-push or its ps-pull");
  const int root = push->group[static_cast<std::size_t>(push->root)];
  if (!whole_group(*push, g.ranks) || !whole_group(*pull, g.ranks) ||
      pull->group[static_cast<std::size_t>(pull->root)] != root || push->bytes != pull->bytes)
    refuse(file, p, "has a push and a pull that do not span every rank with one root and one size");
  check_order(p, compute, push, pull, file);
  return {compute_time(p, compute, file), root, push->bytes};
}

}  // namespace

std::vector<PsJob> ps_jobs_from_graphs(const std::vector<PlacedGraph>& graphs, const spec::PlatformSpec& platform,
                                       const std::string& file) {
  std::vector<PsJob> jobs;
  std::map<int, int> taken;  // rack -> servers the earlier jobs took there
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const PlacedGraph& p = graphs[i];
    const PsShape shape = read_shape(p, file);
    PsJob j;
    j.id = static_cast<int>(i);
    j.name = p.graph->name;
    j.model = "job graph";
    j.arrival_s = p.graph->arrival_s;
    j.push_bytes = shape.bytes;
    j.compute_s = shape.compute_s;
    j.iterations = p.graph->iterations;
    // The root first: rank 0 of an INC-AOI job is its parameter server.
    std::vector<int> order{shape.root};
    for (int r = 0; r < p.graph->ranks; ++r)
      if (r != shape.root) order.push_back(r);
    for (int r : order) {
      const int rack = p.racks[static_cast<std::size_t>(r)];
      const int server = taken[rack]++;
      if (server >= platform.servers_per_pod)
        throw InputError(file, p.field + ".endpoints",
                         fmt::format("rack {} has {} servers, fewer than the ranks placed on it by this and the "
                                     "earlier jobs",
                                     rack, platform.servers_per_pod));
      j.rack_of_rank.push_back(rack);
      j.server_of_rank.push_back(rack * platform.servers_per_pod + server);
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace odcn::workload
