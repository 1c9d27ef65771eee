#pragma once
// PyTorch profiler (Kineto) Chrome traces, one file per rank, imported as a job graph (docs/traces-kineto.md).
//
// What is read from one rank's trace:
//   * distributedInfo: the rank, the world size and the process groups (pg_config). A trace without it has no
//     process-group information and is refused.
//   * ProfilerStep#N annotations: the step imported (KinetoOptions::step, default the first complete one) is
//     a window [ts, ts + dur]; a trace without any step annotation is imported whole.
//   * record_param_comms CPU ops issued inside the window: one communication each, from their arguments
//     (Collective name, In/Out msg nelems, dtype, Process Group Name/Ranks, Group size, and for broadcast the
//     root and for send/recv the peer). Each is timed by its NCCL kernel on the GPU (the kernel event linked to
//     it by External id, or the next kernel with the same arguments) and by the CPU op itself when it has none.
//   * With KinetoStreams::serial (the default), compute is the time between the rank's communications inside
//     the window: from the step's start to the first communication, between consecutive ones, and from the
//     last one to the step's end. So the compute and communication of a step add up to the step's duration;
//     compute that overlapped with communication on another stream is not modelled (the events form one chain).
//   * With KinetoStreams::concurrent, each CUDA stream of the rank is a chain of its own (kineto.cpp):
//     the GPU operations launched in the window (kernels, memcpy, memset: their `stream` argument) in stream
//     order, consecutive compute merged, communications timed by the network; streams are joined by the
//     "Stream Wait Event" (cuda_sync) events the trace records, or, when it records none, by a stated fallback
//     (a communication waits for the GPU operation on another stream that ended last before it started).
// Zero-byte entries ("wait", "barrier", empty messages) are skipped. Anything the import needs and does not
// find (no distributedInfo, an unknown collective or dtype, a collective without its group's ranks, a step
// that is not there, a truncated file) is refused with InputError(file, field, reason); nothing is guessed.
// assemble_job_graph (rank_trace.hpp) then matches the ranks' collectives by process group and order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "traces/rank_trace.hpp"
#include "graph/task_graph.hpp"

namespace odcn::workload {

/// The most JSON that one gzip'd trace may inflate to (1 GiB; a plain trace is bounded by
/// limits::kMaxInputFileBytes when read from a file). The JSON is parsed as it is inflated, so memory stays
/// proportional to the events kept, not to this size; the bound refuses a zip bomb in a few seconds.
constexpr std::int64_t kMaxKinetoJsonBytes = std::int64_t{1} << 30;

/// How a rank's CUDA streams are imported (docs/traces-kineto.md).
enum class KinetoStreams {
  /// One chain per rank: communications in issue order, compute the time between them (the original import).
  serial,
  /// One chain per CUDA stream, joined by the recorded stream waits (or the stated fallback): compute on one
  /// stream overlaps communication on another as it did in the trace.
  concurrent,
};
/// "serial" or "concurrent"; false for anything else.
bool parse_kineto_streams(const std::string& name, KinetoStreams& out);
const char* to_string(KinetoStreams s);

struct KinetoOptions {
  /// The ProfilerStep#N to import. Unset: the first complete step (an annotation with a positive duration),
  /// or the whole trace when it has no ProfilerStep annotation at all. import_kineto uses the step chosen for
  /// its first file for every file.
  std::optional<int> step;
  /// Fewer files than world_size: copy the first file's rank to the missing ranks (an SPMD job, e.g. data
  /// parallelism). Only when asked; otherwise a missing rank is refused.
  bool replicate = false;
  /// Job name; empty: the first file's name without its directory and its .gz, .json and .pt.trace endings.
  std::string name;
  int iterations = 1;
  /// concurrent by default: the recorded step replays as it ran (compute and NCCL streams overlapping);
  /// serial gives imports made before streams were read (2026-11-27) byte for byte.
  KinetoStreams streams = KinetoStreams::concurrent;
};

/// One rank's trace as imported, with what the import measured (for summaries and tests).
struct KinetoTrace {
  RankTrace trace;          ///< rank: distributedInfo.rank
  int world_size = 0;       ///< distributedInfo.world_size
  std::optional<int> step;  ///< the ProfilerStep#N imported; unset: the whole trace
  Seconds window_s = 0;     ///< the step's duration (whole trace: first event's start to last event's end)
  Seconds compute_s = 0;    ///< sum of the compute events
  Seconds comm_s = 0;       ///< time of the window covered by communications (kernels, or CPU ops)
  int collectives = 0;      ///< collective events
  int messages = 0;         ///< send and recv events
  int skipped = 0;          ///< record_param_comms skipped: wait, barrier, zero bytes
  int timed_by_kernel = 0;  ///< communications timed by their NCCL kernel (the others by their CPU op)
  // KinetoStreams::concurrent only:
  int streams = 0;          ///< chains: CUDA streams with something in the window (+1 for CPU-timed communications)
  bool sync_recorded = false;  ///< the trace has "Stream Wait Event" (cuda_sync) events
  int recorded_waits = 0;   ///< cross-stream dependencies from Stream Wait Events
  int inferred_waits = 0;   ///< cross-stream dependencies from the fallback (no Stream Wait Event in the trace)
};

/// Imports one rank's trace held in memory (for fuzzing): `bytes` is the file's content, gzip'd (it starts
/// with 1f 8b) or plain JSON; `file` names it in errors.
KinetoTrace parse_kineto(const std::string& bytes, const std::string& file, const KinetoOptions& options);
/// read_input_file(path) (size-limited), then parse_kineto.
KinetoTrace read_kineto(const std::string& path, const KinetoOptions& options);

/// parse_kineto(...).trace and read_kineto(...).trace.
RankTrace parse_kineto_rank(const std::string& bytes, const std::string& file, const KinetoOptions& options);
RankTrace read_kineto_rank(const std::string& path, const KinetoOptions& options);

/// One file per rank (each file's rank from its distributedInfo; no rank twice; all files of the same
/// world_size), every file at the same step; with options.replicate the missing ranks are copies of the first
/// file's; then assemble_job_graph with ranks = world_size.
JobGraph import_kineto(const std::vector<std::string>& files, const KinetoOptions& options);

}  // namespace odcn::workload
