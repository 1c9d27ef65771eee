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

namespace odcn::workload {

namespace {

namespace pb = ChakraProtoMsg;
using Kind = RankEvent::Kind;

// Attributes odcnsim adds to plain Chakra so that its own graphs come back exactly (docs/traces-chakra.md).
// Other readers ignore attributes they do not know (chakra's feeder keeps them as "other attrs").
constexpr const char* kDurationAttr = "odcnsim_duration_s";    // double: the exact seconds of a compute node
constexpr const char* kRootAttr = "odcnsim_root";              // integer: a broadcast's root, as a global rank
constexpr const char* kEdgeAttr = "odcnsim_dependency_only";   // bool: a BARRIER that only carries dependencies
constexpr const char* kRankAttr = "odcnsim_rank";              // GlobalMetadata, integer: the rank written

// Group members held for one file's collectives (4 bytes each): 512 MiB.
constexpr std::size_t kMaxGroupMembers = std::size_t{1} << 27;

// A Chakra attribute value kind, for messages ("string_val", "int64_list", ...).
std::string value_kind(const pb::AttributeProto& a) {
  if (a.value_case() == pb::AttributeProto::VALUE_NOT_SET) return "no value";
  const auto* f = a.GetDescriptor()->FindFieldByNumber(static_cast<int>(a.value_case()));
  return f ? f->name() : "an unknown value";
}

// The node's attributes by name. A name that odcnsim reads may appear once.
class Attrs {
 public:
  Attrs(const pb::Node& n, std::string file, std::string base) : file_(std::move(file)), base_(std::move(base)) {
    for (const auto& a : n.attr()) {
      if (!by_name_.emplace(a.name(), &a).second && is_read(a.name()))
        throw InputError(file_, field(a.name()), "appears twice in the node's attributes");
    }
  }
  std::string field(const std::string& name) const { return base_ + "." + name; }
  bool has(const char* name) const { return by_name_.count(name) != 0; }

  std::optional<std::int64_t> integer(const char* name) const {
    const auto* a = find(name);
    if (!a) return std::nullopt;
    using A = pb::AttributeProto;
    switch (a->value_case()) {
      case A::kInt32Val: return a->int32_val();
      case A::kInt64Val: return a->int64_val();
      case A::kUint32Val: return a->uint32_val();
      case A::kSint32Val: return a->sint32_val();
      case A::kSint64Val: return a->sint64_val();
      case A::kFixed32Val: return a->fixed32_val();
      case A::kSfixed32Val: return a->sfixed32_val();
      case A::kSfixed64Val: return a->sfixed64_val();
      case A::kUint64Val:
      case A::kFixed64Val: {
        const std::uint64_t v = a->value_case() == A::kUint64Val ? a->uint64_val() : a->fixed64_val();
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          throw InputError(file_, field(name), fmt::format("{} is out of range", v));
        return static_cast<std::int64_t>(v);
      }
      default: throw InputError(file_, field(name), fmt::format("must be an integer (got {})", value_kind(*a)));
    }
  }
  std::optional<bool> boolean(const char* name) const {
    const auto* a = find(name);
    if (!a) return std::nullopt;
    if (a->value_case() != pb::AttributeProto::kBoolVal)
      throw InputError(file_, field(name), fmt::format("must be a bool_val (got {})", value_kind(*a)));
    return a->bool_val();
  }
  std::optional<std::string> text(const char* name) const {
    const auto* a = find(name);
    if (!a) return std::nullopt;
    if (a->value_case() != pb::AttributeProto::kStringVal)
      throw InputError(file_, field(name), fmt::format("must be a string_val (got {})", value_kind(*a)));
    return a->string_val();
  }
  std::optional<double> real(const char* name) const {
    const auto* a = find(name);
    if (!a) return std::nullopt;
    if (a->value_case() != pb::AttributeProto::kDoubleVal)
      throw InputError(file_, field(name), fmt::format("must be a double_val (got {})", value_kind(*a)));
    return a->double_val();
  }

