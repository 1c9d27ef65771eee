// The Kineto importer's entry points (kineto.hpp), and KinetoStreams::concurrent: a rank's CUDA streams as
// chains of their own (below).
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
#include <set>
#include <tuple>
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

namespace odcn::workload {

using kineto_internal::parse_impl;

bool parse_kineto_streams(const std::string& name, KinetoStreams& out) {
  if (name == "serial") {
    out = KinetoStreams::serial;
    return true;
  }
  if (name == "concurrent") {
    out = KinetoStreams::concurrent;
    return true;
  }
  return false;
}

const char* to_string(KinetoStreams s) { return s == KinetoStreams::serial ? "serial" : "concurrent"; }

KinetoTrace parse_kineto(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_impl(bytes, file, options, false);
}

KinetoTrace read_kineto(const std::string& path, const KinetoOptions& options) {
  return parse_kineto(spec::read_input_file(path), path, options);
}

RankTrace parse_kineto_rank(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_kineto(bytes, file, options).trace;
}

RankTrace read_kineto_rank(const std::string& path, const KinetoOptions& options) {
  return read_kineto(path, options).trace;
}

JobGraph import_kineto(const std::vector<std::string>& files, const KinetoOptions& options) {
  if (files.empty()) throw InputError("(kineto)", "files", "no trace file given");
  const std::string& first = files.front();
  if (options.iterations < 1 || options.iterations > limits::kMaxIterations)
    throw InputError(first, "iterations", fmt::format("must be between 1 and {}", limits::kMaxIterations));
  AssembleOptions assemble;
  assemble.name = options.name.empty() ? job_name_of_file(first, {".gz", ".json", ".pt.trace"}, "kineto") : options.name;
  assemble.name = spec::checked_name(assemble.name, first, "name");
  assemble.iterations = options.iterations;

  // Every file at the same step: the one asked for, or the one chosen for the first file (or every file
  // whole when the first has no step annotations).
  KinetoOptions each = options;
  bool whole = false;
  long comms = 0, by_kernel = 0, skipped = 0, unsynced = 0, inferred = 0;
  std::vector<RankTrace> traces;
  std::map<int, std::string> file_of_rank;
  for (std::size_t i = 0; i < files.size(); ++i) {
    KinetoTrace t = parse_impl(spec::read_input_file(files[i]), files[i], each, whole);
    if (i == 0) {
      assemble.ranks = t.world_size;
      if (!each.step) {
        each.step = t.step;
        whole = !t.step;
      }
    } else if (t.world_size != assemble.ranks) {
      throw InputError(files[i], "distributedInfo.world_size",
                       fmt::format("is {} here but {} in {}", t.world_size, assemble.ranks, first));
    }
    if (const auto it = file_of_rank.find(t.trace.rank); it != file_of_rank.end())
      throw InputError(files[i], "distributedInfo.rank",
                       fmt::format("rank {} is also traced by {}", t.trace.rank, it->second));
    file_of_rank.emplace(t.trace.rank, files[i]);
    comms += t.collectives + t.messages;
    by_kernel += t.timed_by_kernel;
    skipped += t.skipped;
    if (!t.sync_recorded) ++unsynced;
    inferred += t.inferred_waits;
    traces.push_back(std::move(t.trace));
  }
  if (options.replicate) traces = replicate_ranks(traces, assemble.ranks);
  JobGraph g = assemble_job_graph(traces, assemble);
  // The fallbacks, one line each with its count, before the assembler's own.
  std::vector<std::string> notes;
  const auto plural = [](long n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  if (whole)
    notes.push_back(fmt::format("{} without a ProfilerStep annotation: each imported whole, from its first event "
                                "to its last",
                                files.size() == 1 ? std::string("the file is") : fmt::format("all {} files are", files.size())));
  if (comms > by_kernel)
    notes.push_back(fmt::format("{} of {} timed by {} CPU operation (no NCCL kernel with {} External id)",
                                comms - by_kernel, plural(comms, "communication"), comms - by_kernel == 1 ? "its" : "their",
                                comms - by_kernel == 1 ? "its" : "their"));
  if (options.streams == KinetoStreams::concurrent && unsynced > 0)
    notes.push_back(fmt::format("no Stream Wait Event (cuda_sync) in {} of {}: {} {} for the GPU operation on another "
                                "stream that ended last before {} started (concurrent streams)",
                                unsynced, plural(static_cast<long>(files.size()), "file"),
                                plural(inferred, "communication"), inferred == 1 ? "waits" : "wait",
                                inferred == 1 ? "it" : "they"));
  if (skipped > 0)
    notes.push_back(fmt::format("{} skipped: wait, barrier or zero bytes", plural(skipped, "record_param_comms event")));
  if (options.replicate && static_cast<int>(files.size()) < assemble.ranks)
    notes.push_back(fmt::format("{} of {} ranks are copies of {} (--replicate)", assemble.ranks - static_cast<int>(files.size()),
                                assemble.ranks, first));
  notes.insert(notes.end(), g.notes.begin(), g.notes.end());
  g.notes = std::move(notes);
  return g;
}

}  // namespace odcn::workload

// ---------------------------------------------------------------------------------------------------------
// KinetoStreams::concurrent: one chain per CUDA stream (docs/traces-kineto.md, "Streams").
//
// CUDA runs the work of one stream in the order it was launched and lets different streams run at the same
// time; a stream waits for another only through an event (cudaEventRecord on the producer, cudaStreamWaitEvent
// on the consumer; CUDA Runtime API, "Stream synchronization"). The profiler records these waits as "Stream
// Wait Event" events (cat cuda_sync) when run with enable_cuda_sync_events; their wait_on_stream and
// wait_on_cuda_event_record_corr_id name the producer stream and the cudaEventRecord call (libkineto
// CudaSyncActivity::metadataJson; HTA's critical-path analysis pairs them the same way).

namespace odcn::workload::kineto_internal {

namespace {

/// The stream of communications timed by their CPU op (no NCCL kernel): before every CUDA stream.
constexpr std::int64_t kCpuStream = std::numeric_limits<std::int64_t>::min();

struct Item {  // a GPU operation or a communication, on its stream
  Nanos start = 0, end = 0;
  std::size_t index = 0;  // in traceEvents
  std::optional<std::int64_t> first_corr, last_corr;
  const TimedComm* comm = nullptr;  // null: compute
  std::int64_t stream = 0;
  std::vector<int> after;  // items of other streams it waits for
  bool waited_on = false;  // an item of another stream waits for it
};

struct Unit {  // consecutive compute of one stream, or one communication: one event (two with its idle time)
  int first = 0, last = 0;  // items
  Nanos start = 0, end = 0;
  std::vector<int> preds;  // units
  int event = -1;          // the rank's event that ends it
};

class StreamChains {
 public:
  StreamChains(const KinetoEvents& r, const std::vector<TimedComm>& comms, const Window& w, const std::string& file,
               KinetoTrace& out)
      : r_(r), comms_(comms), w_(w), file_(file), out_(out) {}

