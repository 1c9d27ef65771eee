#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/file_writer.hpp"
#include "trace/rows.hpp"

namespace odcn::trace {

// Each writes one whole file and closes it; any failed write raises IoError (trace/file_writer.hpp).
void write_iterations_csv(FileWriter out, const RunRecord& run);
void write_stages_csv(FileWriter out, const RunRecord& run);
void write_circuits_csv(FileWriter out, const RunRecord& run);
/// Chrome trace-event JSON (loads in ui.perfetto.dev and chrome://tracing); timestamps in µs. Events are
/// written as they arrive, so a long run's trace never sits in memory: pass the writer to the engine as its
/// EventSink, then close() it.
///
/// Processes: one per job group (a thread per job: tid = job id + 1), one per switch with circuits
/// (TraceEvent::Track::fabric), and "scheduler". Each process's and thread's name is written just before its
/// first event, so a process or thread without events has no name either, and the output depends only on the
/// order of the events. Perfetto keys threads by tid alone and hides pid and tid 0, so every pid and tid is
/// distinct and positive: with N jobs, job threads are 1..N, and processes follow from N + 1 (job groups,
/// then the scheduler, then switch s at N + 1 + G + 1 + s, for G job groups). process_sort_index puts the
/// jobs first, then the switches, then the scheduler. A slice with TraceEvent::rank >= 0 goes on a lane of
/// that rank instead (a thread whose slices never overlap, so that Perfetto can nest them); lanes get tids
/// after every pid, which the engine makes safe by naming every switch before the first job slice.
/// docs/outputs.md describes every event.
class ChromeTraceWriter : public EventSink {
 public:
  /// Writes the header. Job j's thread is named thread_names[j] ("job j" beyond the list). The pids follow
  /// N = the length of thread_names or of set_job_groups' list, whichever is longer: every job id that has
  /// events must be below N (the engine's ids are 0..jobs-1), or its tid could be a process's pid.
  ChromeTraceWriter(FileWriter out, const std::vector<std::string>& thread_names);
  /// Puts job j's thread (j: the job's id) in the process named group_of_job[j]; jobs beyond the list, and all
  /// of them when this is never called, are in process "jobs". Processes are numbered in the order their names
  /// first appear. Call it before the first event.
  void set_job_groups(std::vector<std::string> group_of_job);
  void event(const TraceEvent& e) override;
  void close();

 private:
  struct Process {
    bool named = false;        ///< its process_name has been written
    bool main_named = false;   ///< its main thread's thread_name (switches, scheduler) has been written
  };
  /// One thread of a rank: its tid and the end of its latest slice.
  struct Lane {
    int tid = 0;
    Seconds end_s = 0;
  };
  /// A rank's threads (TraceEvent::rank): its name ("rank 3 · gpu 5") and its lanes, compute then comm.
  struct RankThreads {
    std::string name;
    std::vector<Lane> lanes[2];
  };
  int pid_of(const TraceEvent& e) const;
  /// Write the process's and the thread's names before their first event.
  void announce_process(const TraceEvent& e, int pid);
  void announce_thread(const TraceEvent& e, int pid, int tid);
  void name_thread(int pid, int tid, const std::string& name);
  RankThreads& rank_threads(int job, int rank);
  /// The tid of the first lane of the slice's rank and kind that is free at its start; a new lane (named and
  /// sorted, with the next free tid) when none is.
  int rank_lane(const TraceEvent& e, int pid);
  void item(const std::string& json);  ///< one element of traceEvents
  FileWriter out_;
  bool first_ = true;
  std::vector<std::string> thread_names_;
  std::vector<std::string> groups_;   ///< job processes' names; "jobs" among them
  std::vector<int> group_of_job_;     ///< index into groups_
  int default_group_ = 0;
  std::vector<std::string> switch_names_;  ///< by switch (TraceEvent::Phase::label)
  std::string scheduler_name_ = "scheduler";
  std::vector<Process> processes_;         ///< by pid - first pid
  std::vector<char> job_named_;            ///< by job id
  int switches_ = 0;                       ///< switches declared or seen (for the scheduler's sort index)
  std::vector<std::vector<RankThreads>> ranks_;  ///< by job id, then rank
  int next_rank_tid_ = 0;                  ///< the next rank lane's tid (0: none yet)
  int first_pid() const;
};
/// The same for events held in a RunRecord.
void write_chrome_trace(FileWriter out, const RunRecord& run);
/// Text that is not UTF-8 (a file name, say) is written with U+FFFD in its place rather than failing.
void write_json(FileWriter out, const nlohmann::json& value);

/// A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& v);

/// Shortest text that reads back as the same double, so outputs are byte-identical run to run.
std::string num(double v);

}  // namespace odcn::trace
