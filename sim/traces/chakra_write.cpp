// Writing a job graph as Chakra execution traces, one file per rank, and its process groups.
#include "traces/chakra.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "et_def.pb.h"
#include "spec/json_reader.hpp"
#include "spec/yaml_reader.hpp"
#include "spec/yaml_reader.hpp"

#include "traces/chakra_internal.hpp"

namespace odcn::workload {

using namespace chakra_internal;

namespace {

bool intersects(const std::vector<int>& a, const std::vector<int>& b) {
  const auto& small = a.size() <= b.size() ? a : b;
  const auto& large = a.size() <= b.size() ? b : a;
  for (int x : small)
    if (std::binary_search(large.begin(), large.end(), x)) return true;
  return false;
}

std::vector<int> merged(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// What the writer emits: a task of the graph, or a dependency-only barrier in front of one.
struct Item {
  int task = -1;              // -1: a dependency-only barrier
  std::vector<int> deps;      // items
  std::vector<int> ranks;     // ascending: where it has a node
  std::vector<std::int64_t> ids;  // its node id on each of `ranks`
};

pb::AttributeProto* add_attr(pb::Node& n, const char* name) {
  auto* a = n.add_attr();
  a->set_name(name);
  return a;
}

/// Where each task runs. Barriers (which run nowhere) are given by place_barriers.
std::vector<std::vector<int>> task_ranks(const JobGraph& g, const std::string& file) {
  const std::size_t n = g.tasks.size();
  const auto task_field = [](std::size_t i) { return fmt::format("tasks[{}]", i); };
  std::vector<std::vector<int>> ranks(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = g.tasks[i];
    switch (t.kind) {
      case TaskKind::compute: ranks[i] = {t.rank}; break;
      case TaskKind::transfer: ranks[i] = merged({t.src}, {t.dst}); break;
      case TaskKind::collective: {
        if (t.op == CollectiveOp::ps_push || t.op == CollectiveOp::ps_pull)
          throw InputError(file, task_field(i) + ".op",
                           fmt::format("Chakra has no parameter-server operation ({} of task '{}'), and the "
                                       "gather and scatter it would be are not read back",
                                       to_string(t.op), shown(t.name)));
        const double s = t.op == CollectiveOp::all_gather ? t.bytes / static_cast<double>(t.group.size()) : t.bytes;
        if (s != std::floor(s) || s < 1 || s > 9007199254740992.0)
          throw InputError(file, task_field(i) + ".bytes",
                           t.op == CollectiveOp::all_gather
                               ? fmt::format("Chakra's all-gather comm_size is each rank's input, S/n = {} / {}, "
                                             "which is not a whole number of bytes",
                                             t.bytes, t.group.size())
                               : fmt::format("{} is not a whole number of bytes (Chakra's comm_size is an integer)",
                                             t.bytes));
        ranks[i] = merged(t.group, {});
        break;
      }
      case TaskKind::barrier: break;
    }
    if (t.kind == TaskKind::transfer && (t.bytes != std::floor(t.bytes) || t.bytes > 9007199254740992.0))
      throw InputError(file, task_field(i) + ".bytes",
                       fmt::format("{} is not a whole number of bytes (Chakra's comm_size is an integer)", t.bytes));
  }
  return ranks;
}

void place_barriers(const JobGraph& g, std::vector<std::vector<int>>& ranks) {
  const std::size_t n = g.tasks.size();
  std::vector<std::vector<int>> dependents(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d : g.tasks[i].deps) dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));

