// Reading Chakra execution traces: the files' delimited messages, nodes and their dependencies, and importing a job.
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

// Group members held for one file's collectives (4 bytes each): 512 MiB.
constexpr std::size_t kMaxGroupMembers = std::size_t{1} << 27;

/// What runs a compute node, for ChakraCompute::serial (none: it takes no time, or it is communication).
enum class Unit { none, cpu, gpu, memory };

struct ParsedNode {
  std::uint64_t id = 0;
  Unit unit = Unit::none;
  std::string field;  // "node <id>"
  RankEvent event;
  std::vector<std::uint64_t> data_deps, ctrl_deps;
};

// Reads message k (at `pos`) into `msg`, advancing `pos`. Uses protobuf's CodedInputStream for the length
// prefix and protobuf's parser for the message; refuses a prefix beyond the end of the file.
void read_message(const std::string& bytes, std::size_t& pos, int k, google::protobuf::Message& msg,
                  const std::string& file) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const std::string where = fmt::format("message {} (byte {})", k, pos);
  const std::size_t left = bytes.size() - pos;
  google::protobuf::io::CodedInputStream in(data + pos, static_cast<int>(std::min<std::size_t>(left, 16)));
  std::uint64_t length = 0;
  if (!in.ReadVarint64(&length))
    throw InputError(file, where, "its length prefix is cut off or not a varint (a truncated or damaged file)");
  const auto prefix = static_cast<std::size_t>(in.CurrentPosition());
  if (length > left - prefix)
    throw InputError(file, where,
                     fmt::format("its length prefix says {} bytes but only {} remain (a truncated file)", length,
                                 left - prefix));
  msg.Clear();
  // protobuf logs a line on stderr for a string that is not UTF-8; the InputError below is the one line.
  const google::protobuf::LogSilencer quiet;
  if (!msg.ParseFromArray(data + pos + prefix, static_cast<int>(length)))
    throw InputError(file, where,
                     fmt::format("is not a valid {} (a damaged file, a string that is not UTF-8, or not a Chakra ET "
                                 "file)",
                                 msg.GetDescriptor()->full_name()));
  if (!msg.GetReflection()->GetUnknownFields(msg).empty())
    throw InputError(file, where,
                     fmt::format("holds fields that et_def.proto's {} does not define (not a Chakra ET file, or "
                                 "another schema)",
                                 msg.GetDescriptor()->full_name()));
  pos += prefix + static_cast<std::size_t>(length);
}

/// Reads the GlobalMetadata (message 0); odcnsim's files say which rank they were written as.
void read_metadata(const std::string& bytes, std::size_t& pos, const std::string& file, int rank) {
  pb::GlobalMetadata meta;
  read_message(bytes, pos, 0, meta, file);
  for (const auto& a : meta.attr())
    if (a.name() == kRankAttr) {
      if (a.value_case() != pb::AttributeProto::kInt64Val || a.int64_val() != rank)
        throw InputError(file, std::string("GlobalMetadata.") + kRankAttr,
                         fmt::format("this file was written as rank {}, but is read as rank {} (give the files in "
                                     "rank order)",
                                     a.value_case() == pb::AttributeProto::kInt64Val ? fmt::format("{}", a.int64_val())
                                                                                     : value_kind(a),
                                     rank));
    }
}

