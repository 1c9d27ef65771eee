#pragma once
// Kineto import internals shared by reading the trace (kineto_read.cpp) and turning the events read into a rank's
// trace (kineto_import.cpp); private to traces/.
#include <nlohmann/json.hpp>

#include <cstdint>
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

struct NcclKernel {
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  std::optional<std::int64_t> external_id;
  std::string signature;
  bool used = false;
};

/// What the reader keeps of a trace.
struct KinetoEvents {
  std::optional<JsonValue> distributed_info;
  bool saw_events = false;
  std::vector<StepMark> steps;
  std::vector<CommOp> comms;
  std::vector<NcclKernel> kernels;
  std::optional<Nanos> first_start, last_end;  // over all complete ('X') events
};

const JsonValue* member(const JsonValue& v, const char* key);
/// What identifies a communication on its kernel: Kineto copies these arguments from the CPU op to the kernel.
std::string signature(const JsonValue& args);
std::optional<std::int64_t> external_id(const JsonValue& args, const std::string& file, const std::string& field);

/// Reads a trace (gzip or not) and turns its events into the rank's trace (the step asked for, or the whole trace).
KinetoTrace parse_impl(const std::string& bytes, const std::string& file, const KinetoOptions& options,
                       bool whole_trace);
/// The events read, as the rank's trace over the window chosen.
KinetoTrace import_events(const KinetoEvents& r, const std::string& file, const KinetoOptions& options,
                          bool whole_trace);

}  // namespace odcn::workload::kineto_internal