  void run() {
    collect();
    out_.sync_recorded = r_.saw_sync;
    if (r_.saw_sync)
      recorded_waits();
    else
      fallback_waits();
    split_units();
    emit();
  }

 private:
  /// The window's GPU operations (those launched in it: the runtime call with the same correlation id starts in
  /// the window; without one, the operation itself) and communications, by stream, each stream in time order.
  void collect() {
    std::map<std::int64_t, std::vector<Item>> by_stream;
    for (const GpuOp& op : r_.gpu_ops) {
      Nanos launched = op.start;
      if (op.place.correlation)
        if (const auto it = r_.launches.find(*op.place.correlation); it != r_.launches.end()) launched = it->second;
      if (!w_.whole && (launched < w_.start || launched >= w_.end)) continue;
      by_stream[stream_of(op.place, op.index)].push_back(item(op.start, op.end, op.index, op.place.correlation,
                                                              op.place.correlation, nullptr));
    }
    for (const TimedComm& c : comms_) {
      const std::int64_t stream = c.kernel ? stream_of(c.place, *c.kernel) : kCpuStream;
      by_stream[stream].push_back(item(c.start, c.end, c.index, c.place.correlation, c.last_correlation, &c));
    }
    for (auto& [stream, items] : by_stream) {
      std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        return std::tie(a.start, a.end, a.index) < std::tie(b.start, b.end, b.index);
      });
      ranges_[stream] = {static_cast<int>(items_.size()), static_cast<int>(items_.size() + items.size())};
      for (Item& i : items) {
        i.stream = stream;
        items_.push_back(std::move(i));
      }
    }
    out_.streams = static_cast<int>(by_stream.size());
  }

  static Item item(Nanos start, Nanos end, std::size_t index, std::optional<std::int64_t> first_corr,
                   std::optional<std::int64_t> last_corr, const TimedComm* comm) {
    Item i;
    i.start = start;
    i.end = end;
    i.index = index;
    i.first_corr = first_corr;
    i.last_corr = last_corr;
    i.comm = comm;
    return i;
  }

  std::int64_t stream_of(const GpuPlace& place, std::size_t index) const {
    if (!place.stream)
      throw InputError(file_, fmt::format("traceEvents[{}].args.stream", index),
                       "is required to import each CUDA stream as a chain (Kineto writes the stream of every GPU "
                       "operation, in args.stream and tid); import with streams serial otherwise");
    return *place.stream;
  }

