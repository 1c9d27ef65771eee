// From the events read to the rank's trace: the step's window, communications timed by their NCCL kernels, and the
// compute between them.
#include "traces/kineto.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <unordered_set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/field_path.hpp"
#include "spec/json_reader.hpp"
#include "spec/yaml_reader.hpp"

#include "traces/kineto_internal.hpp"

namespace odcn::workload::kineto_internal {

namespace {

// ---------------------------------------------------------------------------------------------------------
// From the events read to the rank's trace.

struct OpInfo {
  Kind kind = Kind::collective;
  CollectiveOp op = CollectiveOp::all_reduce;
  bool by_output = false;  // S counts the output's elements (all-gather, recv), else the input's
};

/// PyTorch's c10d names (ProcessGroupNCCL and friends) of what odcnsim models; nullopt for anything else.
std::optional<OpInfo> op_of(const std::string& name) {
  static const std::map<std::string, OpInfo> ops{
      {"allreduce", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"all_reduce", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"allreduce_coalesced", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"allgather", {Kind::collective, CollectiveOp::all_gather, true}},
      {"all_gather", {Kind::collective, CollectiveOp::all_gather, true}},
      {"_allgather_base", {Kind::collective, CollectiveOp::all_gather, true}},
      {"all_gather_into_tensor", {Kind::collective, CollectiveOp::all_gather, true}},
      {"allgather_coalesced", {Kind::collective, CollectiveOp::all_gather, true}},
      {"allgather_into_tensor_coalesced", {Kind::collective, CollectiveOp::all_gather, true}},
      {"reduce_scatter", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"_reduce_scatter_base", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"reduce_scatter_tensor", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"reduce_scatter_tensor_coalesced", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"broadcast", {Kind::collective, CollectiveOp::broadcast, false}},
      {"_broadcast_oop", {Kind::collective, CollectiveOp::broadcast, false}},
      {"all_to_all", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"alltoall", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"alltoall_base", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"send", {Kind::send, CollectiveOp::send_recv, false}},
      {"recv", {Kind::recv, CollectiveOp::send_recv, true}}};
  const auto it = ops.find(name);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}

/// A list of ranks or sizes as the profiler writes it: the string "[0, 1, 2]", where a list of more than 30 is
/// cut to "[0, 1, ..., 28, ..., 63]" (its first 29 and its last); or, in hand-made traces, a JSON array.
struct ListedInts {
  std::vector<std::int64_t> values;
  std::optional<std::size_t> cut_at;  // values before the "..."
};

ListedInts parse_listed(const JsonValue& v, std::int64_t hi, const std::string& file, const std::string& field) {
  ListedInts out;
  if (v.kind == JsonValue::Kind::array) {
    for (std::size_t i = 0; i < v.items.size(); ++i)
      out.values.push_back(spec::json_integer(v.items[i], file, fmt::format("{}[{}]", field, i), 0, hi));
    return out;
  }
  const auto bad = [&]() {
    return InputError(file, field,
                      fmt::format("must be a list such as \"[0, 1]\" (got {})",
                                  v.kind == JsonValue::Kind::string ? "'" + shown(v.text) + "'" : "another type"));
  };
  if (v.kind != JsonValue::Kind::string) throw bad();
  const std::string& s = v.text;
  std::size_t i = 0;
  const auto blanks = [&]() {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  blanks();
  if (i >= s.size() || s[i] != '[') throw bad();
  ++i;
  blanks();
  if (i < s.size() && s[i] == ']') {
    ++i;
  } else {
    while (true) {
      blanks();
      if (s.compare(i, 3, "...") == 0) {
        if (out.cut_at) throw bad();
        out.cut_at = out.values.size();
        i += 3;
      } else {
        const std::size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == from) throw bad();
        out.values.push_back(parse_integer(std::string_view(s).substr(from, i - from), 0, hi, file, field));
      }
      blanks();
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == ']') {
        ++i;
        break;
      }
      throw bad();
    }
  }
  blanks();
  if (i != s.size()) throw bad();
  return out;
}

/// Whether `full` is a list that the profiler would print as `shown` (cut or not).
bool agrees(const std::vector<std::int64_t>& full, const ListedInts& shown_list) {
  if (!shown_list.cut_at) return full == shown_list.values;
  const std::size_t head = *shown_list.cut_at, tail = shown_list.values.size() - head;
  if (full.size() < head + tail) return false;
  return std::equal(shown_list.values.begin(), shown_list.values.begin() + static_cast<std::ptrdiff_t>(head),
                    full.begin()) &&
         std::equal(shown_list.values.begin() + static_cast<std::ptrdiff_t>(head), shown_list.values.end(),
                    full.end() - static_cast<std::ptrdiff_t>(tail));
}

class Importer {
 public:
  Importer(const KinetoEvents& r, std::string file) : r_(r), file_(std::move(file)) {}