std::vector<ParsedNode> read_nodes(const std::string& bytes, std::size_t pos, const std::string& file, int rank,
                                   const ChakraGroups& groups, int world,
                                   std::unordered_map<std::uint64_t, int>& index_of) {
  // Nodes, in file order.
  std::vector<ParsedNode> nodes;
  pb::Node node;
  std::size_t members = 0;
  for (int k = 1; pos < bytes.size(); ++k) {
    read_message(bytes, pos, k, node, file);
    ParsedNode p;
    p.id = node.id();
    p.field = fmt::format("node {}", node.id());
    if (const auto [it, fresh] = index_of.emplace(p.id, static_cast<int>(nodes.size())); !fresh)
      throw InputError(file, p.field + ".id",
                       fmt::format("message {} has the same id as message {}", k, it->second + 1));
    p.event = event_of(node, file, p.field, rank, groups, world);
    if (p.event.kind == Kind::compute && p.event.duration_s > 0) {
      const int type = static_cast<int>(node.type());
      bool cpu = false;
      for (const auto& a : node.attr())
        if (a.name() == "is_cpu_op" && a.value_case() == pb::AttributeProto::kBoolVal) cpu = a.bool_val();
      p.unit = type == pb::MEM_LOAD_NODE || type == pb::MEM_STORE_NODE ? Unit::memory : cpu ? Unit::cpu : Unit::gpu;
    }
    // Every collective event holds its group's ranks: bound what a file can make odcnsim hold.
    members += p.event.group.size();
    if (members > kMaxGroupMembers)
      throw InputError(file, p.field,
                       fmt::format("the file's collectives name more than {} group members in all ({} ranks per "
                                   "collective): too large to import",
                                   kMaxGroupMembers, p.event.group.size()));
    p.data_deps.assign(node.data_deps().begin(), node.data_deps().end());
    p.ctrl_deps.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
    nodes.push_back(std::move(p));
  }
  if (nodes.empty()) throw InputError(file, "(file)", "has no nodes after its GlobalMetadata");
  return nodes;
}

std::vector<std::vector<int>> node_deps(const std::vector<ParsedNode>& nodes,
                                        const std::unordered_map<std::uint64_t, int>& index_of,
                                        const std::string& file, ChakraCtrlDeps ctrl_deps) {
  const std::size_t n = nodes.size();
  // Dependencies as node indices.
  std::vector<std::vector<int>> deps(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto add = [&](const std::vector<std::uint64_t>& ids, const char* which) {
      for (std::uint64_t id : ids) {
        const auto it = index_of.find(id);
        if (it == index_of.end())
          throw InputError(
              file, nodes[i].field + "." + which,
              fmt::format("names node {}, which is not in this file{}", id,
                          std::string(which) == "ctrl_deps"
                              ? " (traces converted from PyTorch by chakra's converter keep the caller in "
                                "ctrl_deps, not an ordering: read them with ctrl_deps 'caller')"
                              : ""));
        if (it->second == static_cast<int>(i))
          throw InputError(file, nodes[i].field + "." + which,
                           fmt::format("names the node itself{}",
                                       std::string(which) == "ctrl_deps"
                                           ? " (if ctrl_deps hold the caller, as chakra's PyTorch converter writes "
                                             "them, read them with ctrl_deps 'caller')"
                                           : ""));
        deps[i].push_back(it->second);
      }
    };
    add(nodes[i].data_deps, "data_deps");
    if (ctrl_deps == ChakraCtrlDeps::order) add(nodes[i].ctrl_deps, "ctrl_deps");
    std::sort(deps[i].begin(), deps[i].end());
    deps[i].erase(std::unique(deps[i].begin(), deps[i].end()), deps[i].end());
  }
  return deps;
}

/// The nodes that no topological order places (position -1) contain a cycle: name it.
[[noreturn]] void throw_cycle(const std::vector<ParsedNode>& nodes, const std::vector<std::vector<int>>& deps,
                              const std::vector<int>& position, const std::string& file, ChakraCtrlDeps ctrl_deps) {
  const std::size_t n = nodes.size();
  // Walk from an unplaced node along unplaced dependencies until a node repeats: that is a cycle.
  int v = 0;
  while (position[static_cast<std::size_t>(v)] >= 0) ++v;
  std::vector<int> seen_at(n, -1), path;
  while (seen_at[static_cast<std::size_t>(v)] < 0) {
    seen_at[static_cast<std::size_t>(v)] = static_cast<int>(path.size());
    path.push_back(v);
    for (int d : deps[static_cast<std::size_t>(v)])
      if (position[static_cast<std::size_t>(d)] < 0) {
        v = d;
        break;
      }
  }
  // path[seen_at[v]..] -> v is the cycle: each node waits for the next.
  std::vector<std::string> cycle;
  for (std::size_t k = static_cast<std::size_t>(seen_at[static_cast<std::size_t>(v)]); k < path.size(); ++k)
    cycle.push_back(fmt::format("{}", nodes[static_cast<std::size_t>(path[k])].id));
  cycle.push_back(fmt::format("{}", nodes[static_cast<std::size_t>(v)].id));
  if (cycle.size() > 8) {
    cycle.erase(cycle.begin() + 6, cycle.end() - 1);
    cycle.insert(cycle.end() - 1, "...");
  }
  throw InputError(file, nodes[static_cast<std::size_t>(v)].field,
                   fmt::format("depends on itself through a cycle of {}dependencies (node {}, each waiting for the "
                               "next)",
                               ctrl_deps == ChakraCtrlDeps::order ? "data and control " : "data ",
                               fmt::join(cycle, " -> ")));
}