  void add_wait(int from, int to) {
    auto& after = items_[static_cast<std::size_t>(to)].after;
    if (std::find(after.begin(), after.end(), from) != after.end()) return;
    after.push_back(from);
    items_[static_cast<std::size_t>(from)].waited_on = true;
  }

  /// Each Stream Wait Event: the first item of its stream launched after the wait waits for the last item of
  /// wait_on_stream launched before the event record. A wait whose ends are not both in the window (the producer
  /// ran in an earlier step) adds nothing: the previous iteration has finished.
  void recorded_waits() {
    for (const StreamWait& wt : r_.waits) {
      if (wt.stream == wt.on_stream) continue;
      int to = -1, from = -1;
      const auto [to_begin, to_end] = range_of(wt.stream);
      for (int i = to_begin; i < to_end && to < 0; ++i) {
        const Item& it = items_[static_cast<std::size_t>(i)];
        if (it.last_corr && *it.last_corr > wt.correlation) to = i;
      }
      const auto [from_begin, from_end] = range_of(wt.on_stream);
      for (int i = from_begin; i < from_end; ++i) {
        const Item& it = items_[static_cast<std::size_t>(i)];
        if (it.first_corr && *it.first_corr < wt.record_correlation) from = i;
      }
      if (to < 0 || from < 0) continue;
      const std::size_t before = items_[static_cast<std::size_t>(to)].after.size();
      add_wait(from, to);
      if (items_[static_cast<std::size_t>(to)].after.size() > before) ++out_.recorded_waits;
    }
  }

  /// The items of a stream: [begin, end) in items_ (empty when the stream has none in the window).
  std::pair<int, int> range_of(std::int64_t stream) const {
    const auto it = ranges_.find(stream);
    return it == ranges_.end() ? std::make_pair(0, 0) : it->second;
  }

  /// The trace records no stream wait (the profiler ran without enable_cuda_sync_events): a communication waits
  /// for the GPU operation or communication on another stream that ended last before it started. PyTorch's
  /// ProcessGroupNCCL makes its NCCL stream wait for the current stream before each collective (syncStream), so
  /// the collective waits at least for the compute that ran before it. Compute is not made to wait for a
  /// communication: the trace does not say which compute does.
  void fallback_waits() {
    const int n = static_cast<int>(items_.size());
    for (int c = 0; c < n; ++c) {
      const Item& x = items_[static_cast<std::size_t>(c)];
      if (!x.comm) continue;
      int best = -1;
      for (int i = 0; i < n; ++i) {
        const Item& y = items_[static_cast<std::size_t>(i)];
        // Only what ended before, or at, the start of a communication that started after it: a zero-length
        // operation at the very instant does not count, so that these waits can never form a cycle.
        if (y.stream == x.stream || y.end > x.start || y.start >= x.start) continue;
        if (best < 0 || std::tie(y.end, y.start) > std::tie(items_[static_cast<std::size_t>(best)].end,
                                                           items_[static_cast<std::size_t>(best)].start))
          best = i;
      }
      if (best < 0) continue;
      add_wait(best, c);
      ++out_.inferred_waits;
    }
  }

  /// Consecutive compute of a stream is one unit, cut where another stream waits for it or it waits for another
  /// stream; each communication is a unit of its own.
  void split_units() {
    std::vector<int> unit_of(items_.size(), -1);
    for (std::size_t i = 0; i < items_.size(); ++i) {
      const Item& it = items_[i];
      const bool same_stream = i > 0 && items_[i - 1].stream == it.stream;
      if (!same_stream || it.comm || items_[i - 1].comm || !it.after.empty() || items_[i - 1].waited_on) {
        Unit u;
        u.first = static_cast<int>(i);
        u.start = it.start;
        u.end = it.end;
        if (same_stream) u.preds.push_back(static_cast<int>(units_.size()) - 1);
        units_.push_back(std::move(u));
      }
      units_.back().last = static_cast<int>(i);
      units_.back().end = std::max(units_.back().end, it.end);
      unit_of[i] = static_cast<int>(units_.size()) - 1;
    }
    // Then the waits between streams (only a unit's first item waits; an item may wait for a later stream's).
    for (Unit& u : units_)
      for (int from : items_[static_cast<std::size_t>(u.first)].after) u.preds.push_back(unit_of[static_cast<std::size_t>(from)]);
  }