  KinetoTrace run(const KinetoOptions& options, bool whole_trace) {
    if (!r_.distributed_info)
      throw InputError(file_, "distributedInfo",
                       "is required: the trace has no process-group information (PyTorch's profiler writes it "
                       "when torch.distributed is initialised)");
    const JsonMap dist(*r_.distributed_info, file_, "distributedInfo");
    KinetoTrace out;
    out.world_size = static_cast<int>(dist.integer("world_size", 1, limits::kMaxEndpoints));
    out.trace.rank = static_cast<int>(dist.integer("rank", 0, out.world_size - 1));
    out.trace.file = file_;
    world_ = out.world_size;
    if (!r_.saw_events) throw InputError(file_, "traceEvents", "is required");

    const Window w = window(options, whole_trace);
    out.step = w.step;
    out.window_s = static_cast<double>(w.end - w.start) * 1e-9;

    const std::vector<TimedComm> comms = timed_comms(w, dist, out);
    if (options.streams == KinetoStreams::concurrent)
      stream_chains(r_, comms, w, file_, out);
    else
      one_chain(comms, w, out);
    return out;
  }

 private:
  /// The window's communications in the order the rank issued them, each timed by its NCCL kernel(s) on the GPU,
  /// else by its CPU op; counts them, and the entries skipped, into `out`.
  std::vector<TimedComm> timed_comms(const Window& w, const JsonMap& dist, KinetoTrace& out) {
    index_kernels();
    std::vector<TimedComm> comms;
    for (const CommOp* c : issued_in(w)) {
      std::optional<RankEvent> e = to_event(*c, dist);
      if (!e) {
        ++out.skipped;
        continue;
      }
      TimedComm t;
      t.index = c->index;
      t.start = c->start;
      t.end = c->end;
      if (kernel_time(*c, t)) ++out.timed_by_kernel;
      (e->kind == Kind::collective ? out.collectives : out.messages) += 1;
      t.event = std::move(*e);
      comms.push_back(std::move(t));
    }
    return comms;
  }

  /// KinetoStreams::serial: compute is the time between communications, all in one chain. Everything is clipped
  /// to the window, so that compute + communication = the window exactly.
  void one_chain(const std::vector<TimedComm>& comms, const Window& w, KinetoTrace& out) const {
    Nanos cursor = w.start, covered = 0, compute = 0;
    // A compute event names where it is: "ProfilerStep#4 before traceEvents[57]", "ProfilerStep#4 at its end".
    const auto add_compute = [&](Nanos gap, const std::string& where) {
      if (gap <= 0) return;
      out.trace.events.push_back(compute_event(gap, fmt::format("{} {}", w.label, where)));
      compute += gap;
    };
    for (const TimedComm& c : comms) {
      const Nanos gap_end = std::min(c.start, w.end);
      add_compute(gap_end - cursor, fmt::format("before traceEvents[{}]", c.index));
      cursor = std::max(cursor, gap_end);
      const Nanos comm_end = std::min(c.end, w.end);
      if (comm_end > cursor) {
        covered += comm_end - cursor;
        cursor = comm_end;
      }
      out.trace.events.push_back(c.event);
    }
    add_compute(w.end - cursor, "at its end");
    out.compute_s = static_cast<double>(compute) * 1e-9;
    out.comm_s = static_cast<double>(covered) * 1e-9;
  }

  RankEvent compute_event(Nanos duration, const std::string& field) const {
    if (static_cast<double>(duration) * 1e-9 > limits::kMaxSeconds)
      throw InputError(file_, field,
                       fmt::format("{} s of compute without communication is more than the limit of {} s",
                                   static_cast<double>(duration) * 1e-9, limits::kMaxSeconds));
    RankEvent e;
    e.kind = Kind::compute;
    e.name = "compute";
    e.field = field;
    e.duration_s = static_cast<double>(duration) * 1e-9;
    return e;
  }