  // A barrier becomes a BARRIER collective over the ranks of its neighbours, so that every task it waits for has a
  // member on a rank where it runs, and so does every task that waits for it. Barriers that depend on each other
  // share their ranks (union-find), so that their edges are carried too.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  const auto root_of = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  const auto is_barrier = [&](int i) { return g.tasks[static_cast<std::size_t>(i)].kind == TaskKind::barrier; };
  for (std::size_t i = 0; i < n; ++i)
    if (is_barrier(static_cast<int>(i)))
      for (int d : g.tasks[i].deps)
        if (is_barrier(d)) parent[static_cast<std::size_t>(root_of(d))] = root_of(static_cast<int>(i));
  std::map<int, std::vector<int>> barrier_ranks;  // component -> ranks
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_barrier(static_cast<int>(i))) continue;
    auto& r = barrier_ranks[root_of(static_cast<int>(i))];
    for (int d : g.tasks[i].deps)
      if (!is_barrier(d)) r.insert(r.end(), ranks[static_cast<std::size_t>(d)].begin(), ranks[static_cast<std::size_t>(d)].end());
    for (int c : dependents[i])
      if (!is_barrier(c)) r.insert(r.end(), ranks[static_cast<std::size_t>(c)].begin(), ranks[static_cast<std::size_t>(c)].end());
  }
  for (auto& [component, r] : barrier_ranks) {
    r = merged(std::move(r), {});
    if (r.empty()) r = {0};  // connected to no rank: any one rank keeps it
  }
  for (std::size_t i = 0; i < n; ++i)
    if (is_barrier(static_cast<int>(i))) ranks[i] = barrier_ranks[root_of(static_cast<int>(i))];
}

std::vector<Item> items_of(const JobGraph& g, const std::string& file, const std::vector<std::vector<int>>& ranks) {
  const std::size_t n = g.tasks.size();
  // Items in a topological order. A dependency between tasks that share no rank (compute on rank 0 waiting for
  // compute on rank 1, say) cannot be written into one rank's file: such dependencies of a task go through one
  // dependency-only BARRIER over the ranks of both ends, written just before the task.
  std::vector<Item> items;
  std::vector<int> item_of(n, -1);
  for (int i : topological_order(g, file)) {
    const Task& t = g.tasks[static_cast<std::size_t>(i)];
    Item it;
    it.task = i;
    it.ranks = ranks[static_cast<std::size_t>(i)];
    Item edge;
    for (int d : t.deps) {
      const auto& dr = ranks[static_cast<std::size_t>(d)];
      if (intersects(dr, it.ranks)) {
        it.deps.push_back(item_of[static_cast<std::size_t>(d)]);
      } else {
        edge.deps.push_back(item_of[static_cast<std::size_t>(d)]);
        edge.ranks = merged(std::move(edge.ranks), dr);
      }
    }
    if (!edge.deps.empty()) {
      edge.ranks = merged(std::move(edge.ranks), it.ranks);
      items.push_back(std::move(edge));
      it.deps.push_back(static_cast<int>(items.size()) - 1);
    }
    item_of[static_cast<std::size_t>(i)] = static_cast<int>(items.size());
    items.push_back(std::move(it));
  }
  return items;
}

// Process groups: one name per distinct member list ("1", "2", ...: ASTRA-sim's comm-group file wants integers,
// and "0" is the default group), in order of first use.
struct ProcessGroups {
  std::map<std::vector<int>, std::string> names;
  std::vector<std::vector<int>> list;
  std::string of(const std::vector<int>& members) {
    auto [it, fresh] = names.try_emplace(members, "");
    if (fresh) {
      it->second = fmt::format("{}", list.size() + 1);
      list.push_back(members);
    }
    return it->second;
  }
};

