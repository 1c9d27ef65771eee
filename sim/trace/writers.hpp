#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "trace/rows.hpp"

namespace odcn::trace {

void write_iterations_csv(const std::string& path, const RunRecord& run);
void write_stages_csv(const std::string& path, const RunRecord& run);
void write_circuits_csv(const std::string& path, const RunRecord& run);
/// Chrome trace-event JSON (loads in ui.perfetto.dev and chrome://tracing); timestamps in µs.
void write_chrome_trace(const std::string& path, const RunRecord& run);
void write_json(const std::string& path, const nlohmann::json& value);

/// Shortest text that reads back as the same double, so outputs are byte-identical run to run.
std::string num(double v);

}  // namespace odcn::trace