 private:
  static bool is_read(const std::string& name) {
    for (const char* r : {"comm_type", "comm_size", "pg_name", "comm_src", "comm_dst", "is_cpu_op", kDurationAttr,
                          kRootAttr, kEdgeAttr})
      if (name == r) return true;
    return false;
  }
  const pb::AttributeProto* find(const char* name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }
  std::string file_;
  std::string base_;
  std::unordered_map<std::string, const pb::AttributeProto*> by_name_;
};

// A node's name as part of a task name (name_part): at most 96 bytes, "..." when cut.
std::string clean_name(const std::string& raw) {
  std::string out = name_part(raw, 96);
  if (out.size() < raw.size()) out += "...";  // name_part keeps the length unless it cuts
  return out;
}

std::vector<int> all_ranks(int world) {
  std::vector<int> r(static_cast<std::size_t>(world));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

// The members of a collective's process group, ascending (assemble_job_graph's order), with the group's name.
//
// No pg_name (or an empty one): every rank of the job. That is ASTRA-sim's default communicator group
// (astra-sim 518bd51, astra-sim/workload/Workload.cc, Workload::extract_comm_group): an empty pg_name, or "0",
// gives no CommunicatorGroup, and Sys::generate_all_reduce & co. then run the collective over every NPU. chakra's
// PyTorch converter writes pg_name only when PyTorch recorded one (src/converter/pytorch_converter.py,
// convert_json_to_protobuf_nodes), and traces of schema 1.0.1, such as tests/data/chakra's sample, have none.
// "0" is PyTorch's name for its default group; odcnsim reads it as every rank too, unless the groups file lists it.
std::pair<std::string, std::vector<int>> group_of(const Attrs& attrs, const ChakraGroups& groups, int world,
                                                  const std::string& file) {
  const auto pg = attrs.text("pg_name");
  if (!pg || pg->empty()) return {"", all_ranks(world)};
  const auto it = groups.find(*pg);
  if (it == groups.end()) {
    if (*pg == "0") return {"0", all_ranks(world)};
    throw InputError(file, attrs.field("pg_name"),
                     fmt::format("no process-group information for '{}': give a groups file that lists its ranks "
                                 "({{\"{}\": [0, 1, ...]}})",
                                 shown(*pg), shown(*pg)));
  }
  std::vector<int> members = it->second;
  std::sort(members.begin(), members.end());
  return {*pg, members};
}

/// What runs a compute node, for ChakraCompute::serial (none: it takes no time, or it is communication).
enum class Unit { none, cpu, gpu, memory };

struct ParsedNode {
  std::uint64_t id = 0;
  Unit unit = Unit::none;
  std::string field;  // "node <id>"
  RankEvent event;
  std::vector<std::uint64_t> data_deps, ctrl_deps;
};

// One node as an event (without its dependencies).
RankEvent event_of(const pb::Node& n, const std::string& file, const std::string& base, int rank,
                   const ChakraGroups& groups, int world) {
  const Attrs attrs(n, file, base);
  RankEvent e;
  e.field = base;
  e.name = n.name().empty() ? fmt::format("node {}", n.id()) : fmt::format("node {} {}", n.id(), clean_name(n.name()));
  const int type = static_cast<int>(n.type());

  // A compute-like node's time: duration_micros, or odcnsim's exact seconds when the writer kept them.
  const auto compute = [&](bool timed) {
    e.kind = Kind::compute;
    e.duration_s = 0;
    if (!timed) return;
    const std::uint64_t us = n.duration_micros();
    if (static_cast<double>(us) > limits::kMaxSeconds * 1e6)
      throw InputError(file, base + ".duration_micros",
                       fmt::format("{} µs is above the limit of {:g} s", us, limits::kMaxSeconds));
    e.duration_s = static_cast<double>(us) * 1e-6;
    if (const auto exact = attrs.real(kDurationAttr)) {
      const double s = *exact;
      if (!std::isfinite(s) || s < 0 || s > limits::kMaxSeconds)
        throw InputError(file, attrs.field(kDurationAttr),
                         fmt::format("must be between 0 and {:g} seconds (got {})", limits::kMaxSeconds, s));
      if (std::abs(s * 1e6 - static_cast<double>(us)) > 1.0)
        throw InputError(file, attrs.field(kDurationAttr),
                         fmt::format("{} s disagrees with duration_micros {} by more than a microsecond", s, us));
      e.duration_s = s;
    }
  };
  const auto size_of = [&](const char* what) {
    const auto v = attrs.integer("comm_size");
    if (!v) throw InputError(file, attrs.field("comm_size"), fmt::format("is missing ({} needs its size in bytes)", what));
    if (*v < 0) throw InputError(file, attrs.field("comm_size"), fmt::format("must be >= 0 (got {})", *v));
    if (static_cast<double>(*v) > limits::kMaxBytes)
      throw InputError(file, attrs.field("comm_size"),
                       fmt::format("{} bytes is above the limit of {:g} bytes", *v, limits::kMaxBytes));
    return static_cast<Bytes>(*v);
  };

  switch (type) {
    case pb::COMP_NODE:
    case pb::MEM_LOAD_NODE:   // odcnsim has no memory model: the node takes the time the trace measured
    case pb::MEM_STORE_NODE: compute(true); break;
    case pb::METADATA_NODE:   // ASTRA-sim reads process groups from them and skips them (skip_invalid)
    case pb::INVALID_NODE: compute(false); break;
    case pb::COMM_COLL_NODE: {
      const bool has_type = attrs.has("comm_type"), has_size = attrs.has("comm_size");
      if (!has_type && !has_size) {
        // chakra's PyTorch converter keeps the CPU-side c10d call (c10d::allreduce_, ...) that launches the
        // NCCL kernel as a COMM_COLL_NODE without comm attributes; the kernel is the node with them.
        if (attrs.boolean("is_cpu_op").value_or(false)) {
          compute(true);
          break;
        }
        throw InputError(file, base,
                         "a COMM_COLL_NODE without comm_type and comm_size that is not a CPU operation (is_cpu_op): "
                         "the collective cannot be modelled");
      }
      if (!has_type) throw InputError(file, attrs.field("comm_type"), "is missing (the node has a comm_size)");
      const std::int64_t ct = *attrs.integer("comm_type");
      if (ct < 0 || ct > std::numeric_limits<int>::max() || !pb::CollectiveCommType_IsValid(static_cast<int>(ct)))
        throw InputError(file, attrs.field("comm_type"), fmt::format("{} is not a CollectiveCommType", ct));
      const auto comm = static_cast<pb::CollectiveCommType>(ct);
      auto [pg, members] = group_of(attrs, groups, world, file);
      if (!std::binary_search(members.begin(), members.end(), rank))
        throw InputError(file, attrs.field("pg_name"),
                         fmt::format("rank {} is not a member of its process group '{}' [{}]", rank, shown(pg),
                                     fmt::join(members, ", ")));
      e.group_name = pg;
      e.group = std::move(members);
      const int n_members = static_cast<int>(e.group.size());
      if (comm == pb::BARRIER) {
        // Its comm_size (chakra's generator writes 0) is not read: a barrier moves no data.
        if (has_size) (void)attrs.integer("comm_size");
        e.kind = Kind::barrier;
        e.relay_only = attrs.boolean(kEdgeAttr).value_or(false);
        break;
      }
      if (attrs.has(kEdgeAttr))
        throw InputError(file, attrs.field(kEdgeAttr), "is only meaningful on a BARRIER");
      CollectiveOp op = CollectiveOp::all_reduce;
      switch (comm) {
        case pb::ALL_REDUCE: op = CollectiveOp::all_reduce; break;
        case pb::ALL_GATHER: op = CollectiveOp::all_gather; break;
        case pb::REDUCE_SCATTER:
        case pb::REDUCE_SCATTER_BLOCK: op = CollectiveOp::reduce_scatter; break;
        case pb::ALL_TO_ALL: op = CollectiveOp::all_to_all; break;
        case pb::BROADCAST: op = CollectiveOp::broadcast; break;
        default:
          throw InputError(file, attrs.field("comm_type"),
                           fmt::format("{} ({}) has no algorithm in odcnsim's collective library (all-reduce, "
                                       "reduce-scatter, all-gather, all-to-all, broadcast); node '{}' cannot be "
                                       "modelled",
                                       pb::CollectiveCommType_Name(comm), ct, shown(n.name(), 80)));
      }
      Bytes size = size_of(pb::CollectiveCommType_Name(comm).c_str());
      if (size == 0) {  // NCCL returns at once for a count of 0: an ordering point on this rank only
        compute(false);
        break;
      }
      // comm_size as ASTRA-sim reads it, converted to S of collective.hpp (NCCL's per-rank buffers). ASTRA-sim's
      // native algorithms (astra-sim/system/astraccl/native_collectives/collective_algorithm/Ring.cc and
      // HalvingDoubling.cc, astra-sim 518bd51) take comm_size as each rank's initial data: all-reduce
      // (final_data_size = data_size), reduce-scatter (final = data_size / n: each rank's input) and all-to-all
      // (msg = data_size / n: each rank's send buffer) are S itself; all-gather has final_data_size = data_size
      // · n and sends data_size per step, so comm_size is each rank's input and S (each rank's output) is
      // n · comm_size. chakra's PyTorch converter computes comm_size from the call's input tensors
      // (src/converter/pytorch_node.py, PyTorchNode.comm_size), which agrees with this reading. Broadcast (which
      // ASTRA-sim only replays for its measured time) moves the root's buffer: S = comm_size.
      if (op == CollectiveOp::all_gather) {
        size *= n_members;
        if (size > limits::kMaxBytes)
          throw InputError(file, attrs.field("comm_size"),
                           fmt::format("an all-gather over {} ranks of {} bytes each is above the limit of {:g} bytes",
                                       n_members, size / n_members, limits::kMaxBytes));
      }
      e.kind = Kind::collective;
      e.op = op;
      e.bytes = size;
      e.root = 0;
      // Chakra has no root. odcnsim's writer keeps it; otherwise the group's first rank (PyTorch DDP broadcasts
      // its parameters from rank 0). Where every NIC has the same rate, the root does not change the textbook time.
      if (const auto root = attrs.integer(kRootAttr)) {
        const auto it = std::find(e.group.begin(), e.group.end(), *root);
        if (op != CollectiveOp::broadcast || it == e.group.end())
          throw InputError(file, attrs.field(kRootAttr),
                           op != CollectiveOp::broadcast
                               ? std::string("is only meaningful on a BROADCAST")
                               : fmt::format("rank {} is not a member of the group", *root));
        e.root = static_cast<int>(it - e.group.begin());
      }
      break;
    }
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
      // Peers as chakra's feeder reads them (src/feeder/et_feeder_node.cpp: comm_src, comm_dst) and as ASTRA-sim
      // uses them (Workload::issue_send_comm / issue_recv_comm): global ranks; the other end defaults to this one.
      const bool send = type == pb::COMM_SEND_NODE;
      const char* peer_attr = send ? "comm_dst" : "comm_src";
      const char* self_attr = send ? "comm_src" : "comm_dst";
      const auto peer = attrs.integer(peer_attr);
      if (!peer)
        throw InputError(file, attrs.field(peer_attr),
                         fmt::format("is missing: a {} needs its peer rank", send ? "send" : "receive"));
      if (*peer < 0 || *peer >= world || *peer == rank)
        throw InputError(file, attrs.field(peer_attr),
                         fmt::format("{} is not another rank of the {}-rank job", *peer, world));
      if (const auto self = attrs.integer(self_attr); self && *self != rank)
        throw InputError(file, attrs.field(self_attr),
                         fmt::format("is {}, but this file is rank {}", *self, rank));
      const Bytes size = size_of(send ? "a send" : "a receive");
      if (size == 0) {
        compute(false);
        break;
      }
      e.kind = send ? Kind::send : Kind::recv;
      e.peer = static_cast<int>(*peer);
      e.bytes = size;
      break;
    }
    default:
      throw InputError(file, base + ".type", fmt::format("{} is not a NodeType of et_def.proto", type));
  }
  return e;
}

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

