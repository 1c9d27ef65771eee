// Reading one Chakra node: its attributes, its process group, and the event it is.
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

namespace odcn::workload::chakra_internal {

// A Chakra attribute value kind, for messages ("string_val", "int64_list", ...).
std::string value_kind(const pb::AttributeProto& a) {
  if (a.value_case() == pb::AttributeProto::VALUE_NOT_SET) return "no value";
  const auto* f = a.GetDescriptor()->FindFieldByNumber(static_cast<int>(a.value_case()));
  return f ? f->name() : "an unknown value";
}

namespace {

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
                          kRootAttr, kEdgeAttr, kBarrierAttr})
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

// One node as an event (without its dependencies), read in steps that share the node and its attributes.
class NodeReader {
 public:
  NodeReader(const pb::Node& n, const std::string& file, const std::string& base, int rank, const ChakraGroups& groups,
             int world)
      : n(n), file(file), base(base), rank(rank), groups(groups), world(world), attrs(n, file, base) {}

  RankEvent read() {
    e.field = base;
    e.name = n.name().empty() ? fmt::format("node {}", n.id()) : fmt::format("node {} {}", n.id(), clean_name(n.name()));
    const int type = static_cast<int>(n.type());
    switch (type) {
      case pb::COMP_NODE:
      case pb::MEM_LOAD_NODE:   // odcnsim has no memory model: the node takes the time the trace measured
      case pb::MEM_STORE_NODE: compute(true); break;
      case pb::METADATA_NODE:   // ASTRA-sim reads process groups from them and skips them (skip_invalid)
      case pb::INVALID_NODE: compute(false); break;
      case pb::COMM_COLL_NODE: collective(); break;
      case pb::COMM_SEND_NODE:
      case pb::COMM_RECV_NODE: send_recv(type); break;
      default:
        throw InputError(file, base + ".type", fmt::format("{} is not a NodeType of et_def.proto", type));
    }
    return e;
  }

 private:
  // A compute-like node's time: duration_micros, or odcnsim's exact seconds when the writer kept them.
  void compute(bool timed) {
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
  }

  Bytes size_of(const char* what) const {
    const auto v = attrs.integer("comm_size");
    if (!v) throw InputError(file, attrs.field("comm_size"), fmt::format("is missing ({} needs its size in bytes)", what));
    if (*v < 0) throw InputError(file, attrs.field("comm_size"), fmt::format("must be >= 0 (got {})", *v));
    if (static_cast<double>(*v) > limits::kMaxBytes)
      throw InputError(file, attrs.field("comm_size"),
                       fmt::format("{} bytes is above the limit of {:g} bytes", *v, limits::kMaxBytes));
    return static_cast<Bytes>(*v);
  }

  void collective() {
    const bool has_type = attrs.has("comm_type"), has_size = attrs.has("comm_size");
    if (!has_type && !has_size) {
      // chakra's PyTorch converter keeps the CPU-side c10d call (c10d::allreduce_, ...) that launches the
      // NCCL kernel as a COMM_COLL_NODE without comm attributes; the kernel is the node with them.
      if (attrs.boolean("is_cpu_op").value_or(false)) {
        compute(true);
        return;
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
                                   ranks_text(members)));
    e.group_name = pg;
    e.group = std::move(members);
    const int n_members = static_cast<int>(e.group.size());
    const bool stands_for_barrier = attrs.boolean(kBarrierAttr).value_or(false);
    if (stands_for_barrier && comm != pb::ALL_REDUCE)
      throw InputError(file, attrs.field(kBarrierAttr), "is only meaningful on an ALL_REDUCE");
    if (comm == pb::BARRIER || stands_for_barrier) {
      // Its comm_size (chakra's generator writes 0; an export for ASTRA-sim, 1) is not read: a barrier moves no
      // data.
      if (has_size) (void)attrs.integer("comm_size");
      e.kind = Kind::barrier;
      e.relay_only = attrs.boolean(kEdgeAttr).value_or(false);
      return;
    }
    if (attrs.has(kEdgeAttr))
      throw InputError(file, attrs.field(kEdgeAttr), "is only meaningful on a BARRIER (or its ALL_REDUCE stand-in)");
    const CollectiveOp op = op_of(comm, ct);
    Bytes size = size_of(pb::CollectiveCommType_Name(comm).c_str());
    if (size == 0) {  // NCCL returns at once for a count of 0: an ordering point on this rank only
      compute(false);
      return;
    }
    set_collective(op, size, n_members);
  }

  CollectiveOp op_of(pb::CollectiveCommType comm, std::int64_t ct) const {
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
    return op;
  }

  /// A collective of `size` bytes as comm_size gives them, over n_members ranks.
  void set_collective(CollectiveOp op, Bytes size, int n_members) {
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
  }

  void send_recv(int type) {
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
      return;
    }
    e.kind = send ? Kind::send : Kind::recv;
    e.peer = static_cast<int>(*peer);
    e.bytes = size;
  }

  const pb::Node& n;
  const std::string& file;
  const std::string& base;
  int rank;
  const ChakraGroups& groups;
  int world;
  const Attrs attrs;
  RankEvent e;
};

}  // namespace

RankEvent event_of(const pb::Node& n, const std::string& file, const std::string& base, int rank,
                   const ChakraGroups& groups, int world) {
  return NodeReader(n, file, base, rank, groups, world).read();
}

}  // namespace odcn::workload::chakra_internal
