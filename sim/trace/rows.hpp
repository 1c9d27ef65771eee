#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace odcn::trace {

/// One job iteration. A "warm" iteration began before t = 0: in a TDM round, group A communicates in the
/// first stage the gradients of an iteration computed before the run started (steady state).
struct IterationRow {
  int job = 0;  ///< its name is RunRecord::thread_names[job] (not repeated in every row: long runs hold millions)
  int iteration = 0;
  bool warm = false;
  Seconds start_s = 0;
  Seconds end_s = 0;
  // The engine's measures are unions of the iteration's task spans; the files show a partition of the iteration
  // derived from them (trace/writers.hpp, app/metrics.hpp, docs/outputs.md): compute, communication (neither
  // computing nor stalled), reconfiguration stall (not computing) and waiting add up to its duration, and the
  // communication hidden behind compute is given beside them.
  Seconds compute_s = 0;         ///< training (and PS aggregation): the union of compute tasks
  Seconds comm_s = 0;            ///< the union of communication tasks, from each one's start to its last byte
  Seconds reconfig_stall_s = 0;  ///< part of comm_s during which a circuit the job used was being set up
  Seconds overlap_s = 0;         ///< part of comm_s during which the job also computed (task graphs' parallel branches)
  Seconds stall_overlap_s = 0;   ///< part of reconfig_stall_s during which the job also computed
  Seconds wait_s = 0;            ///< the rest: neither computing nor communicating
  Bytes circuit_bytes = 0;       ///< bytes sent over OCS circuits
  Bytes tor_bytes = 0;           ///< bytes across the ToR ↔ server links

  /// The partition of the iteration that every file and the console show. Each is a difference of unions of
  /// spans; a residue within 1e-12 of the iteration's length is rounding in that subtraction (a communication
  /// wholly hidden behind compute leaves 7.8e-18 s), and is 0.
  Seconds exposed_communication_s() const {
    return settled(comm_s - reconfig_stall_s - (overlap_s - stall_overlap_s));
  }
  Seconds exposed_stall_s() const { return settled(reconfig_stall_s - stall_overlap_s); }
  Seconds hidden_communication_s() const { return settled(overlap_s); }

 private:
  Seconds settled(Seconds x) const { return (x < 0 ? -x : x) <= 1e-12 * (end_s - start_s) ? 0.0 : x; }
};

struct StageRow {
  int round = 0;
  int stage = 0;  ///< 1..4 as in the seed (2t + k + 1)
  int k = 0;
  int t = 0;
  Seconds start_s = 0;
  Seconds end_s = 0;
  Seconds predicted_s = 0;
  Seconds comm_s = 0;     ///< measured: last byte of the stage minus its start
  Seconds compute_s = 0;  ///< planned max compute of the idle group
  std::string bound;
  int circuits_changed = 0;
  Seconds reconfig_s = 0;  ///< δ if any circuit changed at the start of this stage, else 0
  int pod_group = -1;      ///< the pod group whose planned communication is the longest (-1: none)
  std::string bottleneck;  ///< in it: "pods I-J" or "tor I"
  Seconds comm_lower_bound_s = 0;  ///< fractional optimum of Eq. (2) under Eq. (6)
  bool complete = true;    ///< every job planned in it ran it (none had finished all its iterations); not in CSV
};

struct CircuitRow {
  Seconds time_s = 0;
  int oxc = 0;
  int pod_a = 0;
  int pod_b = 0;
  int old_circuits = 0;
  int new_circuits = 0;
  std::string reason;
};

/// One event of trace.json as the engine and the controllers report it. It names whose track it is on
/// (a job, a switch, the scheduler); ChromeTraceWriter (trace/writers.hpp) maps that to a process and thread.
struct TraceEvent {
  enum class Track : std::uint8_t {
    job,        ///< the job's thread or its rank's (id: the job's id; see `rank`), in its job group's process
    fabric,     ///< the process of a switch that holds circuits (id: the switch, as CircuitRow::oxc)
    scheduler,  ///< the scheduler's process (id unused)
  };
  enum class Phase : char {
    complete = 'X',  ///< a slice [start_s, start_s + duration_s]
    instant = 'i',   ///< a moment, on its process's track (visible at any zoom)
    counter = 'C',   ///< a counter's new value, in `args` ("value":N)
    label = 'M',     ///< names the track (`name`): a switch's or the scheduler's process, a job's thread; written
                     ///< just before the track's first event, never when it has none
  };
  Track track = Track::job;
  Phase phase = Phase::complete;
  int id = 0;
  std::string name;
  /// Job task slices are "compute" or "comm" (what --trace summary leaves out); switches: "reconfigure",
  /// "circuits"; the scheduler: "stage".
  std::string category;
  Seconds start_s = 0;
  Seconds duration_s = 0;  ///< complete events
  /// The members of the event's "args" object as JSON text without the braces (`"job":3,"warm":false`), or
  /// empty for none. Preformatted, so that an event stays small while it is handed around.
  std::string args;
  /// Track::job: the rank whose threads the slice (or, for a label, the name) is on, when the job has a thread
  /// per rank (engine/task_trace.hpp); -1: the job's own thread.
  int rank = -1;
};

/// `text` as a JSON string, quotes included (for TraceEvent::args); bytes that are not UTF-8 become U+FFFD.
std::string json_string(const std::string& text);

/// One job's life in a run (in the order the jobs were given to the engine).
struct JobTimes {
  int job = 0;             ///< the job's id, as in IterationRow::job
  Seconds arrival_s = 0;   ///< when it arrived
  Seconds admitted_s = -1; ///< when the controller admitted it (-1: never)
  Seconds done_s = -1;     ///< when its last iteration ended (-1: it did not finish)
  int iterations = 0;      ///< iterations it completed (warm ones included)
};

/// Receives trace events as they are produced, so that they need not be held in memory.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void event(const TraceEvent& e) = 0;
};

/// Everything one simulation produced. Events go to `event_sink` when one is set (streamed to trace.json),
/// else into `events`.
struct RunRecord {
  std::vector<IterationRow> iterations;
  std::vector<StageRow> stages;
  std::vector<CircuitRow> circuits;
  std::vector<JobTimes> jobs;
  std::vector<TraceEvent> events;
  EventSink* event_sink = nullptr;
  void add_event(TraceEvent e) {
    if (event_sink)
      event_sink->event(e);
    else
      events.push_back(std::move(e));
  }
  std::vector<std::string> thread_names;  ///< job id → the job's name (its thread in trace.json)
  int reconfigurations = 0;  ///< OCS configuration changes that changed at least one circuit
  int circuits_changed = 0;  ///< Σ |new − old| over all changes
  Seconds makespan_s = 0;
  /// How the engine ran it (not written to the outputs, which do not depend on it): steps of several transfers
  /// sent as one that ends with the last of them (engine/executor_tasks.cpp, stand_in), and SimGrid transfers.
  long long steps_stood_in = 0;
  long long transfers_sent = 0;
};

}  // namespace odcn::trace