/// A task's node on rank r: its type and attributes.
void set_task_node(pb::Node& node, const Task& task, int index, int r, ProcessGroups& groups) {
  const Task* t = &task;
  node.set_name(t->name);
  switch (t->kind) {
    case TaskKind::compute:
      node.set_type(pb::COMP_NODE);
      node.set_duration_micros(static_cast<std::uint64_t>(std::llround(t->duration_s * 1e6)));
      add_attr(node, kDurationAttr)->set_double_val(t->duration_s);
      break;
    case TaskKind::transfer:
    case TaskKind::collective:
      if (t->kind == TaskKind::transfer || t->op == CollectiveOp::send_recv) {
        // A send-recv collective is one message from group[0] to group[1]: a send and a receive.
        const int src = t->kind == TaskKind::transfer ? t->src : t->group[0];
        const int dst = t->kind == TaskKind::transfer ? t->dst : t->group[1];
        node.set_type(r == src ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
        add_attr(node, "comm_src")->set_int32_val(src);
        add_attr(node, "comm_dst")->set_int32_val(dst);
        add_attr(node, "comm_size")->set_int64_val(static_cast<std::int64_t>(t->bytes));
        add_attr(node, "comm_tag")->set_int32_val(static_cast<std::int32_t>(index));
        break;
      }
      node.set_type(pb::COMM_COLL_NODE);
      {
        pb::CollectiveCommType ct = pb::ALL_REDUCE;
        Bytes size = t->bytes;
        switch (t->op) {
          case CollectiveOp::all_reduce: ct = pb::ALL_REDUCE; break;
          case CollectiveOp::reduce_scatter: ct = pb::REDUCE_SCATTER; break;
          case CollectiveOp::all_gather:  // comm_size is each rank's input (see event_of)
            ct = pb::ALL_GATHER;
            size = t->bytes / static_cast<double>(t->group.size());
            break;
          case CollectiveOp::all_to_all: ct = pb::ALL_TO_ALL; break;
          case CollectiveOp::broadcast: ct = pb::BROADCAST; break;
          default: break;  // refused above
        }
        add_attr(node, "comm_type")->set_int64_val(ct);
        add_attr(node, "comm_size")->set_int64_val(static_cast<std::int64_t>(size));
        add_attr(node, "pg_name")->set_string_val(groups.of(t->group));
        if (t->op == CollectiveOp::broadcast)
          add_attr(node, kRootAttr)->set_int64_val(t->group[static_cast<std::size_t>(t->root)]);
      }
      break;
    case TaskKind::barrier: break;
  }
}

/// Item k's node on rank r: what it waits for, its type and attributes.
void set_node(pb::Node& node, const JobGraph& g, const std::vector<Item>& items, std::size_t k, int r,
              ProcessGroups& groups, ChakraReader reader) {
  const Item& it = items[k];
  const Task* t = it.task >= 0 ? &g.tasks[static_cast<std::size_t>(it.task)] : nullptr;
  add_attr(node, "is_cpu_op")->set_bool_val(false);
  if (!t || t->kind == TaskKind::barrier) {
    node.set_name(t ? t->name : fmt::format("dependencies of {}", g.tasks[static_cast<std::size_t>(items[k + 1].task)].name));
    if (reader == ChakraReader::astra_sim && it.ranks.size() == 1) {  // an ordering point on one rank
      node.set_type(pb::COMP_NODE);
      node.set_duration_micros(0);
      add_attr(node, kDurationAttr)->set_double_val(0);
      return;
    }
    node.set_type(pb::COMM_COLL_NODE);
    if (reader == ChakraReader::astra_sim) {
      add_attr(node, "comm_type")->set_int64_val(pb::ALL_REDUCE);
      add_attr(node, "comm_size")->set_int64_val(1);
      add_attr(node, kBarrierAttr)->set_bool_val(true);
    } else {
      add_attr(node, "comm_type")->set_int64_val(pb::BARRIER);
      add_attr(node, "comm_size")->set_int64_val(0);
    }
    add_attr(node, "pg_name")->set_string_val(groups.of(it.ranks));
    if (!t) add_attr(node, kEdgeAttr)->set_bool_val(true);
  } else {
    set_task_node(node, *t, it.task, r, groups);
  }
}

bool is_communication(const pb::Node& n) {
  return n.type() == pb::COMM_COLL_NODE || n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE;
}

std::vector<std::vector<pb::Node>> nodes_per_rank(const JobGraph& g, std::vector<Item>& items, ProcessGroups& groups,
                                                  ChakraReader reader) {
  const int world = g.ranks;
  std::vector<std::vector<pb::Node>> per_rank(static_cast<std::size_t>(world));
  std::vector<std::int64_t> last_comm(static_cast<std::size_t>(world), -1);  // astra_sim: each rank's last one
  for (std::size_t k = 0; k < items.size(); ++k) {
    Item& it = items[k];
    // The node on each rank, waiting for the nodes on that rank of what the item depends on.
    for (int r : it.ranks) {
      auto& nodes = per_rank[static_cast<std::size_t>(r)];
      pb::Node node;
      node.set_id(static_cast<std::uint64_t>(nodes.size()));
      it.ids.push_back(static_cast<std::int64_t>(nodes.size()));
      for (int d : it.deps) {
        const Item& dep = items[static_cast<std::size_t>(d)];
        const auto at = std::lower_bound(dep.ranks.begin(), dep.ranks.end(), r);
        if (at != dep.ranks.end() && *at == r)
          node.add_data_deps(static_cast<std::uint64_t>(dep.ids[static_cast<std::size_t>(at - dep.ranks.begin())]));
      }
      set_node(node, g, items, k, r, groups, reader);
      auto& last = last_comm[static_cast<std::size_t>(r)];
      if (reader == ChakraReader::astra_sim && is_communication(node)) {
        const auto deps = node.data_deps();
        if (last >= 0 && std::find(deps.begin(), deps.end(), static_cast<std::uint64_t>(last)) == deps.end())
          node.add_data_deps(static_cast<std::uint64_t>(last));
        last = static_cast<std::int64_t>(nodes.size());
      }
      nodes.push_back(std::move(node));
    }
  }
  return per_rank;
}

/// Rank r's file: the metadata, then its nodes, each a delimited message.
std::string rank_file(const JobGraph& g, const std::vector<pb::Node>& nodes, int r) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    pb::GlobalMetadata meta;
    meta.set_version("1.0.0");  // chakra's own generator (src/generator/generator.py) writes this version
    auto* a = meta.add_attr();
    a->set_name("generator");
    a->set_string_val(fmt::format("odcnsim job graph '{}'", g.name));
    a = meta.add_attr();
    a->set_name(kRankAttr);
    a->set_int64_val(r);
    bool ok = google::protobuf::util::SerializeDelimitedToZeroCopyStream(meta, &stream);
    for (const auto& node : nodes)
      ok = ok && google::protobuf::util::SerializeDelimitedToZeroCopyStream(node, &stream);
    if (!ok) throw std::runtime_error("chakra_from_job_graph: protobuf serialization failed");
  }
  return bytes;
}