  /// The units as the rank's events, in a topological order (earliest start first, then stream order); each
  /// waits for its predecessors and for the time the trace shows between the last of them and its start.
  void emit() {
    const std::size_t n = units_.size();
    std::vector<int> missing(n, 0);
    std::vector<std::vector<int>> next(n);
    for (std::size_t k = 0; k < n; ++k)
      for (int p : units_[k].preds) {
        ++missing[k];
        next[static_cast<std::size_t>(p)].push_back(static_cast<int>(k));
      }
    std::set<std::pair<Nanos, int>> ready;
    for (std::size_t k = 0; k < n; ++k)
      if (missing[k] == 0) ready.insert({units_[k].start, static_cast<int>(k)});
    std::size_t emitted = 0;
    while (!ready.empty()) {
      const int k = ready.begin()->second;
      ready.erase(ready.begin());
      emit_unit(units_[static_cast<std::size_t>(k)]);
      ++emitted;
      for (int m : next[static_cast<std::size_t>(k)])
        if (--missing[static_cast<std::size_t>(m)] == 0) ready.insert({units_[static_cast<std::size_t>(m)].start, m});
    }
    if (emitted < n)
      throw InputError(file_, r_.waits.empty() ? std::string("traceEvents") : fmt::format("traceEvents[{}]", r_.waits.front().index),
                       "the Stream Wait Events of this trace make streams wait for each other in a cycle (an "
                       "inconsistent trace)");
    // The step ends when the window does: idle time after the last operation of every stream.
    Nanos last = w_.start;
    std::vector<int> lasts;
    for (std::size_t k = 0; k < n; ++k) {
      last = std::max(last, units_[k].end);
      if (k + 1 == n || items_[static_cast<std::size_t>(units_[k + 1].first)].stream !=
                            items_[static_cast<std::size_t>(units_[k].first)].stream)
        lasts.push_back(units_[k].event);
    }
    if (w_.end > last) add_compute("idle", w_.end - last, fmt::format("{} at its end", w_.label), lasts);
    out_.compute_s = static_cast<double>(compute_) * 1e-9;
    out_.comm_s = static_cast<double>(covered()) * 1e-9;
  }

  void emit_unit(Unit& u) {
    Nanos ready = w_.start;
    std::vector<int> deps;
    for (int p : u.preds) {
      const Unit& pred = units_[static_cast<std::size_t>(p)];
      ready = std::max(ready, pred.end);
      deps.push_back(pred.event);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    const Nanos idle = std::max<Nanos>(0, u.start - ready);
    const Item& first = items_[static_cast<std::size_t>(u.first)];
    const std::string where = fmt::format("{} stream {} traceEvents[{}]", w_.label,
                                          first.stream == kCpuStream ? std::string("cpu") : std::to_string(first.stream),
                                          first.index);
    if (!first.comm) {  // compute: its span on the stream, and the time it waited after its predecessors
      u.event = add_compute("compute", u.end - u.start + idle, where, std::move(deps));
      return;
    }
    if (idle > 0) deps = {add_compute("idle", idle, "before " + where, std::move(deps))};
    RankEvent e = first.comm->event;
    e.deps = std::move(deps);
    out_.trace.events.push_back(std::move(e));
    u.event = static_cast<int>(out_.trace.events.size()) - 1;
  }

  int add_compute(const char* name, Nanos duration, const std::string& field, std::vector<int> deps) {
    if (static_cast<double>(duration) * 1e-9 > limits::kMaxSeconds)
      throw InputError(file_, field,
                       fmt::format("{} s of compute is more than the limit of {} s", static_cast<double>(duration) * 1e-9,
                                   limits::kMaxSeconds));
    RankEvent e;
    e.kind = Kind::compute;
    e.name = name;
    e.field = field;
    e.duration_s = static_cast<double>(duration) * 1e-9;
    e.deps = std::move(deps);
    out_.trace.events.push_back(std::move(e));
    compute_ += duration;
    return static_cast<int>(out_.trace.events.size()) - 1;
  }

  /// The time of the window during which at least one communication ran.
  Nanos covered() const {
    std::vector<std::pair<Nanos, Nanos>> spans;
    for (const TimedComm& c : comms_) {
      const Nanos a = std::max(c.start, w_.start), b = std::min(c.end, w_.end);
      if (b > a) spans.emplace_back(a, b);
    }
    std::sort(spans.begin(), spans.end());
    Nanos total = 0, cursor = std::numeric_limits<Nanos>::min();
    for (const auto& [a, b] : spans) {
      if (b <= cursor) continue;
      total += b - std::max(a, cursor);
      cursor = b;
    }
    return total;
  }

  const KinetoEvents& r_;
  const std::vector<TimedComm>& comms_;
  const Window& w_;
  const std::string& file_;
  KinetoTrace& out_;
  std::vector<Item> items_;  // stream by stream (ascending stream id), each in time order
  std::map<std::int64_t, std::pair<int, int>> ranges_;  // each stream's items
  std::vector<Unit> units_;  // likewise
  Nanos compute_ = 0;
};

}  // namespace

void stream_chains(const KinetoEvents& r, const std::vector<TimedComm>& comms, const Window& w,
                   const std::string& file, KinetoTrace& out) {
  StreamChains(r, comms, w, file, out).run();
}

}  // namespace odcn::workload::kineto_internal
