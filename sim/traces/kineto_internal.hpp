#pragma once
// Kineto import internals shared by reading the trace (kineto_read.cpp) and turning the events read into a rank's
// trace (kineto_import.cpp); private to traces/.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/field_path.hpp"
#include "spec/json_reader.hpp"
#include "traces/kineto.hpp"

namespace odcn::workload::kineto_internal {

using Json = nlohmann::json;
using spec::join_field;
using spec::JsonMap;
using spec::JsonValue;
using Kind = RankEvent::Kind;
using Nanos = std::int64_t;  // trace times, exactly: Kineto writes microseconds with three decimals

inline constexpr Nanos kMaxAbsNanos = 1'000'000'000'000'000'000;   // 1e15 us (31 years): a duration (`dur`)
/// A timestamp (`ts`): 3e15 us, so that traces with absolute Unix-epoch timestamps (older PyTorch profilers:
/// 1.68e15 us in 2023) are read; ts + dur and any difference of two times stay within int64 (< 9.2e18 ns).
inline constexpr Nanos kMaxTimestampNanos = 3'000'000'000'000'000'000;
inline constexpr std::int64_t kMaxNelems = 1'000'000'000'000'000;  // limits::kMaxBytes of one-byte elements
inline constexpr std::size_t kProfilerTruncates = 30;              // lists longer than this are cut ("[0, ..., 63]")

struct StepMark {
  int number = 0;
  std::size_t index = 0;
  Nanos start = 0, end = 0;
};

struct CommOp {  // a record_param_comms CPU op
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  std::optional<std::int64_t> external_id;
  JsonValue args;  // only kArgKeys
};

/// Where a GPU operation ran: its CUDA stream (args.stream, else the event's tid: libkineto's GpuActivity writes
/// the stream as both, libkineto/src/CuptiActivity.h) and its CUPTI correlation id (args.correlation, the id of
/// the runtime call that launched it; CUPTI numbers runtime calls in the order they are made).
struct GpuPlace {
  std::optional<std::int64_t> stream, correlation;
};

struct NcclKernel {
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  std::optional<std::int64_t> external_id;
  std::string signature;
  GpuPlace place;
  bool used = false;
};

/// A GPU operation other than an NCCL kernel: "cat" kernel, gpu_memcpy or gpu_memset.
struct GpuOp {
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  GpuPlace place;
};

/// A "Stream Wait Event" (cat cuda_sync; recorded when the profiler runs with enable_cuda_sync_events): the work
/// launched on `stream` after the cudaStreamWaitEvent call `correlation` waits for the work launched on
/// `on_stream` before the cudaEventRecord call `record_correlation` (libkineto CudaSyncActivity::metadataJson:
/// args stream, correlation, wait_on_stream, wait_on_cuda_event_record_corr_id).
struct StreamWait {
  std::size_t index = 0;
  std::int64_t stream = 0, correlation = 0, on_stream = 0, record_correlation = 0;
};

/// What the reader keeps of a trace.
struct KinetoEvents {
  std::optional<JsonValue> distributed_info;
  bool saw_events = false;
  std::vector<StepMark> steps;
  std::vector<CommOp> comms;
  std::vector<NcclKernel> kernels;
  std::vector<GpuOp> gpu_ops;
  std::vector<StreamWait> waits;
  bool saw_sync = false;  // any Stream Wait Event, even one that cannot be used (wait_on_stream -1)
  /// The CPU start of each CUDA runtime or driver call (cat cuda_runtime, cuda_driver), by correlation id.
  std::map<std::int64_t, Nanos> launches;
  std::optional<Nanos> first_start, last_end;  // over all complete ('X') events
};

const JsonValue* member(const JsonValue& v, const char* key);
/// What identifies a communication on its kernel: Kineto copies these arguments from the CPU op to the kernel.
std::string signature(const JsonValue& args);
std::optional<std::int64_t> external_id(const JsonValue& args, const std::string& file, const std::string& field);

/// A communication as the rank issued it, with its time on the GPU (or CPU) and where it ran.
struct TimedComm {
  RankEvent event;
  std::size_t index = 0;  // its record_param_comms in traceEvents
  Nanos start = 0, end = 0;
  std::optional<std::size_t> kernel;  // its first NCCL kernel in traceEvents; none: timed by its CPU op
  GpuPlace place;                      // of its first NCCL kernel
  std::optional<std::int64_t> last_correlation;  // of its last NCCL kernel
};

/// The window of the trace imported.
struct Window {
  Nanos start = 0, end = 0;
  std::string label;  // "ProfilerStep#4", "trace"
  std::optional<int> step;
  bool whole = false;
};

/// KinetoStreams::concurrent: the rank's events as one chain per CUDA stream (kineto.cpp); fills
/// out.trace.events, compute_s, comm_s, streams, sync_recorded, recorded_waits and inferred_waits.
void stream_chains(const KinetoEvents& r, const std::vector<TimedComm>& comms, const Window& w,
                   const std::string& file, KinetoTrace& out);

/// Reads a trace (gzip or not) and turns its events into the rank's trace (the step asked for, or the whole trace).
KinetoTrace parse_impl(const std::string& bytes, const std::string& file, const KinetoOptions& options,
                       bool whole_trace);
/// The events read, as the rank's trace over the window chosen.
KinetoTrace import_events(const KinetoEvents& r, const std::string& file, const KinetoOptions& options,
                          bool whole_trace);

}  // namespace odcn::workload::kineto_internal