  /// The window's communications in the order the rank issued them.
  std::vector<const CommOp*> issued_in(const Window& w) const {
    std::vector<const CommOp*> issued;
    for (const CommOp& c : r_.comms)
      if (w.whole || (c.start >= w.start && c.start < w.end)) issued.push_back(&c);
    std::stable_sort(issued.begin(), issued.end(),
                     [](const CommOp* a, const CommOp* b) { return a->start < b->start; });
    return issued;
  }

  Window window(const KinetoOptions& options, bool whole_trace) const {
    Window w;
    std::vector<const StepMark*> steps;
    for (const StepMark& s : r_.steps) steps.push_back(&s);
    std::stable_sort(steps.begin(), steps.end(),
                     [](const StepMark* a, const StepMark* b) { return a->start < b->start; });
    const StepMark* chosen = nullptr;
    if (options.step) {
      for (const StepMark* s : steps)
        if (s->number == *options.step) chosen = s;
      if (!chosen) {
        std::vector<int> numbers;
        for (const StepMark* s : steps) numbers.push_back(s->number);
        std::sort(numbers.begin(), numbers.end());
        const std::string have = numbers.empty()        ? std::string("it has no ProfilerStep annotation")
                                 : numbers.size() <= 12 ? fmt::format("its steps: {}", fmt::join(numbers, ", "))
                                                        : fmt::format("its {} steps: {} to {}", numbers.size(),
                                                                      numbers.front(), numbers.back());
        throw InputError(file_, "step",
                         fmt::format("there is no ProfilerStep#{} in this trace ({})", *options.step, have));
      }
      if (chosen->end <= chosen->start)
        throw InputError(file_, fmt::format("traceEvents[{}].dur", chosen->index),
                         fmt::format("ProfilerStep#{} has no duration (an unfinished step?)", chosen->number));
    } else if (!whole_trace && !steps.empty()) {
      for (const StepMark* s : steps)
        if (s->end > s->start) {
          chosen = s;
          break;
        }
      if (!chosen)
        throw InputError(file_, "step", "no ProfilerStep annotation of this trace has a duration (unfinished steps?)");
    }
    if (chosen) {
      w.start = chosen->start;
      w.end = chosen->end;
      w.step = chosen->number;
      w.label = fmt::format("ProfilerStep#{}", chosen->number);
      return w;
    }
    if (!r_.first_start) throw InputError(file_, "traceEvents", "holds no complete ('X') event");
    w.start = *r_.first_start;
    w.end = *r_.last_end;
    w.label = "trace";
    w.whole = true;
    return w;
  }

  void index_kernels() {
    by_id_.clear();
    unlinked_.clear();
    for (std::size_t i = 0; i < r_.kernels.size(); ++i) {
      const NcclKernel& k = r_.kernels[i];
      if (k.external_id)
        by_id_[*k.external_id].push_back(i);
      else
        unlinked_[k.signature].push_back(i);
    }
    for (auto& [sig, list] : unlinked_)
      std::stable_sort(list.begin(), list.end(),
                       [&](std::size_t a, std::size_t b) { return r_.kernels[a].start < r_.kernels[b].start; });
    used_.assign(r_.kernels.size(), false);
    next_.clear();
  }

  /// Times a communication by its GPU kernels, when it has some: the kernels Kineto linked to its CPU op (same
  /// External id), or else the first kernel not yet taken that records the same collective and starts after the
  /// op. Sets t's start, end and place (the first kernel's stream) and returns whether it found any.
  bool kernel_time(const CommOp& c, TimedComm& t) {
    const std::string sig = signature(c.args);
    bool found = false;
    const auto take = [&](std::size_t i) {
      const NcclKernel& k = r_.kernels[i];
      used_[i] = true;
      if (!found || k.start < t.start) {
        t.place = k.place;
        t.kernel = k.index;
      }
      if (!found || k.place.correlation > t.last_correlation) t.last_correlation = k.place.correlation;
      t.start = found ? std::min(t.start, k.start) : k.start;
      t.end = found ? std::max(t.end, k.end) : k.end;
      found = true;
    };
    if (c.external_id) {
      if (const auto it = by_id_.find(*c.external_id); it != by_id_.end())
        for (std::size_t i : it->second) {
          const NcclKernel& k = r_.kernels[i];
          if (k.signature != sig)
            throw InputError(file_, fmt::format("traceEvents[{}].args", k.index),
                             fmt::format("this NCCL kernel is linked to traceEvents[{}] (External id {}) but records "
                                         "another collective",
                                         c.index, *c.external_id));
          take(i);
        }
      if (found) return true;
    }
    const auto it = unlinked_.find(sig);
    if (it == unlinked_.end()) return false;
    std::size_t& next = next_[sig];
    while (next < it->second.size() && (used_[it->second[next]] || r_.kernels[it->second[next]].start < c.start))
      ++next;
    if (next == it->second.size()) return false;
    take(it->second[next]);
    return true;
  }