std::string groups_json(const std::vector<std::vector<int>>& group_list) {
  std::string json = "{";
  for (std::size_t i = 0; i < group_list.size(); ++i)
    json += fmt::format("{}\n  \"{}\": [{}]", i ? "," : "", i + 1, fmt::join(group_list[i], ", "));
  json += group_list.empty() ? "}\n" : "\n}\n";
  return json;
}

}  // namespace

ChakraFiles chakra_from_job_graph(const JobGraph& g, const std::string& file, ChakraReader reader) {
  validate(g, file, "");
  const int world = g.ranks;
  std::vector<std::vector<int>> ranks = task_ranks(g, file);
  place_barriers(g, ranks);
  std::vector<Item> items = items_of(g, file, ranks);
  ProcessGroups groups;
  const auto per_rank = nodes_per_rank(g, items, groups, reader);
  // An ET file holds at least one node after its metadata (the importer refuses an empty one as a cut-off
  // file): a rank that runs nothing has no Chakra form.
  for (int r = 0; r < world; ++r)
    if (per_rank[static_cast<std::size_t>(r)].empty())
      throw InputError(file, "ranks",
                       fmt::format("rank {} of {} runs no task, and Chakra has no file for an idle rank (each rank's "
                                   "ET file holds at least one node); give it a task or leave the rank out",
                                   r, world));
  ChakraFiles out;
  for (int r = 0; r < world; ++r) out.ranks.push_back(rank_file(g, per_rank[static_cast<std::size_t>(r)], r));
  out.groups_json = groups_json(groups.list);
  return out;
}

}  // namespace odcn::workload