  // Nodes, in file order.
  std::vector<ParsedNode> nodes;
  std::unordered_map<std::uint64_t, int> index_of;
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

  // Dependencies as node indices.
  const std::size_t n = nodes.size();
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
  std::vector<int> position(n, -1), order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    position[static_cast<std::size_t>(i)] = static_cast<int>(order.size());
    order.push_back(i);
    for (int c : dependents[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (order.size() != n) {
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
  if (options.ranks > static_cast<int>(traces.size())) traces = replicate_ranks(traces, options.ranks);
  AssembleOptions ao;
  const std::string& first = traces.front().file;
  ao.name = spec::checked_name(options.name.empty() ? job_name_of_file(first, {".et"}, "chakra") : options.name,
                               first, "name");
  ao.ranks = world;
  ao.iterations = options.iterations;
  ao.algorithm = options.algorithm;
  return assemble_job_graph(traces, ao);
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

// ---------------------------------------------------------------------------------------------------------------
// The writer.

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

}  // namespace

ChakraFiles chakra_from_job_graph(const JobGraph& g, const std::string& file) {
  validate(g, file, "");
  const int world = g.ranks;
  const std::size_t n = g.tasks.size();
  const auto task_field = [](std::size_t i) { return fmt::format("tasks[{}]", i); };

  // Where each task runs. Barriers (which run nowhere) are given below.
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

  // Process groups: one name per distinct member list ("1", "2", ...: ASTRA-sim's comm-group file wants integers,
  // and "0" is the default group), in order of first use.
  std::map<std::vector<int>, std::string> group_names;
  std::vector<std::vector<int>> group_list;
  const auto pg_of = [&](const std::vector<int>& members) {
    auto [it, fresh] = group_names.try_emplace(members, "");
    if (fresh) {
      it->second = fmt::format("{}", group_list.size() + 1);
      group_list.push_back(members);
    }
    return it->second;
  };

  std::vector<std::vector<pb::Node>> per_rank(static_cast<std::size_t>(world));
  for (std::size_t k = 0; k < items.size(); ++k) {
    Item& it = items[k];
    const Task* t = it.task >= 0 ? &g.tasks[static_cast<std::size_t>(it.task)] : nullptr;
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
      add_attr(node, "is_cpu_op")->set_bool_val(false);
      if (!t || t->kind == TaskKind::barrier) {
        node.set_name(t ? t->name : fmt::format("dependencies of {}", g.tasks[static_cast<std::size_t>(items[k + 1].task)].name));
        node.set_type(pb::COMM_COLL_NODE);
        add_attr(node, "comm_type")->set_int64_val(pb::BARRIER);
        add_attr(node, "comm_size")->set_int64_val(0);
        add_attr(node, "pg_name")->set_string_val(pg_of(it.ranks));
        if (!t) add_attr(node, kEdgeAttr)->set_bool_val(true);
      } else {
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
              add_attr(node, "comm_tag")->set_int32_val(static_cast<std::int32_t>(it.task));
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
              add_attr(node, "pg_name")->set_string_val(pg_of(t->group));
              if (t->op == CollectiveOp::broadcast)
                add_attr(node, kRootAttr)->set_int64_val(t->group[static_cast<std::size_t>(t->root)]);
            }
            break;
          case TaskKind::barrier: break;
        }
      }
      nodes.push_back(std::move(node));
    }
  }

  ChakraFiles out;
  for (int r = 0; r < world; ++r) {
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
      for (const auto& node : per_rank[static_cast<std::size_t>(r)])
        ok = ok && google::protobuf::util::SerializeDelimitedToZeroCopyStream(node, &stream);
      if (!ok) throw std::runtime_error("chakra_from_job_graph: protobuf serialization failed");
    }
    out.ranks.push_back(std::move(bytes));
  }
  std::string json = "{";
  for (std::size_t i = 0; i < group_list.size(); ++i)
    json += fmt::format("{}\n  \"{}\": [{}]", i ? "," : "", i + 1, fmt::join(group_list[i], ", "));
  json += group_list.empty() ? "}\n" : "\n}\n";
  out.groups_json = std::move(json);
  return out;
}

}  // namespace odcn::workload
