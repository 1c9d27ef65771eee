#pragma once
#include <nlohmann/json.hpp>
#include <string>

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
class ChromeTraceWriter : public EventSink {
 public:
  /// Writes the header and the metadata events (process names; one thread per job, named in `thread_names`).
  ChromeTraceWriter(FileWriter out, const std::vector<std::string>& thread_names);
  void event(const TraceEvent& e) override;
  void close();

 private:
  FileWriter out_;
};
/// The same for events held in a RunRecord.
void write_chrome_trace(FileWriter out, const RunRecord& run);
/// Text that is not UTF-8 (a file name, say) is written with U+FFFD in its place rather than failing.
void write_json(FileWriter out, const nlohmann::json& value);

/// Shortest text that reads back as the same double, so outputs are byte-identical run to run.
std::string num(double v);

}  // namespace odcn::trace
