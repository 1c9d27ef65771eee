#include "trace/writers.hpp"

#include <fmt/format.h>


namespace odcn::trace {

std::string num(double v) { return fmt::format("{}", v); }

namespace {

template <class Json>
std::string dump(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

void write_iterations_csv(FileWriter out, const RunRecord& run) {
  out << "job,job_name,iteration,warm,start_s,end_s,duration_s,compute_s,comm_s,reconfig_stall_s,wait_s,"
         "circuit_bytes,tor_bytes\n";
  for (const auto& r : run.iterations)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.job, run.thread_names.at(static_cast<std::size_t>(r.job)), r.iteration, r.warm ? 1 : 0,
                       num(r.start_s), num(r.end_s), num(r.end_s - r.start_s), num(r.compute_s), num(r.comm_s),
                       num(r.reconfig_stall_s), num(r.wait_s), num(r.circuit_bytes), num(r.tor_bytes));
  out.close();
}

void write_stages_csv(FileWriter out, const RunRecord& run) {
  out << "round,stage,k,t,start_s,end_s,duration_s,predicted_s,comm_s,compute_s,bound,circuits_changed,reconfig_s\n";
  for (const auto& r : run.stages)
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.round, r.stage, r.k, r.t, num(r.start_s),
                       num(r.end_s), num(r.end_s - r.start_s), num(r.predicted_s), num(r.comm_s), num(r.compute_s),
                       r.bound, r.circuits_changed, num(r.reconfig_s));
  out.close();
}

void write_circuits_csv(FileWriter out, const RunRecord& run) {
  out << "time_s,oxc,pod_a,pod_b,old_circuits,new_circuits,reason\n";
  for (const auto& r : run.circuits)
    out << fmt::format("{},{},{},{},{},{},{}\n", num(r.time_s), r.oxc, r.pod_a, r.pod_b, r.old_circuits,
                       r.new_circuits, r.reason);
  out.close();
}

ChromeTraceWriter::ChromeTraceWriter(FileWriter out, const std::vector<std::string>& thread_names)
    : out_(std::move(out)) {
  // The same bytes as dumping {"displayTimeUnit": "ms", "traceEvents": [...]} in one piece.
  out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  const char* process_names[] = {"", "jobs", "OCS", "scheduler"};
  for (int pid = 1; pid <= 3; ++pid) {
    if (pid > 1) out_ << ",";
    out_ << dump(nlohmann::ordered_json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                                        {"args", {{"name", process_names[pid]}}}},
                 -1);
  }
  for (std::size_t tid = 0; tid < thread_names.size(); ++tid)
    out_ << "," << dump(nlohmann::ordered_json{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                                               {"args", {{"name", thread_names[tid]}}}},
                        -1);
}

void ChromeTraceWriter::event(const TraceEvent& e) {
  out_ << "," << dump(nlohmann::ordered_json{{"name", e.name}, {"cat", e.category}, {"ph", "X"}, {"pid", e.pid},
                                             {"tid", e.tid}, {"ts", e.start_s * 1e6}, {"dur", e.duration_s * 1e6}},
                      -1);
}

void ChromeTraceWriter::close() {
  out_ << "]}\n";
  out_.close();
}

void write_chrome_trace(FileWriter out, const RunRecord& run) {
  ChromeTraceWriter w(std::move(out), run.thread_names);
  for (const auto& e : run.events) w.event(e);
  w.close();
}

void write_json(FileWriter out, const nlohmann::json& value) {
  out << dump(value, 2) << "\n";
  out.close();
}

}  // namespace odcn::trace