  /// The entry of distributedInfo.pg_config for group `name`, with all its ranks; nullopt without one.
  std::optional<std::vector<std::int64_t>> pg_config_ranks(const JsonMap& dist, const std::string& name) const {
    if (!dist.has("pg_config")) return std::nullopt;
    const auto& entries = dist.array("pg_config");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const JsonMap pg(entries[i], file_, fmt::format("distributedInfo.pg_config[{}]", i));
      if (!pg.has("pg_name") || pg.text("pg_name") != name || !pg.has("ranks")) continue;
      ListedInts ranks = parse_listed(pg.value("ranks"), world_ - 1, file_, pg.field("ranks"));
      if (ranks.cut_at) return std::nullopt;
      return std::move(ranks.values);
    }
    return std::nullopt;
  }

  /// The global ranks of a collective's group, in the group's own order (the group rank is the index).
  std::vector<std::int64_t> group_of(const JsonMap& a, const JsonMap& dist, const std::string& group_name) const {
    const char* key = "Process Group Ranks";
    const auto from_config = [&]() -> std::optional<std::vector<std::int64_t>> {
      if (group_name.empty()) return std::nullopt;
      return pg_config_ranks(dist, group_name);
    };
    if (!a.has(key)) {
      if (auto ranks = from_config()) return *ranks;
      throw InputError(file_, a.field(key),
                       "is required: the trace has no process-group information for this collective (and no "
                       "distributedInfo.pg_config entry for its group)");
    }
    const ListedInts listed = parse_listed(a.value(key), world_ - 1, file_, a.field(key));
    if (listed.values.empty()) {
      if (auto ranks = from_config()) return *ranks;
      throw InputError(file_, a.field(key),
                       "is empty: the trace has no process-group information for this collective (and no "
                       "distributedInfo.pg_config entry for its group)");
    }
    if (!listed.cut_at) return listed.values;
    // The profiler cut the list: take the group from pg_config, or from its start and stride, if they agree
    // with what the list shows.
    if (!a.has("Group size"))
      throw InputError(file_, a.field(key), "is cut short by the profiler (\"...\") and Group size is missing");
    const auto size = a.integer("Group size", 1, limits::kMaxEndpoints);
    if (auto ranks = from_config(); ranks && static_cast<std::int64_t>(ranks->size()) == size && agrees(*ranks, listed))
      return *ranks;
    if (a.has("Global rank start") && a.has("Global rank stride")) {
      const auto start = a.integer("Global rank start", 0, world_ - 1);
      const auto stride = a.integer("Global rank stride", 1, world_);
      if (start + (size - 1) * stride < world_) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t i = 0; i < size; ++i) ranks.push_back(start + i * stride);
        if (agrees(ranks, listed)) return ranks;
      }
    }
    throw InputError(file_, a.field(key),
                     fmt::format("lists {} of the group's {} ranks (the profiler cuts lists longer than {}), and "
                                 "neither distributedInfo.pg_config nor Global rank start and stride give the others",
                                 listed.values.size(), size, kProfilerTruncates));
  }

  /// One record_param_comms as an event of the rank; nullopt when it moves nothing.
  std::optional<RankEvent> to_event(const CommOp& c, const JsonMap& dist) const {
    const std::string field = fmt::format("traceEvents[{}]", c.index);
    const JsonMap a(c.args, file_, field + ".args");
    if (!a.has("Collective name"))
      throw InputError(file_, a.field("Collective name"),
                       "is required: this record_param_comms does not say which collective it is (older profilers "
                       "did not record it)");
    const std::string name = a.text("Collective name");
    if (name == "wait" || name == "barrier") return std::nullopt;  // synchronisation, no data
    const auto in = a.integer("In msg nelems", 0, kMaxNelems);
    const auto out = a.integer("Out msg nelems", 0, kMaxNelems);
    const auto info = op_of(name);
    if (!info) {
      if (in == 0 && out == 0) return std::nullopt;
      throw InputError(file_, a.field("Collective name"),
                       fmt::format("unknown collective '{}' (odcnsim models allreduce, allgather, reduce_scatter, "
                                   "broadcast, alltoall, send and recv, and skips wait, barrier and empty entries)",
                                   shown(name)));
    }
    const auto nelems = info->by_output ? out : in;
    if (nelems == 0) return std::nullopt;
    const std::string dtype = a.text("dtype");
    const int element = dtype_bytes(dtype);
    if (element == 0)
      throw InputError(
          file_, a.field("dtype"),
          fmt::format("unknown dtype '{}' (its element size is not known, so the bytes are not)", shown(dtype)));
    const double bytes = static_cast<double>(nelems) * element;
    if (bytes > limits::kMaxBytes)
      throw InputError(
          file_, a.field(info->by_output ? "Out msg nelems" : "In msg nelems"),
          fmt::format("{} elements of {} B is more than the limit of {} B", nelems, element, limits::kMaxBytes));
    RankEvent e;
    e.name = name;
    e.field = field;
    e.bytes = bytes;
    if (info->kind != Kind::collective) {  // send, recv: the peer is a global rank
      const char* key = info->kind == Kind::send ? "Dst Rank" : "Src Rank";
      if (!a.has(key))
        throw InputError(file_, a.field(key),
                         fmt::format("is required: the trace does not say which rank this {} goes {} (newer "
                                     "PyTorch profilers record it)",
                                     name, info->kind == Kind::send ? "to" : "comes from"));
      e.kind = info->kind;
      e.peer = static_cast<int>(a.integer(key, 0, world_ - 1));
      return e;
    }
    fill_collective(e, a, dist, info->op);
    return e;
  }

  /// A collective's group and root, checked against what the trace says of them.
  void fill_collective(RankEvent& e, const JsonMap& a, const JsonMap& dist, CollectiveOp op) const {
    e.kind = Kind::collective;
    e.op = op;
    e.group_name = a.has("Process Group Name") ? a.text("Process Group Name") : std::string();
    const std::vector<std::int64_t> group = group_of(a, dist, e.group_name);
    if (a.has("Group size")) {
      const auto size = a.integer("Group size", 0, limits::kMaxEndpoints);
      if (size != static_cast<std::int64_t>(group.size()))
        throw InputError(
            file_, a.field("Group size"),
            fmt::format("is {} but the group has {} ranks ({})", size, group.size(),
                        a.has("Process Group Ranks") ? "Process Group Ranks" : "distributedInfo.pg_config"));
    }
    // The root of a broadcast is its group rank ("Rank"; PyTorch records the root there); without it, the
    // group's first rank.
    std::int64_t root = group.front();
    if (e.op == CollectiveOp::broadcast && a.has("Rank"))
      root = group[static_cast<std::size_t>(a.integer("Rank", 0, static_cast<std::int64_t>(group.size()) - 1))];
    if (e.op == CollectiveOp::all_to_all)
      for (const char* key : {"In split size", "Out split size"})
        if (a.has(key)) {
          const ListedInts splits = parse_listed(a.value(key), kMaxNelems, file_, a.field(key));
          if (std::adjacent_find(splits.values.begin(), splits.values.end(), std::not_equal_to<>()) !=
              splits.values.end())
            throw InputError(file_, a.field(key),
                             "an all-to-all with uneven splits is not modelled (odcnsim's all-to-all sends the same "
                             "share to every rank)");
        }
    std::vector<std::int64_t> sorted = group;
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
      throw InputError(file_, a.field("Process Group Ranks"), fmt::format("lists rank {} twice", *twice));
    for (std::int64_t r : sorted) e.group.push_back(static_cast<int>(r));
    e.root = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), root) - sorted.begin());
  }

  const KinetoEvents& r_;
  std::string file_;
  int world_ = 1;
  std::map<std::int64_t, std::vector<std::size_t>> by_id_;
  std::map<std::string, std::vector<std::size_t>> unlinked_;
  std::map<std::string, std::size_t> next_;
  std::vector<bool> used_;
};

}  // namespace

KinetoTrace import_events(const KinetoEvents& r, const std::string& file, const KinetoOptions& options,
                          bool whole_trace) {
  return Importer(r, file).run(options, whole_trace);
}

}  // namespace odcn::workload::kineto_internal