/// The nodes' order; position[i] is node i's place in it.
std::vector<int> node_order(const std::vector<ParsedNode>& nodes, const std::vector<std::vector<int>>& deps,
                            const std::string& file, ChakraCtrlDeps ctrl_deps, std::vector<int>& position) {
  const std::size_t n = nodes.size();
  // A topological order, file order among nodes that are ready together (Kahn's algorithm with the smallest file
  // position first), so that a file already in order keeps it.
  std::vector<std::vector<int>> dependents(n);
  std::vector<int> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = static_cast<int>(deps[i].size());
    for (int d : deps[i]) dependents[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(static_cast<int>(i));
  position.assign(n, -1);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    position[static_cast<std::size_t>(i)] = static_cast<int>(order.size());
    order.push_back(i);
    for (int c : dependents[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (order.size() != n) throw_cycle(nodes, deps, position, file, ctrl_deps);
  return order;
}

}  // namespace

const char* to_string(ChakraCompute c) { return c == ChakraCompute::overlap ? "overlap" : "serial"; }

bool parse_chakra_compute(const std::string& name, ChakraCompute& out) {
  for (auto c : {ChakraCompute::serial, ChakraCompute::overlap})
    if (name == to_string(c)) {
      out = c;
      return true;
    }
  return false;
}

bool parse_chakra_ctrl_deps(const std::string& name, ChakraCtrlDeps& out) {
  for (auto c : {ChakraCtrlDeps::order, ChakraCtrlDeps::caller})
    if (name == to_string(c)) {
      out = c;
      return true;
    }
  return false;
}

const char* to_string(ChakraCtrlDeps c) { return c == ChakraCtrlDeps::order ? "order" : "caller"; }

ChakraGroups parse_chakra_groups(const std::string& text, const std::string& file, int world) {
  const spec::JsonValue doc = spec::parse_json(text, file);
  ChakraGroups groups;
  for (const auto& [name, value] : doc.members) {
    const std::string field = name.empty() ? std::string("\"\"") : shown(name, 80);
    if (name.empty()) throw InputError(file, field, "a process-group name must not be empty");
    if (value.kind != spec::JsonValue::Kind::array || value.items.empty())
      throw InputError(file, field, "must be a non-empty list of ranks");
    std::vector<int> members;
    for (std::size_t i = 0; i < value.items.size(); ++i)
      members.push_back(static_cast<int>(
          spec::json_integer(value.items[i], file, fmt::format("{}[{}]", field, i), 0, std::max(world - 1, 0))));
    std::vector<int> sorted = members;
    std::sort(sorted.begin(), sorted.end());
    if (const auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
      throw InputError(file, field, fmt::format("lists rank {} twice", *d));
    groups.emplace(name, std::move(members));
  }
  return groups;
}

RankTrace parse_chakra_rank(const std::string& bytes, const std::string& file, int rank, const ChakraGroups& groups,
                            int world, ChakraCtrlDeps ctrl_deps, ChakraCompute compute) {
  if (world < 1 || rank < 0 || rank >= world)
    throw InputError(file, "rank", fmt::format("{} is not a rank of a {}-rank job", rank, world));
  if (static_cast<std::int64_t>(bytes.size()) > limits::kMaxInputFileBytes)
    throw InputError(file, "(file)",
                     fmt::format("is {} bytes, above the limit of {} bytes (64 MiB)", bytes.size(),
                                 limits::kMaxInputFileBytes));
  if (bytes.empty()) throw InputError(file, "GlobalMetadata", "the file is empty (a Chakra ET file starts with one)");
  std::size_t pos = 0;
  read_metadata(bytes, pos, file, rank);
  std::unordered_map<std::uint64_t, int> index_of;
  std::vector<ParsedNode> nodes = read_nodes(bytes, pos, file, rank, groups, world, index_of);
  const std::size_t n = nodes.size();
  const std::vector<std::vector<int>> deps = node_deps(nodes, index_of, file, ctrl_deps);
  std::vector<int> position;
  const std::vector<int> order = node_order(nodes, deps, file, ctrl_deps, position);

  RankTrace t;
  t.rank = rank;
  t.file = file;
  t.events.reserve(n);
  std::map<Unit, int> last;  // ChakraCompute::serial: the previous event of each unit, in this order
  for (int i : order) {
    RankEvent e = std::move(nodes[static_cast<std::size_t>(i)].event);
    std::vector<int> d;
    d.reserve(deps[static_cast<std::size_t>(i)].size() + 1);
    for (int j : deps[static_cast<std::size_t>(i)]) d.push_back(position[static_cast<std::size_t>(j)]);
    if (const Unit u = nodes[static_cast<std::size_t>(i)].unit; compute == ChakraCompute::serial && u != Unit::none) {
      if (const auto it = last.find(u); it != last.end() && std::find(d.begin(), d.end(), it->second) == d.end())
        d.push_back(it->second);
      last[u] = static_cast<int>(t.events.size());
    }
    std::sort(d.begin(), d.end());
    e.deps = std::move(d);
    t.events.push_back(std::move(e));
  }
  return t;
}

namespace {

// Joins the ranks' traces (file i is rank i; SPMD copies when more ranks are asked for than files are given).
JobGraph assemble_chakra(std::vector<RankTrace> traces, const ChakraOptions& options, int world) {
  const int files_given = static_cast<int>(traces.size());
  long no_group = 0;  // in the files given
  for (const RankTrace& t : traces)
    for (const RankEvent& e : t.events)
      if (e.kind == RankEvent::Kind::collective && e.group_name.empty()) ++no_group;
  if (options.ranks > static_cast<int>(traces.size())) traces = replicate_ranks(traces, options.ranks);
  AssembleOptions ao;
  const std::string& first = traces.front().file;
  ao.name = spec::checked_name(options.name.empty() ? job_name_of_file(first, {".et"}, "chakra") : options.name,
                               first, "name");
  ao.ranks = world;
  ao.iterations = options.iterations;
  ao.algorithm = options.algorithm;
  const int copies = static_cast<int>(traces.size()) - files_given;
  JobGraph g = assemble_job_graph(traces, ao);
  std::vector<std::string> notes;
  if (no_group > 0)
    notes.push_back(fmt::format("{} collective node{} name{} no process group (pg_name): read as every rank of the job, "
                                "{} rank{} (ASTRA-sim's default group)",
                                no_group, no_group == 1 ? "" : "s", no_group == 1 ? "s" : "", world, world == 1 ? "" : "s"));
  if (copies > 0)
    notes.push_back(fmt::format("{} of {} ranks are copies of the {} file{} given (--ranks)", copies, world, files_given,
                                files_given == 1 ? "" : "s"));
  notes.insert(notes.end(), g.notes.begin(), g.notes.end());
  g.notes = std::move(notes);
  return g;
}

int world_of(std::size_t files, const ChakraOptions& options, const std::string& first) {
  if (files == 0) throw InputError("(chakra)", "files", "no ET file given");
  if (options.ranks < 0)
    throw InputError(first, "ranks", fmt::format("must be >= 0 (got {})", options.ranks));
  if (files > static_cast<std::size_t>(limits::kMaxEndpoints))
    throw InputError(first, "ranks", fmt::format("{} files is above the limit of {} ranks", files, limits::kMaxEndpoints));
  if (options.ranks > 0 && static_cast<std::size_t>(options.ranks) < files)
    throw InputError(first, "ranks",
                     fmt::format("{} ranks is fewer than the {} files given (file i is rank i)", options.ranks, files));
  if (options.ranks > limits::kMaxEndpoints)
    throw InputError(first, "ranks", fmt::format("{} is above the limit of {} ranks", options.ranks, limits::kMaxEndpoints));
  return options.ranks > 0 ? options.ranks : static_cast<int>(files);
}

}  // namespace

std::vector<std::string> chakra_rank_order(const std::vector<std::string>& files) {
  // <prefix>.<rank>.et, as ASTRA-sim names a workload's files.
  const auto rank_of = [](const std::string& f) -> std::optional<std::pair<std::string, int>> {
    if (f.size() < 5 || f.compare(f.size() - 3, 3, ".et") != 0) return std::nullopt;
    std::size_t b = f.size() - 3, a = b;
    while (a > 0 && std::isdigit(static_cast<unsigned char>(f[a - 1]))) --a;
    if (a == b || a == 0 || f[a - 1] != '.' || b - a > 6) return std::nullopt;
    return std::make_pair(f.substr(0, a - 1), std::stoi(f.substr(a, b - a)));
  };
  std::vector<std::string> ordered(files.size());
  std::string prefix;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto r = rank_of(files[i]);
    if (!r || (i > 0 && r->first != prefix)) return files;  // not one workload's numbered files: as given
    prefix = r->first;
    if (r->second >= static_cast<int>(files.size())) return files;
    if (!ordered[static_cast<std::size_t>(r->second)].empty())
      throw InputError(files[i], "(file)",
                       fmt::format("is rank {} by its name, as is {}", r->second,
                                   ordered[static_cast<std::size_t>(r->second)]));
    ordered[static_cast<std::size_t>(r->second)] = files[i];
  }
  return ordered;
}

JobGraph import_chakra(const std::vector<std::string>& given, const ChakraOptions& options) {
  const std::vector<std::string> files = chakra_rank_order(given);
  const int world = world_of(files.size(), options, files.empty() ? "" : files.front());
  const ChakraGroups groups = options.groups_file.empty()
                                  ? ChakraGroups{}
                                  : parse_chakra_groups(spec::read_input_file(options.groups_file),
                                                        options.groups_file, world);
  std::vector<RankTrace> traces;
  for (std::size_t i = 0; i < files.size(); ++i)
    traces.push_back(parse_chakra_rank(spec::read_input_file(files[i]), files[i], static_cast<int>(i), groups, world,
                                       options.ctrl_deps, options.compute));
  return assemble_chakra(std::move(traces), options, world);
}

JobGraph import_chakra_bytes(const ChakraFiles& files, const ChakraOptions& options,
                             const std::vector<std::string>& names) {
  if (!names.empty() && names.size() != files.ranks.size())
    throw std::invalid_argument("import_chakra_bytes: one name per rank");
  auto name = [&](std::size_t i) { return names.empty() ? fmt::format("rank{}.et", i) : names[i]; };
  const int world = world_of(files.ranks.size(), options, files.ranks.empty() ? "" : name(0));
  const ChakraGroups groups =
      files.groups_json.empty() ? ChakraGroups{} : parse_chakra_groups(files.groups_json, "groups.json", world);
  std::vector<RankTrace> traces;
  for (std::size_t i = 0; i < files.ranks.size(); ++i)
    traces.push_back(
        parse_chakra_rank(files.ranks[i], name(i), static_cast<int>(i), groups, world, options.ctrl_deps, options.compute));
  return assemble_chakra(std::move(traces), options, world);
}

}  // namespace odcn::workload
